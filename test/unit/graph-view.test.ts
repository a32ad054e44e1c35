import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Atom, AtomType } from '../../src/atoms/model.js';
import { graphSnapshot } from '../../src/protocol/graphSnapshot.js';
import { isGraphToHost, isHostToGraph, isPreviewToHost } from '../../src/protocol/webviewMessages.js';
import type { GraphSnapshot } from '../../src/protocol/webviewMessages.js';
import { AutoFit, cycleEdges, diffGraph, edgesOf, GraphIndex, gridPlaces, groupAtoms, groupEdges, groupOrder, headingPositions, overviewNameOrder, placeLabels, searchNames } from '../../media/graph/model.js';

function atom(name: string, type: AtomType, dependencies: string[] = []): Atom {
  return { name, type, code: `function ${name}() {}`, inputs: [], outputs: [], dependencies, description: null, version: 1, created_at: 't', updated_at: 't' };
}

// game_loop -> player_jump -> physics_config ; game_loop -> render -> math_clamp ; debug_dump unused
const atoms = [
  atom('debug_dump', 'util'),
  atom('game_loop', 'core', ['player_jump', 'render']),
  atom('math_clamp', 'util'),
  atom('physics_config', 'util'),
  atom('player_jump', 'feature', ['physics_config']),
  atom('render', 'feature', ['math_clamp', 'physics_config']),
];

test('the snapshot lists every atom and edge, the entry point and the atoms nothing uses', () => {
  const s = graphSnapshot(atoms);
  assert.equal(s.atoms.length, 6);
  assert.equal(s.entry, 'game_loop');
  assert.deepEqual(s.unused, ['debug_dump']);
  assert.deepEqual(s.cycles, []);
  assert.equal(s.atoms.find((a) => a.name === 'math_clamp')!.signature, '() => void');
  assert.deepEqual(edgesOf(s).map((e) => e.id).sort(), [
    'game_loop->player_jump',
    'game_loop->render',
    'player_jump->physics_config',
    'render->math_clamp',
    'render->physics_config',
  ]);
  // The status line counts the edges from the snapshot (a big overview draws them after its first paint).
  assert.equal(new GraphIndex(s).edgeCount, edgesOf(s).length);
  const dangling = { ...s, atoms: [...s.atoms, { ...s.atoms[0]!, name: 'lonely', dependencies: ['gone_atom', 'math_clamp'] }] };
  assert.equal(new GraphIndex(dangling).edgeCount, edgesOf(dangling).length, 'a dependency on no atom draws no edge');
});

test('cycles in a hand-edited database are reported and their edges marked', () => {
  const s = graphSnapshot([atom('a', 'util', ['b']), atom('b', 'util', ['a']), atom('c', 'core', ['a'])]);
  assert.deepEqual(s.cycles, [['a', 'b', 'a']]);
  assert.deepEqual([...cycleEdges(s)].sort(), ['a->b', 'b->a']);
});

test('a click lights up direct dependencies and dependents; impact and the trees follow edges transitively', () => {
  const index = new GraphIndex(graphSnapshot(atoms));
  assert.deepEqual(index.neighbourhood('player_jump'), { dependencies: ['physics_config'], dependents: ['game_loop'] });
  assert.deepEqual(index.impact('physics_config'), ['game_loop', 'player_jump', 'render']);
  assert.deepEqual(index.impact('game_loop'), []);
  assert.deepEqual(index.needs('game_loop'), ['math_clamp', 'physics_config', 'player_jump', 'render']);
  assert.deepEqual(index.treeMembers('render', 'needs'), ['render', 'math_clamp', 'physics_config']);
  assert.deepEqual(index.treeMembers('math_clamp', 'neededBy'), ['math_clamp', 'game_loop', 'render']);
});

test('the diff says what to add and remove, and whether the layout must change', () => {
  const before = graphSnapshot(atoms);
  const nodes = new Set(before.atoms.map((a) => a.name));
  const edges = new Set(edgesOf(before).map((e) => e.id));
  assert.equal(diffGraph(nodes, edges, before).structural, false, 'the same graph needs no new layout');
  const after = graphSnapshot([...atoms.filter((a) => a.name !== 'debug_dump'), atom('double_jump', 'feature', ['physics_config'])]);
  const diff = diffGraph(nodes, edges, after);
  assert.deepEqual(diff.addedNodes, ['double_jump']);
  assert.deepEqual(diff.removedNodes, ['debug_dump']);
  assert.deepEqual(diff.addedEdges, [{ id: 'double_jump->physics_config', source: 'double_jump', target: 'physics_config' }]);
  assert.deepEqual(diff.removedEdges, []);
  assert.equal(diff.structural, true);
});

