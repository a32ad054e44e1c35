/**
 * Eight MCP clients at once, five over HTTP and three over stdio bridged to the same server,
 * upsert, delete and read in parallel. Afterwards every acknowledged write is in the database,
 * versions are consecutive, no edge dangles, and latest.js holds exactly the final atoms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { call, connectHttp, connectStdio, startServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const HTTP_CLIENTS = 5;
const STDIO_CLIENTS = 3;
const OPS_PER_CLIENT = 50;

type Expected = Map<string, string | null>; // name -> code of the last acknowledged write (null: deleted)

function atomCode(name: string, marker: string, deps: string[]): string {
  return `function ${name}() {\n  return ${JSON.stringify(marker)}${deps.map((d) => ` + ${d}()`).join('')};\n}`;
}

async function worker(client: Client, id: number, expected: Expected, counterAcks: { n: number }, stats: { ok: number; refused: number }): Promise<void> {
  const own = (k: number) => `c${id}_atom_${k}`;
  let seed = id * 7919 + 1;
  const rand = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  for (let op = 0; op < OPS_PER_CLIENT; op++) {
    const kind = rand(10);
    if (kind < 5) {
      // Upsert one of this client's atoms, sometimes depending on another of its own.
      const k = rand(6);
      const name = own(k);
      const dep = k > 0 && rand(2) === 0 && expected.get(own(k - 1)) ? [own(k - 1)] : [];
      const code = atomCode(name, `${id}:${op}`, dep);
      const r = await call(client, 'upsert_atom', { name, type: 'util', code, dependencies: dep });
      if (r.isError) stats.refused++;
      else {
        expected.set(name, code);
        stats.ok++;
      }
    } else if (kind < 7) {
      const name = own(rand(6));
      const r = await call(client, 'delete_atom', { name });
      if (r.isError) {
        assert.match(r.text, /^Error: (Atom "\S+" not found|Cannot delete "\S+": used by \[)/, r.text);
        stats.refused++;
      } else {
        expected.set(name, null);
        stats.ok++;
      }
    } else if (kind < 8) {
      const code = `function shared_counter() {\n  return ${JSON.stringify(`${id}:${op}`)};\n}`;
      const r = await call(client, 'upsert_atom', { name: 'shared_counter', type: 'util', code });
      assert.equal(r.isError, false, r.text);
      counterAcks.n++;
      stats.ok++;
    } else {
      const r = await call(client, 'get_code_structure', {});
      assert.equal(r.isError, false);
      JSON.parse(r.text);
      stats.ok++;
    }
  }
}

test(`${HTTP_CLIENTS} HTTP and ${STDIO_CLIENTS} bridged stdio clients in parallel lose no acknowledged write`, { timeout: 240_000 }, async () => {
  const workspace = tempDir();
  const server = await startServer(workspace);
  const clients: Client[] = [];
  for (let i = 0; i < HTTP_CLIENTS; i++) clients.push(await connectHttp(server.url, server.token, `http-${i}`));
  for (let i = 0; i < STDIO_CLIENTS; i++) clients.push((await connectStdio(workspace)).client);

  const expectations: Expected[] = clients.map(() => new Map());
  const counterAcks = { n: 0 };
  const stats = { ok: 0, refused: 0 };
  await Promise.all(clients.map((c, i) => worker(c, i, expectations[i]!, counterAcks, stats)));
  for (const c of clients) await c.close();
  assert.equal(await server.stop(), 0);

  const store = await AtomStore.open(workspace);
  try {
    let lost = 0;
    for (const expected of expectations) {
      for (const [name, code] of expected) {
        const atom = store.get(name);
        if (code === null ? atom !== undefined : atom?.code !== code) lost++;
      }
    }
    assert.equal(lost, 0, 'every acknowledged write is in the database');
    for (const atom of store.all()) {
      const versions = store.history(atom.name).map((v) => v.version).reverse();
      assert.deepEqual(versions, versions.map((_, k) => k + 1), `${atom.name}: versions are consecutive`);
      for (const d of atom.dependencies) assert.ok(store.has(d), `${atom.name} -> ${d} does not dangle`);
    }
    assert.equal(store.get('shared_counter')!.version, counterAcks.n, 'each acknowledged upsert of the shared atom is one version');
    const bundle = readFileSync(join(workspace, '.atomic', 'latest.js'), 'utf8');
    const order = /^\/\/ Order: (.*)$/m.exec(bundle)![1]!.split(' -> ').filter(Boolean).sort();
    assert.deepEqual(order, store.all().map((a) => a.name), 'latest.js holds exactly the final atoms');
    process.stderr.write(
      `concurrency: ${clients.length} clients, ${stats.ok + stats.refused} operations (${stats.ok} acknowledged, ${stats.refused} refused as expected), lost writes = ${lost}\n`,
    );
  } finally {
    await store.close();
  }
});
