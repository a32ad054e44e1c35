import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { createBundle } from '../../src/bundle/bundler.js';
import { BundleMap } from '../../src/preview/bundleMap.js';
import { describeUpdate, developmentBundle, FRAME_SWAP_LISTENER, planUpdate, SWAP_HOOK, type LiveState } from '../../src/preview/hotSwap.js';
import { isHostToPreview, isPreviewToHost } from '../../src/protocol/webviewMessages.js';
import type { Atom } from '../../src/atoms/model.js';

function atom(name: string, code: string, dependencies: string[] = [], type: Atom['type'] = 'util'): Atom {
  return { name, type, code, dependencies, inputs: [], outputs: [], description: null, version: 1, created_at: 't', updated_at: 't' } as unknown as Atom;
}

const counter = atom('counter', 'function counter() {\n  counter.n = (counter.n || 0) + 1;\n  return counter.n * scale();\n}', ['scale']);
const scale = atom('scale', 'function scale() { return 1; }');
const main = atom('main', 'function main() { self.tick = function () { return counter(); }; }', ['counter'], 'core');
const state = (atoms: Atom[], entry = 'main', page: string | null = null): LiveState => ({ atoms: new Map(atoms.map((a) => [a.name, a])), entry, page });

test('planUpdate: swaps changed atoms, restarts for the boot atom, the page, a deleted atom still called, hot swap off', () => {
  const running = state([counter, scale, main]);
  const scale2 = atom('scale', 'function scale() { return 10; }');
  assert.deepEqual(planUpdate(running, state([counter, scale2, main]), true), { kind: 'swap', atoms: [{ name: 'scale', code: scale2.code }] });
  assert.equal(describeUpdate(planUpdate(running, state([counter, scale2, main]), true)), 'swapped: scale');
  assert.deepEqual(planUpdate(running, state([counter, scale, main]), true), { kind: 'none' });
  assert.deepEqual(planUpdate(running, state([counter, scale, atom('main', main.code + ' ', ['counter'], 'core')]), true), { kind: 'restart', reason: 'boot atom changed' });
  assert.deepEqual(planUpdate(running, state([counter, scale, main], 'main', '<p>'), true), { kind: 'restart', reason: 'the page changed' });
  assert.equal(planUpdate(running, state([counter, main]), true).kind, 'restart', 'scale is deleted and counter still calls it');
  assert.match(describeUpdate(planUpdate(running, state([counter, main]), true)), /^restarted: deleted atom scale is still called by counter$/);
  assert.equal(planUpdate(running, state([counter, scale2, main]), false).kind, 'restart');
  assert.equal(planUpdate(undefined, running, true).kind, 'restart');
});

test('the development form swaps in place: the next call runs the new code, state on the function survives, lines stay', () => {
  const bundle = createBundle([counter, scale, main]).code;
  const dev = developmentBundle(bundle);
  assert.equal(dev.split('\n').length, bundle.split('\n').length + 1);
  assert.ok(dev.includes(`\n${SWAP_HOOK}\n  // Boot\n`));
  assert.deepEqual(new BundleMap(dev).atoms, new BundleMap(bundle).atoms, 'every atom on the same lines');
  const sent: unknown[] = [];
  let listener: ((e: { source: unknown; data: unknown }) => void) | undefined;
  const parent = {};
  const context: Record<string, unknown> = { parent, Object, Array, String, Error };
  context.self = context;
  context.window = { addEventListener: (_type: string, fn: typeof listener) => (listener = fn) };
  runInNewContext(`var send = function (m) { sentReports.push(m); };${FRAME_SWAP_LISTENER}`, Object.assign(context, { sentReports: sent }));
  runInNewContext(dev, context);
  const tick = context.tick as () => number;
  assert.equal(tick(), 1);
  assert.equal(tick(), 2);
  listener!({ source: parent, data: { source: 'atomic-host', kind: 'swap', id: 2, atoms: [{ name: 'scale', code: 'function scale() { return 100; }' }, { name: 'counter', code: 'function counter() {\n  counter.n = (counter.n || 0) + 1;\n  return -counter.n * scale();\n}' }] } });
  assert.deepEqual(JSON.parse(JSON.stringify(sent.at(-1))), { source: 'atomic-preview', kind: 'swapped', id: 2, names: ['scale', 'counter'] });
  assert.equal(tick(), -300, 'new code for both, and counter.n kept (3)');
  // A message from anyone but the parent is ignored; a broken atom changes nothing and says why.
  listener!({ source: {}, data: { source: 'atomic-host', kind: 'swap', id: 3, atoms: [{ name: 'scale', code: 'function scale() { return 0; }' }] } });
  assert.equal(tick(), -400);
  listener!({ source: parent, data: { source: 'atomic-host', kind: 'swap', id: 4, atoms: [{ name: 'scale', code: 'function scale() { return 0; }' }, { name: 'counter', code: 'function counter( {' }] } });
  assert.equal((sent.at(-1) as { kind: string }).kind, 'swapFailed');
  assert.equal(tick(), -500);
});

test('the swap messages are checked both ways', () => {
  const build = { status: 'success', atomCount: 1, createdAt: 't', error: null };
  assert.ok(isHostToPreview({ type: 'swap', atoms: [{ name: 'scale', code: 'function scale() {}' }], from: 1, generation: 2, build }));
  assert.ok(!isHostToPreview({ type: 'swap', atoms: [{ name: 'x; alert(1)', code: '' }], from: 1, generation: 2, build }));
  assert.ok(!isHostToPreview({ type: 'swap', atoms: 'no', from: 1, generation: 2, build }));
  assert.ok(isHostToPreview({ type: 'load', bundle: '', page: null, build, generation: 3, hotSwap: true, reason: 'Restart button' }));
  assert.ok(!isHostToPreview({ type: 'load', bundle: '', page: null, build, generation: 3, hotSwap: 'yes' }));
  assert.ok(isPreviewToHost({ type: 'swapped', generation: 2, names: ['scale'] }));
  assert.ok(!isPreviewToHost({ type: 'swapped', generation: 2, names: ['Scale!'] }));
  assert.ok(isPreviewToHost({ type: 'swapFailed', generation: 2, message: 'x' }));
  assert.ok(!isPreviewToHost({ type: 'swapFailed', generation: -1, message: 'x' }));
});
