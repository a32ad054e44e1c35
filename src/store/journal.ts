/**
 * The write-ahead journal: one line per committed transaction, appended and fsynced before
 * the change is acknowledged. Each line carries a checksum, so a line torn by a crash is
 * recognised and dropped (it was never acknowledged). The snapshot records the last sequence
 * number it contains; replay applies only what came after it.
 *
 * Why: sql.js keeps the database in memory, and persisting it means exporting all of it.
 * Appending a line keeps a durable write's cost flat as the workspace grows; the snapshot is
 * rewritten (atomically) only when the journal has grown (compaction.ts).
 */
import { promises as fsp, closeSync, ftruncateSync, writeSync } from 'node:fs';
import { openPlainFile, openPlainFileSync, readPlainFileSync } from '../util/safeFile.js';
import { createHash } from 'node:crypto';
import type { Atom } from '../atoms/model.js';
import type { BuildOp } from './builds.js';
import type { EmbeddingRow, LegacyEmbeddingRow } from './vectors/stored.js';

export type JournalOp =
  | { op: 'put'; atom: Atom }
  | { op: 'del'; name: string; version: number; at: string }
  /** Rows as schema 2 wrote them (the vectors themselves) are only ever read, at replay. */
  | { op: 'emb'; rows: Array<EmbeddingRow | LegacyEmbeddingRow> }
  | BuildOp;

export interface JournalEntry {
  seq: number;
  ops: JournalOp[];
}

function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export function encodeEntry(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `${json}\t${checksum(json)}\n`;
}

/**
 * Reads every intact entry. Stops at the first torn or corrupt line and reports the byte
 * offset where the intact part ends, so the caller can cut the tail off before appending.
 */
export function readJournal(file: string): { entries: JournalEntry[]; validBytes: number; totalBytes: number } {
  let data: Buffer;
  try {
    data = readPlainFileSync(file, Number.MAX_SAFE_INTEGER);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], validBytes: 0, totalBytes: 0 };
    throw err;
  }
  const entries: JournalEntry[] = [];
  let offset = 0;
  while (offset < data.length) {
    const newline = data.indexOf(10, offset);
    if (newline < 0) break; // torn tail: the line never finished
    const line = data.toString('utf8', offset, newline);
    const tab = line.lastIndexOf('\t');
    if (tab < 0) break;
    const json = line.slice(0, tab);
    if (checksum(json) !== line.slice(tab + 1)) break;
    let entry: JournalEntry;
    try {
      entry = JSON.parse(json) as JournalEntry;
    } catch {
      break;
    }
    // A checksum proves a line whole, not that this program wrote it (anyone can compute one):
    // a line not shaped like an entry is corrupt. The atoms in it are checked by the store.
    if (!isEntryShaped(entry)) break;
    entries.push(entry);
    offset = newline + 1;
  }
  return { entries, validBytes: offset, totalBytes: data.length };
}

function isEntryShaped(value: unknown): value is JournalEntry {
  const e = value as Partial<JournalEntry> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    Number.isSafeInteger(e.seq) &&
    Array.isArray(e.ops) &&
    e.ops.every((op) => typeof op === 'object' && op !== null && typeof (op as { op?: unknown }).op === 'string')
  );
}

export class Journal {
  private handle: fsp.FileHandle | undefined;
  private bytes = 0;

  constructor(readonly file: string) {}

  /** Opens for appending, first cutting off a torn tail left by a crash. */
  async open(validBytes: number, totalBytes: number): Promise<void> {
    // Never through a link: the journal holds atoms' code, and a link could aim it at a shell's startup file.
    if (totalBytes > validBytes) {
      const fd = openPlainFileSync(this.file, 'update');
      try {
        ftruncateSync(fd, validBytes);
      } finally {
        closeSync(fd);
      }
    }
    this.handle = await openPlainFile(this.file, 'append', 0o644);
    this.bytes = validBytes;
  }

  get size(): number {
    return this.bytes;
  }

  /**
   * Appends and fsyncs one entry; when this resolves the entry survives a crash. With
   * `sync: false` the entry is only handed to the OS: the next synced append (or a reset)
   * makes it durable too, and a crash before that loses it (the checksum drops a torn line).
   */
  async append(entry: JournalEntry, { sync = true }: { sync?: boolean } = {}): Promise<void> {
    if (!this.handle) throw new Error('journal is not open');
    const line = Buffer.from(encodeEntry(entry));
    try {
      // Written on this thread: a line of a few KB takes microseconds, a FileHandle's write a round
      // trip through the thread pool (~130 µs). The fsync, which can take milliseconds, goes there.
      for (let done = 0; done < line.length; ) done += writeSync(this.handle.fd, line, done);
      if (sync) await this.handle.datasync();
    } catch (err) {
      // A partly written line would hide every later entry from replay: cut it off.
      await this.handle.truncate(this.bytes).catch(() => {});
      throw err;
    }
    this.bytes += line.length;
  }

  /** Empties the journal after a snapshot that contains every entry was made durable. */
  async reset(): Promise<void> {
    if (!this.handle) throw new Error('journal is not open');
    await this.handle.truncate(0);
    await this.handle.datasync();
    this.bytes = 0;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
