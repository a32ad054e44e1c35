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

/** The rule itself, slowly: again and again, the smallest name whose dependencies are all out. */
function orderByTheRule(graph: Map<string, string[]>): { order: string[]; cyclic: string[] } {
  const order: string[] = [];
  const out = new Set<string>();
  for (;;) {
    const ready = [...graph.keys()].filter((n) => !out.has(n) && graph.get(n)!.every((d) => !graph.has(d) || out.has(d))).sort();
    if (ready.length === 0) break;
    order.push(ready[0]!);
    out.add(ready[0]!);
  }
  return { order, cyclic: [...graph.keys()].filter((n) => !out.has(n)).sort() };
}

test('on random graphs (cycles, missing and repeated dependencies) the order is the rule\'s', () => {
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < 300; t++) {
    const n = 1 + Math.floor(random() * 40);
    const names = Array.from({ length: n }, (_, i) => `${random() < 0.5 ? 'a' : 'B'}${Math.floor(random() * 100)}_${i}`);
    const graph = new Map<string, string[]>();
    for (const name of names) {
      const deps = Array.from({ length: Math.floor(random() * 4) }, (_, j) => (random() < 0.1 ? `missing_${j}` : names[Math.floor(random() * n)]!));
      if (deps.length > 0 && random() < 0.2) deps.push(deps[0]!);
      graph.set(name, deps);
    }
    assert.deepEqual(topologicalOrder(graph), orderByTheRule(graph), `graph ${t}: ${JSON.stringify([...graph])}`);
  }
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
