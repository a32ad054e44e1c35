import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { MAX_CODE_BYTES, codeBytes } from '../../src/atoms/model.js';
import { createBundle } from '../../src/bundle/bundler.js';
import { BundleMap } from '../../src/preview/bundleMap.js';
import type { AtomReader } from '../../src/store/reader.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { readAtomSources } from '../../scripts/seed-example.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

const example = join(__dirname, '..', '..', 'examples', 'jumping-cube');

/**
 * The example as git holds it (atoms/ only, no .atomic/), opened from a copy: the workspace takes
 * its atoms from the text tree.
 */
async function openCommittedStore(): Promise<AtomReader & { close(): Promise<void> }> {
  const dir = tempDir('atomic-example-');
  mkdirSync(join(dir, 'atoms'));
  cpSync(join(example, 'atoms'), join(dir, 'atoms'), { recursive: true });
  const workspace = await AtomWorkspace.open(dir, { embeddings: wordsOnly });
  return Object.assign(Object.create(workspace.atoms) as AtomReader, { close: () => workspace.close() });
}

test('the jumping-cube example opens from its atoms/ files alone, every atom taken', async () => {
  const store = await openCommittedStore();
  try {
    const sources = readAtomSources(example);
    assert.ok(sources.length >= 12, `at least 12 atoms (has ${sources.length})`);
    assert.deepEqual(store.all().map((a) => a.name), sources.map((s) => s.name).sort());
    for (const source of sources) {
      const atom = store.get(source.name)!;
      assert.equal(atom.code, source.code, `${source.name}: the store matches atoms/${source.name}.js`);
      assert.equal(atom.type, source.type);
      assert.deepEqual(atom.dependencies, [...(source.dependencies ?? [])].sort());
      assert.ok(codeBytes(atom.code) <= MAX_CODE_BYTES);
      assert.ok(atom.outputs.length <= 1, `${atom.name} returns one primitive value, not an object`);
    }
    for (const name of ['physics_config', 'math_clamp', 'player_jump', 'player_movement', 'game_loop', 'input_init', 'render_frame']) {
      assert.ok(store.has(name), name);
    }
  } finally {
    await store.close();
  }
});

test('its bundle runs: the cube stands, jumps on space, and frames are drawn', async () => {
  const store = await openCommittedStore();
  const { code, entry } = createBundle(store.all());
  await store.close();
  assert.equal(entry, 'game_loop');
  const calls: string[] = [];
  const ctx = new Proxy({} as Record<string | symbol, unknown>, {
    get: (target, key) => (key in target ? target[key] : (...args: unknown[]) => calls.push(`${String(key)}(${args.join(',')})`)),
  });
  const listeners: Record<string, (e: unknown) => void> = {};
  let frames: ((t: number) => void)[] = [];
  const sandbox = {
    document: { getElementById: () => ({ getContext: () => ctx, focus() {} }) },
    window: { addEventListener: (type: string, fn: (e: unknown) => void) => (listeners[type] = fn) },
    console: { info() {} },
    requestAnimationFrame: (fn: (t: number) => void) => frames.push(fn),
    Math,
  };
  runInNewContext(code, sandbox, { filename: 'latest.js' });
  let now = 0;
  const step = (n: number) => {
    for (let i = 0; i < n; i++) {
      const due = frames;
      frames = [];
      now += 16;
      for (const f of due) f(now);
    }
  };
  const cubeY = () => {
    const rects = calls.filter((c) => c.startsWith('fillRect(')).map((c) => c.slice(9, -1).split(',').map(Number));
    return rects.filter((r) => r[2] === 40 && r[3] === 40).at(-1)![1]!;
  };
  step(5);
  assert.equal(cubeY(), 340, 'on the ground: ground_y 380 minus the 40 px cube');
  listeners.keydown!({ code: 'Space', repeat: false, preventDefault() {} });
  step(10);
  assert.ok(cubeY() < 300, `jumped (y ${cubeY()})`);
  step(120);
  assert.equal(cubeY(), 340, 'landed again');
  assert.ok(calls.some((c) => c.startsWith('fillText(Jumps: 1')), 'the HUD counts the jump');
  // Every atom of the bundle can be found from its lines.
  assert.equal(new BundleMap(code).atoms.length, 19);
});
