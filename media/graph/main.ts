/**
 * The dependency-graph webview: cytoscape draws the atoms, cytoscape-dagre lays them out in layers
 * (an atom above what it depends on). It follows the VS Code theme through its CSS variables, updates in
 * place when the host sends a new snapshot (the user's zoom and position stay), and reports each render
 * with its timing. Messages are the typed protocol in src/protocol/webviewMessages.ts.
 */
import cytoscape from 'cytoscape';
import dagre from 'cytoscape-dagre';
import type { GraphSnapshot, GraphToHost, GraphViewMode } from '../../src/protocol/webviewMessages.js';
import { isHostToGraph } from '../../src/protocol/webviewMessages.js';
import { AutoFit, cycleEdges, diffGraph, GraphIndex, gridPlaces, groupAtoms, groupEdges, groupOrder, headingPositions, overviewLayout, overviewNameOrder, placeLabels, searchNames, type AtomGroup, type Box, type OverviewGroup } from './model.js';
import type { LayoutRequest, LayoutResult } from './layoutWorker.js';
import { graphStyle, readTheme } from './theme.js';

cytoscape.use(dagre);
/**
 * When the page's script started (data-script-at) and finished (data-ready-at), the page loaded
 * (data-load-at), the host posted its first snapshot (data-sent-at) and it arrived (data-message-at) and its first render was painted
 * (data-painted-at), in epoch milliseconds on the status line: the end-to-end runs measure the time from
 * the command to the first paint with them.
 */
const now = () => Math.round(performance.timeOrigin + performance.now());
const scriptAt = now();

declare function acquireVsCodeApi(): { postMessage(message: GraphToHost): void; setState(s: unknown): void; getState(): unknown };
const vscode = acquireVsCodeApi();
const post = (m: GraphToHost) => vscode.postMessage(m);

/** An element both pages (the editor's panel and the MCP App) must have: a missing one is named at once. */
const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the graph page has no #${id} element`);
  return el as T;
};
const container = $('graph');
const status = $('status');
const search = $<HTMLInputElement>('search');
const names = $<HTMLDataListElement>('names');
const modeSelect = $<HTMLSelectElement>('mode');
const impactButton = $<HTMLButtonElement>('impact');
const groupsButton = $<HTMLButtonElement>('groups');
const hint = $('hint');

/** Above this many atoms, cheaper rendering: no labels when zoomed out, textures while panning. */
const LARGE = 300;
/** At most this many new atoms in one update are placed beside their neighbours (big graphs only). */
const MAX_INCREMENTAL = 20;
/** The distance between layers of a big graph: its rankSep plus a node's height. */
const RANK_STEP = 182;
/** A node's font size and its horizontal padding plus border, as the style (theme.ts) draws it. */
const NODE_FONT_SIZE = 11;
const NODE_PADDING = 20;
/** Below this size on screen cytoscape draws no label (the style's min-zoomed-font-size); the overview names atoms instead. */
const MIN_DRAWN_FONT = 7;
/** The overview's names: at most this many at once, each this tall (graph.css, .atom-label). */
const MAX_NAMES = 40;
const NAME_HEIGHT = 17;
/** The summary is fitted to its panel, but never zoomed in past this. */
const SUMMARY_MAX_ZOOM = 1.25;

let snapshot: GraphSnapshot = { atoms: [], cycles: [], unused: [], entry: null };
/** What each drawn atom's node was last given (version, type, signature, classes): unchanged atoms are not touched. */
const atomKeys = new Map<string, string>();
let index = new GraphIndex(snapshot);
let selected: string | null = null;
let mode: GraphViewMode = 'graph';
let impact = false;
const hiddenTypes = new Set<string>();
/**
 * A big whole graph first shows the overview (grouped by type, instant); the layered layout runs
 * when the user asks for it (Layout) and is kept from then on.
 */
let layered = false;
/**
 * A whole graph over LARGE atoms first shows its summary: a box per group of atoms named alike (groupAtoms),
 * an edge per pair of groups; drawing a few dozen boxes is what lets a thousand atoms open at once. A click
 * on a group shows the atoms (the overview, or the layers), and so does finding or selecting an atom;
 * Groups goes back. `showAtoms`: the user left the summary, so later snapshots keep showing the atoms.
 */
let summary = false;
let showAtoms = false;
let summaryGroups: AtomGroup[] = [];
/** The summary's groups in reading order (groupOrder). */
let summaryOrder: string[] = [];
/** The summary's size in graph coordinates (its grid's): fitted without asking cytoscape for a bounding box. */
let summaryExtent = { width: 0, height: 0 };
let overviewGroups: OverviewGroup[] = [];
/** The atoms the overview names, most telling first, and their names' widths on screen. */
let namedOrder: string[] = [];
const nameWidths = new Map<string, number>();
const groupLabels = document.createElement('div');
groupLabels.className = 'group-labels';
container.appendChild(groupLabels);

const cy = cytoscape({
  container,
  style: graphStyle(readTheme()),
  wheelSensitivity: 0.3,
  minZoom: 0.005,
  maxZoom: 4,
  boxSelectionEnabled: false,
  selectionType: 'single',
});

