/**
 * The database schema and its migrations. `schema_version` in `meta` tells which migrations
 * ran; a database from a newer version is refused with what to do, never rewritten.
 *
 * A database is also someone else's file: a cloned repository brings its own `.atomic/atoms.db`.
 * Whatever in it is not this schema (a trigger that rewrites the code a user saves later, a
 * view, a table or index of its own) is removed before anything is written to it.
 *
 * Schema 2 (issue 15: the store's size): `atom_versions` keeps only superseded versions and
 * tombstones (the current version is the `atoms` row, no longer copied); vectors are stored as
 * binary16 (embeddings/float16.ts); `atom_checks` holds the seal of each row this program checked
 * (checkSeal.ts); pages are 8 KiB, so a vector row no longer leaves half a page empty.
 *
 * Schema 3 (issue 15: memory): the vectors leave the database for `vectors.bin`
 * (embeddings/vectorFile.ts); `embedding_slots` says which slot holds each atom's vector. The
 * store moves schema 2's vectors out of `embeddings` at the first open (it needs the file, so
 * this SQL cannot), and keeps that table empty.
 *
 * Schema 4 (atoms prove themselves): an atom may be of type `test`, and keeps its examples (JSON, or
 * NULL for none) in `atoms.examples` and `atom_versions.examples`. SQLite cannot change a CHECK, so
 * `atoms` is copied into a table without schema 1's (foreign keys are off: the edges keep naming it).
 * The rules they held (the types, 2 KB of code, versions from 1) are every write's checks and every
 * open's (openCheck.ts); a CHECK here would refuse to copy a cloned database's bad row, which the
 * open must load as it is to report it.
 */
import type { Database } from 'sql.js';
import { AtomError } from '../atoms/errors.js';
import { encodeHalf } from './vectors/float16.js';

export const SCHEMA_VERSION = 4;

/** Bytes per page: seven 1 KiB vector rows to a page (16 KiB would save 3 MiB more at 10,000 atoms, but make an empty database 200 KiB). */
export const PAGE_SIZE = 8192;

/** The current version's dependencies as `atom_versions` keeps them: JSON text of the sorted names. */
const CURRENT_DEPENDENCIES = `(SELECT COALESCE(json_group_array(depends_on), '[]')
  FROM (SELECT depends_on FROM atom_dependencies WHERE atom_name = a.name ORDER BY depends_on))`;

