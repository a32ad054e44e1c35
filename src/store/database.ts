/**
 * The SQL side of the store: one sql.js database held in memory, read from the snapshot
 * `atoms.db`. Only the tables' owners (atoms/table.ts, builds.ts, embeddings/stored.ts) know
 * their statements; this module opens, queries, runs transactions and exports.
 *
 * sql.js never writes a file itself: the snapshot on disk changes only when compaction
 * writes `export()` atomically (compaction.ts), and the journal carries every change between.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openPlainFileSync } from '../util/safeFile.js';
import type { Database, SqlValue, Statement } from 'sql.js';
import { prepareSchema, type RemovedObject } from './schema.js';
import { loadSqlJs } from './sqlite.js';

/**
 * SQLite's rollback journal kept in memory, not as a file beside the database: sql.js's files
 * live in memory anyway, and durability is the store's own journal (atoms.journal). As a file,
 * each transaction created, grew and deleted it in sql.js's in-memory file system, which at
 * 50,000 atoms cost ~18 ms per transaction; in memory ROLLBACK still works.
 */
const JOURNAL_MODE = 'PRAGMA journal_mode = MEMORY';

/**
 * Room for writes after the snapshot. sql.js holds the database as one in-memory file exactly
 * the size it was given, and the first page SQLite adds to it reallocates and copies the whole
 * file: at 50,000 atoms (154 MiB) the first write after an open stalled 0.7–1 s and held the
 * file twice for a moment. So the snapshot is read with zeroed pages after it (`readSnapshot`),
 * which SQLite writes its new pages into. SQLite cuts a file back to its own size when it closes
 * the database (a close, and every export), which copies it again; before that, the room left
 * is made free pages of the database (`settleRoom`). A snapshot keeps its free pages, so the next
 * open needs room only for those used since.
 */
const ROOM_SHARE = 1 / 32;
const ROOM_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The snapshot's bytes with room after them (above), and the file's own size (the bytes before
 * the room), or undefined when there is no file. A file that is not an SQLite database is read as
 * it is (opening it fails as before). A Buffer: sql.js makes its in-memory file with `slice`, which
 * copies a Uint8Array and is a view of a Buffer, so an open holds the snapshot once (store-room.test.ts).
 */
export function readSnapshot(file: string): { bytes: Uint8Array; size: number } | undefined {
  let fd: number;
  try {
    fd = openPlainFileSync(file, 'read'); // a link or device planted as atoms.db is refused, not followed
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(Math.min(size, 100));
    readSync(fd, header, 0, header.length, 0);
    const pageSize = header.length === 100 && header.toString('latin1', 0, 16) === 'SQLite format 3\0' ? header.readUInt16BE(16) || 65536 : 0;
    let room = 0;
    if (pageSize > 0 && size % pageSize === 0) {
      const wanted = Math.floor(Math.min(size * ROOM_SHARE, ROOM_MAX_BYTES) / pageSize);
      room = Math.max(0, wanted - header.readUInt32BE(36)) * pageSize; // less the free pages it has
    }
    const bytes = Buffer.alloc(size + room);
    for (let at = 0; at < size; ) {
      const n = readSync(fd, bytes, at, size - at, at);
      if (n === 0) return { bytes: bytes.subarray(0, at), size: at }; // cut short while read: opening it says so
      at += n;
    }
    return { bytes, size };
  } finally {
    closeSync(fd);
  }
}

/** Prepared statements kept for reuse (see StoreDatabase.statement); the oldest is freed beyond this. */
const MAX_PREPARED = 64;

export class StoreDatabase {
  /** Where the room after the snapshot ends, in pages; undefined when there is none left. */
  private roomEnd: number | undefined;
  /**
   * Statements by their SQL, prepared once: `Database.run(sql, params)` prepares, steps and frees
   * every time, and preparing was half of sql.js's time in a small write (five statements an atom).
   */
  private readonly prepared = new Map<string, Statement>();

  private constructor(
    private readonly db: Database,
    bytes: Uint8Array | undefined,
  ) {
    db.run(JOURNAL_MODE);
    const pageSize = this.pragma('page_size');
    if (bytes && pageSize > 0 && bytes.length / pageSize > this.pragma('page_count')) this.roomEnd = bytes.length / pageSize;
  }