/** Fits the graph to its panel on every resize until the user zooms or pans (see AutoFit). */
const autoFit = new AutoFit(
  {
    resize: () => {
      cy.resize();
      return { width: cy.width(), height: cy.height() };
    },
    fit: () => {
      // The summary's grid takes the panel's new shape.
      if (summary) placeSummary();
      fitView();
    },
  },
  (run) => requestAnimationFrame(run),
);

// ---- drawing --------------------------------------------------------------------------------

/**
 * A big graph's first overview is painted with its atoms alone; its edges (a third of the first paint's
 * time at 1,000 atoms, and mostly hidden behind the boxes at that zoom) are added in the next task. A
 * snapshot that comes in between adds them first, so its diff is computed against the whole graph.
 */
let pendingEdges: (() => void) | undefined;

function applySnapshot(next: GraphSnapshot, focus?: string): void {
  pendingEdges?.();
  groupsButton.hidden = next.atoms.length <= LARGE;
  if (next.atoms.length > LARGE && mode === 'graph' && !layered && !showAtoms && !(focus && next.atoms.some((a) => a.name === focus)) && (summary || cy.elements().empty())) {
    drawSummary(next);
    return;
  }
  if (summary) leaveSummary();
  const started = performance.now();
  const update = cy.nodes().length > 0;
  const diff = diffGraph(new Set(cy.nodes().map((n) => n.id())), new Set(cy.edges().map((e) => e.id())), next);
  snapshot = next;
  index = new GraphIndex(next);
  namedOrder = overviewNameOrder(next, index);
  const large = next.atoms.length > LARGE;
  // A big graph's first draw is the overview: its positions are known before any atom is added (they need
  // only the names, types and the widest name), so each node is added once, placed, with its data and classes.
  const overview = !update && large && mode === 'graph' && !layered ? computeOverview(next) : undefined;
  const unused = new Set(next.unused);
  const onCycle = new Set(next.cycles.flat());
  const cyc = cycleEdges(next);
  const added = new Set(diff.addedNodes);
  cy.batch(() => {
    for (const id of diff.removedEdges) cy.getElementById(id).remove();
    for (const name of diff.removedNodes) {
      cy.getElementById(name).remove();
      atomKeys.delete(name);
    }
    // One add for all new nodes, each with its data and classes (and its place in the overview): setting
    // them afterwards restyled every node twice more.
    const nodes: cytoscape.ElementDefinition[] = [];
    for (const a of next.atoms) {
      const classes = [`t-${a.type}`, unused.has(a.name) ? 'unused' : '', a.name === next.entry ? 'entry' : '', onCycle.has(a.name) ? 'cycle' : ''].filter(Boolean);
      const key = `${a.version}|${a.type}|${a.signature}|${a.description}|${classes.join(' ')}`;
      // Only atoms that changed are touched: restyling a thousand nodes on every update is what costs.
      if (atomKeys.get(a.name) === key) continue;
      atomKeys.set(a.name, key);
      const data = { id: a.name, label: a.name, type: a.type, signature: a.signature, description: a.description ?? '', version: a.version };
      if (added.has(a.name)) nodes.push({ group: 'nodes', data, classes, position: overview?.positions[a.name] });
      else cy.getElementById(a.name).data(data).classes(classes);
    }
    // Styled now, while they have no edges yet (cytoscape styles lazily, at the first render otherwise).
    cy.add(nodes).forEach((n) => void n.numericStyle('width'));
  });
  // The edges come in a batch of their own, after the nodes are styled: a node styled while its edges exist
  // marks every one of them again for each of its style properties (cytoscape's dirtyStyleCache).
  const addEdges = () =>
    cy.batch(() => {
      // Haystack edges (straight, no arrow heads) cost far less to draw than curved ones when there are thousands.
      const edgeClasses = (id: string) => [large ? 'fast' : '', cyc.has(id) ? 'cycle' : ''].filter(Boolean);
      cy.add(diff.addedEdges.map((e) => ({ group: 'edges' as const, data: { id: e.id, source: e.source, target: e.target }, classes: edgeClasses(e.id) })));
      if (update) {
        cy.edges().forEach((e) => {
          if (e.hasClass('cycle') !== cyc.has(e.id())) e.toggleClass('cycle', cyc.has(e.id()));
          if (e.hasClass('fast') !== large) e.toggleClass('fast', large);
        });
      }
    });
  const edgesLater = overview !== undefined && diff.addedEdges.length > 0;
  if (!edgesLater) addEdges();
  const namesChanged = !update || diff.addedNodes.length > 0 || diff.removedNodes.length > 0;
  if (selected && !index.has(selected)) selected = null;
  if (focus && index.has(focus)) selected = focus;
  // Rendering is cheaper when big: fewer pixels, labels hidden when small, textures while moving.
  // (renderer() is cytoscape's own, outside its typings.)
  const r = (cy as unknown as { renderer(): { options?: Record<string, unknown> } }).renderer();
  if (r.options) Object.assign(r.options, { textureOnViewport: large, hideEdgesOnViewport: large, hideLabelsOnViewport: large });
  const layoutStarted = performance.now();
  // A big graph takes seconds to lay out in layers; a few new atoms are placed beside what they use
  // instead, and the Layout button lays the whole graph out again when the user wants.
  const incremental = update && large && diff.addedNodes.length <= MAX_INCREMENTAL && diff.removedNodes.length + diff.addedNodes.length < next.atoms.length / 10;
  if (incremental) placeBesideNeighbours(diff.addedNodes);
  const needsLayout = !update || (diff.structural && !incremental);
  const finish = () => {
    const layoutMs = performance.now() - layoutStarted;
    refreshHighlight();
    if (focus && selected) {
      cy.center(cy.getElementById(selected));
      autoFit.userChoseView();
    }
    afterRender(() => {
      status.dataset.paintedAt ??= String(now());
      const ms = performance.now() - started;
      status.dataset.renderMs = String(round(ms));
      status.dataset.layoutMs = String(round(needsLayout ? layoutMs : 0));
      const rendered = () => {
        const total = performance.now() - started;
        status.dataset.edgesMs = String(round(total));
        post({ type: 'rendered', nodes: cy.nodes().length, edges: cy.edges().length, ms: round(total), layoutMs: round(needsLayout ? layoutMs : 0), update });
      };
      if (edgesLater) {
        pendingEdges = () => {
          pendingEdges = undefined;
          addEdges();
          refreshHighlight();
        };
        setTimeout(() => {
          if (!pendingEdges) return;
          pendingEdges();
          afterRender(rendered);
        }, 0);
      } else rendered();
      // The search box's list of names is not needed for the first paint.
      if (namesChanged) setTimeout(fillNames, 0);
    });
  };
  // A big graph shows at once in a grid while its layers are computed in the worker.
  if (needsLayout) runLayout(!update, finish, overview);
  else finish();
}

