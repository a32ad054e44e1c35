/**
 * `.atomic/` is this machine's cache of what `atoms/` holds, and a cloned repository may have
 * committed one. Before anything in it is opened, the folder and every file this program uses in
 * it are looked at without following links:
 *
 * - `.atomic` itself must be a directory of this user. A link (to `~`, to another project) is
 *   removed, which never touches what it points to, and a fresh folder is made; a file in its
 *   place is moved aside.
 * - Each of our files in it must be a regular file of this user with one name. A link, a FIFO,
 *   a device, a directory, a hard link or another user's file is removed (a directory moved
 *   aside), and what it held is rebuilt: the database from `atoms/` (the folder the team
 *   reviews), the vectors by embedding again, the text tree's records by comparing the files.
 *
 * Every file is then opened with util/safeFile.ts, which checks the open descriptor again, so a
 * file swapped in after this look is refused rather than followed. What was distrusted is logged
 * and reported by get_status (`StoreReader.distrusted`).
 *
 * The contents of a regular file are not trusted either: every atom of a database or journal
 * that this machine did not seal is checked as an upsert would check it (openCheck.ts).
 */
import { lstatSync, mkdirSync, renameSync, rmSync, unlinkSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from '../util/log.js';
import { unsafeReason } from '../util/safeFile.js';

/** The files this program keeps in `.atomic/`; each must be a plain file when present. */
export const STATE_FILES = [
  'atoms.db',
  'atoms.journal',
  'vectors.bin',
  'text-tree',
  '.gitignore',
  'lock',
  'server.json',
  'latest.js',
  'latest.js.map',
  'fulltext.bin',
  'atoms.bin',
  'vectors.idx',
] as const;

/** Folders this program may find in `.atomic/` (earlier versions' vector index); a link there is removed. */
const STATE_FOLDERS = ['vectors'] as const;

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Moves `path` aside to a free `<path>.untrusted-N` (the name itself is renamed, never a link's target). */
function moveAside(path: string): string {
  for (let n = 1; ; n++) {
    const aside = `${path}.untrusted-${n}`;
    if (lstatOrUndefined(aside)) continue;
    renameSync(path, aside);
    return aside;
  }
}

/** Removes one name: a link or a file is unlinked, anything else moved aside. Returns what was done. */
function discard(path: string, stat: Stats): string {
  if (stat.isDirectory()) return `moved aside to ${basename(moveAside(path))}`;
  unlinkSync(path);
  return 'removed';
}

/**
 * Makes `.atomic/` (at `atomicDir`) a folder that can be opened: returns one line per thing that
 * was not trusted and what was done with it (empty when all was well). Throws only what the file
 * system throws (a read-only folder: the caller opens read-only).
 */
export function secureStateFolder(atomicDir: string, log: Logger): string[] {
  const distrusted: string[] = [];
  const note = (what: string) => {
    distrusted.push(what);
    log.warn(`store: ${what}`);
  };
  const top = lstatOrUndefined(atomicDir);
  if (top && (!top.isDirectory() || (uid !== undefined && top.uid !== uid))) {
    const reason = top.isSymbolicLink()
      ? 'a symbolic link'
      : !top.isDirectory()
        ? 'not a folder'
        : `a folder of another user (uid ${top.uid})`;
    // A link is removed (its target is not touched); anything else is kept beside, under another name.
    const done = top.isSymbolicLink() ? (unlinkSync(atomicDir), 'removed') : `moved aside to ${basename(moveAside(atomicDir))}`;
    note(`.atomic was ${reason}; ${done}, and a new .atomic is rebuilt from the atom files`);
  }
  mkdirSync(atomicDir, { recursive: true, mode: 0o755 });
  for (const name of STATE_FILES) {
    const path = join(atomicDir, name);
    const stat = lstatOrUndefined(path);
    if (!stat) continue;
    const reason = unsafeReason(stat);
    if (!reason) continue;
    note(`.atomic/${name} was ${reason}; ${discard(path, stat)}, and what it held is rebuilt`);
  }
  for (const name of STATE_FOLDERS) {
    const path = join(atomicDir, name);
    const stat = lstatOrUndefined(path);
    if (stat && !stat.isDirectory()) {
      // Only ever a folder of ours: a link or file in its place is removed, never followed.
      rmSync(path, { force: true });
      note(`.atomic/${name} was not a folder; removed`);
    }
  }
  return distrusted;
}
