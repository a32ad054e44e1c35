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
 *
 * A new order is mostly the previous one with an atom added or removed, so it is journaled as that
 * change (`OrderChange`) and held in memory (BuildRecords); its row's `build_log` is HELD_ORDER until
 * the database is exported (`writeHeldOrder`, before every snapshot). Writing the whole order into
 * the journal and the table on every created atom was a fifth of a creation's time at 1,000 atoms.
 * The builder, which put the atom in, says what changed (bundler.ts's `BundlePlan.orderChange`); the
 * two lists are compared only when it cannot.
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
  /** The build's order is the previous build's with this change; `build.order` is empty. */
  change?: OrderChange;
}

/**
 * An order as the previous one (`from` names long) with `removed` names taken out at `at` and
 * `added` put there: what lies between the longest common start and end of the two orders.
 */
export interface OrderChange {
  from: number;
  at: number;
  removed: number;
  added: string[];
}

/** An order change the builder knows, from the very list it handed out before (`base`): BundlePlan.orderChange. */
export interface KnownOrderChange {
  base: readonly string[];
  change: OrderChange;
}

/** The change from `previous` to `next`, or undefined when it would be as long as `next` itself. */
export function orderChange(previous: readonly string[], next: readonly string[]): OrderChange | undefined {
  const shorter = Math.min(previous.length, next.length);
  let at = 0;
  while (at < shorter && previous[at] === next[at]) at++;
  let tail = 0;
  while (tail < shorter - at && previous[previous.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const removed = previous.length - at - tail;
  const added = next.slice(at, next.length - tail);
  return removed + added.length > next.length / 2 ? undefined : { from: previous.length, at, removed, added };
}

/**
 * `previous` with `change` applied, or undefined when the change does not fit it: a journal is
 * input (a clone's `.atomic/` may hold anything), and an order is informational, so a change that
 * does not apply leaves the order unknown rather than failing the open.
 */
export function applyOrderChange(previous: readonly string[], change: OrderChange): string[] | undefined {
  const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  const { from, at, removed, added } = change;
  if (!count(from) || !count(at) || !count(removed) || !isNameList(added)) return undefined;
  if (from !== previous.length || at + removed > from) return undefined;
  return previous.slice(0, at).concat(added, previous.slice(at + removed));
}

/** Whether `change` applies to `previous` and gives an order `length` names long. */
function fits(previous: readonly string[], change: OrderChange, length: number): boolean {
  const { from, at, removed, added } = change;
  return from === previous.length && at + removed <= from && from - removed + added.length === length;
}

/** An order as read from a journal or a row: a list of names, or it is not one (read as unknown). */
function isNameList(order: unknown): order is string[] {
  return Array.isArray(order) && order.every((n) => typeof n === 'string');
}

const MAX_KEPT_BUILDS = 100;

/** A build's `build_log` when its order is the previous build's (not JSON: never an order itself). */
export const SAME_ORDER = '=';
/** The `build_log` of a build older than the newest order: its order is not kept. */
const NO_ORDER = '[]';
/** The `build_log` of the build holding the newest order while BuildRecords holds it (until `writeHeldOrder`). */
const HELD_ORDER = '~';

/** The order a build row stands for: its own, or the newest before it that holds one. */
const ORDER_OF = (id: string) =>
  `(SELECT build_log FROM builds o WHERE o.id <= ${id} AND o.build_log <> '${SAME_ORDER}' ORDER BY o.id DESC LIMIT 1)`;

/** The last build, in memory; the table holds the rest. */
export class BuildRecords {
  /** The last record's order is in no row yet (a row says HELD_ORDER). */
  private held = false;
  /**
   * The op `opFor` made last, with the builder's order: `write` takes that order for that op rather
   * than the previous one changed. Equal, but the builder's names are the atoms' own strings, so the
   * next build's order compares with it by identity; the previous order's were read from the database
   * at open, and kept through every change, each build compared 50,000 names by content (8 ms a
   * created atom at 50,000 atoms) and copied them (3 ms).
   */
  private made: { op: BuildOp; order: readonly string[] } | undefined;

  /** From the last build of a database just read (`readLastBuild`), if any. */
  constructor(private lastRecord?: BuildRecord) {}

  get last(): BuildRecord | undefined {
    return this.lastRecord;
  }

  /**
   * The journal op recording `build`, its order left out when the previous build had it. `shift`,
   * from the builder, says how `build.order` differs from an order it handed out before (`base`):
   * when that is the last record's very list, it is the change, and 50,000 names are not compared
   * (5-7 ms of every created atom at 50,000 atoms, though compared by identity).
   */
  opFor(build: BuildRecord, shift?: KnownOrderChange): BuildOp {
    const previous = this.lastRecord?.order;
    const shifted = shift !== undefined && previous === shift.base && fits(previous, shift.change, build.order.length) ? shift.change : undefined;
    // The builder hands out the same frozen order while it stands: compared by identity first.
    const sameOrder =
      !shifted &&
      previous !== undefined &&
      (previous === build.order || (previous.length === build.order.length && previous.every((n, i) => n === build.order[i])));
    // An unknown order (none yet, or one a journal could not restore) is followed by a whole one.
    const change = shifted ?? (sameOrder || !previous?.length ? undefined : orderChange(previous, build.order));
    const op: BuildOp = sameOrder
      ? { op: 'build', build: { ...build, order: [] }, sameOrder: true }
      : change
        ? { op: 'build', build: { ...build, order: [] }, change }
        : { op: 'build', build };
    this.made = { op, order: build.order };
    return op;
  }

  /**
   * Writes `op` (committed now, or replayed) as the newest row, and takes it as the last record
   * with its order: the previous one, the previous one changed, or its own.
   */
  write(db: StoreDatabase, op: BuildOp): void {
    const previous = this.lastRecord?.order ?? [];
    const own = op.build.order;
    const made = this.made?.op === op ? this.made.order : undefined;
    this.made = undefined;
    const order = made ?? (op.sameOrder ? previous : op.change ? (applyOrderChange(previous, op.change) ?? []) : isNameList(own) ? own : []);
    writeBuild(db, op);
    if (!op.sameOrder) this.held = true;
    const id = db.rows('SELECT MAX(id) FROM builds')[0]?.[0] as number | undefined;
    this.lastRecord = { ...op.build, order, id };
  }

  /** Writes the held order into the row that stands for it: before the database is exported. */
  writeHeldOrder(db: StoreDatabase): void {
    if (!this.held) return;
    db.run(`UPDATE builds SET build_log = ? WHERE build_log = '${HELD_ORDER}'`, [JSON.stringify(this.lastRecord?.order ?? [])]);
    this.held = false;
  }
}

/** Inserts the build and keeps only the newest MAX_KEPT_BUILDS. The order itself stays in BuildRecords (HELD_ORDER). */
function writeBuild(db: StoreDatabase, op: BuildOp): void {
  const b = op.build;
  db.run(
    `INSERT INTO builds (status, bundle_path, atom_count, build_log, error_message, duration_ms, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [b.status, b.bundle_path, b.atom_count, op.sameOrder ? SAME_ORDER : HELD_ORDER, b.error_message, b.duration_ms, b.created_at],
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
    if (isNameList(parsed)) order = parsed;
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
