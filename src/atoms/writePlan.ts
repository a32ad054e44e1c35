/**
 * The write planner, pure: every write of atoms is planned here, whoever makes it, in two steps.
 *
 * 1. `planWrite` (and `planRename`): what a request changes, read against the atoms as they are
 *    in the write turn.
 *    A `save` (the workspace: a tool call, an editor save, a restore) is all or nothing: the atoms a
 *    draft's code calls are added to its dependencies, atoms whose code already called a new atom
 *    are linked to it (writeChecks.ts), and an atom still used or called is not deleted. An `import`
 *    (the text tree: files edited by anyone) takes each file as it is: the ones that cannot be taken
 *    together with the others are left out, each with why, and the rest is written.
 * 2. `planChange`: the versions that change writes: each draft validated, the dependencies checked
 *    against the graph as it will be after the whole change, each deleted atom left with no
 *    dependent. The store journals and applies the result, or nothing when this throws.
 */
import { codeCallers, holdCodeNames, renameInCode, RenameConflict } from './calls.js';
import { errors, AtomError } from './errors.js';
import { checkDependencies, dependentsMap, soundTogether, type DependencyMap, type GraphLookup } from './graph.js';
import type { Atom, AtomDraft } from './model.js';
import { sameExamples } from './examples.js';
import { unknownNames, unknownNamesError } from './unknownNames.js';
import { escapeRegExp } from '../util/regexp.js';
import { checkName, validateDraft, type NormalizedDraft } from './validate.js';
import { callersToLink, completeDependencies, draftOfAtom } from './writeChecks.js';

/** What the planner reads of the atoms as they are (the store's reader has it all). */
export interface WriteReader {
  get(name: string): Atom | undefined;
  has(name: string): boolean;
  all(): readonly Atom[];
  dependencyMap(): DependencyMap;
  /** Atoms that list `name` as a dependency, sorted. */
  dependents(name: string): string[];
  /**
   * The atoms whose code may name one of `names`, sorted by name: a superset of those that do, to
   * read instead of every atom (the store keeps them indexed, nameFilter.ts). Absent: every atom.
   */
  mayName?(names: readonly string[]): readonly Atom[];
  /** Names of atoms that were deleted and not re-created (only read when a refusal names one). */
  deletedAtoms?(): { name: string }[];
}

/** One store change: drafts to save, then atoms to delete, all or nothing. */
export interface ChangePlan {
  /** The caller's drafts; their results come first, in order. */
  upserts: AtomDraft[];
  /** Drafts the change adds of its own (atoms linked to a new one); their results follow. */
  links?: AtomDraft[];
  deletes?: string[];
}

/** What a change did: one result per draft (upserts, then links), and the atoms it deleted. */
export interface ChangeOutcome {
  upserts: UpsertResult[];
  deleted: Atom[];
}

export interface WriteRequest {
  /** `save`: the workspace's write, all or nothing; `import`: the text tree's files, each as it is. */
  mode: 'save' | 'import';
  /** The drafts to save, in order. */
  drafts: readonly AtomDraft[];
  /** The atoms to delete. */
  deletes?: readonly string[];
  /**
   * `import` only: validate each draft here, so that one refused is left out. Off, the store's
   * check (planChange) validates each draft once, and refuses the whole change for one bad draft.
   */
  thorough?: boolean;
}

/** A request planned: the change to commit, and what the answer says of it. */
export interface WritePlan extends ChangePlan {
  links: AtomDraft[];
  deletes: string[];
  /** `save`: per draft, in order, the dependencies added because its code calls them. */
  added: string[][];
  /** `save`: atoms linked to a new atom their code already called. */
  linked: string[];
  /** `save`: atoms that call a new atom but could not be linked to it, with why. */
  notLinked: string[];
  /** `import`: the drafts and deletes left out, by name, with why. */
  refused: Map<string, string>;
}

/** Plans a write request against the atoms as they are (see the module's comment). */
export function planWrite(atoms: WriteReader, request: WriteRequest): WritePlan {
  // Each draft's code is parsed here and read again by the store's check right after: keep them all.
  holdCodeNames(request.drafts.length);
  return request.mode === 'save' ? planSave(atoms, request.drafts, request.deletes ?? []) : planImport(atoms, request.drafts, request.deletes ?? [], request.thorough ?? true);
}

