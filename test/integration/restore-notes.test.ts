/**
 * A restore is a write like an upsert, and says what it did beyond the old version: an atom whose code
 * called the deleted atom while it was gone is linked to it again, and a restored core atom can move the boot.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
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
  // While format_score is gone, draw_hud is written calling it (an unknown name, so no dependency yet).
  await ok('upsert_atom', { name: 'draw_hud', type: 'feature', code: 'function draw_hud(n) {\n  return format_score(n);\n}', inputs: [{ name: 'n', type: 'number' }] });
  const restored = await ok('atom_history', { operation: 'restore', name: 'format_score' });
  assert.match(restored, /^Atom "format_score" restored from v1 as v3/);
  assert.match(restored, /^Linked \(their code calls it\): draw_hud$/m);
  const boot = await ok('atom_history', { operation: 'restore', name: 'main' });
  assert.match(boot, /^Boot: main \(was none\)$/m);
});
