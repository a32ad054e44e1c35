/**
 * The build's last check before it calls itself a success: no atom's code refers to an atom that
 * was deleted. Deletes through the workspace refuse that, but a database written by an older
 * version, or changed by another program (a merge), can hold such a caller; the bundle would then
 * call a missing function at run time while the status said "success".
 *
 * Cheap at 10,000 atoms: nothing is parsed while no atom is deleted; otherwise an atom's code is
 * parsed only if it contains a deleted name as a word, and its free names are kept per atom
 * (checked against its code, so an edit or a reload parses again), as is "mentions no deleted
 * name" until the deleted names change.
 */
import { codeNames } from '../atoms/calls.js';
import type { Atom } from '../atoms/model.js';
import { escapeRegExp } from '../util/regexp.js';

interface Entry {
  code: string;
  /** The names the code uses and does not declare; undefined: not parsed. */
  free?: readonly string[];
  /** The generation of deleted names this code was found not to mention. */
  clean?: number;
}

/** One atom calling one that is gone. */
export interface MissingCall {
  caller: string;
  missing: string;
}

export class MissingCallCheck {
  private readonly entries = new Map<string, Entry>();
  private deletedKey = '';
  private generation = 0;
  private mentions: RegExp | undefined;

  /** Callers of deleted atoms (names in `deleted` that no atom has now), by caller; `all` is asked only when there are some. */
  find(all: () => readonly Atom[], deleted: ReadonlySet<string>, isLive: (name: string) => boolean): MissingCall[] {
    const gone = [...deleted].filter((n) => !isLive(n)).sort();
    if (gone.length === 0) return [];
    const atoms = all();
    const key = gone.join(',');
    if (key !== this.deletedKey) {
      this.deletedKey = key;
      this.generation++;
      // Names are snake_case (checked before they are stored); escaped all the same.
      this.mentions = new RegExp(`(?<![\\w$])(?:${gone.map(escapeRegExp).join('|')})(?![\\w$])`);
    }
    const goneSet = new Set(gone);
    const out: MissingCall[] = [];
    for (const atom of atoms) {
      let entry = this.entries.get(atom.name);
      if (!entry || entry.code !== atom.code) {
        entry = { code: atom.code };
        this.entries.set(atom.name, entry);
      }
      if (entry.free === undefined) {
        if (entry.clean === this.generation) continue;
        if (!this.mentions!.test(atom.code)) {
          entry.clean = this.generation;
          continue;
        }
        try {
          entry.free = codeNames(atom.code).free;
        } catch {
          entry.free = [];
        }
      }
      for (const name of entry.free) if (goneSet.has(name) && name !== atom.name) out.push({ caller: atom.name, missing: name });
    }
    // Forget atoms that are gone, now and then (not on every build).
    if (this.entries.size > atoms.length * 2 + 100) {
      const live = new Set(atoms.map((a) => a.name));
      for (const name of this.entries.keys()) if (!live.has(name)) this.entries.delete(name);
    }
    return out;
  }
}

/** The build's error text for `calls` (at least one). */
export function missingCallsMessage(calls: readonly MissingCall[]): string {
  const listed = calls.slice(0, 10).map((c) => `${c.caller} calls ${c.missing}`);
  if (calls.length > 10) listed.push(`and ${calls.length - 10} more`);
  return (
    `atoms call deleted atoms: ${listed.join('; ')}. ` +
    'Restore the deleted atom (atom_history), or change its callers so they no longer call it.'
  );
}
