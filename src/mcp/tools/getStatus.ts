import { ATOM_TYPES, type AtomType } from '../../atoms/model.js';
import { BOOT_RULE } from '../../atoms/boot.js';
import type { EmbedderMemory } from '../../search/embeddings/provider.js';
import type { AtomWorkspace } from '../../workspace.js';
import { givenBack, v8HeapShape } from '../../util/idleMemory.js';
import { defineTool } from '../tool.js';

export interface WorkspaceStatus {
  atoms: { total: number; by_type: Record<AtomType, number> };
  edges: number;
  database: { bytes: number; journal_bytes: number };
  last_build: { status: string; at: string; order_length: number; duration_ms: number | null; error: string | null } | null;
  embeddings: {
    provider: string;
    embedded: number;
    pending: number;
    fresh: boolean;
    /** The model's own process (started on demand, ended when idle), its memory apart from the server's; null when none. */
    model_process: EmbedderMemory | null;
  };
  server: {
    version: string;
    connected_clients: number;
    /** This process's JavaScript heap (in VS Code, the extension host's, shared with other extensions), and what was given back when quiet (util/idleMemory.ts). */
    heap: { held_bytes: number; used_bytes: number; given_back: { collections: number; bytes: number } };
  };
  /** The atom the bundle boots (BOOT_RULE), or null without a core atom. */
  boot_atom: string | null;
  /**
   * What the last open of the database refused (see AtomStore.openReport): atoms that fail the
   * checks of an upsert, and schema objects that are not Atomic Coding's. Empty lists normally.
   */
  refused_at_open: { atoms: { name: string; reason: string; source: 'database' | 'journal' }[]; removed: { type: string; name: string }[] };
  /** What `.atomic/` held at open that was not trusted (a link, a device, another user's file) and what was done; empty normally. */
  distrusted_at_open: string[];
  /** The examples and test atoms as they last ran (verify/); `failing` names each failure. */
  checks: { examples: number; tests: number; pending: number; failing: { atom: string; kind: 'example' | 'test'; message: string }[] };
  /** Where latest.js is written (its real path), or why it is not (a path outside the folder): one of the two is null. */
  bundle: { path: string | null; problem: string | null };
  /** The atoms as files for git (textTree/), and the files not taken with the reason; null when off. */
  text_tree: { folder: string; files: number; problems: { file: string; reason: string }[] } | null;
}

function checksOf(workspace: AtomWorkspace): WorkspaceStatus['checks'] {
  const { examples, tests, pending, failing } = workspace.verification.summary();
  return { examples, tests, pending, failing: failing.map((r) => ({ atom: r.atom, kind: r.kind, message: r.message ?? 'failed' })) };
}

