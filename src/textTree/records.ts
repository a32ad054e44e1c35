/**
 * Per atom, what the text tree last wrote or imported: the hash of the file's bytes, and the hash
 * of the atom (as the file format writes it) that those bytes stand for. Comparing them with the
 * file on disk and the atom in the store says which side is newer:
 *
 * - the file still has the recorded bytes, the atom differs: the store changed (a write whose
 *   file was not written yet, say the process died between the two): write the file;
 * - the file's bytes differ from the record: someone changed the file: import it;
 * - a recorded file is gone: it was removed outside: delete the atom (when nothing uses it).
 *
 * Kept in `.atomic/text-tree` (never committed): a header naming the folder, then one line per
 * change, appended (`name<TAB>fileHash<TAB>atomHash[<TAB>stat]`, or `name<TAB>-` once the file is
 * gone); the last line of a name wins. It is rewritten whole (atomically) at open and close, and
 * when the appended lines outnumber the atoms. A line torn by a crash is skipped: that atom then
 * looks changed on both sides, and the file, whose content is compared with the store's, decides.
 * Written without fsync: it only has to survive the process, not the machine.
 *
 * `stat` (size, mtime in ns, inode) lets the open's scan skip reading and hashing a file that did
 * not change: it is recorded only once the file's mtime is well in the past (STAT_SETTLED_MS), as
 * git does for its index, so a later change within the file system's mtime granularity cannot
 * keep the same stat. A close that finished writes a last line `#closed`: without it (a crash),
 * the next open brings both sides together before it answers anything.
 */
