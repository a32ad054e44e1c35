/**
 * What an upsert of one or several drafts will write: each draft validated, the dependencies
 * checked against the graph as it will be after the whole batch (all or nothing), and the new
 * version of each atom that changes. Pure: the store commits the plan, or nothing when it throws.
 */
import { errors, AtomError } from '../../atoms/errors.js';
import { checkDependencies, soundTogether, type DependencyMap, type GraphLookup } from '../../atoms/graph.js';
import type { Atom, AtomDraft } from '../../atoms/model.js';
import { validateDraft, type NormalizedDraft } from '../../atoms/validate.js';
import { sameExamples } from '../../atoms/examples.js';

export interface UpsertResult {
  atom: Atom;
  previous?: Atom;
  created: boolean;
}

/** What the plan reads of the current atoms. */
export interface PlanContext {
  current: DependencyMap;
  get(name: string): Atom | undefined;
  /** The highest version ever stored under a name (0 for none), for an atom created again. */
  lastVersion(name: string): number;
  /** The time the changed atoms get. */
  now: string;
}

/** Whether two dependency lists name the same atoms (order aside); `undefined`: no atom before. */
function sameList(before: readonly string[] | undefined, after: readonly string[]): boolean {
  if (!before || before.length !== after.length) return false;
  const set = new Set(before);
  return after.every((d) => set.has(d));
}

/**
 * One result per draft, in order. An unchanged draft's result holds the current atom as both
 * `atom` and `previous` (saving an atom unchanged is not an update: upserts are idempotent).
 * Refused input throws the AtomError that says which atom and why (its message starts with the
 * atom, `labelled`, when the caller sent several: by default when there are several drafts).
 */
export function planUpserts(drafts: AtomDraft[], ctx: PlanContext, { labelled = drafts.length > 1 }: { labelled?: boolean } = {}): UpsertResult[] {
  const normalized: NormalizedDraft[] = [];
  const seen = new Set<string>();
  for (const [i, draft] of drafts.entries()) {
    let d: NormalizedDraft;
    try {
      d = validateDraft(draft);
    } catch (err) {
      if (labelled && err instanceof AtomError) {
        throw new AtomError(err.code, `atoms[${i}] (${JSON.stringify(draft?.name)}): ${err.message}`);
      }
      throw err;
    }
    if (seen.has(d.name)) throw errors.invalid(`the batch lists "${d.name}" twice; give each atom once`);
    seen.add(d.name);
    normalized.push(d);
  }
  // The graph as it will be after the batch: the stored one seen through the batch's lists (a
  // copy of 50,000 entries per upsert cost more than the rest of the check).
  const lists = new Map(normalized.map((d) => [d.name, d.dependencies]));
  const graph: GraphLookup = {
    get: (name) => lists.get(name) ?? ctx.current.get(name),
    has: (name) => lists.has(name) || ctx.current.has(name),
  };
  // Only atoms whose dependency list changed can add a missing dependency or a cycle: the stored
  // graph has neither, and an atom nothing else changed keeps its edges. An edit of code walks nothing.
  const rewired = normalized.filter((d) => !sameList(ctx.get(d.name)?.dependencies, d.dependencies)).map((d) => d.name);
  // Checked per atom only when the batch as a whole is refused, so the refusal names the atom: a
  // walk per atom costs what the atom reaches, and a branch switch or a clone brings thousands.
  if (!soundTogether(graph, rewired)) {
    const whole = new Map(ctx.current);
    for (const [name, deps] of lists) whole.set(name, deps);
    checkEach(normalized, whole, labelled);
  }
  return normalized.map((d) => {
    const previous = ctx.get(d.name);
    if (previous && sameContent(previous, d)) return { atom: previous, previous, created: false };
    const version = previous ? previous.version + 1 : ctx.lastVersion(d.name) + 1;
    const { examples, ...rest } = d;
    // No examples: no field (an atom without them is stored, journalled and compared as before).
    const atom: Atom = { ...rest, ...(examples.length > 0 ? { examples } : {}), version, created_at: previous?.created_at ?? ctx.now, updated_at: ctx.now };
    return { atom, previous, created: !previous };
  });
}

/** Each draft against the graph after the batch, in order: the first refused throws, naming it. */
function checkEach(normalized: NormalizedDraft[], graph: Map<string, readonly string[]>, labelled: boolean): void {
  for (const d of normalized) {
    graph.delete(d.name);
    try {
      checkDependencies(graph, d.name, d.dependencies);
    } catch (err) {
      if (labelled && err instanceof AtomError) {
        throw new AtomError(err.code, `${d.name}: ${err.message}`);
      }
      throw err;
    }
    graph.set(d.name, d.dependencies);
  }
}

/** Whether the result changes the atom (an unchanged save returns the current atom). */
export function changed(result: UpsertResult): boolean {
  return result.atom !== result.previous;
}

function sameContent(a: Atom, d: NormalizedDraft): boolean {
  return (
    a.type === d.type &&
    a.code === d.code &&
    a.description === d.description &&
    JSON.stringify(a.inputs) === JSON.stringify(d.inputs) &&
    JSON.stringify(a.outputs) === JSON.stringify(d.outputs) &&
    a.dependencies.join() === d.dependencies.join() &&
    sameExamples(a.examples, d.examples)
  );
}
