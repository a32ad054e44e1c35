/**
 * A restore is a write like an upsert, and says what it did beyond the old version: an atom whose code
 * called the deleted atom while it was gone is linked to it again, and a restored core atom can move the boot.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AtomStore } from '../../src/store/atomStore.js';
import { upsert } from '../support/storeWrites.js';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';

let server: InProcessServer;
before(async () => {
  server = await openInProcess({ embeddings: wordsOnly });
});
after(() => server.close());

test('restoring a deleted atom links the atoms whose code calls it, and says when the boot moves', async () => {
  const ok = async (tool: string, args: Record<string, unknown>) => {
    const r = await server.call(tool, args);
    assert.ok(!r.isError, r.text);
    return r.text;
  };
  await ok('upsert_atom', { name: 'format_score', type: 'util', code: "function format_score(n) {\n  return 'Score: ' + n;\n}", inputs: [{ name: 'n', type: 'number' }] });
  await ok('upsert_atom', { name: 'main', type: 'core', code: 'function main() {\n  return 1;\n}' });
  await ok('delete_atom', { name: 'format_score' });
  await ok('delete_atom', { name: 'main' });
  // While format_score is gone, draw_hud calling it is refused, saying it can be restored (no unknown calls)...
  const draw = { name: 'draw_hud', type: 'feature', code: 'function draw_hud(n) {\n  return format_score(n);\n}', inputs: [{ name: 'n', type: 'number' }] };
  const refused = await server.call('upsert_atom', draw);
  assert.equal(refused.isError, true, refused.text);
  assert.match(refused.text, /format_score \(deleted: restore it with atom_history\)/);
  // ...but a database written otherwise (an older version, another program) can hold such a caller.
  await server.close();
  const store = await AtomStore.open(server.folder);
  await upsert(store, draw as never);
  await store.close();
  server = await openInProcess({ embeddings: wordsOnly, folder: server.folder });
  const restored = await ok('atom_history', { operation: 'restore', name: 'format_score' });
  assert.match(restored, /^Atom "format_score" restored from v1 as v3/);
  assert.match(restored, /^Linked \(their code calls it\): draw_hud$/m);
  const boot = await ok('atom_history', { operation: 'restore', name: 'main' });
  assert.match(boot, /^Boot: main \(was none\)$/m);
});
