/**
 * The text tree's decision for one atom, pure: given what is on disk (the file's stat and bytes),
 * what was last written or imported (its record, records.ts) and the store's atom, which side is
 * newer and what brings the other up to it. The round (textTree.ts) reads the file, asks, and acts;
 * the store change that takes the imported files is planned by atoms/writePlan.ts (`import`).
 */
import { codeLineOffset, inDocumentLines, sameAtom } from '../atoms/atomDocument.js';
import { AtomError } from '../atoms/errors.js';
import type { Atom, AtomDraft } from '../atoms/model.js';
import { atomFileText, atomTextHashIs, badFileName, hashText, readAtomFile } from './format.js';
import type { TextRecord } from './records.js';

/** What started a round: the open's reconcile, a change the store announced, or file events. */
export type Cause = 'open' | 'store' | 'file';

/** What the round knows of one atom when it decides. */
export interface FileFacts {
  /** The atom's name (the file's, without `.js`). */
  name: string;
  /** The file relative to the workspace (`atoms/x.js`), for what the decision says. */
  file: string;
  cause: Cause;
  /** The file's stat key now (records.ts's statKey): undefined when there is no file, or its mtime is too recent. */
  stat: string | undefined;
  /** The file's bytes; undefined when there is no file, or it was not read (`needsReading` said no). */
  bytes: Buffer | undefined;
  /** What was last written or imported for this name. */
  record: TextRecord | undefined;
  /** The store's atom of that name. */
  atom: Atom | undefined;
}

/**
 * What to do. `none`, `forget` and `write` with `clear` drop the file's problem now; `write`,
 * `unlink`, `delete` and `import` report or drop it once done. `record`, when given, is recorded
 * at once (the file as this tree knows it, with a newer stat, or the same atom in other bytes).
 */
export type FileDecision =
  /** The file and the atom agree (or neither exists): nothing to bring over. */
  | { kind: 'none'; record?: TextRecord }
  /** The file is not taken, with why; the atom keeps its last good version. */
  | { kind: 'problem'; reason: string }
  /** The store is newer (or only the store has the atom): write its file. */
  | { kind: 'write'; clear: boolean; record?: TextRecord }
  /** The atom was deleted in the store: remove its file. */
  | { kind: 'unlink'; record?: TextRecord }
  /** The file was removed outside: delete the atom (when nothing uses it, planWrite decides). */
  | { kind: 'delete' }
  /** Gone on both sides: forget the record. */
  | { kind: 'forget' }
  /** Someone else wrote the file: take it. `warning`: it overwrites a change the server saved after it. */
  | { kind: 'import'; draft: AtomDraft; hash: string; warning?: string };

/**
 * Whether the file's bytes are needed: not for a file whose stat (size, mtime, inode) is as recorded
 * when its bytes were hashed (a file that changes after the stat has a newer mtime, and is read at the
 * next round); always for a file whose name is not an atom's (to report it only when it exists).
 */
export function needsReading(name: string, record: TextRecord | undefined, stat: string | undefined): boolean {
  return !(stat && record?.stat === stat && !badFileName(name));
}

/** Which side is newer for one atom, and what brings the other up to it (see FileDecision). */
export function decideFile({ name, file, cause, stat, bytes, record, atom }: FileFacts): FileDecision {
  const badName = badFileName(name);
  if (badName) return bytes ? { kind: 'problem', reason: badName } : { kind: 'none' };
  if (record?.stat && record.stat === stat) return storeDecides(atom, record); // unchanged since its bytes were hashed
  if (!bytes) {
    if (record && atom) return { kind: 'delete' }; // removed outside
    if (record) return { kind: 'forget' }; // gone on both sides
    if (atom) return { kind: 'write', clear: true }; // only the store has it: a new atom, or a file never written
    return { kind: 'none' };
  }
  const hash = hashText(bytes);
  if (record && record.file === hash) {
    // The file is as this tree left it: the store decides.
    return storeDecides(atom, record, stat !== record.stat ? { ...record, stat } : undefined);
  }
  // Someone else wrote the file.
  let draft: AtomDraft;
  const text = bytes.toString('utf8');
  try {
    draft = readAtomFile(name, text);
  } catch (err) {
    // Lines of the file, as the person's editor numbers them (the header comes before the code).
    return { kind: 'problem', reason: inDocumentLines(notTakenReason(name, err, atom !== undefined), codeLineOffset(text)) };
  }
  // Same atom, other bytes (formatting, a fresh clone): keep the file as it is.
  if (atom && sameAtom(atom, draft)) return { kind: 'none', record: { file: hash, atom: hashText(atomFileText(atom)), stat } };
  const warning =
    cause === 'store' && record
      ? `text tree: ${file} was changed on disk before ${name} was saved through the server: the file is not overwritten, its version is taken ` +
        `(the server's stays in the history: atom_history restore)`
      : undefined;
  return { kind: 'import', draft, hash, warning };
}

/** The file is as recorded: the store's atom is the newer side, if it changed. */
function storeDecides(atom: Atom | undefined, record: TextRecord, update?: TextRecord): FileDecision {
  if (!atom) return { kind: 'unlink', record: update };
  if (!atomTextHashIs(atom, record.atom)) return { kind: 'write', clear: false, record: update };
  return { kind: 'none', record: update };
}

/** Why a file is not taken, and what happens meanwhile. */
export function notTakenReason(name: string, err: unknown, exists: boolean): string {
  const message = err instanceof AtomError ? err.message : String((err as Error).message ?? err);
  return `${message} (${exists ? `the last good version of ${name} stays in the store and the bundle` : `${name} is not created until the file is fixed`})`;
}