function planSave(atoms: WriteReader, drafts: readonly AtomDraft[], deletes: readonly string[]): WritePlan {
  // Test atoms are no callers: they are no part of the program. One that declares a deleted atom
  // stops declaring it (its run then fails and says so), so the graph keeps no missing atom.
  const testsUnlinked = new Map<string, AtomDraft>();
  for (const name of deletes) {
    // Refused while an atom declares it, or while one's code calls it (declared or not): the
    // bundle never calls a missing function.
    if (!atoms.has(name)) throw errors.notFound(name);
    const users = new Set(atoms.dependents(name));
    for (const caller of codeCallers(atoms.mayName?.([name]) ?? atoms.all(), name)) users.add(caller);
    for (const user of users) {
      const atom = atoms.get(user);
      if (atom?.type !== 'test' || deletes.includes(user)) continue;
      users.delete(user);
      const draft = testsUnlinked.get(user) ?? draftOfAtom(atom);
      testsUnlinked.set(user, { ...draft, dependencies: (draft.dependencies ?? []).filter((d) => d !== name) });
    }
    if (users.size > 0) throw errors.inUse(name, [...users].sort());
  }
  const names = new Set(drafts.map((d) => (d as Partial<AtomDraft> | null)?.name).filter((n): n is string => typeof n === 'string'));
  const isAtom = (n: string) => names.has(n) || atoms.has(n);
  const completed = drafts.map((d) => completeDependencies(d, isAtom));
  const deleted = lazyDeleted(atoms);
  for (const { draft } of completed) checkNames(draft, isAtom, () => [...names, ...atoms.all().map((a) => a.name)], deleted);
  const created = [...names].filter((n) => !atoms.has(n));
  let link: ReturnType<typeof callersToLink> = { drafts: [], linked: [], notLinked: [] };
  if (created.length > 0) {
    // The graph after the batch, seen through the batch's lists: no copy of every atom's entry.
    const stored = atoms.dependencyMap();
    const lists = new Map<string, readonly string[]>();
    for (const { draft } of completed) if (Array.isArray(draft.dependencies)) lists.set(draft.name, draft.dependencies);
    const graph: GraphLookup = { get: (n) => lists.get(n) ?? stored.get(n), has: (n) => lists.has(n) || stored.has(n) };
    link = callersToLink(created, atoms.mayName?.(created) ?? atoms.all(), graph, names);
  }
  return {
    upserts: completed.map((c) => c.draft),
    links: [...link.drafts, ...testsUnlinked.values()],
    deletes: [...deletes],
    added: completed.map((c) => c.added),
    linked: link.linked,
    notLinked: link.notLinked,
    refused: new Map(),
  };
}

/**
 * Which of the changed files can be taken together: each draft validated on its own (`thorough`),
 * then against the graph as it will be (a draft whose dependency is refused is refused in turn); a
 * removed file deletes its atom only when nothing left uses it. `refused` says why for the others.
 */
function planImport(atoms: WriteReader, drafts: readonly AtomDraft[], deletes: readonly string[], thorough: boolean): WritePlan {
  const refused = new Map<string, string>();
  const stays = (name: string) => (atoms.get(name) ? `the last good version of ${name} stays in the store and the bundle` : `${name} is not created until the file is fixed`);
  const ok = new Map<string, { draft: AtomDraft; dependencies: string[] }>();
  const importing = new Set(drafts.map((d) => d.name));
  const isAtom = (n: string) => importing.has(n) || atoms.get(n) !== undefined;
  for (const draft of drafts) {
    const name = draft.name;
    try {
      // Not thorough: the store validates each draft anyway (parsing the code is the cost).
      const dependencies = thorough ? validateDraft(draft).dependencies : [...new Set(draft.dependencies ?? [])].sort();
      // As a write through the tools: no name that is no atom, no local and no global of the page.
      const declared = new Set(dependencies);
      const unknown = typeof draft.code === 'string' ? unknownNames(draft.code, (n) => isAtom(n) || declared.has(n) || allowedFor(draft, n)) : [];
      if (unknown.length > 0) throw unknownNamesError(name, unknown, () => [...importing, ...atoms.dependencyMap().keys()]);
      ok.set(name, { draft, dependencies });
    } catch (err) {
      refused.set(name, `${(err as Error).message} (${stays(name)})`);
    }
  }
  const graph = new Map(atoms.dependencyMap());
  for (const [name, d] of ok) graph.set(name, d.dependencies);
  // One walk when the files are sound together (the common case); else each file on its own.
  for (let again = !soundTogether(graph, [...ok.keys()]); again; ) {
    again = false;
    for (const [name, d] of ok) {
      graph.delete(name);
      try {
        checkDependencies(graph, name, d.dependencies);
        graph.set(name, d.dependencies);
      } catch (err) {
        refused.set(name, `${(err as Error).message} (${stays(name)})`);
        ok.delete(name);
        const current = atoms.get(name);
        if (current) graph.set(name, current.dependencies);
        again = true;
      }
    }
  }
  const gone = new Set(deletes.filter((name) => atoms.get(name)));
  for (let again = true; again; ) {
    again = false;
    const users = dependentsMap(graph);
    for (const name of gone) {
      const left = (users.get(name) ?? []).filter((u) => !gone.has(u));
      if (left.length === 0) continue;
      refused.set(
        name,
        `the file was removed, but ${left.join(', ')} still use${left.length === 1 ? 's' : ''} ${name}: the atom stays in the store and the bundle. ` +
          `Remove ${left.length === 1 ? 'that atom' : 'those atoms'} too, or bring the file back (git checkout -- <file>)`,
      );
      gone.delete(name);
      again = true;
    }
  }
  const upserts = [...ok.values()].map((d) => d.draft);
  return { upserts, links: [], deletes: [...gone], added: upserts.map(() => []), linked: [], notLinked: [], refused };
}

