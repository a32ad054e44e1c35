/**
 * The database schema and its migrations. `schema_version` in `meta` tells which migrations
 * ran; a database from a newer version is refused with what to do, never rewritten.
 */
import type { Database } from 'sql.js';
import { AtomError } from '../atoms/errors.js';

export const SCHEMA_VERSION = 1;

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
};

function readVersion(db: Database): number {
  const hasMeta = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").length > 0;
  if (!hasMeta) return 0;
  const rows = db.exec("SELECT value FROM meta WHERE key = 'schema_version'");
  return rows.length ? Number(rows[0]!.values[0]![0]) : 0;
}

/** Brings the database up to SCHEMA_VERSION; returns the version found before. */
export function migrate(db: Database, file: string): number {
  const found = readVersion(db);
  if (found > SCHEMA_VERSION) {
    throw new AtomError(
      'storage',
      `${file} was written by a newer version of Atomic Coding (schema ${found}; this version reads up to ${SCHEMA_VERSION}). ` +
        'Update the Atomic Coding extension or command line, then open the workspace again.',
    );
  }
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
