/**
 * The workspace store: atoms, dependency edges, every version, builds and embeddings, in a
 * sql.js database at `.atomic/atoms.db` with a write-ahead journal beside it, and the embedding
 * vectors themselves in `.atomic/vectors.bin` (embeddings/vectorFile.ts).
 *
 * This class is the one write path. It coordinates the parts, each in its own module, through
 * the journal: a write is planned (atoms/writePlan.ts, the domain's planner), appended to the
 * journal and fsynced, then applied to the database (load.ts's `applyEntry`, each table's SQL in
 * its owner: atoms/table.ts, builds.ts, vectors/stored.ts) and to the in-memory parts
 * (atoms/model.ts answers every read of atoms); only then does it resolve, and the store announces
 * the change with `onDidChange`: everything that follows a change (the bundle, the index, the
 * tree, MCP subscribers) hangs off that event. Writes run one at a time. Compaction
 * (compaction.ts) rewrites the snapshot after the write that made it due. At open, openFolder.ts
 * readies `.atomic/` (links distrusted, the lock taken, or read-only); then (load.ts)
 * openCheck.ts refuses atoms an upsert would refuse; outsideChanges.ts notices a database
 * replaced by another program, which is reloaded and announced as `reload`.
 *
 * The rest of the program reads through an `AtomReader` (reader.ts) and writes through
 * `AtomWorkspace`, which keeps this class to itself.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AtomError } from '../atoms/errors.js';
import type { DependencyMap } from '../atoms/graph.js';
import { MAX_NAME_LENGTH, NAME_PATTERN, type Atom, type AtomType, type AtomVersion } from '../atoms/model.js';
import { changed, planChange, type ChangeOutcome, type ChangePlan } from '../atoms/writePlan.js';
import { Emitter, type Disposable } from '../util/event.js';
import { writeFileAtomic } from '../util/atomicFile.js';
import { silentLogger, type Logger } from '../util/log.js';
import { readPlainFileHeadSync, readPlainFileSync } from '../util/safeFile.js';
import { nextTurn } from '../util/turn.js';
import { encodeKeptAtoms, HEAD_BYTES, readKeptAtoms, snapshotDigest, type KeptAtomsFile } from './atoms/keptAtoms.js';
import { AtomModel } from './atoms/model.js';
import { countAtomRows, lastVersion, readHistory, readTombstones } from './atoms/table.js';
import { BuildRecords, type BuildRecord, type KnownOrderChange } from './builds.js';
import { Compaction, writeSnapshot, type CompactionPolicy } from './compaction.js';
import { readSnapshot, type StoreDatabase } from './database.js';
import { readOnlyError, storageError } from './diskErrors.js';
import type { Vector } from './vectors/float16.js';
import { moveLegacyVectors } from './vectors/legacy.js';
import { slotRows, StoredEmbeddings, type LegacyVector, type StoredAs, type StoredEmbedding } from './vectors/stored.js';
import { VectorFile } from './vectors/vectorFile.js';
import { Journal, type JournalEntry, type JournalOp } from './journal.js';
import { applyEntry, readStore, type Loaded } from './load.js';
import { WorkspaceLock } from './lock.js';
import { machineMac } from './checkSeal.js';
import { logOpenReport, type OpenReport } from './openCheck.js';
import { OutsideChanges } from './outsideChanges.js';
import { prepareFolder } from './openFolder.js';
import type { AtomReader, StoreChange } from './reader.js';

export type { ChangeOutcome, ChangePlan, UpsertResult } from '../atoms/writePlan.js';

export interface StoreOptions extends CompactionPolicy {
  log?: Logger;
  /** Skip the workspace lock (tests of two stores on one folder only). */
  noLock?: boolean;
}

export class AtomStore implements AtomReader, Disposable {
  readonly atomicDir: string;
  readonly dbFile: string;
  readonly journalFile: string;