/**
 * A rename, all or nothing: the atom under its new name (its function renamed, and its calls to
 * itself), every atom that declares or calls it rewritten to call the new name and depending on it
 * instead, and the old name deleted. Refused when the new name is taken or not a name, or when a
 * rewritten atom would be refused (its code does not parse, the new name is declared inside it, or
 * it grows past the limits), the refusal naming that atom.
 */
export function planRename(
  atoms: WriteReader,
  name: string,
  newName: string,
  options: { rewriteDescriptions?: boolean } = {},
): WritePlan & { from: Atom; callers: string[]; descriptions: string[] } {
  const atom = atoms.get(name);
  if (!atom) throw errors.notFound(name);
  checkName(newName, 'new_name');
  if (newName === name) throw errors.invalid(`new_name is "${name}" already: give the atom a different name`);
  if (atoms.has(newName)) {
    throw errors.invalid(`an atom named "${newName}" already exists: choose another new_name, or delete or rename that atom first`);
  }
  const callers = new Set(atoms.dependents(name));
  for (const c of codeCallers(atoms.mayName?.([name]) ?? atoms.all(), name)) callers.add(c);
  const renamed = { ...draftOfAtom(atom), name: newName, code: rewrite(atom, name, newName, true) };
  const drafts: AtomDraft[] = [renamed];
  for (const callerName of [...callers].sort()) {
    const caller = atoms.get(callerName)!;
    const dependencies = caller.dependencies.filter((d) => d !== name).concat(newName).sort();
    drafts.push({ ...draftOfAtom(caller), code: rewrite(caller, name, newName, false), dependencies });
  }
  // Descriptions that name the old atom as a word: reported, or rewritten in this same change when asked.
  const mentions = wordPattern(name);
  const descriptions: string[] = [];
  for (const a of atoms.all()) {
    if (!a.description || !mentions.test(a.description)) continue;
    const key = a.name === name ? newName : a.name;
    descriptions.push(key);
    if (!options.rewriteDescriptions) continue;
    const description = a.description.replace(new RegExp(mentions.source, 'g'), newName);
    const i = drafts.findIndex((d) => d.name === key);
    if (i >= 0) drafts[i] = { ...drafts[i]!, description };
    else drafts.push({ ...draftOfAtom(a), description });
  }
  // Each rewritten atom checked on its own first, so a refusal names it.
  for (const d of drafts) {
    try {
      validateDraft(d);
    } catch (err) {
      if (!(err instanceof AtomError)) throw err;
      const which = d.name === newName ? 'the renamed atom' : callers.has(d.name) ? `its caller ${d.name}` : `${d.name} (its description)`;
      throw new AtomError(err.code, `cannot rename "${name}" to "${newName}": ${which} would be refused: ${err.message}`);
    }
  }
  return {
    upserts: drafts,
    links: [],
    deletes: [name],
    added: drafts.map(() => []),
    linked: [],
    notLinked: [],
    refused: new Map(),
    from: atom,
    callers: [...callers].sort(),
    descriptions: descriptions.sort(),
  };
}

