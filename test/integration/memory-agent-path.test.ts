/**
 * The server's memory along the path agents take (the issue "Light on the path agents take"): the
 * shipped server (dist/cli.js serve over loopback HTTP) started with no V8 options, as VS Code's
 * extension host runs it, on an empty workspace; 1,000 generated atoms (dependencies, descriptions)
 * created one by one through upsert_atom, then reads, updates and searches. Measured as the server
 * process's peak resident memory (/proc/<pid>/status VmHWM), never by time; the embedding model
 * runs in a process of its own and is not counted.
 *
 * The target is 150 MiB, and it is not met: issue 36's second pass measured 199-211 MiB
 * (from 210-220 at 791fe64, and 251-264 for the build before the issue), most of it Node's own
 * start-up (~120 MiB before the first atom) and V8's young generation grown to 32 MiB a semi-space
 * (DEVELOPERS.md, "Memory along the write path"); `npm run bench -- agentpath` reports it against
 * the target. This test guards what was won: it fails above 240 MiB, today's level plus the noise
 * seen between runs (±6%) and another allocator, so a return to the old 251-264 MiB fails it. Lower
 * GUARD_MIB as the peak comes down; it is never raised to make a test pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { generateAtoms } from '../bench/generate.js';
import { GAME_QUERIES } from '../fixtures/game-atoms.js';
import { call, connectHttp, startServer } from '../support/server.js';
import { residentBytes } from '../support/memory.js';
import { tempDir } from '../support/tmp.js';

const MiB = 2 ** 20;
const GUARD_MIB = 240;


test(`1,000 atoms created through upsert_atom, then searched: the server's peak stays under ${GUARD_MIB} MiB`, { timeout: 1_800_000 }, async (t) => {
  if (!existsSync('/proc/self/status')) {
    t.skip("needs Linux /proc to read a process's peak resident memory");
    return;
  }
  const dir = tempDir('atomic-agent-path-');
  const server = await startServer(dir);
  try {
    const client = await connectHttp(server.url, server.token);
    try {
      const { atoms } = generateAtoms(1000);
      for (const atom of atoms) {
        const result = await call(client, 'upsert_atom', { ...atom });
        assert.equal(result.isError, false, result.text);
      }
      for (let i = 0; i < 20; i++) {
        const atom = atoms[(i * 37) % atoms.length]!;
        assert.equal((await call(client, 'read_atoms', { names: [atoms[(i * 11) % atoms.length]!.name] })).isError, false);
        const result = await call(client, 'upsert_atom', { ...atom, code: atom.code.replace(/\n}\n$/, `\n  // edit ${i}\n}\n`) });
        assert.equal(result.isError, false, result.text);
      }
      for (const { query } of GAME_QUERIES.slice(0, 8)) {
        const result = await call(client, 'semantic_search', { query });
        assert.equal(result.isError, false, result.text);
      }
    } finally {
      await client.close();
    }
    const peak = residentBytes(server.process.pid!, 'VmHWM');
    t.diagnostic(`server peak RSS: ${(peak / MiB).toFixed(1)} MiB`);
    assert.ok(
      peak <= GUARD_MIB * MiB,
      `the server peaked at ${(peak / MiB).toFixed(1)} MiB creating 1,000 atoms through the tools, over the ${GUARD_MIB} MiB guard (199-211 MiB when it was set): a write now leaves more garbage or holds more (run npm run bench -- agentpath)`,
    );
  } finally {
    await server.stop();
  }
});
