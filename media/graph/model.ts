/**
 * The graph webview's pure part: which nodes and edges a snapshot has, what changed between two
 * snapshots, and the sets that a click, the impact control and the tree modes light up. No DOM and no
 * cytoscape here, so it is unit-tested in Node.
 */
import { dependentsMap, reachable } from '../../src/atoms/graph.js';
import type { GraphSnapshot, GraphViewMode } from '../../src/protocol/webviewMessages.js';

/** An edge from an atom to one of its dependencies; its id is stable across snapshots. */
export interface EdgeSpec {
  id: string;
  source: string;
  target: string;
}

export function edgeId(source: string, target: string): string {
  return `${source}->${target}`;
}

export function edgesOf(snapshot: GraphSnapshot): EdgeSpec[] {
  const names = new Set(snapshot.atoms.map((a) => a.name));
  return snapshot.atoms.flatMap((a) =>
    a.dependencies.filter((d) => names.has(d)).map((d) => ({ id: edgeId(a.name, d), source: a.name, target: d })),
  );
}

/** Edges that lie on one of the snapshot's cycles. */
export function cycleEdges(snapshot: GraphSnapshot): Set<string> {
  const out = new Set<string>();
  for (const cycle of snapshot.cycles) for (let i = 0; i + 1 < cycle.length; i++) out.add(edgeId(cycle[i]!, cycle[i + 1]!));
  return out;
}

export interface GraphDiff {
  addedNodes: string[];
  removedNodes: string[];
  addedEdges: EdgeSpec[];
  removedEdges: string[];
  /** True when nodes or edges came or went, so the layout must be computed again. */
  structural: boolean;
}

/** What turns the drawn graph (`nodes`, `edges` ids) into `next`. */
export function diffGraph(nodes: ReadonlySet<string>, edges: ReadonlySet<string>, next: GraphSnapshot): GraphDiff {
  const nextNodes = new Set(next.atoms.map((a) => a.name));
  const nextEdges = edgesOf(next);
  const nextEdgeIds = new Set(nextEdges.map((e) => e.id));
  const addedNodes = [...nextNodes].filter((n) => !nodes.has(n));
  const removedNodes = [...nodes].filter((n) => !nextNodes.has(n));
  const addedEdges = nextEdges.filter((e) => !edges.has(e.id));
  const removedEdges = [...edges].filter((e) => !nextEdgeIds.has(e));
  const structural = addedNodes.length + removedNodes.length + addedEdges.length + removedEdges.length > 0;
  return { addedNodes, removedNodes, addedEdges, removedEdges, structural };
}

/** Dependency and dependent maps of a snapshot, for the traversals below. */
export class GraphIndex {
  readonly dependencies: Map<string, string[]>;
  readonly dependents: Map<string, string[]>;
  /** The dependencies drawn as edges: those between two of the snapshot's atoms (as edgesOf). */
  readonly edgeCount: number;

  constructor(snapshot: GraphSnapshot) {
    this.dependencies = new Map(snapshot.atoms.map((a) => [a.name, a.dependencies]));
    this.dependents = dependentsMap(this.dependencies);
    let edges = 0;
    for (const ds of this.dependencies.values()) for (const d of ds) if (this.dependencies.has(d)) edges++;
    this.edgeCount = edges;
  }

  has(name: string): boolean {
    return this.dependencies.has(name);
  }

  /** A click: the atom, what it uses and what uses it, directly. */
  neighbourhood(name: string): { dependencies: string[]; dependents: string[] } {
    return { dependencies: [...(this.dependencies.get(name) ?? [])], dependents: [...(this.dependents.get(name) ?? [])] };
  }

  /** Everything a change to `name` can affect: every atom that depends on it, transitively. */
  impact(name: string): string[] {
    return reachable(this.dependents, name);
  }

  /** Everything `name` needs, transitively. */
  needs(name: string): string[] {
    return reachable(this.dependencies, name);
  }

  /** The atoms a tree mode shows for `root`: the root and what it needs, or what needs it. */
  treeMembers(root: string, mode: Exclude<GraphViewMode, 'graph'>): string[] {
    return [root, ...(mode === 'needs' ? this.needs(root) : this.impact(root))];
  }
}

/** Names matching a search box text: exact first, then prefix, then substring; case-insensitive. */
export function searchNames(names: Iterable<string>, query: string): string[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const rank = (n: string) => (n === q ? 0 : n.startsWith(q) ? 1 : 2);
  return [...names]
    .filter((n) => n.includes(q))
    .sort((a, b) => rank(a) - rank(b) || a.length - b.length || (a < b ? -1 : 1));
}