/** Draws the summary of a big graph (see `summary`): its groups in reading order in a grid, fitted. */
function drawSummary(next: GraphSnapshot): void {
  const started = performance.now();
  const first = !summary;
  summary = true;
  snapshot = next;
  index = new GraphIndex(next);
  namedOrder = [];
  if (selected && !index.has(selected)) selected = null;
  summaryGroups = groupAtoms(next.atoms);
  const edges = groupEdges(summaryGroups, index);
  cy.stop(true, false);
  cy.batch(() => {
    cy.elements().remove();
    atomKeys.clear();
    cy.add(
      summaryGroups.map((g) => ({
        group: 'nodes' as const,
        data: { id: g.id, label: `${g.label}\n${g.members.length} ${g.type} atom${g.members.length === 1 ? '' : 's'}`, type: g.type, atoms: g.members.length },
        classes: ['group', `t-${g.type}`],
      })),
    );
    cy.add(edges.map((e) => ({ group: 'edges' as const, data: { id: e.id, source: e.source, target: e.target, weight: e.count }, classes: ['group-edge'] })));
  });
  showGroupLabels([]);
  status.dataset.layoutIn = 'summary';
  const layoutStarted = performance.now();
  summaryOrder = groupOrder(summaryGroups, edges);
  placeSummary();
  const layoutMs = performance.now() - layoutStarted;
  if (first || autoFit.following) {
    fitView();
    autoFit.fitted();
  }
  refreshHighlight();
  if (search.value) markMatches();
  afterRender(() => {
    status.dataset.paintedAt ??= String(now());
    const ms = round(performance.now() - started);
    status.dataset.renderMs = String(ms);
    status.dataset.edgesMs = String(ms);
    status.dataset.layoutMs = String(round(layoutMs));
    post({ type: 'rendered', nodes: 0, edges: 0, groups: summaryGroups.length, ms, layoutMs: round(layoutMs), update: !first });
    setTimeout(fillNames, 0);
  });
}

/**
 * The summary's boxes in reading order, users before what they use (groupOrder), in rows that fill the
 * panel: a chain of layers laid out as layers would be a strip too thin to read. Placed again when the
 * panel changes shape while the summary follows it (AutoFit).
 */
function placeSummary(): void {
  const order = summaryOrder.map((id) => cy.getElementById(id)).filter((n) => n.nonempty());
  const grid = gridPlaces(order.map((n) => ({ w: n.outerWidth(), h: n.outerHeight() })), Math.max(0.5, cy.width() / Math.max(1, cy.height())));
  cy.batch(() => order.forEach((n, i) => void n.position(grid.places[i]!)));
  summaryExtent = { width: grid.width, height: grid.height };
}

/** Clears the summary's boxes; the atoms are drawn next (applySnapshot, on an empty graph). */
function leaveSummary(): void {
  summary = false;
  showAtoms = true;
  summaryGroups = [];
  summaryOrder = [];
  cy.stop(true, false);
  cy.elements().remove();
  atomKeys.clear();
}

/** Leaves the summary for the atoms of the snapshot it showed. */
function drawAtoms(): void {
  leaveSummary();
  applySnapshot(snapshot);
}

