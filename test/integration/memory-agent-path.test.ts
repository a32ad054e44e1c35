/**
 * The server's memory along the path agents take (the issue "Light on the path agents take"): the
 * shipped server (dist/cli.js serve over loopback HTTP) started with no V8 options, as VS Code's
 * extension host runs it, on an empty workspace; 1,000 generated atoms (dependencies, descriptions)
 * created one by one through upsert_atom, then reads, updates and searches. Measured as the server
 * process's peak resident memory (/proc/<pid>/status VmHWM), never by time; the embedding model
 * runs in a process of its own and is not counted.
 *
 * The target is 150 MiB; the test fails above 150 MiB × 1.3 = 195 MiB, the margin the footprint
 * test (memory.test.ts) gives for run-to-run noise and another Node version or allocator. The build
 * before this issue peaked at 251-261 MiB on this path and fails it clearly; issue 36's second pass
 * measured 199-211 MiB (from 210-220 at 791fe64): still over, by V8's young generation grown to
 * 32 MiB a semi-space (DEVELOPERS.md, "Memory along the write path"). The target is not lowered
 * here to make the test pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { generateAtoms } from '../bench/generate.js';
import { GAME_QUERIES } from '../fixtures/game-atoms.js';
import { call, connectHttp, startServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const MiB = 2 ** 20;
const TARGET_MIB = 150;
const MARGIN = 1.3;

function peakResident(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  assert.ok(kb, `no VmHWM in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

test(`1,000 atoms created through upsert_atom, then searched: the server's peak stays under ${TARGET_MIB} MiB × ${MARGIN}`, { timeout: 1_800_000 }, async (t) => {
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
    const peak = peakResident(server.process.pid!);
    t.diagnostic(`server peak RSS: ${(peak / MiB).toFixed(1)} MiB`);
    assert.ok(
      peak <= TARGET_MIB * MARGIN * MiB,
      `the server peaked at ${(peak / MiB).toFixed(1)} MiB creating 1,000 atoms through the tools, over the ${TARGET_MIB} MiB target × ${MARGIN}: a write now leaves more garbage or holds more (run npm run bench -- agentpath)`,
    );
  } finally {
    await server.stop();
  }
});
