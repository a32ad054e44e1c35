/**
 * What a write checks and tells beyond "saved", pure, so an agent's first try works and nothing
 * breaks or goes missing without a word:
 * - the atoms a draft's code calls without declaring them are added to its dependencies
 *   (`completeDependencies`), so the bundle orders them and a delete of one is refused;
 * - atoms whose code already called an atom that did not exist yet are linked to it when it is
 *   created (`callersToLink`), unless that would close a cycle;
 * - an update says which fields it emptied (`removedFields`: upsert overwrites, as the contract says);
 * - declared inputs that disagree with the function's parameters are warned about (`signatureWarning`).
 * The save's plan (writePlan.ts's planWrite) runs these in the write turn; planChange validates the result as any upsert.
 */
import { checkLines, type CheckResult } from './checks.js';
import { codeNames, referencedAtoms } from './calls.js';
import { findCycleThrough, type GraphLookup } from './graph.js';
import { MAX_DEPENDENCIES, type Atom, type AtomDraft, type Port } from './model.js';
import { filterHolds, nameProbe, wordFilter } from './nameFilter.js';
import { validateDraft } from './validate.js';

/** What one saved atom's answer adds after its first line. */
export interface AtomNotes {
  /** Atoms the code calls that the draft did not declare, added to its dependencies. */
  dependenciesAdded: string[];
  /** Fields an update emptied or shortened: `description`, `inputs [n]`, ... */
  removed: string[];
  /** Declared inputs that disagree with the function's parameters. */
  signatureWarning?: string;
  /** A return whose visible value does not fit the declared outputs (returns.ts). */
  returnWarning?: string;
  /** Ports an update changed in a way that breaks callers, and the atoms that call it. */
  breaking?: { changes: string[]; callers: string[] };
}

/** What a whole write adds after its answer's first line. */
export interface WriteNotes {
  /** Per saved atom, by name (only atoms with something to say). */
  atoms: Map<string, AtomNotes>;
  /** Atoms linked to a new atom their code already called. */
  linked: string[];
  /** Atoms that call a new atom but could not be linked to it, with why. */
  notLinked: string[];
  /** The atom the bundle boots, when the write changed it. */
  boot?: { now: string | null; was: string | null };
  /** The boot atom needs arguments it will not get (bootInputsWarning). */
  bootWarning?: string;
  /** The examples and tests the write touched, as they ran after it (checks.ts); absent when none. */
  checks?: CheckResult[];
}

export function emptyNotes(): WriteNotes {
  return { atoms: new Map(), linked: [], notLinked: [] };
}

/**
 * The draft with the atoms its code calls (names `isAtom` knows, other than itself) added to its
 * dependencies. A draft that is not well formed is returned as it is: validation says what is wrong.
 */
export function completeDependencies(draft: AtomDraft, isAtom: (name: string) => boolean): { draft: AtomDraft; added: string[] } {
  if (typeof draft !== 'object' || draft === null || typeof draft.code !== 'string' || typeof draft.name !== 'string') return { draft, added: [] };
  const declared = draft.dependencies ?? [];
  if (!Array.isArray(declared)) return { draft, added: [] };
  const added = referencedAtoms(draft.code, isAtom, draft.name).filter((n) => !declared.includes(n));
  return added.length === 0 ? { draft, added } : { draft: { ...draft, dependencies: [...declared, ...added] }, added };
}

/**
 * Existing atoms (outside the batch, `inBatch`) whose code calls one of the `created` atoms without
 * declaring it: the drafts that declare it, checked against `graph` (the graph after the batch),
 * and the callers that cannot be linked (a cycle, too many dependencies) with the reason.
 */
export function callersToLink(
  created: readonly string[],
  atoms: Iterable<Atom>,
  graph: GraphLookup,
  inBatch: ReadonlySet<string>,
): { drafts: AtomDraft[]; linked: string[]; notLinked: string[] } {
  const out = { drafts: [] as AtomDraft[], linked: [] as string[], notLinked: [] as string[] };
  if (created.length === 0) return out;
  const isCreated = new Set(created);
  // The graph as the links leave it, seen through them (a copy of every entry cost a 50,000-entry Map per atom created).
  const linkedLists = new Map<string, readonly string[]>();
  const after: GraphLookup = { get: (n) => linkedLists.get(n) ?? graph.get(n), has: (n) => linkedLists.has(n) || graph.has(n) };
  const probes = created.map(nameProbe);
  for (const atom of atoms) {
    // The filter first: it rules out nearly every atom, and the batch's names are looked up only for the rest.
    const words = wordFilter(atom);
    if (!created.some((n, k) => filterHolds(words, probes[k]!) && atom.code.includes(n)) || inBatch.has(atom.name)) continue;
    const calls = referencedAtoms(atom.code, (n) => isCreated.has(n), atom.name).filter((n) => !atom.dependencies.includes(n));
    if (calls.length === 0) continue;
    const dependencies = [...atom.dependencies, ...calls].sort();
    const cycle = findCycleThrough(after, atom.name, dependencies);
    if (cycle) {
      out.notLinked.push(`${atom.name} (it would close the cycle ${cycle.join(' -> ')})`);
      continue;
    }
    if (dependencies.length > MAX_DEPENDENCIES) {
      out.notLinked.push(`${atom.name} (it would have more than ${MAX_DEPENDENCIES} dependencies)`);
      continue;
    }
    const draft = { ...draftOfAtom(atom), dependencies };
    try {
      validateDraft(draft);
    } catch (err) {
      out.notLinked.push(`${atom.name} (${(err as Error).message})`);
      continue;
    }
    linkedLists.set(atom.name, dependencies);
    out.drafts.push(draft);
    out.linked.push(atom.name);
  }
  return out;
}