/** A click on a group: the atoms, with that group's in view and marked (as the search box marks what it finds). */
function showGroup(id: string): void {
  const members = summaryGroups.find((g) => g.id === id)?.members ?? [];
  drawAtoms();
  const wanted = new Set(members);
  const nodes = cy.nodes().filter((n) => wanted.has(n.id()));
  if (nodes.nonempty()) {
    cy.batch(() => void nodes.addClass('match'));
    cy.fit(nodes, 40);
    autoFit.userChoseView();
  }
}

/** The search box's suggestions: every atom's name. */
function fillNames(): void {
  names.replaceChildren(...snapshot.atoms.map((a) => Object.assign(document.createElement('option'), { value: a.name })));
}

/**
 * Puts each new atom one layer above the highest atom it uses (or below the lowest that uses it), at their
 * mean x, so it appears where the layered layout would roughly put it without moving anything else.
 */
function placeBesideNeighbours(names: string[]): void {
  const placed = new Set(cy.nodes().map((n) => n.id()).filter((id) => !names.includes(id)));
  const extent = cy.nodes().filter((n) => placed.has(n.id())).boundingBox({});
  for (const name of names) {
    const node = cy.getElementById(name);
    const deps = node.outgoers().nodes().filter((n) => placed.has(n.id()));
    const users = node.incomers().nodes().filter((n) => placed.has(n.id()));
    const ys = (c: cytoscape.NodeCollection) => c.nodes().map((n: cytoscape.NodeSingular) => n.position('y'));
    const near = deps.nonempty() ? deps : users;
    const xs = near.nodes().map((n: cytoscape.NodeSingular) => n.position('x'));
    const x = xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : extent.x1;
    const y = deps.nonempty()
      ? Math.min(...ys(deps)) - RANK_STEP
      : users.nonempty()
        ? Math.max(...ys(users)) + RANK_STEP
        : extent.y2 + RANK_STEP;
    node.position({ x, y });
    placed.add(name);
  }
}

/** Lays out what is visible; `fit` only on the first draw, so the user's zoom and position are kept. */
function runLayout(fit: boolean, done: () => void, overview?: Overview): void {
  // A viewport animation still running (finding an atom) would move the view off the new layout.
  cy.stop(true, false);
  const eles = cy.elements().not('.hidden');
  const big = eles.nodes().length > LARGE;
  if (big && mode === 'graph' && !layered) {
    runOverview(eles, fit, done, overview);
    return;
  }
  showGroupLabels([]);
  const options = {
    rankDir: 'TB',
    // Big graphs are wide (many atoms per layer): closer nodes and farther layers keep them viewable.
    nodeSep: big ? 6 : 24,
    rankSep: big ? 160 : 60,
    edgeSep: 8,
    // Network simplex gives the tidiest layers; longest-path is much faster on big graphs.
    ranker: big ? 'longest-path' : 'network-simplex',
  };
  if (big) {
    void layoutInWorker(eles, options).then((positions) => {
      if (!positions) return runLayoutHere(eles, options, fit, done);
      status.dataset.layoutIn = 'worker';
      cy.batch(() => eles.nodes().forEach((n) => void (positions[n.id()] && n.position(positions[n.id()]!))));
      if (fit) {
        cy.fit(eles, 30);
        autoFit.fitted();
      }
      done();
    });
    return;
  }
  runLayoutHere(eles, options, fit, done);
}

type Overview = ReturnType<typeof overviewLayout>;

/** The overview's layout for the snapshot's atoms (or those visible), from their names and types alone. */
function computeOverview(of: GraphSnapshot, only?: ReadonlySet<string>): Overview {
  // The overview's cells are as wide as the widest name; the text is measured as cytoscape draws it.
  const context = document.createElement('canvas').getContext('2d');
  let widest = 0;
  if (context) {
    context.font = `${NODE_FONT_SIZE}px ${readTheme().font}`;
    for (const a of of.atoms) widest = Math.max(widest, context.measureText(a.name).width);
  }
  const nodes = of.atoms.filter((a) => !only || only.has(a.name)).map((a) => ({ id: a.name, type: a.type, w: widest + NODE_PADDING }));
  const result = overviewLayout(nodes, Math.max(0.5, cy.width() / Math.max(1, cy.height())));
  return result;
}

/** The overview of a big graph: grouped by type, in one pass on the page (see overviewLayout). */
function runOverview(eles: cytoscape.CollectionReturnValue, fit: boolean, done: () => void, computed?: Overview): void {
  status.dataset.layoutIn = 'overview';
  const { positions, groups } = computed ?? computeOverview(snapshot, new Set(eles.nodes().map((n) => n.id())));
  if (!computed) cy.batch(() => eles.nodes().forEach((n) => void (positions[n.id()] && n.position(positions[n.id()]!))));
  showGroupLabels(groups);
  if (fit) {
    fitView();
    autoFit.fitted();
  }
  done();
}

/**
 * Fits the visible graph into the view. The overview's extent is known (its groups), so it is fitted
 * without asking cytoscape for the bounding box, which at a thousand atoms costs as much as a first draw.
 * The summary's few boxes are not blown up past a readable size.
 */