/** One line when there are checks: how many, and the failures (test_atoms runs them again on demand). */
function checkStatusLines(c: WorkspaceStatus['checks']): string[] {
  if (c.examples + c.tests + c.pending === 0) return [];
  const ran = `${c.examples} example${c.examples === 1 ? '' : 's'} and ${c.tests} test${c.tests === 1 ? '' : 's'}${c.pending > 0 ? ` (${c.pending} atoms' checks still to run)` : ''}`;
  if (c.failing.length === 0) return [`Checks: ${ran}, all passing.`];
  const listed = c.failing.slice(0, LISTED).map((f) => (f.kind === 'example' ? `${f.atom}: ${f.message}` : f.message));
  if (c.failing.length > LISTED) listed.push(`and ${c.failing.length - LISTED} more (see checks.failing)`);
  return [`Checks: ${ran}; ${c.failing.length} FAILING: ${listed.join('; ')}.`];
}

/** At most this many refused atoms are named in the text (all are in the structured result). */
const LISTED = 10;

/**
 * Everything here is a counter or a field already in memory, plus one stat() call, so status
 * costs the same at any size (measured in test/bench/status.bench.ts; walking 10,000 atoms to
 * count their types alone took 1.4 ms).
 */
export function workspaceStatus(workspace: AtomWorkspace, version: string, connectedClients: number): WorkspaceStatus {
  const store = workspace.atoms;
  const byType = store.countByType();
  const disk = store.diskSize();
  const build = store.lastBuild();
  const embedded = store.embeddingCount;
  const pending = workspace.search.pendingEmbeddings;
  const heap = v8HeapShape();
  return {
    atoms: { total: store.size, by_type: byType },
    edges: store.edges,
    database: { bytes: disk.database, journal_bytes: disk.journal },
    last_build: build
      ? { status: build.status, at: build.created_at, order_length: build.order.length, duration_ms: build.duration_ms, error: build.error_message }
      : null,
    embeddings: {
      provider: workspace.embeddings.modelId,
      embedded,
      pending,
      // Every atom has a vector and none waits for a new one. (Atoms found without a current
      // vector at open are embedded a few seconds later, or at once if a search needs them.)
      fresh: pending === 0 && embedded >= store.size,
      model_process: workspace.embeddings.memory?.() ?? null,
    },
    server: { version, connected_clients: connectedClients, heap: { held_bytes: heap.committedBytes, used_bytes: heap.usedBytes, given_back: givenBack() } },
    // Kept by the workspace between changes that cannot move it, so this stays cheap.
    boot_atom: workspace.bootAtom(),
    bundle: bundleOf(workspace),
    refused_at_open: { atoms: store.openReport.refused, removed: store.openReport.removed },
    distrusted_at_open: [...store.distrusted],
    checks: checksOf(workspace),
    text_tree: workspace.textTree
      ? { folder: workspace.textTree.folder, files: workspace.textTree.files, problems: workspace.textTree.problems().map(({ file, reason }) => ({ file, reason })) }
      : null,
  };
}

export const getStatus = defineTool({
  name: 'get_status',
  title: 'Workspace status',
  description:
    'Counts, last build, boot atom, search index, server and clients, atoms refused at open. ' +
    'Use it to see why latest.js did not update.',
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, { workspace, serverVersion, connectedClients }) {
    const status = workspaceStatus(workspace, serverVersion, connectedClients());
    return { text: formatStatus(status), structured: status as unknown as Record<string, unknown> };
  },
});

export function formatStatus(s: WorkspaceStatus): string {
  const types = ATOM_TYPES.map((t) => `${t} ${s.atoms.by_type[t]}`).join(', ');
  const b = s.last_build;
  const build = !b
    ? 'Last build: none yet (create an atom and latest.js is built).'
    : b.status === 'error'
      ? `Last build: FAILED at ${b.at}: ${b.error}`
      : `Last build: ${b.status} at ${b.at}, ${b.order_length} atoms in order${b.duration_ms !== null ? `, ${b.duration_ms} ms` : ''}.`;
  const e = s.embeddings;
  const search = `Search index: ${e.provider}, ${e.embedded} of ${s.atoms.total} atoms embedded, ${e.pending} queued: ${
    e.fresh ? 'up to date' : 'not up to date (embedding runs in the background: it starts a few seconds after the workspace opens, or at once when a search needs it)'
  }.`;
  return [
    `Atoms: ${s.atoms.total} (${types}); dependency edges: ${s.edges}.`,
    `Database: ${formatBytes(s.database.bytes)} snapshot + ${formatBytes(s.database.journal_bytes)} journal.`,
    build,
    bundleLine(s.bundle),
    search,
    ...modelLines(e.model_process),
    `Server: version ${s.server.version}, ${s.server.connected_clients} client${s.server.connected_clients === 1 ? '' : 's'} connected.`,
    heapLine(s.server.heap),
    `Boot atom: ${s.boot_atom ?? 'none'} (${BOOT_RULE})`,
    ...refusedLines(s.refused_at_open),
    ...s.distrusted_at_open.map((line) => `Not trusted at open: ${line}.`),
    ...checkStatusLines(s.checks),
    ...textTreeLines(s.text_tree),
  ].join('\n');
}