/** Fields that had a value before and have none, or fewer, now; ports and dependencies by name. */
export function removedFields(previous: Atom, next: Atom): string[] {
  const out: string[] = [];
  if (previous.description && !next.description) out.push('description');
  const gone = (before: readonly string[], now: readonly string[]) => before.filter((n) => !now.includes(n));
  const lists: [string, string[]][] = [
    ['inputs', gone(previous.inputs.map((p) => p.name), next.inputs.map((p) => p.name))],
    ['outputs', gone(previous.outputs.map((p) => p.name), next.outputs.map((p) => p.name))],
    ['dependencies', gone(previous.dependencies, next.dependencies)],
  ];
  for (const [field, names] of lists) if (names.length > 0) out.push(`${field} [${names.join(', ')}]`);
  return out;
}

/**
 * A warning when the declared inputs and the function's parameters differ in number or in name
 * (position by position). A destructured parameter has no name to compare: then only the number.
 */
export function signatureWarning(code: string, inputs: readonly Port[]): string | undefined {
  let params: readonly string[];
  try {
    params = codeNames(code).params;
  } catch {
    return undefined;
  }
  const names = params.map((p) => (p.startsWith('...') ? p.slice(3) : p));
  const declared = inputs.map((p) => p.name);
  const differs =
    names.length !== declared.length || (!names.includes('?') && names.some((n, i) => n !== declared[i]));
  return differs ? `Warning: inputs [${declared.join(', ')}] do not match the function's parameters (${params.join(', ')})` : undefined;
}

/** The lines one atom's notes add, in a fixed order. */
export function atomNoteLines(n: AtomNotes | undefined): string[] {
  if (!n) return [];
  const lines: string[] = [];
  if (n.dependenciesAdded.length > 0) lines.push(`Dependencies added (called in the code): ${n.dependenciesAdded.join(', ')}`);
  if (n.removed.length > 0) lines.push(`Removed: ${n.removed.join(', ')}`);
  if (n.signatureWarning) lines.push(n.signatureWarning);
  if (n.returnWarning) lines.push(n.returnWarning);
  if (n.breaking && n.breaking.callers.length > 0) {
    lines.push(`Callers to update (${n.breaking.changes.join('; ')}): ${n.breaking.callers.join(', ')}. read_atoms them and fix the calls in the same upsert_atoms.`);
  }
  return lines;
}

/**
 * What an update changed in its ports that its callers feel: an input added without being optional,
 * removed, moved or retyped; an output removed or retyped. Empty when callers keep working.
 */
export function breakingChanges(previous: Atom, next: Atom): string[] {
  const out: string[] = [];
  previous.inputs.forEach((p, i) => {
    const now = next.inputs.findIndex((q) => q.name === p.name);
    if (now < 0) out.push(`input ${p.name} removed`);
    else if (now !== i) out.push(`input ${p.name} moved from position ${i + 1} to ${now + 1}`);
    else if (next.inputs[now]!.type !== p.type) out.push(`input ${p.name}: ${p.type} -> ${next.inputs[now]!.type}`);
  });
  for (const q of next.inputs) if (!q.optional && !previous.inputs.some((p) => p.name === q.name)) out.push(`input ${q.name} added`);
  for (const p of previous.outputs) {
    const q = next.outputs.find((o) => o.name === p.name);
    if (!q) out.push(`output ${p.name} removed`);
    else if (q.type !== p.type) out.push(`output ${p.name}: ${p.type} -> ${q.type}`);
  }
  return out;
}

/**
 * The boot atom takes inputs it needs: latest.js calls it with none when it loads (a state atom that
 * became the last core atom before main existed). Undefined when the boot atom needs none.
 */
export function bootInputsWarning(boot: Atom | undefined): string | undefined {
  const needed = boot?.inputs.filter((p) => !p.optional && p.type !== 'void') ?? [];
  if (!boot || needed.length === 0) return undefined;
  return (
    `Warning: latest.js boots ${boot.name}, which takes ${needed.map((p) => `${p.name}: ${p.type}`).join(', ')}: it is called with none when the page loads. ` +
    `Give the app its entry point, a core atom named main (or game_loop), or make ${boot.name} a util if it only keeps state.`
  );
}

/** The lines of the whole write's notes (linking and boot), after the atoms' own. */
export function writeNoteLines(notes: WriteNotes): string[] {
  const lines: string[] = [];
  if (notes.linked.length > 0) lines.push(`Linked (their code calls it): ${notes.linked.join(', ')}`);
  if (notes.notLinked.length > 0) lines.push(`Not linked, fix by hand: ${notes.notLinked.join('; ')}`);
  if (notes.boot) lines.push(bootLine(notes.boot));
  if (notes.bootWarning) lines.push(notes.bootWarning);
  if (notes.checks) lines.push(...checkLines(notes.checks));
  return lines;
}

export function bootLine({ now, was }: { now: string | null; was: string | null }): string {
  return `Boot: ${now ?? 'none'} (was ${was ?? 'none'})`;
}

/** The upsert that saves `atom` as it is. */
export function draftOfAtom(atom: Atom): AtomDraft {
  return {
    name: atom.name,
    type: atom.type,
    code: atom.code,
    inputs: atom.inputs,
    outputs: atom.outputs,
    dependencies: atom.dependencies,
    description: atom.description ?? undefined,
  };
}