function fitView(): void {
  if (summary && hiddenTypes.size === 0) {
    fitExtent(0, 0, summaryExtent.width, summaryExtent.height, SUMMARY_MAX_ZOOM);
    return;
  }
  if (!overviewGroups.length || hiddenTypes.size > 0) {
    cy.fit(cy.elements().not('.hidden'), 30);
    if (summary && cy.zoom() > SUMMARY_MAX_ZOOM) {
      cy.zoom(SUMMARY_MAX_ZOOM);
      cy.center(cy.elements().not('.hidden'));
    }
    return;
  }
  const x1 = Math.min(...overviewGroups.map((g) => g.x));
  const x2 = Math.max(...overviewGroups.map((g) => g.x + g.width));
  // Room above the groups for their headings.
  const y1 = Math.min(...overviewGroups.map((g) => g.y)) - 30;
  const y2 = Math.max(...overviewGroups.map((g) => g.y + g.height));
  fitExtent(x1, y1, x2, y2, cy.maxZoom());
}

/** Fits a known extent (graph coordinates) into the view, zoomed in no further than `maxZoom`. */
function fitExtent(x1: number, y1: number, x2: number, y2: number, maxZoom: number): void {
  const padding = 30;
  const zoom = Math.min(maxZoom, Math.max(cy.minZoom(), Math.min((cy.width() - 2 * padding) / Math.max(1, x2 - x1), (cy.height() - 2 * padding) / Math.max(1, y2 - y1))));
  cy.viewport({ zoom, pan: { x: (cy.width() - zoom * (x1 + x2)) / 2, y: (cy.height() - zoom * (y1 + y2)) / 2 } });
}

/** Headings over the overview's groups ("feature · 612 atoms"), kept over them as the view moves. */
function showGroupLabels(groups: OverviewGroup[]): void {
  overviewGroups = groups;
  groupLabels.replaceChildren(
    ...groups.map((g) => Object.assign(document.createElement('div'), { className: `group-label t-${g.type}`, textContent: `${g.type} · ${g.count} atom${g.count === 1 ? '' : 's'}` })),
  );
  placeGroupLabels();
}

function placeGroupLabels(): void {
  const zoom = cy.zoom();
  const pan = cy.pan();
  const labels = [...groupLabels.querySelectorAll<HTMLElement>('.group-label')];
  const widths = labels.map((el) => el.offsetWidth);
  const lefts = headingPositions(
    overviewGroups.map((g) => ({ start: g.x * zoom + pan.x, end: (g.x + g.width) * zoom + pan.x })),
    widths,
    groupLabels.clientWidth,
  );
  const headings: Box[] = [];
  overviewGroups.forEach((g, i) => {
    const el = labels[i];
    if (!el) return;
    const top = g.y * zoom + pan.y - 22;
    el.style.left = `${lefts[i]}px`;
    el.style.top = `${top}px`;
    headings.push({ left: lefts[i]!, top, right: lefts[i]! + widths[i]!, bottom: top + el.offsetHeight });
  });
  placeNames(headings);
}

/**
 * Names over the overview, where the atoms are too small on screen for their own labels: the selected atom,
 * the entry point and the most used atoms, as many as fit without overlapping (see placeLabels). Zoomed in
 * far enough for cytoscape to draw every label, there are none.
 */
function placeNames(headings: Box[]): void {
  const zoom = cy.zoom();
  const show = overviewGroups.length > 0 && zoom * NODE_FONT_SIZE < MIN_DRAWN_FONT;
  let placed: { id: string; left: number; top: number }[] = [];
  if (show) {
    const pan = cy.pan();
    const order = selected ? [selected, ...namedOrder.filter((n) => n !== selected)] : namedOrder;
    const candidates = [];
    for (const id of order) {
      const node = cy.getElementById(id);
      if (node.empty() || node.hasClass('hidden')) continue;
      const p = node.position();
      candidates.push({ id, x: p.x * zoom + pan.x, y: (p.y - node.outerHeight() / 2) * zoom + pan.y, width: nameWidth(id) });
    }
    placed = placeLabels(candidates, { width: groupLabels.clientWidth, height: groupLabels.clientHeight, labelHeight: NAME_HEIGHT, reserved: headings, max: MAX_NAMES });
  }
  const pool = [...groupLabels.querySelectorAll<HTMLElement>('.atom-label')];
  placed.forEach((p, i) => {
    let el = pool[i];
    if (!el) {
      el = Object.assign(document.createElement('div'), { className: 'atom-label' });
      groupLabels.appendChild(el);
    }
    const type = index.has(p.id) ? String(cy.getElementById(p.id).data('type') ?? '') : '';
    if (el.textContent !== p.id) el.textContent = p.id;
    el.className = `atom-label t-${type}${p.id === selected ? ' selected' : ''}`;
    el.style.left = `${p.left}px`;
    el.style.top = `${p.top}px`;
    el.hidden = false;
  });
  for (const el of pool.slice(placed.length)) el.hidden = true;
  status.dataset.named = String(placed.length);
}

/** A name's width as .atom-label draws it (measured once per name). */
function nameWidth(name: string): number {
  let w = nameWidths.get(name);
  if (w === undefined) {
    const context = measureContext();
    w = Math.ceil((context?.measureText(name).width ?? name.length * 7) + 10);
    nameWidths.set(name, w);
  }
  return w;
}