  private readonly model = new AtomModel();
  private readonly vectorFile: VectorFile;
  private readonly embeddings: StoredEmbeddings;
  /** The last build; the open's replay hands over its records (a held order included). */
  private builds = new BuildRecords();
  private readonly changes = new Emitter<StoreChange>();
  private readonly journal: Journal;
  private readonly lock: WorkspaceLock;
  private readonly compaction: Compaction;
  private readonly outside: OutsideChanges;
  private db!: StoreDatabase;
  private seq = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private isClosed = false;
  private readOnlyReason: string | undefined;
  private report: OpenReport = { refused: [], removed: [] };
  /** What `.atomic/` held that was not trusted at open, and what was done with it (stateFolder.ts). */
  private distrustedState: string[] = [];
  /** The atoms in dependency order as the first load checked them, until taken (takeOpenOrder). */
  private openOrder: string[] | undefined;
  /** The checked atoms kept for the next open (keptAtoms.ts), and the digest of atoms.db as it is on disk. */
  private readonly keptFile: string;
  private snapshot: string | undefined;
  /**
   * The snapshot (digest) whose kept atoms are on disk (taken at open), if any. A change of an
   * atom does not write them again: the next open applies the journal's entries after them, as it
   * would to the rows, until a snapshot (compaction) calls for new ones, written at close.
   */
  private keptFor: string | undefined;

  /** Fired after a change is durable and applied. */
  readonly onDidChange = this.changes.event;

  private constructor(
    readonly workspaceDir: string,
    private readonly log: Logger,
    private readonly options: StoreOptions,
  ) {
    this.atomicDir = join(workspaceDir, '.atomic');
    this.dbFile = join(this.atomicDir, 'atoms.db');
    this.journalFile = join(this.atomicDir, 'atoms.journal');
    this.keptFile = join(this.atomicDir, 'atoms.bin');
    this.vectorFile = new VectorFile(join(this.atomicDir, 'vectors.bin'));
    this.embeddings = new StoredEmbeddings(this.vectorFile);
    this.journal = new Journal(this.journalFile);
    this.lock = new WorkspaceLock(join(this.atomicDir, 'lock'));
    this.outside = new OutsideChanges([this.dbFile, this.journalFile]);
    this.compaction = new Compaction(this.journal, options, {
      exclusive: (work) => this.exclusive(work),
      compactNow: () => this.compactNow(),
      isClosed: () => this.isClosed,
    }, log);
  }

  /** Opens (creating on first use) the store of the workspace folder `dir`. */
  static async open(dir: string, options: StoreOptions = {}): Promise<AtomStore> {
    const store = new AtomStore(resolve(dir), options.log ?? silentLogger, options);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    const prepared = prepareFolder(this.atomicDir, this.lock, this.log, { noLock: this.options.noLock });
    this.distrustedState = prepared.distrusted;
    this.readOnlyReason = prepared.readOnly;
    try {
      await this.loadDatabase();
    } catch (err) {
      this.lock.release();
      throw err;
    }
    // A write checks `changedOnDisk()` first anyway; this reloads between writes too.
    this.outside.watch(this.atomicDir, () => {
      this.exclusive(async () => {}).catch((err) => this.log.warn(`store: ${(err as Error).message}`));
    });
  }

  /**
   * Reads the snapshot and replays the journal after it. On a reload, the current database
   * stays in place until the new one has loaded, so a broken file on disk changes nothing.
   */
  private async loadDatabase(): Promise<void> {
    const read = readSnapshot(this.dbFile);
    const bytes = read?.bytes;
    // Its digest names the snapshot the kept atoms are for: taken only where they are read or written.
    const snapshot = read && !this.readOnlyReason ? snapshotDigest(read.bytes.subarray(0, read.size)) : undefined;
    const keptFile = read && snapshot ? this.readKeptAtoms(read.size) : undefined;
    let loaded: Loaded;
    try {
      loaded = await readStore(bytes, this.dbFile, this.journalFile, this.log, keptFile && snapshot ? { file: keptFile, snapshot } : undefined);
    } catch (err) {
      if (err instanceof AtomError) throw err;
      throw new AtomError(
        'storage',
        `${this.dbFile} is not a readable Atomic Coding database (${(err as Error).message}). ` +
          'Restore it from version control or a backup, or move it away to start empty.',
      );
    }
    const previous = this.db as StoreDatabase | undefined;
    previous?.close();
    this.db = loaded.database;
    this.seq = loaded.seq;
    this.builds = loaded.builds;
    this.compaction.loaded(loaded.replayed, loaded.unsaved);
    if (!this.readOnlyReason) {
      await this.journal.close();
      await this.journal.open(loaded.journal.validBytes, loaded.journal.totalBytes);
      if (!bytes) await this.compactNow(); // created on first use
    }
    this.model.replace(loaded.atoms);
    this.openOrder = previous ? undefined : loaded.order;
    this.embeddings.replace(loaded.database, loaded.embeddings);
    if (loaded.legacyVectors.length > 0) {
      if (this.readOnlyReason) this.embeddings.hold(loaded.legacyVectors);
      else await this.takeLegacyVectors(loaded.legacyVectors);
    }
    this.report = loaded.report;
    this.snapshot = snapshot;
    const kept = loaded.keptAtoms;
    if (kept && 'refused' in kept) this.log.debug(`store: ${this.keptFile} not used: ${kept.refused}`);
    this.keptFor = kept && 'used' in kept ? snapshot : undefined;
    this.outside.stamp();
    logOpenReport(this.log, loaded.report, this.dbFile);
    const from = kept && 'used' in kept ? `; kept in ${this.keptFile} at entry ${kept.used.seq}` : '';
    this.log.info(`store: ${this.model.size} atoms from ${this.dbFile} (${loaded.replayed} journal entries replayed${from})`);
  }