/** `name` as a whole word (not part of a longer identifier). */
function wordPattern(name: string): RegExp {
  return new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
}

/** Names a kind of atom may use that no atom or page defines: a test atom's `assert` (the checks give it one). */
function allowedFor(draft: AtomDraft, name: string): boolean {
  return draft.type === 'test' && name === 'assert';
}

/**
 * Refuses a draft whose code uses a name that is no atom (`isAtom`), no local and no global of the
 * preview page (unknownNames.ts), with the nearest atom names. A draft that is not well formed is left
 * to validation, so its refusal says what is wrong with it first.
 */
function checkNames(draft: AtomDraft, isAtom: (name: string) => boolean, atomNames: () => Iterable<string>, deleted: (name: string) => boolean): void {
  try {
    validateDraft(draft);
  } catch {
    return;
  }
  // A declared dependency that does not exist is the contract's refusal ("dependencies not found"), made by the store.
  const declared = new Set(draft.dependencies ?? []);
  const unknown = unknownNames(draft.code, (n) => isAtom(n) || declared.has(n) || allowedFor(draft, n));
  if (unknown.length > 0) throw unknownNamesError(draft.name, unknown, atomNames, deleted);
}

/** Whether a name is a deleted atom's, the list read only when a refusal asks. */
function lazyDeleted(atoms: WriteReader): (name: string) => boolean {
  let names: Set<string> | undefined;
  return (name) => (names ??= new Set(atoms.deletedAtoms?.().map((d) => d.name) ?? [])).has(name);
}

/** `atom`'s code with its references to `from` written as `to` (calls.ts), or the refusal that says why not. */
function rewrite(atom: Atom, from: string, to: string, own: boolean): string {
  try {
    return renameInCode(atom.code, from, to, own);
  } catch (err) {
    const why = err instanceof RenameConflict ? err.message : `its code does not parse (${(err as Error).message})`;
    throw errors.invalid(`cannot rename "${from}" to "${to}": ${atom.name}: ${why}. Change ${atom.name} first, or choose another new_name.`);
  }
}

/** What `planChange` reads beyond the atoms: the versions stored before, and the time. */
export interface ChangeContext {
  /** The highest version ever stored under a name (0 for none), for an atom created again. */
  lastVersion(name: string): number;
  /** The time the changed atoms get. */
  now: string;
}

/**
 * The versions a change writes (planUpserts over its drafts, refusals of the caller's own drafts
 * read as they would alone), and the atoms it deletes: each must exist and be left with no
 * dependent. Throws the AtomError that says what is refused; then nothing is written.
 */
export function planChange(change: ChangePlan, atoms: Pick<WriteReader, 'get' | 'dependencyMap' | 'dependents'>, ctx: ChangeContext): ChangeOutcome {
  const drafts = [...change.upserts, ...(change.links ?? [])];
  const results = drafts.length === 0 ? [] : planUpserts(drafts, {
    current: atoms.dependencyMap(),
    get: (name) => atoms.get(name),
    lastVersion: (name) => ctx.lastVersion(name),
    now: ctx.now,
  }, { labelled: change.upserts.length > 1 });
  const deletes = [...new Set(change.deletes ?? [])];
  const saved = new Map(results.map((r) => [r.atom.name, r.atom]));
  const deleted: Atom[] = [];
  for (const name of deletes) {
    const atom = atoms.get(name);
    if (!atom) throw errors.notFound(name);
    if (saved.has(name)) throw errors.invalid(`"${name}" cannot be both saved and deleted in one change`);
    const users = new Set(atoms.dependents(name).filter((u) => !saved.has(u) && !deletes.includes(u)));
    for (const a of saved.values()) if (a.dependencies.includes(name)) users.add(a.name);
    if (users.size > 0) throw errors.inUse(name, [...users].sort());
    deleted.push(atom);
  }
  return { upserts: results, deleted };
}

export interface UpsertResult {
  atom: Atom;
  previous?: Atom;
  created: boolean;
}

/** What planUpserts reads of the current atoms. */
interface PlanContext {
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
function planUpserts(drafts: AtomDraft[], ctx: PlanContext, { labelled = drafts.length > 1 }: { labelled?: boolean } = {}): UpsertResult[] {
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
