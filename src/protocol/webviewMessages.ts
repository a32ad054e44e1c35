/**
 * The messages between the extension host and the graph and preview webviews, defined once for both
 * sides: src/views/ (the host), media/ (the pages, the MCP apps' too) and src/preview/ (the browser
 * preview's server reports the same locations) import it from here, below all of them. This file must
 * not import `vscode` and holds nothing but types and the guards that check what arrives: a webview
 * message is data from a page, never trusted.
 */
import type { AtomType } from '../atoms/model.js';
import { CONSOLE_LEVELS, type ConsoleLevel } from '../util/consoleLevel.js';

/** One atom a hot swap brings (src/preview/hotSwap.ts): its name and its code. */
export interface SwapAtom {
  name: string;
  code: string;
}

// ---- graph ------------------------------------------------------------------------------------

/** One atom as the graph draws it: no code, only what the node, its tooltip and its edges need. */
export interface GraphAtom {
  name: string;
  type: AtomType;
  /** The names it depends on (edges point from the atom to each of these). */
  dependencies: string[];
  signature: string;
  description: string | null;
  version: number;
}

/** Everything the graph shows, computed from the atoms (see graphSnapshot.ts). */
export interface GraphSnapshot {
  atoms: GraphAtom[];
  /** Each cycle as a path `a -> b -> a` (the store refuses them, a hand-edited database may hold one). */
  cycles: string[][];
  /** Atoms nothing depends on that are not the bundle's entry point. */
  unused: string[];
  /** The bundle's entry point (game_loop, main or the last core atom), if any. */
  entry: string | null;
}

export type GraphViewMode = 'graph' | 'needs' | 'neededBy';

export type HostToGraph =
  /** The whole graph; the webview updates in place (keeping zoom and position) after the first. */
  /**
   * `generation`: the host's count of the snapshots it built (one posted again has the same, and the page
   * drops it if it has drawn it); `sentAt`: when the host posted it (epoch ms), so the page can tell the
   * host's time from the delivery's.
   */
  | { type: 'graph'; snapshot: GraphSnapshot; focus?: string; generation?: number; sentAt?: number }
  /** Select an atom (from the tree's context menu or a command argument). */
  | { type: 'focus'; name: string; mode?: GraphViewMode };

export type GraphToHost =
  | { type: 'ready' }
  /** Double-click: open the atom in the editor. */
  | { type: 'open'; name: string }
  /**
   * After each render: how many atoms and dependencies are drawn and how long it took, in milliseconds;
   * `groups` when a big graph's summary was drawn (boxes standing for groups of atoms, no atom itself).
   */
  | { type: 'rendered'; nodes: number; edges: number; ms: number; layoutMs: number; update: boolean; groups?: number }
  | { type: 'selected'; name: string | null; highlighted: number }
  | { type: 'error'; message: string };

// ---- preview ----------------------------------------------------------------------------------

export interface PreviewBuild {
  status: 'success' | 'error';
  atomCount: number;
  createdAt: string;
  error: string | null;
}

export type HostToPreview =
  /**
   * Run this bundle in this page (the page is the workspace's own or null for the built-in one); with
   * `refused`, show that reason instead: the workspace's page may not be shown (it is outside the folder).
   */
  | {
      type: 'load';
      bundle: string;
      page: string | null;
      refused?: string;
      build: PreviewBuild;
      generation: number;
      /** Run the development form, ready to take swaps (src/preview/hotSwap.ts). */
      hotSwap?: boolean;
      /** Why the running page is started again (`boot atom changed`, `Restart button`); absent at the first start. */
      reason?: string;
    }
  /**
   * The running page (generation `from`) takes these atoms' new code in place and becomes `generation`;
   * a page at another generation asks to restart instead.
   */
  | { type: 'swap'; atoms: SwapAtom[]; from: number; generation: number; build: PreviewBuild }
  /** The last build failed: show its error instead of the previous, now stale, page. */
  | { type: 'buildFailed'; build: PreviewBuild }
  /** The loopback address the preview is served on for an external browser. */
  | { type: 'external'; url: string };

/** The console method a preview line came from (util/log.ts owns the list). */
export type { ConsoleLevel };

/** Where in the bundle something happened, and the atom that line belongs to when it can be told. */
export interface BundleLocation {
  atom: string | null;
  /** 1-based line in latest.js. */
  line: number | null;
  /** 1-based line inside the atom's code. */
  atomLine: number | null;
}