  /** The kept atoms' file, its header read (the rest is read only if it is this database's), or undefined. */
  private readKeptAtoms(dbBytes: number): KeptAtomsFile | undefined {
    // Never larger than the database it was made from (which holds every atom, its edges and its history too) and then some.
    const maxBytes = Math.max(16 * 1024 * 1024, dbBytes * 2);
    let head: Buffer;
    try {
      head = readPlainFileHeadSync(this.keptFile, HEAD_BYTES, maxBytes);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.log.info(`store: ${this.keptFile} was not read (${code ?? (err as Error).message}); reading every atom from the database`);
      return undefined;
    }
    const file = readKeptAtoms(head, () => readPlainFileSync(this.keptFile, maxBytes), keptSeal);
    if (typeof file === 'string') {
      this.log.info(`store: ${this.keptFile} not used: ${file}`);
      return undefined;
    }
    return file;
  }

  /**
   * At close: the model's atoms as the kept atoms (keptAtoms.ts) for the snapshot on disk, unless
   * that snapshot's are there already. Only at close: written during a session (10 s after each
   * compaction), they put ~35 MB of buffers on the path of an agent's writes at 10,000 atoms. Not
   * written when the database has rows the model does not (refused at open): the file must hold
   * every row. Derived data: replaced atomically, not fsynced; a failure is logged and changes nothing.
   */
  private async keepAtoms(): Promise<void> {
    const snapshot = this.snapshot;
    if (snapshot === undefined || this.keptFor === snapshot || this.readOnlyReason) return;
    const atoms = this.model.all();
    if (atoms.length !== countAtomRows(this.db)) return;
    try {
      const bytes = await encodeKeptAtoms(atoms, { snapshot, seq: this.seq }, keptSeal, nextTurn);
      if (bytes) await writeFileAtomic(this.keptFile, bytes, 0o644, { durable: false });
      this.keptFor = snapshot;
    } catch (err) {
      this.log.warn(`store: could not keep the atoms for the next open in ${this.keptFile}: ${(err as Error).message}`);
    }
  }

  /** Schema 2's vectors into vectors.bin, once (vectors/legacy.ts), then the snapshot without them. */
  private async takeLegacyVectors(vectors: LegacyVector[]): Promise<void> {
    const moved = await moveLegacyVectors({ db: this.db, vectorFile: this.vectorFile, embeddings: this.embeddings }, vectors);
    await this.compactNow();
    this.log.info(`store: moved ${moved} vectors from ${this.dbFile} into ${this.vectorFile.file}`);
  }

  /**
   * The atoms in dependency order (bundler.ts's layout), as the open's check sorted them, once:
   * whoever takes it right after the open (the workspace, for the boot atom and the bundle's
   * layout) need not sort 50,000 atoms again. Undefined after that, or after a reload.
   */
  takeOpenOrder(): string[] | undefined {
    const order = this.openOrder;
    this.openOrder = undefined;
    return order;
  }

  /** What the last open (or reload from disk) refused; empty lists for a database this program wrote. */
  get openReport(): OpenReport {
    return this.report;
  }

  // ---- changes made by others (a git checkout, a restored backup) ------------------------------

  /** True when the database files are not as this process left them. */
  changedOnDisk(): boolean {
    return this.outside.changed();
  }

