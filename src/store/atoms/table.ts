/**
 * The atoms' tables: `atoms` (the current version of each), `atom_dependencies` (their edges)
 * and `atom_versions` (every version ever saved, and a tombstone for each deletion). Every
 * statement that touches them is here.
 */
import type { SqlValue } from 'sql.js';
import type { Atom, AtomVersion, Port } from '../../atoms/model.js';
import type { StoreDatabase } from '../database.js';

/** A journal's delete: the tombstone's version and time. */
export interface AtomDeletion {
  name: string;
  version: number;
  at: string;
}

/** Writes an atom as its current row, its edges and a new version. */
export function writeAtom(db: StoreDatabase, a: Atom): void {
  const inputs = JSON.stringify(a.inputs);
  const outputs = JSON.stringify(a.outputs);
  db.run(
    `INSERT OR REPLACE INTO atoms (name, type, code, description, inputs, outputs, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [a.name, a.type, a.code, a.description, inputs, outputs, a.version, a.created_at, a.updated_at],
  );
  db.run('DELETE FROM atom_dependencies WHERE atom_name = ?', [a.name]);
  for (const d of a.dependencies) db.run('INSERT INTO atom_dependencies (atom_name, depends_on) VALUES (?, ?)', [a.name, d]);
  db.run(
    `INSERT OR REPLACE INTO atom_versions
       (name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
    [a.name, a.version, a.type, a.code, a.description, inputs, outputs, JSON.stringify(a.dependencies), a.created_at, a.updated_at],
  );
}

/** The tombstone copies the last version, so a deleted atom can be restored. */
export function writeTombstone(db: StoreDatabase, op: AtomDeletion): void {
  db.run(
    `INSERT OR REPLACE INTO atom_versions
       (name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted)
     SELECT name, ?, type, code, description, inputs, outputs, dependencies, created_at, ?, 1
     FROM atom_versions WHERE name = ? AND version = ? - 1`,
    [op.version, op.at, op.name, op.version],
  );
  db.run('DELETE FROM atom_dependencies WHERE atom_name = ?', [op.name]);
}

/** Removes the current row (after `writeTombstone`, and after the atom's embedding row). */
export function deleteAtomRow(db: StoreDatabase, name: string): void {
  db.run('DELETE FROM atoms WHERE name = ?', [name]);
}

/** An atom row as found, every column unchecked: the database may be someone else's. */
export interface RawAtomRow {
  name: SqlValue;
  type: SqlValue;
  code: SqlValue;
  description: SqlValue;
  inputs: SqlValue;
  outputs: SqlValue;
  version: SqlValue;
  created_at: SqlValue;
  updated_at: SqlValue;
  dependencies: SqlValue[];
  /** More than one row holds this name (a table of someone else's may lack the primary key). */
  duplicated: boolean;
}

/** Every atom row with its edges, ordered by name; openCheck.ts decides which may load. */
export function readAtomRows(db: StoreDatabase): RawAtomRow[] {
  const deps = new Map<unknown, SqlValue[]>();
  for (const [atomName, dependsOn] of db.rows('SELECT atom_name, depends_on FROM atom_dependencies ORDER BY depends_on')) {
    const list = deps.get(atomName);
    if (list) list.push(dependsOn!);
    else deps.set(atomName, [dependsOn!]);
  }
  const duplicated = new Set(db.rows('SELECT name FROM atoms GROUP BY name HAVING COUNT(*) > 1').map((r) => r[0]));
  return db
    .rows('SELECT name, type, code, description, inputs, outputs, version, created_at, updated_at FROM atoms ORDER BY name')
    .map((r) => ({
      name: r[0]!,
      type: r[1]!,
      code: r[2]!,
      description: r[3]!,
      inputs: r[4]!,
      outputs: r[5]!,
      version: r[6]!,
      created_at: r[7]!,
      updated_at: r[8]!,
      dependencies: deps.get(r[0]) ?? [],
      duplicated: duplicated.has(r[0]),
    }));
}

/** Every stored version of an atom, newest first (deleted atoms keep theirs). */
export function readHistory(db: StoreDatabase, name: string): AtomVersion[] {
  return db
    .rows(
      `SELECT name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted
       FROM atom_versions WHERE name = ? ORDER BY version DESC`,
      [name],
    )
    .map(rowToVersion);
}

/** The latest tombstone of every name whose last version is one, newest first; names unchecked. */
export function readTombstones(db: StoreDatabase): { name: SqlValue; version: number; deleted_at: string }[] {
  return db
    .rows(
      `SELECT v.name, v.version, v.updated_at FROM atom_versions v
       WHERE v.deleted = 1 AND v.version = (SELECT MAX(version) FROM atom_versions WHERE name = v.name)
       ORDER BY v.updated_at DESC`,
    )
    .map((r) => ({ name: r[0]!, version: r[1] as number, deleted_at: r[2] as string }));
}

/** The highest version ever stored under `name` (0 for none): a re-created atom continues from it. */
export function lastVersion(db: StoreDatabase, name: string): number {
  return (db.rows('SELECT MAX(version) FROM atom_versions WHERE name = ?', [name])[0]?.[0] as number | null) ?? 0;
}

function rowToVersion(r: SqlValue[]): AtomVersion {
  return {
    name: r[0] as string,
    version: r[1] as number,
    type: r[2] as Atom['type'],
    code: r[3] as string,
    description: (r[4] as string | null) ?? null,
    inputs: JSON.parse(r[5] as string) as Port[],
    outputs: JSON.parse(r[6] as string) as Port[],
    dependencies: JSON.parse(r[7] as string) as string[],
    created_at: r[8] as string,
    updated_at: r[9] as string,
    deleted: r[10] === 1,
  };
}