const MIGRATIONS: Record<number, string> = {
  1: `
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE atoms (
      name TEXT PRIMARY KEY,
      type TEXT NOT NULL CHECK (type IN ('core', 'feature', 'util')),
      code TEXT NOT NULL CHECK (length(CAST(code AS BLOB)) <= 2048),
      description TEXT,
      inputs TEXT NOT NULL DEFAULT '[]',
      outputs TEXT NOT NULL DEFAULT '[]',
      version INTEGER NOT NULL CHECK (version >= 1),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE TABLE atom_dependencies (
      atom_name TEXT NOT NULL REFERENCES atoms(name) ON DELETE CASCADE,
      depends_on TEXT NOT NULL REFERENCES atoms(name) ON DELETE RESTRICT,
      PRIMARY KEY (atom_name, depends_on)
    );
    CREATE INDEX idx_atom_dependencies_target ON atom_dependencies(depends_on);
    CREATE TABLE atom_versions (
      name TEXT NOT NULL,
      version INTEGER NOT NULL,
      type TEXT NOT NULL,
      code TEXT NOT NULL,
      description TEXT,
      inputs TEXT NOT NULL,
      outputs TEXT NOT NULL,
      dependencies TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      deleted INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (name, version)
    );
    CREATE TABLE builds (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      status TEXT NOT NULL CHECK (status IN ('building', 'success', 'error')),
      bundle_path TEXT,
      atom_count INTEGER NOT NULL,
      build_log TEXT NOT NULL DEFAULT '[]',
      error_message TEXT,
      duration_ms REAL,
      created_at TEXT NOT NULL
    );
    CREATE TABLE embeddings (
      name TEXT PRIMARY KEY,
      model TEXT NOT NULL,
      text_hash TEXT NOT NULL,
      vector BLOB NOT NULL
    );
  `,
  2: `
    CREATE TABLE IF NOT EXISTS atom_checks (name TEXT PRIMARY KEY, seal TEXT NOT NULL);
    DELETE FROM atom_versions WHERE deleted = 0 AND EXISTS (
      SELECT 1 FROM atoms a WHERE a.name = atom_versions.name AND a.version = atom_versions.version
        AND a.type IS atom_versions.type AND a.code IS atom_versions.code AND a.description IS atom_versions.description
        AND a.inputs IS atom_versions.inputs AND a.outputs IS atom_versions.outputs
        AND a.created_at IS atom_versions.created_at AND a.updated_at IS atom_versions.updated_at
        AND atom_versions.dependencies IS ${CURRENT_DEPENDENCIES}
    );
    UPDATE embeddings SET vector = atomic_float16(vector) WHERE typeof(vector) = 'blob' AND length(vector) % 4 = 0;
  `,
  3: `
    CREATE TABLE embedding_slots (
      name TEXT PRIMARY KEY,
      model TEXT NOT NULL,
      text_hash TEXT NOT NULL,
      slot INTEGER NOT NULL CHECK (typeof(slot) = 'integer' AND slot >= 0)
    );
  `,
  4: `
    CREATE TABLE atoms_next (
      name TEXT PRIMARY KEY,
      type TEXT,
      code TEXT,
      description TEXT,
      inputs TEXT DEFAULT '[]',
      outputs TEXT DEFAULT '[]',
      version INTEGER,
      created_at TEXT,
      updated_at TEXT,
      examples TEXT
    );
    INSERT INTO atoms_next (name, type, code, description, inputs, outputs, version, created_at, updated_at)
      SELECT name, type, code, description, inputs, outputs, version, created_at, updated_at FROM atoms;
    DROP TABLE atoms;
    ALTER TABLE atoms_next RENAME TO atoms;
    ALTER TABLE atom_versions ADD COLUMN examples TEXT;
  `,
};

/**
 * JavaScript a migration's SQL calls, registered while it runs: `atomic_float16(blob)` turns a
 * float32 vector into binary16.
 */
function registerMigrationFunctions(db: Database): void {
  db.create_function('atomic_float16', (blob: unknown) => {
    if (!(blob instanceof Uint8Array)) return blob as null;
    const aligned = new Float32Array(blob.byteLength / 4);
    new Uint8Array(aligned.buffer).set(blob);
    return encodeHalf(aligned);
  });
}

function readVersion(db: Database): number {
  const hasMeta = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").length > 0;
  if (!hasMeta) return 0;
  const rows = db.exec("SELECT value FROM meta WHERE key = 'schema_version'");
  return rows.length ? Number(rows[0]!.values[0]![0]) : 0;
}

/** A schema object found in a database that this version did not create, and removed. */
export interface RemovedObject {
  type: string;
  name: string;
}

/** Tables and indexes the migrations create, by name (read from their own text, so they never drift). */
const KNOWN = (() => {
  const tables = new Set<string>(['sqlite_sequence']); // SQLite's own, for AUTOINCREMENT
  const indexes = new Set<string>();
  for (const sql of Object.values(MIGRATIONS)) {
    for (const m of sql.matchAll(/CREATE\s+(TABLE|INDEX)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi)) {
      (m[1]!.toUpperCase() === 'TABLE' ? tables : indexes).add(m[2]!);
    }
  }
  return { tables, indexes };
})();

function isKnown(type: string, name: string, table: string): boolean {
  if (type === 'table') return KNOWN.tables.has(name);
  if (type === 'index') {
    // SQLite's own indexes for PRIMARY KEY and UNIQUE constraints of our tables.
    return KNOWN.indexes.has(name) || (KNOWN.tables.has(table) && name.startsWith(`sqlite_autoindex_${table}_`));
  }
  return false; // every trigger and view: this schema has none
}

