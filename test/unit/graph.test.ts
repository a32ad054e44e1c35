import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkDependencies,
  dependentsMap,
  findCycles,
  findCycleThrough,
  reachable,
  shortestPath,
  topologicalOrder,
} from '../../src/atoms/graph.js';

const g = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

test('topological order puts dependencies first and breaks ties by name', () => {
  const graph = g({ game_loop: ['player_jump', 'render'], player_jump: ['physics_config'], render: [], physics_config: [], a_util: [] });
  const { order, cyclic } = topologicalOrder(graph);
  assert.deepEqual(cyclic, []);
  assert.deepEqual(order, ['a_util', 'physics_config', 'player_jump', 'render', 'game_loop']);
});

test('the same atoms always give the same order, whatever the insertion order', () => {
  const a = topologicalOrder(g({ z: [], y: ['z'], x: [], w: ['x', 'y'] })).order;
  const b = topologicalOrder(g({ w: ['y', 'x'], x: [], y: ['z'], z: [] })).order;
  assert.deepEqual(a, b);
});

test('atoms on a cycle are reported, not ordered', () => {
  const { order, cyclic } = topologicalOrder(g({ a: ['b'], b: ['a'], c: [] }));
  assert.deepEqual(order, ['c']);
  assert.deepEqual(cyclic, ['a', 'b']);
});

test('a dependency that would close a cycle is named as a path', () => {
  const graph = g({ a: ['b'], b: ['c'], c: [] });
  assert.deepEqual(findCycleThrough(graph, 'c', ['a']), ['c', 'a', 'b', 'c']);
  assert.equal(findCycleThrough(graph, 'c', []), null);
  assert.throws(() => checkDependencies(graph, 'c', ['a']), /dependency cycle: c -> a -> b -> c/);
  assert.throws(() => checkDependencies(graph, 'b', ['a']), /b -> a -> b/);
});

test('missing dependencies are listed with the contract text', () => {
  assert.throws(() => checkDependencies(g({ a: [] }), 'n', ['y_missing', 'a', 'x_missing']), (err: Error) => /^dependencies not found: x_missing, y_missing\./.test(err.message));
});

test('dependents, reachability and paths', () => {
  const graph = g({ game_loop: ['player_jump'], player_jump: ['physics_config', 'math_clamp'], physics_config: [], math_clamp: [] });
  assert.deepEqual(dependentsMap(graph).get('physics_config'), ['player_jump']);
  assert.deepEqual(reachable(graph, 'game_loop'), ['math_clamp', 'physics_config', 'player_jump']);
  assert.deepEqual(reachable(dependentsMap(graph), 'math_clamp'), ['game_loop', 'player_jump']);
  assert.deepEqual(shortestPath(graph, 'game_loop', 'math_clamp'), ['game_loop', 'player_jump', 'math_clamp']);
  assert.equal(shortestPath(graph, 'math_clamp', 'game_loop'), null);
});

test('findCycles finds cycles in a graph edited by hand', () => {
  assert.deepEqual(findCycles(g({ a: ['b'], b: ['a'], c: ['c'], d: [] })), [['a', 'b', 'a'], ['c', 'c']]);
});
