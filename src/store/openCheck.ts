/**
 * The check at open: the database may be someone else's (a cloned repository brings its
 * `.atomic/`), so every atom, in the snapshot or replayed from the journal, is checked as an
 * upsert checks a draft. An atom that fails is refused: not loaded, so no tool, view or bundle
 * sees it, and listed in the open report. Its row stays in atoms.db as it was (a stricter check
 * in a later version must never destroy someone's work); an upsert under its name replaces it.
 *
 * A row this program wrote or checked before carries a seal (checkSeal.ts) that only this
 * machine's user can make: such a row loads without its code being parsed again. Every other
 * row (a cloned repository's, an edited one, one from before seals) is checked in full, and
 * sealed once it passes, so the next open is fast.
 */
import { errors } from '../atoms/errors.js';
import { dependentsMap, topologicalOrder } from '../atoms/graph.js';
import type { Atom, AtomDraft } from '../atoms/model.js';
import { validateDraft } from '../atoms/validate.js';
import type { Logger } from '../util/log.js';
import { nextTurn } from '../util/turn.js';
import type { AtomExample, Port } from '../atoms/model.js';
import type { RawAtomRow } from './atoms/table.js';
import { sealer } from './checkSeal.js';
import type { JournalEntry, JournalOp } from './journal.js';
import type { RemovedObject } from './schema.js';

/** An atom found at open that fails the checks an upsert makes: not loaded. */
export interface RefusedAtom {
  /** As found (cut to 200 characters): it may hold anything, so escape it before showing it. */
  name: string;
  reason: string;
  /** The snapshot's row (kept as it is), or a journal entry (dropped at the next compaction). */
  source: 'database' | 'journal';
}

/** What the last open (or reload from disk) refused to load. */
export interface OpenReport {
  refused: RefusedAtom[];
  /** Triggers, views, tables and indexes that are not the schema, removed before any write. */
  removed: RemovedObject[];
}

/** A journal entry with the atoms it writes checked: a refused atom's write is left out. */
export function checkedEntry(entry: JournalEntry, refused: RefusedAtom[]): JournalEntry {
  const ops: JournalOp[] = [];
  for (const op of entry.ops) {
    if (op?.op !== 'put') {
      ops.push(op);
      continue;
    }
    try {
      ops.push({ op: 'put', atom: checkStoredAtom(op.atom) });
    } catch (err) {
      refused.push(refusal((op.atom as unknown as Record<string, unknown> | undefined)?.name, err, 'journal'));
    }
  }
  return { seq: entry.seq, ops };
}

/**
 * The atoms that may load from `rows`, sorted by name: each checked as an upsert would (the
 * draft on its own, then its dependencies: present, loaded, no cycle). Refused atoms go to
 * `refused`. A row whose seal matches skips the draft check (its code is not parsed again); the
 * graph is checked for every atom. Rows checked in full that passed get a seal, returned in
 * `sealed` for the caller to store.
 *
 * Parsing an atom's code is most of the cost of a full check (about 1 s for 10,000 atoms, 9.5 MB
 * of code), so it gives the event loop a turn every few hundred parsed atoms: the extension host
 * stays responsive while a large workspace opens for the first time.
 */
export async function checkAtomRows(rows: RawAtomRow[], refused: RefusedAtom[], sealed?: Map<string, string>): Promise<{ atoms: Atom[]; order: string[] }> {
  const atoms = new Map<string, Atom>();
  const seals = sealer();
  let parsed = 0;
  let seen = 0;
  for (const r of rows) {
    // A turn every 2,000 rows, and every 250 whose code is parsed (the costly part).
    if (++seen % 2000 === 0) await nextTurn();
    try {
      if (r.duplicated) throw errors.invalid('atoms.db holds more than one row with this name');
      const trusted = seals.matches(r, r.seal) ? sealedAtom(r) : undefined;
      if (trusted) {
        atoms.set(trusted.name, trusted);
        continue;
      }
      if (++parsed % 250 === 0) await nextTurn();
      const atom = checkStoredAtom({
        name: r.name,
        type: r.type,
        code: r.code,
        description: r.description,
        inputs: parseJsonColumn(r.inputs, 'inputs'),
        outputs: parseJsonColumn(r.outputs, 'outputs'),
        examples: r.examples === null || r.examples === undefined ? undefined : parseJsonColumn(r.examples, 'examples'),
        dependencies: r.dependencies,
        version: r.version,
        created_at: r.created_at,
        updated_at: r.updated_at,
      });
      atoms.set(atom.name, atom);
      if (sealed) {
        const s = seals.seal(r);
        if (s !== null) sealed.set(atom.name, s);
      }
    } catch (err) {
      refused.push(refusal(r.name, err, 'database'));
    }
  }
  const order = refuseBrokenGraph(atoms, refused);
  if (sealed) for (const name of sealed.keys()) if (!atoms.has(name)) sealed.delete(name);
  return { atoms: byName(atoms), order };
}

/**
 * The atoms of the kept atoms' file (keptAtoms.ts, sealed here, checked when they were written)
 * with the journal's later entries applied: their graph checked as `checkAtomRows` checks it,
 * sorted by name. Takes `atoms` over.
 */
export function checkKeptAtoms(atoms: Map<string, Atom>, refused: RefusedAtom[]): { atoms: Atom[]; order: string[] } {
  const order = refuseBrokenGraph(atoms, refused);
  return { atoms: byName(atoms), order };
}

