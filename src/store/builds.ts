/**
 * Build records: what each build of latest.js did (status, order, error), the newest 100 kept
 * in the `builds` table, the last one in memory for get_status and the tree.
 *
 * A build's order is ~270 KB at 10,000 atoms (1.3 MiB at 50,000) and most changes keep it, so an
 * order equal to the previous build's is journaled as `sameOrder` and stored once: such a build's
 * `build_log` is SAME_ORDER, read as the order of the newest build before it that holds one (the
 * oldest build kept receives the order before older ones are dropped). Only the newest order is
 * kept: a new one empties the orders of the builds before it (nothing reads them; every created
 * atom changes the order, and 100 of them at 50,000 atoms kept 130 MiB of orders in the database,
 * which sql.js holds in memory). 100 builds at 10,000 atoms were 26 MiB of copies.
 */
import type { SqlValue } from 'sql.js';
import type { StoreDatabase } from './database.js';

export interface BuildRecord {
  id?: number;
  status: 'building' | 'success' | 'error';
  bundle_path: string | null;
  atom_count: number;
  order: readonly string[];
  error_message: string | null;
  duration_ms: number | null;
  created_at: string;
}

/** A build as the journal carries it (journal.ts's `build` op). */
export interface BuildOp {
  op: 'build';
  build: BuildRecord;
  /** The build's order equals the previous build's and is not repeated; `build.order` is empty. */
  sameOrder?: true;
}

const MAX_KEPT_BUILDS = 100;

/** A build's `build_log` when its order is the previous build's (not JSON: never an order itself). */
export const SAME_ORDER = '=';
/** The `build_log` of a build older than the newest order: its order is not kept. */
const NO_ORDER = '[]';

/** The order a build row stands for: its own, or the newest before it that holds one. */
const ORDER_OF = (id: string) =>
  `(SELECT build_log FROM builds o WHERE o.id <= ${id} AND o.build_log <> '${SAME_ORDER}' ORDER BY o.id DESC LIMIT 1)`;

/** The last build, in memory; the table holds the rest. */
export class BuildRecords {
  private lastRecord: BuildRecord | undefined;

  get last(): BuildRecord | undefined {
    return this.lastRecord;
  }

  /** The journal op recording `build`, its order left out when the previous build had it. */
  opFor(build: BuildRecord): BuildOp {
    const previous = this.lastRecord?.order;
    // The builder hands out the same frozen order while it stands: compared by identity first.
    const sameOrder =
      previous !== undefined &&
      (previous === build.order || (previous.length === build.order.length && previous.every((n, i) => n === build.order[i])));
    // Equal orders: the caller's is kept from here on, so that the next build compares by identity.
    if (sameOrder && previous !== build.order) this.lastRecord = { ...this.lastRecord!, order: build.order };
    return sameOrder ? { op: 'build', build: { ...build, order: [] }, sameOrder: true } : { op: 'build', build };
  }

  /** After `writeBuild` committed `op`: the record as stored, with its id. */
  apply(db: StoreDatabase, op: BuildOp): void {
    const id = db.rows('SELECT MAX(id) FROM builds')[0]?.[0] as number | undefined;
    const order = op.sameOrder ? (this.lastRecord?.order ?? []) : op.build.order;
    this.lastRecord = { ...op.build, order, id };
  }

  /** Takes the last build read by `readLastBuild` (at open or reload). */
  replace(last: BuildRecord | undefined): void {
    this.lastRecord = last;
  }
}

/** Inserts the build and keeps only the newest MAX_KEPT_BUILDS. */
export function writeBuild(db: StoreDatabase, op: BuildOp): void {
  const b = op.build;
  db.run(
    `INSERT INTO builds (status, bundle_path, atom_count, build_log, error_message, duration_ms, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [b.status, b.bundle_path, b.atom_count, op.sameOrder ? SAME_ORDER : JSON.stringify(b.order), b.error_message, b.duration_ms, b.created_at],
  );
  // A new order: the builds before it keep their records, not their orders.
  if (!op.sameOrder) {
    db.run(`UPDATE builds SET build_log = '${NO_ORDER}' WHERE id < (SELECT MAX(id) FROM builds) AND build_log NOT IN ('${SAME_ORDER}', '${NO_ORDER}')`);
  }
  const oldestKept = `(SELECT MAX(id) FROM builds) - ${MAX_KEPT_BUILDS - 1}`;
  // The oldest build kept takes the order it stands for before the builds holding it are dropped.
  db.run(
    `UPDATE builds SET build_log = COALESCE(${ORDER_OF('builds.id')}, '[]')
     WHERE id = (SELECT MIN(id) FROM builds WHERE id >= ${oldestKept}) AND build_log = '${SAME_ORDER}'`,
  );
  db.run(`DELETE FROM builds WHERE id < ${oldestKept}`);
}

export function readLastBuild(db: StoreDatabase): BuildRecord | undefined {
  const row = db.rows(
    `SELECT id, status, bundle_path, atom_count, CASE WHEN build_log = '${SAME_ORDER}' THEN ${ORDER_OF('b.id')} ELSE build_log END,
       error_message, duration_ms, created_at FROM builds b ORDER BY id DESC LIMIT 1`,
  )[0];
  return row ? rowToBuild(row) : undefined;
}

function rowToBuild(r: SqlValue[]): BuildRecord {
  let order: string[] = [];
  try {
    const parsed: unknown = JSON.parse(r[4] as string);
    if (Array.isArray(parsed) && parsed.every((n) => typeof n === 'string')) order = parsed;
  } catch {
    // Not ours: a build's order is informational, so an unreadable one reads as empty.
  }
  return {
    id: r[0] as number,
    status: r[1] as BuildRecord['status'],
    bundle_path: (r[2] as string | null) ?? null,
    atom_count: r[3] as number,
    order,
    error_message: (r[5] as string | null) ?? null,
    duration_ms: (r[6] as number | null) ?? null,
    created_at: r[7] as string,
  };
}
