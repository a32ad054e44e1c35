import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codeNames } from '../../src/atoms/calls.js';
import { isPageGlobal, nearestNames, unknownNames, unknownNamesError } from '../../src/atoms/unknownNames.js';

const atoms = new Set(['draw_rect', 'clamp', 'draw_scene', 'game_state']);
const isAtom = (n: string) => atoms.has(n);

describe('no unknown calls', () => {
  test('a call to a name that is no atom, no local and no page global is unknown; atoms, locals and globals are not', () => {
    const code = `function draw_scene(ctx, w) {
  const h = clamp(w, 0, Math.max(1, innerHeight));
  requestAnimationFrame(() => draw_rectt(ctx, 0, 0, w, h));
  console.log(performance.now(), document.title, window.devicePixelRatio, arguments.length);
  return draw_rect(ctx, 0, 0, w, h) && new Map() && JSON.stringify([NaN, undefined, globalThis]);
}`;
    assert.deepEqual(unknownNames(code, isAtom), ['draw_rectt']);
  });

  test('a name used only under typeof is not checked (it never throws); window.name is a property, not a name', () => {
    assert.deepEqual(unknownNames('function f() { return typeof THREE === "object" ? window.THREE.REVISION : 0; }', isAtom), []);
    assert.deepEqual(unknownNames('function f() { return typeof THREE === "object" ? THREE.REVISION : 0; }', isAtom), ['THREE']);
    assert.deepEqual(codeNames('function f() { return typeof a + b; }').typeofOnly, ['a']);
  });

  test('Node\'s globals are not the page\'s; code that does not parse is left to validation', () => {
    assert.deepEqual(unknownNames('function f() { return process.env.HOME + require("fs") + Buffer.from("") + __dirname; }', isAtom), [
      'process',
      'require',
      'Buffer',
      '__dirname',
    ]);
    assert.deepEqual(unknownNames('function f( {', isAtom), []);
    for (const name of ['window', 'document', 'requestAnimationFrame', 'performance', 'console', 'Math', 'localStorage', 'fetch', 'setTimeout', 'Promise', 'arguments']) {
      assert.ok(isPageGlobal(name), name);
    }
  });

  test('"did you mean" names the nearest atoms by edit distance, at most 3, only when close', () => {
    const names = ['draw_rect', 'draw_rects', 'draw_circle', 'clamp', 'draw_recta', 'draw_rec'];
    assert.deepEqual(nearestNames('draw_rectt', names), ['draw_rect', 'draw_recta', 'draw_rects']);
    assert.deepEqual(nearestNames('drawRect', names), ['draw_rect', 'draw_rec', 'draw_recta']);
    assert.deepEqual(nearestNames('clmap', names), ['clamp'], 'a swap of two letters is one slip');
    assert.deepEqual(nearestNames('spawn_enemy', names), []);
  });

  test('the refusal lists each unknown name with its nearest atoms, or says it was deleted', () => {
    const err = unknownNamesError('draw_scene', ['draw_rectt', 'old_helper', 'zzz'], () => atoms, (n) => n === 'old_helper');
    assert.equal(err.code, 'unknown_names');
    assert.match(err.message, /^draw_scene uses names that are no atom, no parameter or local, and no global of the preview page: draw_rectt \(did you mean draw_rect\?\); old_helper \(deleted: restore it with atom_history\); zzz\. /);
  });
});