/** What following the panel's size needs from the drawing (cytoscape in the page, a fake in tests). */
export interface FitTarget {
  /** Re-reads the container's size (cytoscape's resize()) and returns it. */
  resize(): { width: number; height: number };
  /** Fits the visible graph into the view. */
  fit(): void;
}

/**
 * Keeps the whole graph in view while its panel changes size (the graph opened beside the editor and the
 * preview, a sidebar toggled), until the user chooses a view of their own: after a zoom, a pan or finding an
 * atom, resizes keep that view. Any fit of the whole graph (the Fit button, a new layout) follows the panel
 * again. Resizes are coalesced into one fit per animation frame.
 */
export class AutoFit {
  private follow = true;
  private scheduled = false;

  constructor(
    private readonly target: FitTarget,
    private readonly nextFrame: (run: () => void) => void,
  ) {}

  /** Whether a resize fits the graph. */
  get following(): boolean {
    return this.follow;
  }

  /** The container changed size (a ResizeObserver callback). */
  resized(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.nextFrame(() => {
      this.scheduled = false;
      const { width, height } = this.target.resize();
      // A hidden panel has no size: fitting into nothing would zoom out to the minimum.
      if (this.follow && width > 0 && height > 0) this.target.fit();
    });
  }

  /** The user zoomed, panned or brought an atom into view: resizes keep their view from now on. */
  userChoseView(): void {
    this.follow = false;
  }

  /** The whole graph was fitted into view: resizes fit it again. */
  fitted(): void {
    this.follow = true;
  }
}

/** One atom as the overview places it: its name, type and drawn width. */
export interface OverviewNode {
  id: string;
  type: string;
  w: number;
}