  /** Loads the database again from disk and tells listeners everything may have changed. */
  private async reloadFromDisk(): Promise<void> {
    this.log.info(`store: ${this.dbFile} was changed by another program; reloading it`);
    await this.loadDatabase();
    this.changes.fire({ kind: 'reload' });
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Every atom, sorted by name. */
  all(): readonly Atom[] {
    return this.model.all();
  }

  get(name: string): Atom | undefined {
    return this.model.get(name);
  }

  has(name: string): boolean {
    return this.model.has(name);
  }

  get size(): number {
    return this.model.size;
  }

  get edges(): number {
    return this.model.edges;
  }

  /** Number of atoms of each type, from counters (no walk over the atoms). */
  countByType(): Record<AtomType, number> {
    return this.model.countByType();
  }

  /** Number of atoms with a stored embedding vector. */
  get embeddingCount(): number {
    return this.embeddings.size;
  }

  dependencyMap(): DependencyMap {
    return this.model.dependencyMap();
  }

  /** Atoms that list `name` as a dependency, sorted. */
  dependents(name: string): string[] {
    return this.model.dependents(name);
  }

  /** The atoms whose code may name one of `names` (a few more than do: read their code), sorted by name. */
  mayName(names: readonly string[]): readonly Atom[] {
    return this.model.mayName(names);
  }

  lastBuild(): BuildRecord | undefined {
    return this.builds.last;
  }

  /** Every stored version of an atom, newest first (deleted atoms keep theirs). */
  history(name: string): AtomVersion[] {
    return readHistory(this.db, name);
  }

  /** Names of atoms that were deleted and not re-created, with their last version, newest first. */
  deletedAtoms(): { name: string; version: number; deleted_at: string }[] {
    const out: { name: string; version: number; deleted_at: string }[] = [];
    for (const t of readTombstones(this.db)) {
      // A name of someone else's database is shown only if it is one an upsert would take.
      if (typeof t.name !== 'string' || t.name.length > MAX_NAME_LENGTH || !NAME_PATTERN.test(t.name) || this.model.has(t.name)) continue;
      out.push({ name: t.name, version: t.version, deleted_at: t.deleted_at });
    }
    return out;
  }

  getEmbedding(name: string): StoredEmbedding | undefined {
    return this.embeddings.get(name);
  }

  /** A slice of the stored vectors, in name order (StoredEmbeddings.page), each as `keep` makes it. */
  embeddingsPage(after: string, limit: number): { embeddings: StoredEmbedding[]; next: string | undefined };
  embeddingsPage<V>(after: string, limit: number, keep: (vector: Vector) => V): { embeddings: StoredAs<V>[]; next: string | undefined };
  embeddingsPage<V>(after: string, limit: number, keep?: (vector: Vector) => V): { embeddings: StoredAs<V | Vector>[]; next: string | undefined } {
    return keep ? this.embeddings.page(after, limit, keep) : this.embeddings.page(after, limit);
  }

  /** What `.atomic/` held at open that was not trusted (a link, a device...), and what was done with each. */
  get distrusted(): readonly string[] {
    return this.distrustedState;
  }

  /** Why writes are refused, when the workspace could only be opened for reading. */
  get readOnly(): string | undefined {
    return this.readOnlyReason;
  }

  /** Bytes on disk of the snapshot and the journal. */
  diskSize(): { database: number; journal: number } {
    const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
    return { database: size(this.dbFile), journal: this.journal.size };
  }

  // ---- writes -----------------------------------------------------------------------------

  /**
   * The one write of atoms: one all-or-nothing change planned in the write turn. `plan` reads the
   * atoms as they are now and returns the drafts to save and the atoms to delete (the workspace's
   * and the text tree's requests are planned by atoms/writePlan.ts's `planWrite`); `planChange`
   * validates them against the graph as it will be after the whole change, and one journal entry
   * (fsynced before this resolves) commits it all; anything refused writes nothing. `settle` runs
   * in the same turn once the change is applied and announced, to read the atoms as it left them.
   */
  change<P extends ChangePlan, T>(plan: (atoms: AtomReader) => P, settle: (plan: P, outcome: ChangeOutcome) => T): Promise<T> {
    return this.exclusive(async () => {
      const p = plan(this);
      const now = timestamp();
      const outcome = planChange(p, this.model, { lastVersion: (name) => lastVersion(this.db, name), now });
      const written = outcome.upserts.filter(changed);
      const ops: JournalOp[] = [
        ...written.map((r): JournalOp => ({ op: 'put', atom: r.atom })),
        ...outcome.deleted.map((a): JournalOp => ({ op: 'del', name: a.name, version: a.version + 1, at: now })),
      ];
      if (ops.length > 0) await this.commit(ops);
      for (const r of written) this.changes.fire({ kind: 'upsert', atom: r.atom, previous: r.previous });
      for (const atom of outcome.deleted) this.changes.fire({ kind: 'delete', atom });
      return settle(p, outcome);
    });
  }

  /**
   * Records a build. Durable like every write, though losing one would lose no user work. `shift`:
   * how its order differs from one the builder handed out before (BuildRecords.opFor).
   */
  recordBuild(build: BuildRecord, shift?: KnownOrderChange): Promise<BuildRecord> {
    return this.exclusive(async () => {
      // Not fsynced on its own (the next change's fsync carries it): a build record lost to a
      // crash loses no work, and an fsync per build doubled the cost of every small change.
      await this.commit([this.builds.opFor(build, shift)], { sync: false });
      return this.builds.last!;
    });
  }

  /**
   * Stores embedding vectors; rows of atoms that no longer exist are ignored. The vectors go to
   * free slots of vectors.bin, flushed, before the journal entry that names their slots.
   */
  putEmbeddings(rows: StoredEmbedding[]): Promise<void> {
    return this.exclusive(async () => {
      const live = rows.filter((r) => this.model.has(r.name));
      if (live.length === 0) return;
      if (this.readOnlyReason) throw readOnlyError(this.readOnlyReason);
      let written: { slots: number[]; afresh: boolean };
      try {
        written = await this.vectorFile.write(live);
      } catch (err) {
        throw storageError(this.vectorFile.file, err);
      }
      if (written.afresh) this.embeddings.forgetSlots();
      const slotted = live.map((r, i) => ({ name: r.name, model: r.model, textHash: r.textHash, slot: written.slots[i]! }));
      try {
        await this.commit([{ op: 'emb', rows: slotted }]);
      } catch (err) {
        for (const slot of written.slots) this.vectorFile.release(slot);
        throw err;
      }
    });
  }

  /** Writes the whole database as the snapshot and empties the journal. */
  compact(): Promise<void> {
    return this.exclusive(() => this.compactNow());
  }

  /** Resolves once the compaction a write scheduled, if any, has run. */
  settled(): Promise<void> {
    return this.compaction.settled();
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.outside.close();
    await this.exclusive(async () => {
      if (!this.readOnlyReason && (!existsSync(this.dbFile) || this.compaction.worthAtClose(statSync(this.dbFile).size))) await this.compactNow();
      await this.keepAtoms();
      await this.journal.close();
      this.db.close();
      this.vectorFile.close();
      this.isClosed = true;
    });
    this.lock.release();
    this.changes.dispose();
  }

  dispose(): void {
    void this.close();
  }

  // ---- internals --------------------------------------------------------------------------

  /** Runs write operations one at a time, in call order. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.isClosed) throw new AtomError('storage', 'the workspace store is closed');
      // Never write over a database someone else changed: take their version first.
      if (this.changedOnDisk()) await this.reloadFromDisk();
      return work();
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Journal first (durable), then the database and the model. */
  private async commit(ops: JournalOp[], { sync = true }: { sync?: boolean } = {}): Promise<void> {
    if (this.readOnlyReason) throw readOnlyError(this.readOnlyReason);
    const entry: JournalEntry = { seq: this.seq + 1, ops };
    try {
      await this.journal.append(entry, { sync });
    } catch (err) {
      throw storageError(this.journalFile, err);
    } finally {
      this.outside.stamp();
    }
    this.seq = entry.seq;
    applyEntry(this.db, entry, this.builds);
    this.applyToModel(ops);
    this.compaction.committed();
  }

  private applyToModel(ops: JournalOp[]): void {
    this.model.apply(ops);
    for (const op of ops) {
      if (op.op === 'del') this.embeddings.forget(op.name);
      else if (op.op === 'emb') this.embeddings.apply(slotRows(op.rows));
    }
  }

  /** In the write turn: the snapshot now (see compaction.ts). */
  private async compactNow(): Promise<void> {
    if (this.readOnlyReason) throw readOnlyError(this.readOnlyReason);
    this.builds.writeHeldOrder(this.db);
    this.snapshot = await writeSnapshot(this.db, this.seq, this.dbFile, this.journal);
    this.compaction.snapshotted();
    this.outside.stamp();
  }
}

/** The kept atoms' seal: this machine's secret (checkSeal.ts). */
const keptSeal = (parts: readonly Uint8Array[]) => machineMac('kept atoms', parts);

/** ISO time to the millisecond; versions of one atom may be seconds apart. */
function timestamp(): string {
  return new Date().toISOString();
}