test('search ranks exact, then prefix, then substring matches', () => {
  const names = atoms.map((a) => a.name);
  assert.deepEqual(searchNames(names, 'render'), ['render']);
  assert.deepEqual(searchNames(names, 'P'), ['player_jump', 'physics_config', 'game_loop', 'debug_dump', 'math_clamp']);
  assert.deepEqual(searchNames(names, '  '), []);
});

test('webview messages are checked before the host acts on them', () => {
  assert.ok(isGraphToHost({ type: 'open', name: 'player_jump' }));
  assert.ok(isGraphToHost({ type: 'rendered', nodes: 12, edges: 14, ms: 80.5, layoutMs: 20, update: false }));
  assert.ok(!isGraphToHost({ type: 'open', name: 42 }));
  assert.ok(!isGraphToHost({ type: 'rendered', nodes: -1, edges: 0, ms: 1, layoutMs: 1, update: true }));
  assert.ok(isGraphToHost({ type: 'rendered', nodes: 0, edges: 0, ms: 12, layoutMs: 3, update: false, groups: 16 }));
  const snapshot = { atoms: [], cycles: [], unused: [], entry: null };
  assert.ok(isHostToGraph({ type: 'graph', snapshot, sentAt: 1795775065776 }));
  assert.ok(!isHostToGraph({ type: 'graph', snapshot, sentAt: 'now' }));
  assert.ok(isHostToGraph({ type: 'graph', snapshot, generation: 2 }));
  assert.ok(!isHostToGraph({ type: 'graph', snapshot, generation: -1 }));
  assert.ok(!isGraphToHost({ type: 'rendered', nodes: 0, edges: 0, ms: 12, layoutMs: 3, update: false, groups: 'all' }));
  assert.ok(!isGraphToHost({ type: 'eval', code: 'x' }));
  assert.ok(!isGraphToHost(null));
  assert.ok(isPreviewToHost({ type: 'console', level: 'warn', text: 'hi', atom: 'player_jump', line: 40, atomLine: 2 }));
  assert.ok(isPreviewToHost({ type: 'runtimeError', message: 'x', stack: null, atom: null, line: null, atomLine: null }));
  assert.ok(!isPreviewToHost({ type: 'console', level: 'trace', text: 'hi', atom: null, line: null, atomLine: null }));
  assert.ok(!isPreviewToHost({ type: 'console', level: 'log', text: 'x'.repeat(10_000), atom: null, line: null, atomLine: null }));
  assert.ok(!isPreviewToHost({ type: 'runtimeError', message: 'x', stack: null, atom: null, line: 0, atomLine: null }));
});

test('the graph fits itself to its panel on resize until the user zooms or pans; Fit brings that back', () => {
  const frames: (() => void)[] = [];
  const flush = () => frames.splice(0).forEach((run) => run());
  let size = { width: 900, height: 600 };
  let fits = 0;
  let resizes = 0;
  const autoFit = new AutoFit(
    {
      resize: () => (resizes++, size),
      fit: () => void fits++,
    },
    (run) => frames.push(run),
  );
  assert.equal(autoFit.following, true, 'a new graph follows its panel');

  // Opened beside the editor and the preview: the panel narrows, in several observations in one frame.
  size = { width: 300, height: 600 };
  autoFit.resized();
  autoFit.resized();
  autoFit.resized();
  assert.equal(fits, 0, 'nothing happens before the next frame');
  flush();
  assert.deepEqual({ fits, resizes }, { fits: 1, resizes: 1 }, 'one fit per frame, after cytoscape has read the new size');

  // A hidden panel has no size: no fit into nothing; shown again, it fits.
  size = { width: 0, height: 0 };
  autoFit.resized();
  flush();
  assert.equal(fits, 1);
  size = { width: 300, height: 600 };
  autoFit.resized();
  flush();
  assert.equal(fits, 2);

  // The user zooms or pans: resizes keep their view (cytoscape still learns the new size).
  autoFit.userChoseView();
  assert.equal(autoFit.following, false);
  size = { width: 500, height: 600 };
  autoFit.resized();
  flush();
  assert.deepEqual({ fits, resizes }, { fits: 2, resizes: 4 });

  // Pressing Fit (or a new layout that fits) follows the panel again.
  autoFit.fitted();
  size = { width: 700, height: 600 };
  autoFit.resized();
  flush();
  assert.equal(fits, 3);
});

