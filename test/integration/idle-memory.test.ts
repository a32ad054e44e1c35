/**
 * A server gives V8's grown heap back once it is quiet after an agent's work (src/util/idleMemory.ts):
 * the shipped server (dist/cli.js serve over HTTP, no V8 options, as the extension host runs it;
 * on the Node line that runs it there, test-integration.mjs's EXTENSION_HOST), 1,000 generated atoms
 * created through upsert_atoms, then searches. Its resident memory is read when the last answer
 * arrives and again once it has said (debug log) that it collected; nothing here is timed: the test
 * waits for the server's line, and the figures are V8's and the kernel's.
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
/**
 * Here 1,000 atoms in batches left a young generation of 32 MiB; quiet, the server gave 38 MiB back
 * (169 → 131 MiB on Node 24, 180 → 142 on Node 22). Two reads of a quiet process differ by ~1 MiB.
 */
const AT_LEAST_MIB = 20;


const GAVE_BACK = /idle: gave V8's heap back: (\d+) → (\d+) MiB held \(young generation (\d+) → (\d+) MiB/;

test(`quiet after 1,000 atoms created and searched, the server gives at least ${AT_LEAST_MIB} MiB back`, { timeout: 300_000 }, async (t) => {
  if (!existsSync('/proc/self/status')) {
    t.skip("needs Linux /proc to read a process's resident memory");
    return;
  }
  const dir = tempDir('atomic-idle-memory-');
  const server = await startServer(dir, ['--log-level', 'debug']);
  try {
    const client = await connectHttp(server.url, server.token);
    try {
      const { atoms } = generateAtoms(1000);
      for (let i = 0; i < atoms.length; i += 50) {
        const result = await call(client, 'upsert_atoms', { atoms: atoms.slice(i, i + 50) });
        assert.equal(result.isError, false, result.text);
      }
      for (const { query } of GAME_QUERIES.slice(0, 10)) assert.equal((await call(client, 'semantic_search', { query })).isError, false);
      const busy = residentBytes(server.process.pid!);
      assert.doesNotMatch(server.stderr(), GAVE_BACK, 'collected while the agent was still calling');
      let said: RegExpExecArray | null;
      while (!(said = GAVE_BACK.exec(server.stderr()))) await new Promise((r) => setTimeout(r, 200));
      const quiet = residentBytes(server.process.pid!);
      const [, heldBefore, heldAfter, youngBefore, youngAfter] = said.map(Number);
      t.diagnostic(`RSS ${(busy / MiB).toFixed(0)} → ${(quiet / MiB).toFixed(0)} MiB; V8 held ${heldBefore} → ${heldAfter} MiB, young generation ${youngBefore} → ${youngAfter} MiB`);
      assert.ok(youngAfter! < youngBefore!, `the young generation did not shrink: ${said[0]}`);
      assert.ok(
        quiet <= busy - AT_LEAST_MIB * MiB,
        `quiet, the server holds ${(quiet / MiB).toFixed(0)} MiB against ${(busy / MiB).toFixed(0)} MiB at the agent's last call: it gave back less than ${AT_LEAST_MIB} MiB (${said[0]})`,
      );
      // get_status says what was given back (and is itself the next work, served as before).
      const status = await call(client, 'get_status', {});
      assert.match(status.text, /^JavaScript heap: [\d.]+ MiB held, [\d.]+ MiB in use; [\d.]+ MiB given back when quiet \(1 time\)\.$/m);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
});