  /**
   * Opens `bytes` (a snapshot, or nothing for a new database), brings it to the current schema
   * and removes what is not the schema. Throws what schema.ts throws, or sql.js's error for a
   * file that is no database; nothing is left open then.
   */
  static async open(
    bytes: Uint8Array | undefined,
    file: string,
  ): Promise<{ database: StoreDatabase; removed: RemovedObject[]; changed: boolean; vacuum: boolean }> {
    const SQL = await loadSqlJs();
    const db = new SQL.Database(bytes);
    try {
      const { removed, changed, vacuum } = prepareSchema(db, file);
      return { database: new StoreDatabase(db, bytes), removed, changed, vacuum };
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Every row of a query (one statement), as arrays of column values. */
  rows(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.statement(sql);
    try {
      stmt.bind(params);
      const out: SqlValue[][] = [];
      while (stmt.step()) out.push(stmt.get());
      return out;
    } finally {
      stmt.reset();
    }
  }

  /**
   * The rows of a query one at a time, as it steps: a row not kept is garbage at once, where
   * `rows` holds them all until the last is read. The statement is freed when the iteration ends,
   * run to its end or stopped.
   */
  *eachRow(sql: string, params: SqlValue[] = []): Generator<SqlValue[]> {
    const stmt = this.db.prepare(sql, params);
    try {
      while (stmt.step()) yield stmt.get();
    } finally {
      stmt.free();
    }
  }

  /**
   * Runs one statement (SQL after the first is not run). Values go in `params`, never into `sql`:
   * each distinct text is prepared and kept (see `statement`); `rows` likewise.
   */
  run(sql: string, params: SqlValue[] = []): void {
    const stmt = this.statement(sql);
    try {
      stmt.bind(params);
      stmt.step();
    } finally {
      stmt.reset();
    }
  }

  /**
   * The prepared statement of `sql`, kept for the next call (reset after each use); the oldest is
   * freed past MAX_PREPARED. Not for `eachRow`, whose statement stays open while its caller iterates.
   */
  private statement(sql: string): Statement {
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.prepared.size >= MAX_PREPARED) {
        const [oldest, old] = this.prepared.entries().next().value!;
        old.free();
        this.prepared.delete(oldest);
      }
      this.prepared.set(sql, stmt);
    }
    return stmt;
  }

  /** Frees the kept statements: before the database is exported, vacuumed or closed. */
  private freePrepared(): void {
    for (const stmt of this.prepared.values()) stmt.free();
    this.prepared.clear();
  }

  /** Runs `work` in one transaction: all of its statements, or (when it throws) none. */
  transaction(work: () => void): void {
    this.settleRoom();
    this.run('BEGIN');
    try {
      work();
      this.run('COMMIT');
    } catch (err) {
      this.run('ROLLBACK');
      throw err;
    }
  }

  metaValue(key: string): string | undefined {
    return this.rows('SELECT value FROM meta WHERE key = ?', [key])[0]?.[0] as string | undefined;
  }

  setMetaValue(key: string, value: string): void {
    this.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
  }

  /** Rewrites the database whole: no free space left in its pages, and the page size asked for takes effect. */
  vacuum(): void {
    this.roomEnd = undefined; // a file of its own size now
    this.freePrepared();
    this.db.run('VACUUM');
  }

  /** The whole database as the bytes of a snapshot. */
  export(): Uint8Array {
    this.settleRoom();
    // sql.js 1.16 exports through SQLite's backup API and leaves this connection as it was; the
    // versions before closed and reopened it, which freed its statements and reset the journal
    // mode. Neither is left to a version's detail: the statements are prepared again after, and
    // the journal mode set again (a test pins it).
    this.freePrepared();
    const bytes = this.db.export();
    this.db.run(JOURNAL_MODE);
    return bytes;
  }

  close(): void {
    this.settleRoom();
    this.freePrepared();
    this.db.close();
  }

  /**
   * Makes the room after the snapshot that SQLite has not written into free pages of the
   * database (see ROOM_SHARE): rows of zeros fill it to its end, and are deleted. Once, at the
   * first transaction, export or close. A failure only leaves the room to be cut back at close.
   */
  private settleRoom(): void {
    const end = this.roomEnd;
    if (end === undefined) return;
    this.roomEnd = undefined; // first: the transaction below settles nothing again
    try {
      const usable = this.pragma('page_size') - 4; // an overflow page's payload
      this.transaction(() => {
        // Each row takes the pages left but one (its table page may need one); a second ends it.
        for (let i = 0, left = end - this.pragma('page_count'); left > 0 && i < 4; i++, left = end - this.pragma('page_count')) {
          this.db.run('INSERT INTO meta (key, value) VALUES (?, zeroblob(?))', [`${ROOM_KEY}${i}`, Math.max(1, left - 1) * usable]);
        }
        this.db.run('DELETE FROM meta WHERE key >= ? AND key < ?', [ROOM_KEY, `${ROOM_KEY}~`]);
      });
    } catch {
      // Nothing lost: the database is as it was; closing it copies the file once.
    }
  }

  private pragma(name: 'page_size' | 'page_count'): number {
    return Number(this.db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0] ?? 0);
  }
}

/** The meta rows that fill the room while it becomes free pages (none outlives `settleRoom`). */
const ROOM_KEY = '~room ';