let measure: CanvasRenderingContext2D | null | undefined;
function measureContext(): CanvasRenderingContext2D | null {
  if (measure === undefined) {
    measure = document.createElement('canvas').getContext('2d');
    if (measure) measure.font = `12px ${readTheme().font}`;
  }
  return measure;
}

cy.on('viewport', () => placeGroupLabels());

function runLayoutHere(eles: cytoscape.CollectionReturnValue, options: Record<string, unknown>, fit: boolean, done: () => void): void {
  status.dataset.layoutIn = 'page';
  const layout = eles.layout({ name: 'dagre', ...options, fit, padding: 30, animate: false } as cytoscape.LayoutOptions);
  layout.one('layoutstop', () => {
    if (fit) autoFit.fitted();
    done();
  });
  layout.run();
}

// ---- the layout worker ------------------------------------------------------------------------

let worker: Promise<Worker | null> | undefined;
let layoutRequest = 0;

/**
 * The worker, started once. A webview may not start a worker from its resource URL (another origin),
 * so the script is fetched and started from a blob; null when that fails (the layout then runs here).
 */
function layoutWorker(): Promise<Worker | null> {
  worker ??= (async () => {
    try {
      const url = document.body.dataset.layoutWorker;
      if (!url) return null;
      const source = await (await fetch(url)).text();
      return new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    } catch (err) {
      post({ type: 'error', message: `the layout worker did not start, laying out in the page: ${(err as Error).message}` });
      return null;
    }
  })();
  return worker;
}

/** Positions from the worker, or null (no worker, a failure, or a newer request superseded this one). */
async function layoutInWorker(eles: cytoscape.CollectionReturnValue, options: Record<string, unknown>): Promise<LayoutResult['positions'] | null> {
  const w = await layoutWorker();
  if (!w) return null;
  const id = ++layoutRequest;
  const n = eles.nodes().length;
  status.textContent = `Laying out ${n} atom${n === 1 ? '' : 's'}…`;
  const request: LayoutRequest = {
    id,
    nodes: eles.nodes().map((n) => ({ id: n.id(), w: n.outerWidth(), h: n.outerHeight() })),
    edges: eles.edges().map((e) => ({ id: e.id(), source: e.source().id(), target: e.target().id() })),
    options,
  };
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent<LayoutResult>) => {
      if (event.data.id !== id) return;
      w.removeEventListener('message', onMessage);
      if (event.data.error) post({ type: 'error', message: `layout worker: ${event.data.error}` });
      resolve(id === layoutRequest && !event.data.error ? event.data.positions : null);
    };
    w.addEventListener('message', onMessage);
    w.postMessage(request);
  });
}

/** Runs `then` once cytoscape has drawn the current state on screen. */
function afterRender(then: () => void): void {
  let called = false;
  const go = () => {
    if (called) return;
    called = true;
    requestAnimationFrame(() => then());
  };
  cy.one('render', go);
  // Nothing to draw (no change): cytoscape may not render at all.
  requestAnimationFrame(() => requestAnimationFrame(go));
}

// ---- selection, impact, filters, trees ----------------------------------------------------------

function refreshHighlight(): void {
  const node = selected ? cy.getElementById(selected) : undefined;
  const treeRoot = mode !== 'graph' && selected ? selected : null;
  cy.batch(() => {
    // Only what carries these classes is touched: restyling thousands of elements is what a click costs.
    cy.elements('.faded, .highlight, .selected-node, .impacted, .hidden').removeClass('faded highlight selected-node impacted hidden');
    // Type filter and tree modes hide; the others fade.
    if (hiddenTypes.size > 0) {
      cy.nodes().forEach((n) => {
        if (hiddenTypes.has(n.data('type'))) n.addClass('hidden');
      });
    }
    if (treeRoot) {
      const keep = new Set(index.treeMembers(treeRoot, mode as Exclude<GraphViewMode, 'graph'>));
      cy.nodes().forEach((n) => {
        if (!keep.has(n.id())) n.addClass('hidden');
      });
    }
    if (hiddenTypes.size > 0 || treeRoot) {
      cy.edges().forEach((e) => {
        if (e.source().hasClass('hidden') || e.target().hasClass('hidden')) e.addClass('hidden');
      });
    }
    if (!node || node.empty()) return;
    node.addClass('selected-node');
    let lit: cytoscape.CollectionReturnValue;
    if (impact) {
      const affected = new Set(index.impact(node.id()));
      lit = cy.nodes().filter((n) => affected.has(n.id())).union(node);
      lit.nodes().not(node).addClass('impacted');
      lit = lit.union(lit.edgesWith(lit));
    } else {
      lit = node.closedNeighborhood();
    }
    cy.elements().not(lit).addClass('faded');
    lit.not(node).addClass('highlight');
  });
  updateStatus();
  // The overview names the selected atom (and drops the names of atoms a filter hid).
  if (overviewGroups.length) placeGroupLabels();
}

