/**
 * No unknown calls: every name an atom's code uses and does not declare must be an atom or a global
 * the preview page really has (JavaScript's and the browser's, pageGlobals.ts); anything else would
 * throw a ReferenceError only when the bundle runs, while the save and the build said all was well.
 * A write that uses such a name is refused, with the atom names nearest to it ("did you mean").
 *
 * Refused, not warned about, even for a name the workspace's own page might define: such a global is
 * invisible to the write, to run_atom's sandbox and to the other atoms, and an agent's typo looks the
 * same. Code that really wants a global of its own page says so: `window.name` is a property, not a
 * name, and is not checked. `typeof name` alone never throws, so a name used only that way is not checked.
 */
import { codeNames } from './calls.js';
import { AtomError } from './errors.js';
import { PAGE_GLOBALS } from './pageGlobals.js';

/** Names every function's code may use that are not globals. */
const LANGUAGE_NAMES = new Set(['arguments']);

/** Whether `name` is a global of the preview page (or the language's own, `arguments`). */
export function isPageGlobal(name: string): boolean {
  return PAGE_GLOBALS.has(name) || LANGUAGE_NAMES.has(name);
}

/**
 * The names `code` uses that are no local, no atom (`isAtom`) and no global of the page, in order of
 * first use; empty when the code does not parse (validation reports that).
 */
export function unknownNames(code: string, isAtom: (name: string) => boolean): string[] {
  let names: ReturnType<typeof codeNames>;
  try {
    names = codeNames(code);
  } catch {
    return [];
  }
  const guarded = new Set(names.typeofOnly);
  return names.free.filter((n) => !guarded.has(n) && !isAtom(n) && !isPageGlobal(n));
}

/**
 * Up to `limit` of `candidates` nearest to `name` by edit distance (case and underscores aside), nearest
 * first, then by name; only those close enough to be a slip: at most a third of the name's length apart.
 */
export function nearestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const key = fold(name);
  const most = Math.max(1, Math.floor(key.length / 3));
  const found: { name: string; d: number }[] = [];
  for (const c of candidates) {
    const ck = fold(c);
    if (c === name || Math.abs(ck.length - key.length) > most) continue;
    const d = editDistance(key, ck, most);
    if (d <= most) found.push({ name: c, d });
  }
  found.sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return found.slice(0, limit).map((f) => f.name);
}

/**
 * The refusal of `atom`'s code for the names in `unknown` (at least one), each with the nearest atom
 * names, or said to be a deleted atom (`deleted`) that a restore brings back.
 */
export function unknownNamesError(
  atom: string,
  unknown: readonly string[],
  atomNames: () => Iterable<string>,
  deleted: (name: string) => boolean = () => false,
): AtomError {
  const listed = unknown.slice(0, 10).map((n) => {
    if (deleted(n)) return `${n} (deleted: restore it with atom_history)`;
    const near = nearestNames(n, atomNames());
    return near.length > 0 ? `${n} (did you mean ${near.join(', ')}?)` : n;
  });
  if (unknown.length > 10) listed.push(`and ${unknown.length - 10} more`);
  return new AtomError(
    'unknown_names',
    `${atom} uses names that are no atom, no parameter or local, and no global of the preview page: ${listed.join('; ')}. ` +
      'Fix the name, or create that atom first (or in the same upsert_atoms); a global your own page defines is reached as window.<name>.',
  );
}

function fold(name: string): string {
  return name.toLowerCase().replace(/_/g, '');
}

/** Levenshtein distance with adjacent swaps counting one, or `most + 1` once it must exceed `most`. */
function editDistance(a: string, b: string, most: number): number {
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prevPrev[j - 2]! + 1);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > most) return most + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]!;
}
