import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Port } from '../../src/atoms/model.js';
import { returnProblems } from '../../src/atoms/ports.js';

const port = (name: string, type: Port['type'], optional = false): Port => ({ name, type, ...(optional ? { optional } : {}) });

test('a return value is held to the declared outputs: one output is the value, several an object with those keys', () => {
  assert.deepEqual(returnProblems([], 'anything'), [], 'no outputs declared: nothing to hold it to');
  assert.deepEqual(returnProblems([port('n', 'number')], 3), []);
  assert.deepEqual(returnProblems([port('n', 'number')], '3'), ['the output n must be a number, got "3" (a string)']);
  assert.deepEqual(returnProblems([port('n', 'number', true)], undefined), []);
  assert.deepEqual(returnProblems([port('done', 'void')], undefined), []);
  assert.deepEqual(returnProblems([port('done', 'void')], 1), ['the output done is void, but it returned 1 (a number)']);
  assert.deepEqual(returnProblems([port('xs', 'string[]')], ['a', 1]), ['the output xs must be a string[], got ["a",1] (an array) (element 1 is a number)']);
  const two = [port('x', 'number'), port('y', 'boolean'), port('label', 'string', true)];
  assert.deepEqual(returnProblems(two, { x: 1, y: false }), []);
  assert.deepEqual(returnProblems(two, { x: 1 }), ['the key y is missing: expected a boolean']);
  assert.deepEqual(returnProblems(two, { x: '1', y: true, label: 2 }), ['x must be a number, got "1" (a string)', 'label must be a string, got 2 (a number)']);
  assert.deepEqual(returnProblems(two, 5), ['the outputs (x, y, label) must be an object with those keys, got 5 (a number)']);
});
