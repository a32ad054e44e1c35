/**
 * The server killed (SIGKILL) at random moments while clients write, again and again. Every
 * time: the next server starts despite the stale lock and server.json, the database opens,
 * every write acknowledged before the kill is there, and search works again (its index is
 * repaired or rebuilt from the database).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, connectHttp, startServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const KILLS = 6;
const WRITERS = 3;

test(`the server survives ${KILLS} SIGKILLs under load with no acknowledged write lost`, { timeout: 600_000 }, async () => {
  const workspace = tempDir();
  const acked = new Map<string, string>();
  let total = 0;
  for (let round = 0; round < KILLS; round++) {
    if (round > 0) {
      assert.ok(existsSync(join(workspace, '.atomic', 'lock')), 'a stale lock was left behind by the kill');
      assert.ok(existsSync(join(workspace, '.atomic', 'server.json')), 'a stale server.json was left behind');
    }
    const server = await startServer(workspace);
    const clients = await Promise.all(Array.from({ length: WRITERS }, (_, i) => connectHttp(server.url, server.token, `w${i}`)));

    // Everything acknowledged in earlier rounds is still there.
    const names = [...acked.keys()];
    for (let i = 0; i < names.length; i += 50) {
      const r = await call(clients[0]!, 'read_atoms', { names: names.slice(i, i + 50) });
      assert.equal(r.isError, false, `round ${round}: ${r.text.slice(0, 200)}`);
      for (const n of names.slice(i, i + 50)) assert.ok(r.text.includes(acked.get(n)!), `round ${round}: ${n} has its acknowledged code`);
    }
    if (round > 0) {
      const s = await call(clients[0]!, 'semantic_search', { query: `crash round ${round - 1} writer`, limit: 3 });
      assert.equal(s.isError, false, `search works after the kill: ${s.text.slice(0, 200)}`);
      assert.match(s.text, /crash_r\d+_w\d+_\d+/);
    }

    let stop = false;
    const writers = clients.map(async (client, w) => {
      for (let k = 0; !stop; k++) {
        const name = `crash_r${round}_w${w}_${k}`;
        const code = `function ${name}() {\n  return ${round * 1000 + k};\n}`;
        try {
          const r = await call(client, 'upsert_atom', { name, type: 'util', code, description: `Written by crash round ${round} writer ${w}` });
          if (!r.isError) {
            acked.set(name, code);
            total++;
          }
        } catch {
          return; // the kill cut this call off: it was never acknowledged
        }
      }
    });
    // Kill at a random moment once writes are flowing (a few acknowledged, more in flight).
    const before = total;
    const deadline = Date.now() + 30_000;
    while (total - before < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, Math.random() * 400));
    await server.stop('SIGKILL');
    stop = true;
    // Closing the clients ends calls the kill cut off (the SDK would otherwise wait to resume them).
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(writers);
  }
  // One last start proves the final kill's leftovers do not block either.
  const server = await startServer(workspace);
  const client = await connectHttp(server.url, server.token);
  const structure = JSON.parse((await call(client, 'get_code_structure')).text) as { name: string }[];
  const present = new Set(structure.map((a) => a.name));
  const lost = [...acked.keys()].filter((n) => !present.has(n));
  assert.deepEqual(lost, []);
  await client.close();
  assert.equal(await server.stop(), 0);
  process.stderr.write(`server crash: ${KILLS} kills survived, ${total} acknowledged writes, lost writes = ${lost.length}\n`);
});