import { closeSync, unlinkSync, writeSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomicFile.js';
import { openPlainFileSync, readPlainFileSync, UnsafeFileError } from '../util/safeFile.js';

export interface TextRecord {
  /** Hash of the file's bytes as written or imported. */
  file: string;
  /** Hash of the atom's file text (atomFileText) it stood for. */
  atom: string;
  /** The file's `size:mtimeNs:ino` when its bytes hashed to `file`; only once settled (statKey). */
  stat?: string;
}

/** A file whose mtime is this far in the past cannot change again and keep its stat. */
export const STAT_SETTLED_MS = 2000;

/** The key of a file's stat, or undefined while its mtime is too recent to vouch for its bytes. */
export function statKey(st: { size: bigint; mtimeNs: bigint; ino: bigint }, now = Date.now()): string | undefined {
  if (now - Number(st.mtimeNs / 1_000_000n) < STAT_SETTLED_MS) return undefined;
  // join, not a template: one flat string, where a template keeps a tree of five (see TextRecords).
  return [st.size, st.mtimeNs, st.ino].join(':');
}

const CLOSED = '#closed';

/**
 * The records file is read only up to this size (a line is about 130 bytes, and appended lines are
 * compacted once they outnumber the atoms twice over: 64 MiB is some 150,000 atoms). A larger one,
 * or one that is not a plain file (a link a repository planted in .atomic/), is not ours: the
 * records start afresh, and every file is compared with the store by its content.
 */
const MAX_RECORDS_BYTES = 64 * 1024 * 1024;

/** The records file's text, or undefined when there is none, or none that is a plain file of ours. */
function readRecordsFile(file: string): string | undefined {
  try {
    return readPlainFileSync(file, MAX_RECORDS_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof UnsafeFileError || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const HEADER = '# Atomic Coding text tree: what was last written or imported per atom. Per machine, never commit.';

export class TextRecords {
  /**
   * Name -> the record as its line holds it after the name (`file<TAB>atom[<TAB>stat]`): one flat
   * string per atom. An object of three strings, two of them slices of 64-digit hashes and the
   * stat a template's tree of strings, took 20 MiB at 50,000 atoms; this takes about 8, names and
   * map included.
   */
  private readonly records = new Map<string, string>();
  private fd: number | undefined;
  private appended = 0;
  private closedCleanly = false;

  /**
   * `folder` is the atoms folder relative to the workspace: records of another folder (the setting
   * changed) are not this one's, and are dropped, so that an empty new folder deletes nothing.
   */
  constructor(
    private readonly file: string,
    private readonly folder: string,
  ) {
    this.read();
  }

  get size(): number {
    return this.records.size;
  }

  /** Whether the file was read whole as the last close left it (no crash since, same folder). */
  get wasClosedCleanly(): boolean {
    return this.closedCleanly;
  }

  get(name: string): TextRecord | undefined {
    const packed = this.records.get(name);
    if (packed === undefined) return undefined;
    const [file, atom, stat] = packed.split('\t') as [string, string, string | undefined];
    return stat === undefined ? { file, atom } : { file, atom, stat };
  }

  names(): IterableIterator<string> {
    return this.records.keys();
  }

  set(name: string, record: TextRecord): void {
    const packed = packRecord(record);
    if (this.records.get(name) === packed) return;
    this.records.set(name, packed);
    this.append(`${name}\t${packed}\n`);
  }

  delete(name: string): void {
    if (!this.records.delete(name)) return;
    this.append(`${name}\t-\n`);
  }

  /** Rewrites the file with the current records only; `closing`: marks the close as finished. */
  async compact(closing = false): Promise<void> {
    this.closeFile();
    await writeFileAtomic(this.file, `${this.headerLine()}\n${this.lines()}${closing ? `${CLOSED}\n` : ''}`, 0o644, { durable: false });
    this.appended = 0;
  }

  close(): void {
    this.closeFile();
  }

  /** Every record as its line. */
  private lines(): string {
    let text = '';
    for (const [name, packed] of this.records) text += `${name}\t${packed}\n`;
    return text;
  }

  private headerLine(): string {
    return `${HEADER} folder=${JSON.stringify(this.folder)}`;
  }

  private read(): void {
    const text = readRecordsFile(this.file);
    if (text === undefined) return;
    const lines = text.split('\n');
    if (lines[0] !== this.headerLine()) return; // another folder's, or not ours: start afresh
    for (const text of lines.slice(1)) {
      const [name, file, atom, stat] = text.split('\t');
      if (!name || name.startsWith('#')) continue;
      if (file === '-') this.records.delete(name);
      else if (file && atom && /^[0-9a-f]{16}$/.test(file) && /^[0-9a-f]{16}$/.test(atom)) {
        this.records.set(ownCopy(name), packRecord(stat && /^\d+:\d+:\d+$/.test(stat) ? { file, atom, stat } : { file, atom }));
      }
    }
    this.closedCleanly = lines.at(-1) === '' && lines.at(-2) === CLOSED;
    this.appended = lines.length;
  }

  private append(line: string): void {
    if (this.fd === undefined) {
      const fresh = readRecordsFile(this.file)?.split('\n', 1)[0] !== this.headerLine();
      this.fd = openRecordsFile(this.file, fresh);
      // Start the file over with every record, so a header of another folder never precedes ours.
      if (fresh) writeSync(this.fd, `${this.headerLine()}\n${this.lines()}`);
    }
    writeSync(this.fd, line);
    this.appended++;
  }

  /** Whether the appended lines outnumber the records enough to rewrite the file. */
  get wantsCompaction(): boolean {
    return this.appended > 2 * this.records.size + 1000;
  }

  private closeFile(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * A copy of `text` that shares nothing with the string it was cut from: a name split out of the
 * file is a slice of it, and 50,000 of them kept the whole file's text (4.4 MiB) alive.
 */
function ownCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** A record as its line holds it after the name; join makes it one flat string. */
function packRecord(r: TextRecord): string {
  return (r.stat ? [r.file, r.atom, r.stat] : [r.file, r.atom]).join('\t');
}

/**
 * The records file opened for appending (`fresh`: emptied first), never through a link: whatever
 * is at its name that is not a plain file of ours (a link, a FIFO) is removed (the name is ours, in
 * .atomic/), not followed, and a new file is made.
 */
function openRecordsFile(file: string, fresh: boolean): number {
  try {
    return openPlainFileSync(file, fresh ? 'write' : 'append', 0o644);
  } catch (err) {
    if (!(err instanceof UnsafeFileError)) throw err;
    unlinkSync(file);
    return openPlainFileSync(file, 'write', 0o644);
  }
}