function updateStatus(): void {
  const visible = cy.nodes().not('.hidden');
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  // In the summary a box stands for its atoms.
  const shown = summary ? visible.reduce((sum, n) => sum + Number(n.data('atoms') ?? 0), 0) : visible.length;
  const parts = [count(snapshot.atoms.length, 'atom', 'atoms'), count(index.edgeCount, 'dependency', 'dependencies')];
  if (snapshot.unused.length) parts.push(`${snapshot.unused.length} unused`);
  if (snapshot.cycles.length) parts.push(`${snapshot.cycles.length} cycle${snapshot.cycles.length > 1 ? 's' : ''}: ${snapshot.cycles.map((c) => c.join(' → ')).join('; ')}`);
  if (shown !== snapshot.atoms.length) parts.push(`${shown} shown`);
  if (summary) parts.push(`${count(summaryGroups.length, 'group', 'groups')} of atoms named alike: click one to see its atoms`);
  let highlighted = 0;
  if (selected && index.has(selected)) {
    const { dependencies, dependents } = index.neighbourhood(selected);
    if (impact) {
      const affected = index.impact(selected);
      highlighted = affected.length;
      parts.push(`changing ${selected} affects ${affected.length} atom${affected.length === 1 ? '' : 's'}${affected.length ? `: ${affected.slice(0, 12).join(', ')}${affected.length > 12 ? ', …' : ''}` : ''}`);
    } else {
      highlighted = dependencies.length + dependents.length;
      parts.push(`${selected} uses ${dependencies.length}, used by ${dependents.length}`);
    }
  }
  status.textContent = parts.join(' · ');
  status.dataset.nodes = String(summary ? 0 : cy.nodes().length);
  status.dataset.edges = String(summary ? 0 : cy.edges().length);
  status.dataset.groups = String(summary ? summaryGroups.length : 0);
  status.dataset.view = summary ? 'summary' : 'atoms';
  status.dataset.selected = selected ?? '';
  status.dataset.entry = snapshot.entry ?? '';
  status.dataset.highlighted = String(highlighted);
  status.dataset.faded = String(cy.elements('.faded').length);
  hint.hidden = !(mode !== 'graph' && !selected);
  impactButton.setAttribute('aria-pressed', String(impact));
}

function select(name: string | null, center = false): void {
  // An atom is chosen: the atoms are shown (the summary has only groups).
  if (summary && name && index.has(name)) drawAtoms();
  selected = name && index.has(name) ? name : null;
  const wasTree = mode !== 'graph';
  const started = performance.now();
  refreshHighlight();
  afterRender(() => (status.dataset.highlightMs = String(round(performance.now() - started))));
  if (wasTree) runLayout(true, () => {});
  // Finding an atom brings it into view at a readable size.
  else if (center && selected) {
    // Zoom and pan together: `center` alone is computed at the old zoom and misses after zooming.
    const zoom = Math.max(cy.zoom(), 1);
    const p = cy.getElementById(selected).position();
    cy.stop(true, false);
    cy.viewport({ zoom, pan: { x: cy.width() / 2 - p.x * zoom, y: cy.height() / 2 - p.y * zoom } });
    autoFit.userChoseView();
  }
  post({ type: 'selected', name: selected, highlighted: Number(status.dataset.highlighted ?? 0) });
  vscode.setState({ selected, mode, impact });
}

function setMode(next: GraphViewMode): void {
  mode = next;
  if (summary && next !== 'graph') drawAtoms();
  modeSelect.value = next;
  refreshHighlight();
  runLayout(true, () => {});
  vscode.setState({ selected, mode, impact });
}

cy.on('tap', 'node', (e) => (summary ? showGroup(e.target.id()) : select(e.target.id())));
// A tap off the nodes clears the selection, on an edge too (edges do nothing of their own, and a big
// graph's edges cover most of its background).
cy.on('tap', (e) => {
  if (e.target === cy || (e.target as cytoscape.SingularElementArgument).isEdge()) select(null);
});
cy.on('dbltap', 'node', (e) => void (!e.target.hasClass('group') && post({ type: 'open', name: e.target.id() })));
cy.on('mouseover', 'node', (e) => {
  const d = e.target.data();
  if (e.target.hasClass('group')) {
    container.title = `${d.label.replace('\n', ': ')}\nClick to see them`;
    return;
  }
  container.title = `${d.label} (${d.type}) v${d.version}\n${d.signature}${d.description ? `\n${d.description}` : ''}\nDouble-click to open`;
});
cy.on('mouseout', 'node', () => (container.title = ''));
// Only what the user does: 'zoom', 'pan' and 'viewport' fire for the page's own fits too.
cy.on('scrollzoom pinchzoom dragpan', () => autoFit.userChoseView());