test('the overview of a big graph groups 1,000 atoms by type into blocks that fill the panel', async () => {
  {
    const { overviewLayout } = await import('../../media/graph/model.js');
    const types = ['util', 'feature', 'core'];
    const nodes = Array.from({ length: 1000 }, (_, i) => ({ id: `gen_${i}`, type: types[i % 7 === 0 ? 2 : i % 2]!, w: 90 }));
    const { positions, groups } = overviewLayout(nodes, 16 / 9);
    assert.equal(Object.keys(positions).length, 1000);
    assert.deepEqual(groups.map((g) => g.type), ['core', 'feature', 'util']);
    assert.equal(groups.reduce((n, g) => n + g.count, 0), 1000);
    const xs = Object.values(positions).map((p) => p.x);
    const ys = Object.values(positions).map((p) => p.y);
    const aspect = (Math.max(...xs) - Math.min(...xs)) / (Math.max(...ys) - Math.min(...ys));
    assert.ok(aspect > 0.8 && aspect < 3.5, `the overview is about the panel's shape, not a strip (aspect ${aspect.toFixed(2)})`);
    assert.equal(new Set(Object.values(positions).map((p) => `${p.x},${p.y}`)).size, 1000, 'no two atoms in one place');
  }
});

test("a big graph's summary groups each type's atoms by the words their names start with, in groups of at most max", () => {
  const atoms = [
    ...['main_loop', 'main_menu'].map((name) => ({ name, type: 'core' })),
    // 30 draw_* atoms: one word further splits them (draw_hud_*, draw_world_*); 3 physics_* are too few alone.
    ...Array.from({ length: 12 }, (_, i) => ({ name: `draw_hud_${i}`, type: 'feature' })),
    ...Array.from({ length: 18 }, (_, i) => ({ name: `draw_world_${i}`, type: 'feature' })),
    ...['physics_step', 'physics_gravity', 'physics_drag'].map((name) => ({ name, type: 'feature' })),
    ...['player_jump'].map((name) => ({ name, type: 'feature' })),
    // No word splits these: cut into runs by name.
    ...Array.from({ length: 25 }, (_, i) => ({ name: `m${String(i).padStart(2, '0')}`, type: 'util' })),
  ];
  const groups = groupAtoms(atoms, 20);
  const summary = groups.map((g) => `${g.type} ${g.label} ${g.members.length}`);
  assert.deepEqual(summary, [
    'core main_* 2',
    'feature draw_hud_* 12',
    'feature draw_world_* 18',
    // The small runs in name order, together: physics_* (3) and player_jump (1).
    'feature physics_drag … player_jump 4',
    'util m00 … m19 20',
    'util m20 … m24 5',
  ]);
  assert.equal(groups.reduce((n, g) => n + g.members.length, 0), atoms.length, 'every atom in one group');
  assert.ok(groups.every((g) => /^group:/.test(g.id) && g.members.length <= 20));
  assert.equal(new Set(groups.map((g) => g.id)).size, groups.length);
  // A big workspace's groups hold more: a summary of 6,000 atoms has about 60 boxes, not hundreds.
  const many = groupAtoms(Array.from({ length: 6000 }, (_, i) => ({ name: `part_${Math.floor(i / 7)}_${i}`, type: 'feature' })));
  assert.ok(many.length <= 70 && many.length >= 30, `${many.length} groups`);
  assert.equal(many.reduce((n, g) => n + g.members.length, 0), 6000);
  // Natural order: gen_l2 before gen_l10.
  const layered = groupAtoms(Array.from({ length: 12 }, (_, i) => ({ name: `gen_l${i % 12}_a${i}`, type: 'feature' })).concat(Array.from({ length: 60 }, (_, i) => ({ name: `gen_l${i % 12}_b${i}`, type: 'feature' }))), 10);
  assert.deepEqual(layered.slice(0, 3).map((g) => g.label), ['gen_l0_*', 'gen_l1_*', 'gen_l2_*']);
});

test("the summary's edges stand for the dependencies between groups, and its order puts users before what they use", () => {
  const atom = (name: string, type: string, dependencies: string[] = []) => ({ name, type, dependencies, signature: '', description: '', version: 1 });
  const snapshot = {
    atoms: [
      atom('app_main', 'core', ['ui_menu', 'ui_hud', 'math_clamp']),
      ...['ui_menu', 'ui_hud', 'ui_button', 'ui_label'].map((n) => atom(n, 'feature', ['math_clamp', 'math_lerp', 'ui_label'])),
      ...['math_clamp', 'math_lerp', 'math_min', 'math_max'].map((n) => atom(n, 'util')),
    ],
    cycles: [],
    unused: [],
    entry: 'app_main',
  } as GraphSnapshot;
  const groups = groupAtoms(snapshot.atoms, 10);
  assert.deepEqual(groups.map((g) => g.label), ['app_main', 'ui_*', 'math_*']);
  const edges = groupEdges(groups, new GraphIndex(snapshot));
  const byPair = Object.fromEntries(edges.map((e) => [`${groups.find((g) => g.id === e.source)!.label} -> ${groups.find((g) => g.id === e.target)!.label}`, e.count]));
  // Within a group (ui_* -> ui_label) is no edge; each pair's count is its atoms' dependencies.
  assert.deepEqual(byPair, { 'app_main -> ui_*': 2, 'app_main -> math_*': 1, 'ui_* -> math_*': 8 });
  const label = (id: string) => groups.find((g) => g.id === id)!.label;
  assert.deepEqual(groupOrder([...groups].reverse(), edges).map(label), ['app_main', 'ui_*', 'math_*']);
  // A cycle between groups is cut where it closes: every group still comes once.
  const cyclic = [...edges, { source: groups[2]!.id, target: groups[0]!.id }];
  assert.deepEqual(new Set(groupOrder(groups, cyclic)), new Set(groups.map((g) => g.id)));
});