export interface OverviewGroup {
  type: string;
  count: number;
  /** The group's top-left corner and size in graph coordinates (for its heading). */
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where each overview heading goes, left to right, in the view's pixels: over the start of its group,
 * but never over the heading before it (a narrow group, e.g. 55 core atoms in two columns, is narrower
 * than "core · 55 atoms"), and kept inside the view while its group is in it: a group that starts left
 * of the view keeps its heading at the view's left edge, and a heading that would run past the right
 * edge is aligned to its group's right end instead. `groups` are the groups' left and right ends on
 * screen, in order; `widths` the headings' widths.
 */
export function headingPositions(groups: readonly { start: number; end: number }[], widths: readonly number[], viewWidth: number, margin = 4): number[] {
  let minLeft = -Infinity;
  return groups.map((g, i) => {
    const w = widths[i] ?? 0;
    let left = Math.max(g.start, Math.min(margin, g.end - w), minLeft);
    if (left + w > viewWidth - margin) left = Math.max(minLeft, Math.min(left, g.end - w, viewWidth - margin - w));
    minLeft = left + w + 6;
    return left;
  });
}

/** The order the overview shows the types in: the entry points first, tests last. */
const TYPE_ORDER = ['core', 'feature', 'util', 'test'];

/**
 * The overview of a big graph, computed in one pass (milliseconds at thousands of atoms, where the
 * layered layout takes many seconds): the atoms grouped by type, each group a block of rows sorted by
 * name (so atoms named alike, usually neighbours, sit together), the blocks side by side and shaped so
 * the whole fills a panel of the given aspect ratio (width / height): fitted, it is readable, not a
 * strip. The layers are one click away (Layout), and a click on an atom lights its neighbourhood.
 */
export function overviewLayout(nodes: readonly OverviewNode[], aspect: number): { positions: Record<string, { x: number; y: number }>; groups: OverviewGroup[] } {
  const byType = new Map<string, OverviewNode[]>();
  for (const n of nodes) {
    const list = byType.get(n.type);
    if (list) list.push(n);
    else byType.set(n.type, [n]);
  }
  const types = [...byType.keys()].sort((a, b) => (TYPE_ORDER.indexOf(a) + 1 || 99) - (TYPE_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
  const cellW = Math.max(40, ...nodes.map((n) => n.w)) + 16;
  const cellH = 40;
  const gap = cellW;
  // One height for every block: the rows that make the whole about `aspect` wide for its height.
  const rows = Math.max(1, Math.ceil(Math.sqrt((nodes.length * cellW) / (Math.max(0.2, aspect) * cellH))));
  const positions: Record<string, { x: number; y: number }> = {};
  const groups: OverviewGroup[] = [];
  let left = 0;
  for (const type of types) {
    const members = byType.get(type)!.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const cols = Math.ceil(members.length / rows);
    members.forEach((n, i) => {
      positions[n.id] = { x: left + Math.floor(i / rows) * cellW + cellW / 2, y: (i % rows) * cellH + cellH / 2 };
    });
    groups.push({ type, count: members.length, x: left, y: 0, width: cols * cellW, height: Math.min(rows, members.length) * cellH });
    left += cols * cellW + gap;
  }
  return { positions, groups };
}

/**
 * The atoms the overview names at a zoom where their own labels are too small to draw, most telling
 * first: the entry point, then the most used (most dependents), then those that use the most; ties by name.
 * At most `max`: the view places as many as fit.
 */
export function overviewNameOrder(snapshot: GraphSnapshot, index: GraphIndex, max = 200): string[] {
  const score = (name: string) => (index.dependents.get(name)?.length ?? 0) * 1000 + (index.dependencies.get(name)?.length ?? 0);
  const ranked = snapshot.atoms
    .map((a) => a.name)
    .filter((n) => n !== snapshot.entry && score(n) > 0)
    .sort((a, b) => score(b) - score(a) || (a < b ? -1 : 1));
  return [...(snapshot.entry ? [snapshot.entry] : []), ...ranked].slice(0, max);
}

/** A name to show over the overview: its atom's place on screen (the top middle of its box) and the name's width. */
export interface LabelCandidate {
  id: string;
  x: number;
  y: number;
  width: number;
}

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Where the overview's names go, like a map's: each name centred just above its atom, in the order given
 * (the most telling first), kept only if it is inside the view and clear of every name placed before it and
 * of the `reserved` boxes (the group headings). At most `max` names. Returns each placed name's top-left.
 */
export function placeLabels(
  candidates: readonly LabelCandidate[],
  view: { width: number; height: number; labelHeight: number; reserved?: readonly Box[]; max?: number; gap?: number },
): { id: string; left: number; top: number }[] {
  const gap = view.gap ?? 2;
  const taken: Box[] = [...(view.reserved ?? [])];
  const out: { id: string; left: number; top: number }[] = [];
  for (const c of candidates) {
    if (out.length >= (view.max ?? 40)) break;
    const box = { left: c.x - c.width / 2, top: c.y - view.labelHeight - gap, right: c.x + c.width / 2, bottom: c.y - gap };
    if (box.left < 0 || box.top < 0 || box.right > view.width || box.bottom > view.height) continue;
    if (taken.some((t) => box.left < t.right + gap && t.left < box.right + gap && box.top < t.bottom && t.top < box.bottom)) continue;
    taken.push(box);
    out.push({ id: c.id, left: box.left, top: box.top });
  }
  return out;
}

/** A box of a big graph's summary: atoms of one type whose names start alike. */
export interface AtomGroup {
  /** `group:<type>:<n>`: never an atom's name (atom names are snake_case words). */
  id: string;
  type: string;
  /** What the box says: the words its atoms' names start with (`draw_*`), or its first and last names. */
  label: string;
  /** Its atoms, by name. */
  members: string[];
}

const naturalOrder = new Intl.Collator('en', { numeric: true });

/** A group of fewer atoms than this (or a quarter of the most a group holds) is put together with its neighbours in name order. */
const MIN_GROUP = 4;
/** Past this many groups a group holds more atoms than `max`: a summary of hundreds of boxes is no summary. */
const MAX_GROUPS = 60;

/**
 * The summary of a big graph, what it first shows: each type's atoms in groups of at most `max`, by the
 * words their names start with (atoms named alike are usually neighbours: `draw_*`, `player_*`), looked at
 * one word further while a group is too big; runs of small groups go together, and a group that no word
 * splits is cut into runs by name. Groups come in the overview's type order, each type's in name order.
 * A big workspace's groups hold more, so that there are about MAX_GROUPS of them at most.
 */
export function groupAtoms(atoms: readonly { name: string; type: string }[], max = 80): AtomGroup[] {
  const cap = Math.max(MIN_GROUP, max, Math.ceil(atoms.length / MAX_GROUPS));
  const byType = new Map<string, string[]>();
  for (const a of atoms) {
    const list = byType.get(a.type);
    if (list) list.push(a.name);
    else byType.set(a.type, [a.name]);
  }
  const types = [...byType.keys()].sort((a, b) => (TYPE_ORDER.indexOf(a) + 1 || 99) - (TYPE_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
  const out: AtomGroup[] = [];
  for (const type of types) {
    // In natural order (gen_l2 before gen_l10), as a person reads a list.
    const names = byType.get(type)!.sort(naturalOrder.compare);
    const runs = packRuns(byPrefix(names, 0, cap), cap);
    const labels = runs.map(groupLabel);
    // Two runs of one prefix (a group cut by name) are told apart by their first and last names.
    const repeated = new Set(labels.filter((l, i) => labels.indexOf(l) !== i));
    runs.forEach((members, i) => {
      const label = repeated.has(labels[i]!) ? `${members[0]} … ${members.at(-1)}` : labels[i]!;
      out.push({ id: `group:${type}:${i}`, type, label, members });
    });
  }
  return out;
}

/** Sorted names in groups of at most `max`, by their first `depth + 1` words, then further words. */
function byPrefix(names: string[], depth: number, max: number): string[][] {
  if (names.length <= max) return [names];
  const buckets = new Map<string, string[]>();
  for (const n of names) {
    const key = n.split('_').slice(0, depth + 1).join('_');
    const bucket = buckets.get(key);
    if (bucket) bucket.push(n);
    else buckets.set(key, [n]);
  }
  if (buckets.size > 1) return [...buckets.values()].flatMap((b) => byPrefix(b, depth + 1, max));
  // Every name starts with these words: one word further, unless no name has more; then runs by name.
  if (names.some((n) => n.split('_').length > depth + 1)) return byPrefix(names, depth + 1, max);
  const runs: string[][] = [];
  for (let i = 0; i < names.length; i += max) runs.push(names.slice(i, i + max));
  return runs;
}

/** Neighbouring small groups (see MIN_GROUP) together, up to `max` atoms a run. */
function packRuns(groups: string[][], max: number): string[][] {
  const out: string[][] = [];
  let run: string[] = [];
  for (const g of groups) {
    if (g.length >= Math.max(MIN_GROUP, max / 4)) {
      if (run.length) out.push(run);
      run = [];
      out.push(g);
      continue;
    }
    if (run.length + g.length > max) {
      out.push(run);
      run = [];
    }
    run.push(...g);
  }
  if (run.length) out.push(run);
  return out;
}

/** `draw_*` for names that share their first words, the name itself for one atom, else the first and last names. */
function groupLabel(members: readonly string[]): string {
  if (members.length === 1) return members[0]!;
  const first = members[0]!.split('_');
  const last = members.at(-1)!.split('_');
  let shared = 0;
  while (shared < first.length && shared < last.length && first[shared] === last[shared]) shared++;
  return shared > 0 ? `${first.slice(0, shared).join('_')}_*` : `${members[0]} … ${members.at(-1)}`;
}

/** The summary's edges: one from a group to each group its atoms use, with how many dependencies it stands for. */
export function groupEdges(groups: readonly AtomGroup[], index: GraphIndex): { id: string; source: string; target: string; count: number }[] {
  const groupOf = new Map<string, string>();
  for (const g of groups) for (const m of g.members) groupOf.set(m, g.id);
  const counts = new Map<string, { id: string; source: string; target: string; count: number }>();
  for (const [name, deps] of index.dependencies) {
    const source = groupOf.get(name);
    if (!source) continue;
    for (const d of deps) {
      const target = groupOf.get(d);
      if (!target || target === source) continue;
      const id = edgeId(source, target);
      const edge = counts.get(id);
      if (edge) edge.count++;
      else counts.set(id, { id, source, target, count: 1 });
    }
  }
  return [...counts.values()];
}

/**
 * Boxes placed in rows, in the order given, left to right: as many columns as make the whole about `aspect`
 * wide for its height (the panel's shape), every cell as big as the biggest box. Returns each box's centre.
 */
export function gridPlaces(boxes: readonly { w: number; h: number }[], aspect: number, gap = 40): { places: { x: number; y: number }[]; width: number; height: number } {
  if (boxes.length === 0) return { places: [], width: 0, height: 0 };
  const cellW = Math.max(...boxes.map((b) => b.w)) + gap;
  const cellH = Math.max(...boxes.map((b) => b.h)) + gap;
  const cols = Math.max(1, Math.min(boxes.length, Math.round(Math.sqrt((boxes.length * aspect * cellH) / cellW))));
  return {
    places: boxes.map((_, i) => ({ x: (i % cols) * cellW + cellW / 2, y: Math.floor(i / cols) * cellH + cellH / 2 })),
    width: cols * cellW,
    height: Math.ceil(boxes.length / cols) * cellH,
  };
}

/**
 * The summary's reading order: each group after every group that uses it (its depth: the longest chain of
 * users above it; a cycle between groups is cut where it closes), groups of one depth in the order given.
 */
export function groupOrder(groups: readonly AtomGroup[], edges: readonly { source: string; target: string }[]): string[] {
  const users = new Map<string, string[]>(groups.map((g) => [g.id, []]));
  for (const e of edges) users.get(e.target)?.push(e.source);
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return -1; // closes a cycle: this edge is not followed
    visiting.add(id);
    let d = 0;
    for (const u of users.get(id) ?? []) d = Math.max(d, depthOf(u) + 1);
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  const position = new Map(groups.map((g, i) => [g.id, i]));
  return groups.map((g) => g.id).sort((a, b) => depthOf(a) - depthOf(b) || position.get(a)! - position.get(b)!);
}
