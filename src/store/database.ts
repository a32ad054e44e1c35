/**
 * The SQL side of the store: one sql.js database held in memory, read from the snapshot
 * `atoms.db`. Only the tables' owners (atoms/table.ts, builds.ts, embeddings/stored.ts) know
 * their statements; this module opens, queries, runs transactions and exports.
 *
 * sql.js never writes a file itself: the snapshot on disk changes only when compaction
 * writes `export()` atomically (compaction.ts), and the journal carries every change between.
 */
import type { Database, SqlValue } from 'sql.js';
import { prepareSchema, type RemovedObject } from './schema.js';
import { loadSqlJs } from './sqlite.js';

/**
 * SQLite's rollback journal kept in memory, not as a file beside the database: sql.js's files
 * live in memory anyway, and durability is the store's own journal (atoms.journal). As a file,
 * each transaction created, grew and deleted it in sql.js's in-memory file system, which at
 * 50,000 atoms cost ~18 ms per transaction; in memory ROLLBACK still works.
 */
const JOURNAL_MODE = 'PRAGMA journal_mode = MEMORY';

export class StoreDatabase {
  private constructor(private readonly db: Database) {
    db.run(JOURNAL_MODE);
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
      return { database: new StoreDatabase(db), removed, changed, vacuum };
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Every row of a query, as arrays of column values. */
  rows(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.db.prepare(sql, params);
    try {
      const out: SqlValue[][] = [];
      while (stmt.step()) out.push(stmt.get());
      return out;
    } finally {
      stmt.free();
    }
  }

  run(sql: string, params: SqlValue[] = []): void {
    this.db.run(sql, params);
  }

  /** Runs `work` in one transaction: all of its statements, or (when it throws) none. */
  transaction(work: () => void): void {
    this.db.run('BEGIN');
    try {
      work();
      this.db.run('COMMIT');
    } catch (err) {
      this.db.run('ROLLBACK');
      throw err;
    }
  }

  metaValue(key: string): string | undefined {
    return this.rows('SELECT value FROM meta WHERE key = ?', [key])[0]?.[0] as string | undefined;
  }

  setMetaValue(key: string, value: string): void {
    this.db.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
  }

  /** Rewrites the database whole: no free space left in its pages, and the page size asked for takes effect. */
  vacuum(): void {
    this.db.run('VACUUM');
  }

  /** The whole database as the bytes of a snapshot. */
  export(): Uint8Array {
    const bytes = this.db.export();
    // sql.js closes and reopens the database to export it, which resets the journal mode.
    this.db.run(JOURNAL_MODE);
    return bytes;
  }

  close(): void {
    this.db.close();
  }
}