test("the summary's grid is about the panel's shape, one box a cell", () => {
  const boxes = Array.from({ length: 16 }, () => ({ w: 140, h: 50 }));
  const { places, width, height } = gridPlaces(boxes, 1000 / 700);
  assert.equal(new Set(places.map((p) => `${p.x},${p.y}`)).size, 16);
  assert.ok(width / height > 0.8 && width / height < 2.5, `aspect ${(width / height).toFixed(2)}`);
  assert.deepEqual(gridPlaces([], 1), { places: [], width: 0, height: 0 });
});

test("the overview's headings never overlap and stay inside the view", () => {
  // As the e2e run saw 1,000 atoms: core two columns wide (narrower than its heading), util at the right edge.
  const groups = [{ start: 40, end: 110 }, { start: 100, end: 860 }, { start: 920, end: 990 }];
  const widths = [115, 150, 110];
  const lefts = headingPositions(groups, widths, 1000);
  assert.equal(lefts[0], 40, 'the first heading over its group');
  assert.ok(lefts[1]! >= lefts[0]! + widths[0]!, 'the next heading starts after the one before');
  assert.ok(lefts[2]! + widths[2]! <= 1000 - 4, 'the last heading inside the view');
  assert.equal(lefts[2], 990 - 110, 'aligned to its group\'s right end');
  // Zoomed in: the group that starts left of the view keeps its heading at the view's edge.
  assert.deepEqual(headingPositions([{ start: -500, end: 600 }], [150], 1000), [4]);
  // ...until its group leaves: then the heading leaves with it.
  assert.deepEqual(headingPositions([{ start: -500, end: 100 }], [150], 1000), [-50]);
});

test('the overview names the entry point first, then the most used atoms; unconnected atoms are not named', () => {
  const snapshot = {
    atoms: [
      { name: 'main', type: 'core', dependencies: ['draw', 'config'], signature: '', description: '', version: 1 },
      { name: 'draw', type: 'feature', dependencies: ['config', 'clamp'], signature: '', description: '', version: 1 },
      { name: 'config', type: 'util', dependencies: [], signature: '', description: '', version: 1 },
      { name: 'clamp', type: 'util', dependencies: [], signature: '', description: '', version: 1 },
      { name: 'lonely', type: 'util', dependencies: [], signature: '', description: '', version: 1 },
    ],
    cycles: [],
    unused: ['lonely'],
    entry: 'main',
  } as GraphSnapshot;
  assert.deepEqual(overviewNameOrder(snapshot, new GraphIndex(snapshot)), ['main', 'config', 'draw', 'clamp']);
  assert.deepEqual(overviewNameOrder(snapshot, new GraphIndex(snapshot), 2), ['main', 'config']);
});

test("the overview's names never overlap each other or the headings, and stay inside the view", () => {
  const view = { width: 300, height: 200, labelHeight: 16, reserved: [{ left: 0, top: 0, right: 120, bottom: 20 }] };
  const placed = placeLabels(
    [
      { id: 'a', x: 150, y: 100, width: 80 },
      { id: 'b', x: 170, y: 105, width: 80 }, // overlaps a: left out
      { id: 'c', x: 150, y: 130, width: 80 }, // below a: fits
      { id: 'd', x: 60, y: 30, width: 60 }, // under the heading: left out
      { id: 'e', x: 290, y: 100, width: 60 }, // past the right edge: left out
      { id: 'f', x: 60, y: 60, width: 60 },
    ],
    view,
  );
  assert.deepEqual(placed.map((p) => p.id), ['a', 'c', 'f']);
  assert.deepEqual(placed[0], { id: 'a', left: 110, top: 82 }, 'centred just above its atom');
  assert.equal(placeLabels([{ id: 'a', x: 50, y: 50, width: 20 }, { id: 'b', x: 150, y: 50, width: 20 }], { ...view, reserved: [], max: 1 }).length, 1);
});
