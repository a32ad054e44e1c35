/**
 * An atom as a file of the text tree: `<folder>/<name>.js`, in the atom editor's format (a JSDoc
 * header with the interface, then the function; see atoms/atomDocument.ts). Writing is
 * deterministic (the same atom always gives the same bytes, nothing volatile such as a version or a
 * time), so git shows a change as a small diff. Reading takes what the editor's save takes, except
 * that a file must carry its header: the file is the atom's only copy in git.
 */
import { createHash } from 'node:crypto';
import { formatAtomDocument, parseAtomDocument } from '../atoms/atomDocument.js';
import { AtomError } from '../atoms/errors.js';
import { MAX_CODE_BYTES, MAX_NAME_LENGTH, NAME_PATTERN, type Atom, type AtomDraft } from '../atoms/model.js';
import { sha256Hex } from '../util/textHash.js';

/**
 * The file's text for an atom: canonical (one tag a line), or in the layout of `layout` (the file's
 * text before) for the parts of the header that did not change (see formatAtomDocument). Records
 * identify an atom by the hash of its canonical text.
 */
export function atomFileText(atom: Atom, layout?: string): string {
  return formatAtomDocument(atom, layout);
}

/**
 * A short content hash (sha-256, 64 bits in hex): what was written or imported, per atom. Its
 * first 8 bytes hexed, not the 64 digits sliced: a slice keeps the whole string alive.
 */
export function hashText(text: string | Buffer): string {
  return createHash('sha256').update(text).digest().toString('hex', 0, 8);
}

/**
 * hashText(atomFileText(atom)) of the atoms whose files this tree wrote, per atom object (the store
 * makes a new one at every change). A file just written comes back through the watcher, and the
 * round that looks at it asked whether the atom changed since by formatting and hashing its text
 * again (~5 KB of garbage an atom along an agent's batches). An open's comparison of every atom
 * keeps nothing here.
 */
const writtenHashes = new WeakMap<Atom, string>();

/** The atom's text hash as its file was written from it (see writtenHashes). */
export function noteWrittenHash(atom: Atom, hash: string): void {
  writtenHashes.set(atom, hash);
}

/** Whether the atom's text (atomFileText) hashes to `expected`: from its written hash when it has one. */
export function atomTextHashIs(atom: Atom, expected: string): boolean {
  const written = writtenHashes.get(atom);
  return written !== undefined ? written === expected : hasHashText(atomFileText(atom), expected);
}

/**
 * Whether `text`'s hashText is `expected`, for a comparison that keeps nothing (an open compares
 * every atom's text with its record): the one-shot digest, hexed whole, a few times cheaper a call.
 */
export function hasHashText(text: string, expected: string): boolean {
  return expected.length === 16 && sha256Hex(text).startsWith(expected);
}

/** The atom a file name stands for: `x.js` -> `x`; undefined for files that are not `.js` or hidden (temp files). */
export function atomFileName(file: string): string | undefined {
  if (!file.endsWith('.js') || file.startsWith('.')) return undefined;
  return file.slice(0, -3);
}

/** Why a `.js` file's name is not an atom name, or undefined when it is one. */
export function badFileName(name: string): string | undefined {
  if (name.length > MAX_NAME_LENGTH) return `the file name is ${name.length} characters long (limit: ${MAX_NAME_LENGTH}); rename the file and its function`;
  if (!NAME_PATTERN.test(name)) {
    return `"${name}.js" is not an atom name: atom files are named <snake_case_name>.js (lowercase letters, digits and underscores, starting with a letter), and the function inside has the same name; rename the file`;
  }
  return undefined;
}

/**
 * Generous: a description may be 4,096 characters and the code 2,048 bytes; past this a file is
 * not read at all (a pasted log, a generated blob, a 600 MB sparse file a repository planted), so a
 * huge file costs nothing: the bound is checked on the open descriptor before a byte is read.
 */
export const MAX_FILE_BYTES = 64 * 1024;

const CONFLICT = /^(<{7}|={7}|>{7}|\|{7})(\s|$)/m;

/**
 * The draft a file stands for. Throws an AtomError that says what is wrong with the file and how to
 * fix it; the rest of the validation (size, syntax, the function's name, dependencies, cycles) is
 * upsert_atom's, run by the store.
 */
export function readAtomFile(name: string, text: string): AtomDraft {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_FILE_BYTES) {
    throw new AtomError('too_large', `the file is ${bytes} bytes; an atom's code is at most ${MAX_CODE_BYTES} bytes: break the function into smaller atoms`);
  }
  const conflict = CONFLICT.exec(text);
  if (conflict) {
    const line = text.slice(0, conflict.index).split('\n').length;
    throw new AtomError('conflict', `merge conflict markers (line ${line}: ${conflict[1]}): resolve the conflict, remove the markers and save`);
  }
  const { draft, hasHeader } = parseAtomDocument(name, text);
  if (!hasHeader || !draft.type) {
    throw new AtomError('invalid_argument', `no atom header: start the file with a JSDoc block that has "@kind core", "@kind feature" or "@kind util" (see any other atom file)`);
  }
  return draft as AtomDraft;
}
