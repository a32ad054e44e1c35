/**
 * The atoms' tables: `atoms` (the current version of each), `atom_dependencies` (their edges),
 * `atom_versions` (every version that was superseded, and a tombstone for each deletion: the
 * current version is the `atoms` row, never copied) and `atom_checks` (the seal of each row this
 * program checked, checkSeal.ts). Every statement that touches them is here.
 */
import type { SqlValue } from 'sql.js';
import type { Atom, AtomExample, AtomVersion, Port } from '../../atoms/model.js';
import { seal, type SealedColumns } from '../checkSeal.js';
import type { StoreDatabase } from '../database.js';

/** A journal's delete: the tombstone's version and time. */
export interface AtomDeletion {
  name: string;
  version: number;
  at: string;
}

/**
 * Copies the current row of `name` into `atom_versions` (it is being replaced or deleted), with
 * its dependencies as JSON text of the sorted names. A row of someone else's database that does
 * not fit `atom_versions` (a NULL where a value is required) is not copied: IGNORE, so the write
 * that replaces it still goes through, as it did when the current row was never copied.
 */
function supersede(db: StoreDatabase, name: string, unless: number | null): void {
  db.run(
    `INSERT OR IGNORE INTO atom_versions
       (name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted, examples)
     SELECT a.name, a.version, a.type, a.code, a.description, a.inputs, a.outputs,
       (SELECT COALESCE(json_group_array(depends_on), '[]')
        FROM (SELECT depends_on FROM atom_dependencies WHERE atom_name = a.name ORDER BY depends_on)),
       a.created_at, a.updated_at, 0, a.examples
     FROM atoms a WHERE a.name = ? AND a.version IS NOT ?`,
    [name, unless],
  );
}

