/**
 * A build's order is journaled as its change from the previous build's (store/builds.ts): what lies
 * between their longest common start and end. Replay applies it; a change that does not fit (a
 * hostile or damaged journal) leaves the order unknown instead of failing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyOrderChange, orderChange, type OrderChange } from '../../src/store/builds.js';

const order = Array.from({ length: 40 }, (_, i) => `atom_${i}`);

test('an atom added, removed or moved a little is a small change that restores the order', () => {
  const added = [...order.slice(0, 12), 'fresh_atom', ...order.slice(12)];
  const removed = order.filter((n) => n !== 'atom_30');
  const moved = [...order.slice(0, 5), 'atom_7', 'atom_5', 'atom_6', ...order.slice(8)];
  for (const [next, size] of [[added, 1], [removed, 1], [moved, 6]] as const) {
    const change = orderChange(order, next)!;
    assert.ok(change, 'a change');
    assert.equal(change.removed + change.added.length, size);
    assert.deepEqual(applyOrderChange(order, change), next);
  }
  assert.deepEqual(orderChange(order, [...order]), { from: 40, at: 40, removed: 0, added: [] });
  assert.deepEqual(orderChange(order, [...order, 'last']), { from: 40, at: 40, removed: 0, added: ['last'] });
  assert.deepEqual(orderChange(order, ['first', ...order]), { from: 40, at: 0, removed: 0, added: ['first'] });
});

test('an order that changed through most of its length is written whole', () => {
  assert.equal(orderChange(order, [...order].reverse()), undefined);
  assert.equal(orderChange(order, ['only']), undefined);
});

test('a change that does not fit its order leaves it unknown', () => {
  const good = orderChange(order, [...order.slice(0, 3), 'x', ...order.slice(3)])!;
  const bad: unknown[] = [
    { ...good, from: 39 }, // another order than the one it was made from
    { ...good, at: 39, removed: 2 }, // past the end
    { ...good, at: -1 },
    { ...good, removed: 1.5 },
    { ...good, at: '3' },
    { ...good, added: 'x' },
    { ...good, added: [1] },
    { ...good, from: Number.MAX_SAFE_INTEGER + 2 },
  ];
  for (const change of bad) assert.equal(applyOrderChange(order, change as OrderChange), undefined, JSON.stringify(change));
  assert.equal(applyOrderChange([], good), undefined);
});