/** SQL for an identifier, whatever characters the name holds. */
function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Drops every trigger, view, table and index this schema does not define, and returns what it
 * dropped. Triggers go first: they are the danger (one `AFTER INSERT ON atoms` can rewrite every
 * atom saved from then on), and dropping a table takes its triggers with it.
 */
export function removeForeignObjects(db: Database, file: string): RemovedObject[] {
  const rank: Record<string, number> = { trigger: 0, view: 1, index: 2, table: 3 };
  const found = (db.exec('SELECT type, name, tbl_name FROM sqlite_master')[0]?.values ?? [])
    .map(([type, name, table]) => ({ type: String(type), name: String(name), table: String(table) }))
    .filter((o) => !isKnown(o.type, o.name, o.table))
    .sort((a, b) => (rank[a.type] ?? 4) - (rank[b.type] ?? 4));
  const removed: RemovedObject[] = [];
  for (const o of found) {
    const kind = o.type.toUpperCase();
    try {
      if (!(o.type in rank)) throw new Error(`unknown kind of schema object "${o.type}"`);
      db.run(`DROP ${kind} IF EXISTS ${quoteName(o.name)}`);
    } catch (err) {
      throw new AtomError(
        'storage',
        `${file} holds ${o.type} ${JSON.stringify(o.name)}, which is not part of the Atomic Coding schema and could not be removed ` +
          `(${(err as Error).message}). Nothing was loaded or changed: restore atoms.db from a copy you trust, or move it away to start empty.`,
      );
    }
    removed.push({ type: o.type, name: o.name });
  }
  return removed;
}

/**
 * Brings the database up to SCHEMA_VERSION after removing whatever is not its schema (see
 * removeForeignObjects); returns the version found before, what was removed, whether the
 * database now differs from the bytes it was opened from (its snapshot is then due), and whether
 * it should be rewritten whole (VACUUM) once the open's own writes are done, to take PAGE_SIZE.
 */
export function prepareSchema(
  db: Database,
  file: string,
): { found: number; removed: RemovedObject[]; changed: boolean; vacuum: boolean } {
  const found = readVersion(db);
  checkNotNewer(found, file);
  const removed = removeForeignObjects(db, file);
  migrate(db, file);
  const vacuum = setPageSize(db);
  return { found, removed, changed: removed.length > 0 || found < SCHEMA_VERSION || vacuum, vacuum };
}

/**
 * Asks for PAGE_SIZE pages when the database's are smaller (a database from schema 1, or a new
 * one); they take effect at the next VACUUM. Everything stays in memory, like every change before
 * a snapshot: the store writes it at its next compaction (`unsaved` in load.ts makes one due).
 */
function setPageSize(db: Database): boolean {
  const size = Number(db.exec('PRAGMA page_size')[0]?.values[0]?.[0] ?? 0);
  if (size >= PAGE_SIZE) return false;
  db.run(`PRAGMA page_size = ${PAGE_SIZE}`);
  return true;
}

function checkNotNewer(found: number, file: string): void {
  if (found > SCHEMA_VERSION) {
    throw new AtomError(
      'storage',
      `${file} was written by a newer version of Atomic Coding (schema ${found}; this version reads up to ${SCHEMA_VERSION}). ` +
        'Update the Atomic Coding extension or command line, then open the workspace again.',
    );
  }
}

/** Brings the database up to SCHEMA_VERSION; returns the version found before. */
export function migrate(db: Database, file: string): number {
  const found = readVersion(db);
  checkNotNewer(found, file);
  if (found < SCHEMA_VERSION) registerMigrationFunctions(db);
  for (let v = found + 1; v <= SCHEMA_VERSION; v++) {
    db.run('BEGIN');
    try {
      db.run(MIGRATIONS[v]!);
      db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", [String(v)]);
      db.run('COMMIT');
    } catch (err) {
      db.run('ROLLBACK');
      throw err;
    }
  }
  return found;
}