/** Marks the atoms the search box's text finds (in the summary, the groups that hold them). */
function markMatches(): void {
  const matches = new Set(searchNames(index.dependencies.keys(), search.value).slice(0, 50));
  const holding = new Set(summaryGroups.filter((g) => g.members.some((m) => matches.has(m))).map((g) => g.id));
  cy.batch(() => cy.nodes().forEach((n) => void n.toggleClass('match', summary ? holding.has(n.id()) : matches.has(n.id()))));
}
search.addEventListener('input', markMatches);
search.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter') return;
  const [first] = searchNames(index.dependencies.keys(), search.value);
  if (first) select(first, true);
});
for (const box of document.querySelectorAll<HTMLInputElement>('input[data-type]')) {
  box.addEventListener('change', () => {
    if (box.checked) hiddenTypes.delete(box.dataset.type!);
    else hiddenTypes.add(box.dataset.type!);
    refreshHighlight();
  });
}
modeSelect.addEventListener('change', () => setMode(modeSelect.value as GraphViewMode));
impactButton.addEventListener('click', () => {
  impact = !impact;
  refreshHighlight();
  vscode.setState({ selected, mode, impact });
});
$('fit').addEventListener('click', () => {
  fitView();
  autoFit.fitted();
});
$('relayout').addEventListener('click', () => {
  layered = true;
  if (summary) {
    drawAtoms();
    return;
  }
  const n = cy.nodes().not('.hidden').length;
  status.textContent = `Laying out ${n} atom${n === 1 ? '' : 's'}…`;
  // Let the status paint before the layout holds the thread.
  setTimeout(() => runLayout(true, () => updateStatus()), 30);
});

groupsButton.addEventListener('click', () => {
  if (summary || snapshot.atoms.length <= LARGE) return;
  showAtoms = false;
  layered = false;
  mode = 'graph';
  modeSelect.value = mode;
  impact = false;
  selected = null;
  drawSummary(snapshot);
  vscode.setState({ selected, mode, impact });
});

// The container changes size without a window resize too (the toolbar wraps, a panel opens beside it);
// the graph is fitted to the new size until the user has zoomed or panned.
new ResizeObserver(() => autoFit.resized()).observe(container);

// ---- theme ----------------------------------------------------------------------------------

// VS Code swaps the body's class (vscode-light, vscode-dark, vscode-high-contrast) on a theme change.
new MutationObserver(() => cy.style(graphStyle(readTheme()))).observe(document.body, { attributes: true, attributeFilter: ['class', 'style'] });

// ---- messages -------------------------------------------------------------------------------

/** The generation of the last snapshot drawn (the host's count). */
let drawnGeneration: number | undefined;

window.addEventListener('message', (event: MessageEvent) => {
  const m: unknown = event.data;
  if ((m as { type?: unknown } | null)?.type === 'graph') status.dataset.messageAt ??= String(now());
  if (!isHostToGraph(m)) return;
  if (m.type === 'graph' && m.sentAt !== undefined) status.dataset.sentAt ??= String(m.sentAt);
  try {
    if (m.type === 'graph') {
      // The host posts its first snapshot twice (before and after 'ready', see graphPanel.ts): once is drawn.
      if (m.generation !== undefined && m.generation === drawnGeneration && !m.focus) return;
      drawnGeneration = m.generation;
      applySnapshot(m.snapshot, m.focus);
    }
    else {
      if (m.mode) mode = m.mode;
      modeSelect.value = mode;
      select(m.name, true);
    }
  } catch (err) {
    post({ type: 'error', message: (err as Error).stack ?? String(err) });
  }
});

const saved = vscode.getState() as { selected?: string | null; mode?: GraphViewMode; impact?: boolean } | undefined;
if (saved) {
  selected = saved.selected ?? null;
  mode = saved.mode ?? 'graph';
  impact = !!saved.impact;
  modeSelect.value = mode;
}

/**
 * For the end-to-end tests, which click nodes like a person does: where a node is drawn, in CSS pixels
 * relative to the graph's container. Read-only; it changes nothing.
 */
(window as unknown as { atomicGraph: unknown }).atomicGraph = {
  positionOf: (name: string) => {
    const n = cy.getElementById(name);
    return n.empty() ? null : n.renderedPosition();
  },
  viewport: () => ({ zoom: cy.zoom(), pan: cy.pan(), width: cy.width(), height: cy.height() }),
  /** Whether a resize fits the graph (no user zoom or pan since the last fit). */
  autoFit: () => autoFit.following,
  classesOf: (name: string) => cy.getElementById(name).classes(),
  /** The summary's groups (none while the atoms are shown): ids for positionOf, labels and sizes. */
  groups: () => summaryGroups.map((g) => ({ id: g.id, label: g.label, type: g.type, atoms: g.members.length })),
  /** A point of the view (CSS pixels, as positionOf) where no node is drawn: where a person clicks to clear. */
  emptyPoint: () => {
    const boxes = cy.nodes().map((n) => n.renderedBoundingBox({}));
    for (let y = 4; y < cy.height(); y += 12) {
      for (let x = 4; x < cy.width(); x += 12) {
        if (!boxes.some((b) => x >= b.x1 - 4 && x <= b.x2 + 4 && y >= b.y1 - 4 && y <= b.y2 + 4)) return { x, y };
      }
    }
    return null;
  },
};

status.dataset.scriptAt = String(scriptAt);
status.dataset.readyAt = String(now());
post({ type: 'ready' });
// The host posts the first snapshot with the page and again on 'ready' (graphPanel.ts); should neither come,
// saying ready again makes the host send it.
window.addEventListener('load', () => {
  status.dataset.loadAt = String(now());
  setTimeout(() => status.dataset.messageAt || post({ type: 'ready' }), 1000);
});

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
