/**
 * Compaction: the whole database written as the snapshot `atoms.db` (atomically: the old or the
 * new file, whatever happens), then the journal emptied. When it is due (so many entries, or so
 * many bytes, since the last snapshot) and how it is scheduled.
 */
import { writeFileAtomic } from '../util/atomicFile.js';
import { snapshotDigest } from './atoms/keptAtoms.js';
import { releaseBuffer } from '../util/release.js';
import type { Logger } from '../util/log.js';
import type { StoreDatabase } from './database.js';
import { storageError } from './diskErrors.js';
import type { Journal } from './journal.js';

export interface CompactionPolicy {
  /** Compact the journal into the snapshot after this many entries (default 1000). */
  compactAfterEntries?: number;
  /** ...or once the journal holds this many bytes (default 16 MiB). */
  compactAfterBytes?: number;
}

/** What compaction needs of the store. */
export interface CompactionHost {
  /** Runs `work` in the store's write queue, after the writes before it. */
  exclusive(work: () => Promise<void>): Promise<void>;
  /** Writes the snapshot now; called inside `exclusive`. */
  compactNow(): Promise<void>;
  isClosed(): boolean;
}

/**
 * Writes `db` (which holds every entry up to `seq`) as the snapshot, durably, and only then
 * empties the journal: a crash in between replays entries the snapshot already has, which
 * replay skips by their sequence numbers. Returns the snapshot's digest (keptAtoms.ts).
 */
export async function writeSnapshot(db: StoreDatabase, seq: number, dbFile: string, journal: Journal): Promise<string> {
  db.setMetaValue('journal_seq', String(seq));
  const bytes = db.export();
  const digest = snapshotDigest(bytes);
  try {
    await writeFileAtomic(dbFile, bytes);
  } catch (err) {
    throw storageError(dbFile, err);
  } finally {
    // A copy of sql.js's file, written: given back now rather than at a full collection.
    releaseBuffer(bytes);
  }
  await journal.reset();
  return digest;
}

/** A snapshot this large is not rewritten at close for a short journal (`worthAtClose`). */
const LARGE_SNAPSHOT_BYTES = 16 * 1024 * 1024;
const CLOSE_COMPACT_ENTRIES = 100;
const CLOSE_COMPACT_BYTES = 1024 * 1024;

export class Compaction {
  private entries = 0;
  private unsaved = false;
  private scheduled: Promise<void> | undefined;

  constructor(
    private readonly journal: Journal,
    private readonly policy: CompactionPolicy,
    private readonly host: CompactionHost,
    private readonly log: Logger,
  ) {}

  /** Journal entries not yet in the snapshot. */
  get entriesSinceSnapshot(): number {
    return this.entries;
  }

  /**
   * After an open: the entries replayed from the journal, and whether the database holds what no
   * entry does (a migration, seals of rows checked in full), which only a snapshot keeps.
   */
  loaded(replayed: number, unsaved = false): void {
    this.entries = replayed + (unsaved ? 1 : 0);
    this.unsaved = unsaved;
  }

  /** After a snapshot was written. */
  snapshotted(): void {
    this.entries = 0;
    this.unsaved = false;
  }

  /**
   * Whether closing should write a snapshot: whenever the journal holds anything, unless the
   * snapshot is large and the journal short. Exporting and fsyncing a 150 MiB snapshot (50,000
   * atoms) takes seconds, and a stdio client kills a server that takes more than a few to end;
   * a short journal is durable as it is and replays at the next open in moments.
   */
  worthAtClose(snapshotBytes: number): boolean {
    if (this.entries === 0) return false;
    // Seals or a migration would be lost, and the next open would check every row again.
    if (this.unsaved || snapshotBytes < LARGE_SNAPSHOT_BYTES) return true;
    return this.entries >= CLOSE_COMPACT_ENTRIES || this.journal.size >= CLOSE_COMPACT_BYTES;
  }

  /** After an entry was committed: schedules a compaction when one is due. */
  committed(): void {
    this.entries++;
    if (this.due()) this.schedule();
  }

  /** Resolves once the compaction a write scheduled, if any, has run. */
  async settled(): Promise<void> {
    await this.scheduled;
  }

  private due(): boolean {
    const { compactAfterEntries = 1000, compactAfterBytes = 16 * 1024 * 1024 } = this.policy;
    return this.entries >= compactAfterEntries || this.journal.size >= compactAfterBytes;
  }

  /**
   * Compaction exports the whole database (about 110 ms at 10,000 atoms, plus writing and fsyncing
   * the snapshot), so it runs after the write that made it due has been answered, not inside it:
   * the change is already durable in the journal. It still takes its turn in the write queue.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.host.exclusive(async () => {
        if (this.due()) await this.host.compactNow();
      }))
      .catch((err: Error) => {
        // The changes are durable in the journal; compaction is tried again after the next write
        // (and a closed store compacted itself on close).
        if (!this.host.isClosed()) this.log.warn(`store: compaction failed, will retry: ${err.message}`);
      })
      .finally(() => {
        this.scheduled = undefined;
      });
  }
}