/** Where the workspace's bundle goes, or why it goes nowhere. */
export function bundleOf(workspace: AtomWorkspace): WorkspaceStatus['bundle'] {
  try {
    return { path: workspace.builder.checkOutputPath(), problem: null };
  } catch (err) {
    return { path: null, problem: (err as Error).message };
  }
}

/** `Bundle: /work/game/.atomic/latest.js (rewritten after every change).`, in get_status and a session's first write. */
export function bundleLine(bundle: WorkspaceStatus['bundle']): string {
  return bundle.path !== null ? `Bundle: ${bundle.path} (rewritten after every change).` : `Bundle: not written: ${bundle.problem}`;
}

/** Names are quoted as JSON: a refused name may hold a line break, and must not start a line here. */
function refusedLines({ atoms, removed }: WorkspaceStatus['refused_at_open']): string[] {
  const lines: string[] = [];
  if (atoms.length > 0) {
    const listed = atoms.slice(0, LISTED).map((a) => `${JSON.stringify(a.name)} (${a.reason})`);
    if (atoms.length > LISTED) listed.push(`and ${atoms.length - LISTED} more (see refused_at_open)`);
    lines.push(
      `${atoms.length} atom${atoms.length === 1 ? '' : 's'} refused at open: ${listed.join('; ')}. ` +
        'They are not loaded and not in latest.js; their rows stay in atoms.db as they are (a refused journal entry is dropped at the next save). ' +
          'Upsert a valid atom under the same name to replace one.',
    );
  }
  if (removed.length > 0) {
    const listed = removed.slice(0, LISTED).map((o) => `${o.type} ${JSON.stringify(o.name)}`);
    if (removed.length > LISTED) listed.push(`and ${removed.length - LISTED} more`);
    lines.push(`Removed at open, not part of the Atomic Coding schema: ${listed.join(', ')} (atoms.db on disk keeps them until its snapshot is next written).`);
  }
  return lines.map((line) => line.replace(/[\u2028\u2029]/g, ' '));
}

/** The text tree's line: its folder, its files, and each file not taken with the reason. */
function textTreeLines(t: WorkspaceStatus['text_tree']): string[] {
  if (!t) return [];
  const listed = t.problems.slice(0, LISTED).map((p) => `${p.file} (${p.reason})`);
  if (t.problems.length > LISTED) listed.push(`and ${t.problems.length - LISTED} more (see text_tree.problems)`);
  const problems = listed.length ? `${listed.join('; ')}. Fix those files; until then their atoms keep their last good version` : 'none';
  return [`Text tree: ${t.folder}/ (${t.files} file${t.files === 1 ? '' : 's'}); problems: ${problems}.`.replace(/[\u2028\u2029\n]/g, ' ')];
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The process's JavaScript heap, and what the idle collection gave back (in VS Code the heap is the extension host's). */
function heapLine(h: WorkspaceStatus['server']['heap']): string {
  const given = h.given_back.collections === 0 ? 'nothing given back yet' : `${formatBytes(h.given_back.bytes)} given back when quiet (${h.given_back.collections} time${h.given_back.collections === 1 ? '' : 's'})`;
  return `JavaScript heap: ${formatBytes(h.held_bytes)} held, ${formatBytes(h.used_bytes)} in use; ${given}.`;
}

/** The model runs in a process of its own, so its memory is not the server's (nor VS Code's): say which it is. */
function modelLines(model: EmbedderMemory | null): string[] {
  if (!model) return [];
  if (!model.running) return ['Embedding model: not running (its process starts at the next search or edit, and ends after a few idle minutes).'];
  const rss = model.rssBytes !== undefined ? `, ${formatBytes(model.rssBytes)} resident` : '';
  const peak = model.peakBytes !== undefined ? ` (peak ${formatBytes(model.peakBytes)})` : '';
  const runtime = model.runtime ? ` on ${model.runtime === 'tfjs' ? "tfjs's wasm backend (slower: onnxruntime is not available here)" : model.runtime}` : '';
  return [`Embedding model: running in its own process${model.pid ? ` (pid ${model.pid})` : ''}${runtime}${rss}${peak}, apart from the server's memory.`];
}