/** Writes an atom as its current row (the row it replaces becomes a superseded version), its edges and its seal. */
export function writeAtom(db: StoreDatabase, a: Atom): void {
  const inputs = JSON.stringify(a.inputs);
  const outputs = JSON.stringify(a.outputs);
  const examples = examplesColumn(a);
  supersede(db, a.name, a.version);
  db.run(
    `INSERT OR REPLACE INTO atoms (name, type, code, description, inputs, outputs, version, created_at, updated_at, examples)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [a.name, a.type, a.code, a.description, inputs, outputs, a.version, a.created_at, a.updated_at, examples],
  );
  db.run('DELETE FROM atom_dependencies WHERE atom_name = ?', [a.name]);
  for (const d of a.dependencies) db.run('INSERT INTO atom_dependencies (atom_name, depends_on) VALUES (?, ?)', [a.name, d]);
  // Only checked atoms are written (an upsert's plan, or a journal entry checked at open), so the row gets a seal.
  const s = seal({
    name: a.name,
    type: a.type,
    code: a.code,
    description: a.description,
    inputs,
    outputs,
    version: a.version,
    created_at: a.created_at,
    updated_at: a.updated_at,
    dependencies: a.dependencies,
    examples,
  });
  if (s === null) db.run('DELETE FROM atom_checks WHERE name = ?', [a.name]);
  else db.run('INSERT OR REPLACE INTO atom_checks (name, seal) VALUES (?, ?)', [a.name, s]);
}

/** The examples column: JSON text, or NULL for an atom without examples. */
function examplesColumn(a: Atom): string | null {
  return a.examples && a.examples.length > 0 ? JSON.stringify(a.examples) : null;
}

/** Records seals for rows checked in full at open, so the next open need not parse them again. */
export function writeSeals(db: StoreDatabase, seals: ReadonlyMap<string, string>): void {
  for (const [name, s] of seals) db.run('INSERT OR REPLACE INTO atom_checks (name, seal) VALUES (?, ?)', [name, s]);
}

/** The tombstone copies the last version (the current row, kept as a superseded version), so a deleted atom can be restored. */
export function writeTombstone(db: StoreDatabase, op: AtomDeletion): void {
  supersede(db, op.name, null);
  db.run(
    `INSERT OR REPLACE INTO atom_versions
       (name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted, examples)
     SELECT name, ?, type, code, description, inputs, outputs, dependencies, created_at, ?, 1, examples
     FROM atom_versions WHERE name = ? AND version = ? - 1`,
    [op.version, op.at, op.name, op.version],
  );
  db.run('DELETE FROM atom_dependencies WHERE atom_name = ?', [op.name]);
}

/** Removes the current row and its seal (after `writeTombstone`, and after the atom's embedding row). */
export function deleteAtomRow(db: StoreDatabase, name: string): void {
  db.run('DELETE FROM atoms WHERE name = ?', [name]);
  db.run('DELETE FROM atom_checks WHERE name = ?', [name]);
}

/** An atom row as found, every column unchecked: the database may be someone else's. */
export interface RawAtomRow extends SealedColumns {
  dependencies: SqlValue[];
  /** More than one row holds this name (a table of someone else's may lack the primary key). */
  duplicated: boolean;
  /** The seal recorded for this name, if any (checkSeal.ts decides whether it matches). */
  seal: SqlValue | undefined;
}

/** How many rows the atoms table has (a table of someone else's may hold a name twice). */
export function countAtomRows(db: StoreDatabase): number {
  return Number(db.rows('SELECT count(*) FROM atoms')[0]?.[0] ?? 0);
}

/** Every atom row with its edges, ordered by name; openCheck.ts decides which may load. */
export function readAtomRows(db: StoreDatabase): RawAtomRow[] {
  const deps = new Map<unknown, SqlValue[]>();
  // In the primary key's order (no sort by the target: that walks its index and looks up every row).
  for (const [atomName, dependsOn] of db.rows('SELECT atom_name, depends_on FROM atom_dependencies')) {
    const list = deps.get(atomName);
    if (list) list.push(dependsOn!);
    else deps.set(atomName, [dependsOn!]);
  }
  const duplicated = new Set(db.rows('SELECT name FROM atoms GROUP BY name HAVING COUNT(*) > 1').map((r) => r[0]));
  const seals = new Map(db.rows('SELECT name, seal FROM atom_checks').map((r) => [r[0], r[1]]));
  const rows = db.rows('SELECT name, type, code, description, inputs, outputs, version, created_at, updated_at, examples FROM atoms ORDER BY name');
  // A dependency names another atom: the same string as that atom's name, not a copy sql.js made
  // of it (90,000 copies at 50,000 atoms).
  const names = new Map<SqlValue, SqlValue>(rows.map((r) => [r[0]!, r[0]!]));
  for (const list of deps.values()) for (let i = 0; i < list.length; i++) list[i] = names.get(list[i]!) ?? list[i]!;
  return rows.map((r) => ({
    name: r[0]!,
    type: r[1]!,
    code: r[2]!,
    description: r[3]!,
    inputs: r[4]!,
    outputs: r[5]!,
    version: r[6]!,
    created_at: r[7]!,
    updated_at: r[8]!,
    examples: r[9] ?? null,
    dependencies: deps.get(r[0]) ?? [],
    duplicated: duplicated.has(r[0]),
    seal: seals.get(r[0]),
  }));
}

/**
 * Every stored version of an atom, newest first (deleted atoms keep theirs): the superseded ones
 * and tombstones, and the current row. Where `atom_versions` also holds the current version (a
 * database of schema 1 whose copy differed from its row), that copy is shown, as schema 1 did.
 */
export function readHistory(db: StoreDatabase, name: string): AtomVersion[] {
  const versions = db
    .rows(
      `SELECT name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted, examples
       FROM atom_versions WHERE name = ? ORDER BY version DESC`,
      [name],
    )
    .map(rowToVersion);
  const current = db.rows(
    `SELECT a.name, a.version, a.type, a.code, a.description, a.inputs, a.outputs,
       (SELECT COALESCE(json_group_array(depends_on), '[]')
        FROM (SELECT depends_on FROM atom_dependencies WHERE atom_name = a.name ORDER BY depends_on)),
       a.created_at, a.updated_at, 0, a.examples
     FROM atoms a WHERE a.name = ?`,
    [name],
  )[0];
  if (!current || versions.some((v) => v.version === current[1])) return versions;
  return [rowToVersion(current), ...versions].sort((x, y) => y.version - x.version);
}

/** The latest tombstone of every name whose last version is one, newest first; names unchecked. */
export function readTombstones(db: StoreDatabase): { name: SqlValue; version: number; deleted_at: string }[] {
  return db
    .rows(
      `SELECT v.name, v.version, v.updated_at FROM atom_versions v
       WHERE v.deleted = 1 AND v.version = (SELECT MAX(version) FROM atom_versions WHERE name = v.name)
         AND NOT EXISTS (SELECT 1 FROM atoms a WHERE a.name = v.name AND a.version > v.version)
       ORDER BY v.updated_at DESC`,
    )
    .map((r) => ({ name: r[0]!, version: r[1] as number, deleted_at: r[2] as string }));
}

/** The highest version ever stored under `name` (0 for none): a re-created atom continues from it. */
export function lastVersion(db: StoreDatabase, name: string): number {
  return (
    (db.rows(
      `SELECT MAX(v) FROM (SELECT version AS v FROM atom_versions WHERE name = ? UNION ALL SELECT version FROM atoms WHERE name = ?)
       WHERE typeof(v) = 'integer'`,
      [name, name],
    )[0]?.[0] as number | null) ?? 0
  );
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
    ...(typeof r[11] === 'string' ? { examples: JSON.parse(r[11]) as AtomExample[] } : {}),
  };
}