/** The atoms sorted by name here, not by the database: a table of someone else's may declare another collation. */
function byName(atoms: Map<string, Atom>): Atom[] {
  return [...atoms.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The atom of a row whose seal matches: written (or checked in full) by this program, so its
 * columns are as a checked atom's; undefined when they are not as expected after all (the
 * full check then says why).
 */
function sealedAtom(r: RawAtomRow): Atom | undefined {
  if (typeof r.name !== 'string' || typeof r.code !== 'string' || typeof r.version !== 'number') return undefined;
  if (typeof r.inputs !== 'string' || typeof r.outputs !== 'string') return undefined;
  if (typeof r.created_at !== 'string' || typeof r.updated_at !== 'string') return undefined;
  if (r.description !== null && typeof r.description !== 'string') return undefined;
  if (!r.dependencies.every((d): d is string => typeof d === 'string')) return undefined;
  if (r.examples !== null && typeof r.examples !== 'string') return undefined;
  return {
    name: r.name,
    type: r.type as Atom['type'],
    code: r.code,
    description: r.description,
    inputs: JSON.parse(r.inputs) as Port[],
    outputs: JSON.parse(r.outputs) as Port[],
    dependencies: [...(r.dependencies as string[])].sort(),
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    ...(r.examples !== null ? { examples: JSON.parse(r.examples) as AtomExample[] } : {}),
  };
}

/** Says in the log what the open removed and refused (get_status lists it all). */
export function logOpenReport(log: Logger, report: OpenReport, dbFile: string): void {
  for (const o of report.removed) {
    log.warn(`store: removed ${o.type} ${JSON.stringify(o.name)} from the loaded copy of ${dbFile}: it is not part of the Atomic Coding schema`);
  }
  const shown = report.refused.slice(0, 20);
  for (const r of shown) {
    log.warn(`store: refused atom ${JSON.stringify(r.name)} (${r.source === 'journal' ? 'journal entry' : 'atoms.db row'}): ${r.reason}`);
  }
  if (report.refused.length > shown.length) {
    log.warn(`store: ... and ${report.refused.length - shown.length} more atoms refused (get_status lists them)`);
  }
}

/**
 * An atom as stored (a row of atoms.db, or a journal entry's), checked as an upsert checks a
 * draft, plus the fields the store adds. Throws the AtomError that says what is wrong.
 */
function checkStoredAtom(raw: unknown): Atom {
  if (typeof raw !== 'object' || raw === null) throw errors.invalid('the entry holds no atom');
  const a = raw as Record<string, unknown>;
  const d = validateDraft({
    name: a.name,
    type: a.type,
    code: a.code,
    description: a.description ?? undefined,
    inputs: a.inputs,
    outputs: a.outputs,
    dependencies: a.dependencies,
    examples: a.examples,
  } as AtomDraft);
  const version = a.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw errors.invalid(`version ${JSON.stringify(version)} is not a whole number from 1 up`);
  }
  const [created_at, updated_at] = [a.created_at, a.updated_at].map((t, i) => {
    if (typeof t !== 'string' || !TIMESTAMP.test(t)) {
      throw errors.invalid(`${i === 0 ? 'created_at' : 'updated_at'} is not a timestamp such as "2026-02-08T12:00:00.000Z"`);
    }
    return t;
  }) as [string, string];
  const { examples, ...rest } = d;
  return { ...rest, ...(examples.length > 0 ? { examples } : {}), version, created_at, updated_at };
}

/** ISO 8601 as written here, or SQL's `2026-02-08 12:00:00`: digits and separators, one line. */
const TIMESTAMP = /^\d[\dT:.+\- Z]{0,39}$/;

function parseJsonColumn(value: unknown, column: string): unknown {
  if (typeof value !== 'string') throw errors.invalid(`${column} is not JSON text`);
  try {
    return JSON.parse(value);
  } catch {
    throw errors.invalid(`${column} is not valid JSON`);
  }
}

/**
 * Refuses, in `atoms`, each atom that depends on one missing or refused (and so on, to the atoms
 * that depend on those), then every atom left on a cycle or behind one: the graph an upsert
 * keeps, so the bundle can order it. Returns the atoms left in dependency order (bundler.ts's
 * layout), which the open hands on so that nothing sorts them again before they change.
 */
function refuseBrokenGraph(atoms: Map<string, Atom>, refused: RefusedAtom[]): string[] {
  const queue: [string, string][] = [];
  for (const atom of atoms.values()) {
    const missing = atom.dependencies.filter((d) => !atoms.has(d));
    if (missing.length > 0) queue.push([atom.name, `depends on ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not loaded`]);
  }
  // The usual open finds nothing missing and no cycle: the sort says so (and its order is kept),
  // without the reverse map, which only names what is refused.
  const graph = new Map([...atoms.values()].map((a) => [a.name, a.dependencies]));
  if (queue.length === 0) {
    const { order, cyclic } = topologicalOrder(graph);
    if (cyclic.length === 0) return order;
  }
  const users = dependentsMap(graph);
  while (queue.length > 0) {
    const [name, reason] = queue.pop()!;
    if (!atoms.delete(name)) continue;
    refused.push({ name, reason, source: 'database' });
    for (const user of users.get(name) ?? []) if (atoms.has(user)) queue.push([user, `depends on ${name}, which is not loaded`]);
  }
  const { order, cyclic } = topologicalOrder(new Map([...atoms.values()].map((a) => [a.name, a.dependencies])));
  for (const name of cyclic) {
    atoms.delete(name);
    refused.push({ name, reason: 'is on a dependency cycle, or depends on an atom on one', source: 'database' });
  }
  return order;
}

function refusal(name: unknown, err: unknown, source: RefusedAtom['source']): RefusedAtom {
  const text = typeof name === 'string' ? name : String(name);
  const reason = err instanceof Error ? err.message : String(err);
  return {
    name: text.length > 200 ? `${text.slice(0, 200)}…` : text,
    reason: reason.replace(/[\r\n\u2028\u2029]+/g, ' '),
    source,
  };
}