export type PreviewToHost =
  | { type: 'ready' }
  | { type: 'loaded'; generation: number }
  /** The page took a swap: it runs `generation` now. */
  | { type: 'swapped'; generation: number; names: string[] }
  /** The page could not take a swap (the host restarts it). */
  | { type: 'swapFailed'; generation: number; message: string }
  | ({ type: 'console'; level: ConsoleLevel; text: string } & BundleLocation)
  | ({ type: 'runtimeError'; message: string; stack: string | null } & BundleLocation)
  /** The user asked to open the preview in an external browser. */
  | { type: 'openExternal' }
  /** The user clicked the atom an error or a console line came from. */
  | { type: 'openAtom'; name: string; line: number | null };

// ---- guards -----------------------------------------------------------------------------------

const MAX_TEXT = 8_192;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const isString = (v: unknown, max = MAX_TEXT): v is string => typeof v === 'string' && v.length <= max;
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isLine = (v: unknown): v is number | null => v === null || (Number.isInteger(v) && (v as number) >= 1);

/** At most this many atoms in one swap (more changed at once: a restart is as quick). */
export const MAX_SWAP_ATOMS = 5_000;
/** An atom's code is at most 2 KB (MAX_CODE_BYTES); a swap's code field is checked generously above it. */
const MAX_SWAP_CODE = 64 * 1024;
/** Atom names as the store allows them (model.ts NAME_PATTERN): they become names in the frame's code. */
const isAtomName = (v: unknown): v is string => typeof v === 'string' && v.length <= 256 && /^[a-z][a-z0-9_]*$/.test(v);

function isLocation(m: Record<string, unknown>): boolean {
  return (m.atom === null || isString(m.atom, 256)) && isLine(m.line) && isLine(m.atomLine);
}

/** True when `m` is a well-formed message from the graph webview. */
export function isGraphToHost(m: unknown): m is GraphToHost {
  if (!isRecord(m)) return false;
  switch (m.type) {
    case 'ready':
      return true;
    case 'open':
      return isString(m.name, 256);
    case 'rendered':
      return isCount(m.nodes) && isCount(m.edges) && isCount(m.ms) && isCount(m.layoutMs) && typeof m.update === 'boolean' && (m.groups === undefined || isCount(m.groups));
    case 'selected':
      return (m.name === null || isString(m.name, 256)) && isCount(m.highlighted);
    case 'error':
      return isString(m.message);
    default:
      return false;
  }
}

/** True when `m` is a well-formed message from the preview webview. */
export function isPreviewToHost(m: unknown): m is PreviewToHost {
  if (!isRecord(m)) return false;
  switch (m.type) {
    case 'ready':
    case 'openExternal':
      return true;
    case 'loaded':
      return isCount(m.generation);
    case 'openAtom':
      return isString(m.name, 256) && isLine(m.line);
    case 'swapped':
      return isCount(m.generation) && Array.isArray(m.names) && m.names.length <= MAX_SWAP_ATOMS && m.names.every((n) => isAtomName(n));
    case 'swapFailed':
      return isCount(m.generation) && isString(m.message);
    case 'console':
      return CONSOLE_LEVELS.includes(m.level as ConsoleLevel) && isString(m.text) && isLocation(m);
    case 'runtimeError':
      return isString(m.message) && (m.stack === null || isString(m.stack)) && isLocation(m);
    default:
      return false;
  }
}

/** True when `m` is a well-formed message from the host to the graph webview. */
export function isHostToGraph(m: unknown): m is HostToGraph {
  if (!isRecord(m)) return false;
  if (m.type === 'graph') return isRecord(m.snapshot) && Array.isArray((m.snapshot as Record<string, unknown>).atoms) && (m.sentAt === undefined || isCount(m.sentAt)) && (m.generation === undefined || isCount(m.generation));
  if (m.type === 'focus') return isString(m.name, 256);
  return false;
}

/** True when `m` is a well-formed message from the host to the preview webview. */
export function isHostToPreview(m: unknown): m is HostToPreview {
  if (!isRecord(m)) return false;
  if (m.type === 'load') {
    return (
      typeof m.bundle === 'string' &&
      (m.page === null || typeof m.page === 'string') &&
      (m.refused === undefined || isString(m.refused)) &&
      isRecord(m.build) &&
      isCount(m.generation) &&
      (m.hotSwap === undefined || typeof m.hotSwap === 'boolean') &&
      (m.reason === undefined || isString(m.reason, 1024))
    );
  }
  if (m.type === 'swap') {
    return (
      Array.isArray(m.atoms) &&
      m.atoms.length <= MAX_SWAP_ATOMS &&
      m.atoms.every((a) => isRecord(a) && isAtomName(a.name) && isString(a.code, MAX_SWAP_CODE)) &&
      isCount(m.from) &&
      isCount(m.generation) &&
      isRecord(m.build)
    );
  }
  if (m.type === 'buildFailed') return isRecord(m.build);
  if (m.type === 'external') return isString(m.url, 2048);
  return false;
}
