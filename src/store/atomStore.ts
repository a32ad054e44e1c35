/**
 * The workspace store: atoms, dependency edges, every version, builds and embeddings, in a
 * sql.js database at `.atomic/atoms.db` with a write-ahead journal beside it.
 *
 * Reads come from an in-memory model (a map of atoms) kept equal to the database. Writes are
 * serialised, validated against the current graph, appended to the journal and fsynced, then
 * applied; only then do they resolve, and the store announces them with `onDidChange`.
 *
 * The database may be someone else's: a cloned repository brings its `.atomic/`. At open, what
 * is not the schema (triggers, views, tables of its own) is removed, and every atom, in the
 * snapshot or replayed from the journal, is checked as an upsert checks a draft. An atom that
 * fails is refused: not loaded, so no tool, view or bundle sees it, and listed in `openReport`.
 * Its row stays in atoms.db as it was (a stricter check in a later version must never destroy
 * someone's work); an upsert under its name replaces it.
 */
import { existsSync, mkdirSync, readFileSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Database, SqlValue } from 'sql.js';
import { errors, AtomError } from '../atoms/errors.js';
import { checkDependencies, dependentsMap, topologicalOrder, type DependencyMap } from '../atoms/graph.js';
import {
  ATOM_TYPES,
  MAX_NAME_LENGTH,
  NAME_PATTERN,
  type Atom,
  type AtomDraft,
  type AtomType,
  type AtomVersion,
  type Port,
} from '../atoms/model.js';
import { validateDraft, type NormalizedDraft } from '../atoms/validate.js';
import { Emitter, type Disposable } from '../util/event.js';
import { silentLogger, type Logger } from '../util/log.js';
import { writeFileAtomic } from '../util/atomicFile.js';
import { Journal, readJournal, type BuildRecord, type JournalEntry, type JournalOp } from './journal.js';
import { WorkspaceLock } from './lock.js';
import { prepareSchema, type RemovedObject } from './schema.js';
import { loadSqlJs } from './sqlite.js';

export type { BuildRecord } from './journal.js';
export type { RemovedObject } from './schema.js';

/** An atom found at open that fails the checks an upsert makes: not loaded. */
export interface RefusedAtom {
  /** As found (cut to 200 characters): it may hold anything, so escape it before showing it. */
  name: string;
  reason: string;
  /** The snapshot's row (kept as it is), or a journal entry (dropped at the next compaction). */
  source: 'database' | 'journal';
}

/** What the last open (or reload from disk) refused to load. */
export interface OpenReport {
  refused: RefusedAtom[];
  /** Triggers, views, tables and indexes that are not the schema, removed before any write. */
  removed: RemovedObject[];
}

export type StoreChange =
  | { kind: 'upsert'; atom: Atom; previous?: Atom }
  | { kind: 'delete'; atom: Atom }
  | { kind: 'reload' };

export interface StoredEmbedding {
  name: string;
  model: string;
  textHash: string;
  vector: Float32Array;
}

export interface UpsertResult {
  atom: Atom;
  previous?: Atom;
  created: boolean;
}

export interface StoreOptions {
  log?: Logger;
  /** Compact the journal into the snapshot after this many entries (default 1000). */
  compactAfterEntries?: number;
  /** ...or once the journal holds this many bytes (default 16 MiB). */
  compactAfterBytes?: number;
  /** Skip the workspace lock (tests of two stores on one folder only). */
  noLock?: boolean;
}

const GITIGNORE = `# Written by Atomic Coding. The database (atoms.db + atoms.journal) is the source of truth:
# commit it. The rest is per machine or rebuilt from it.
server.json
lock
*.tmp
vectors/
latest.js
`;

const MAX_KEPT_BUILDS = 100;

export class AtomStore implements Disposable {
  readonly atomicDir: string;
  readonly dbFile: string;
  readonly journalFile: string;

  private readonly atoms = new Map<string, Atom>();
  private readonly embeddings = new Map<string, StoredEmbedding>();
  private readonly changes = new Emitter<StoreChange>();
  private readonly journal: Journal;
  private readonly lock: WorkspaceLock;
  private db!: Database;
  private seq = 0;
  private entriesSinceSnapshot = 0;
  private scheduledCompaction: Promise<void> | undefined;
  /** The same map until an atom changes, so callers can cache what they derive from it. */
  private dependencyMapCache: DependencyMap | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private lastBuildRecord: BuildRecord | undefined;
  private edgeCount = 0;
  /** Atoms per type, kept like edgeCount so status never walks every atom. */
  private readonly typeCount = new Map<AtomType, number>();
  private readOnlyReason: string | undefined;
  private ownStamp = '';
  private watcher: FSWatcher | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private report: OpenReport = { refused: [], removed: [] };

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
    this.journal = new Journal(this.journalFile);
    this.lock = new WorkspaceLock(join(this.atomicDir, 'lock'));
  }

  /** Opens (creating on first use) the store of the workspace folder `dir`. */
  static async open(dir: string, options: StoreOptions = {}): Promise<AtomStore> {
    const store = new AtomStore(resolve(dir), options.log ?? silentLogger, options);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    try {
      mkdirSync(this.atomicDir, { recursive: true });
      const ignore = join(this.atomicDir, '.gitignore');
      if (!existsSync(ignore)) writeFileSync(ignore, GITIGNORE);
      if (!this.options.noLock) this.lock.acquire();
    } catch (err) {
      if (!isReadOnlyError(err)) throw err;
      // Keep serving reads: a read-only checkout is still worth browsing.
      this.readOnlyReason = `${this.atomicDir} is not writable (${(err as NodeJS.ErrnoException).code})`;
      this.log.warn(`store: opened read-only: ${this.readOnlyReason}`);
    }
    try {
      await this.loadDatabase();
    } catch (err) {
      this.lock.release();
      throw err;
    }
    this.watchForExternalChanges();
  }

  /**
   * Reads the snapshot and replays the journal after it. On a reload, the current database
   * stays in place until the new one has loaded, so a broken file on disk changes nothing.
   */
  private async loadDatabase(): Promise<void> {
    const SQL = await loadSqlJs();
    const bytes = existsSync(this.dbFile) ? readFileSync(this.dbFile) : undefined;
    const previous = this.db as Database | undefined;
    let replayed = 0;
    let journal: { validBytes: number; totalBytes: number };
    let model: Model;
    const report: OpenReport = { refused: [], removed: [] };
    try {
      this.db = new SQL.Database(bytes);
      report.removed = prepareSchema(this.db, this.dbFile).removed;
      const snapshotSeq = Number(this.metaValue('journal_seq') ?? '0');
      this.seq = snapshotSeq;
      const { entries, validBytes, totalBytes } = readJournal(this.journalFile);
      journal = { validBytes, totalBytes };
      if (totalBytes > validBytes) {
        this.log.warn(`journal: dropped ${totalBytes - validBytes} bytes of a write torn by a crash (it was never acknowledged)`);
      }
      for (const entry of entries) {
        if (entry.seq <= snapshotSeq) continue;
        this.applyToDatabase(checkedEntry(entry, report.refused));
        this.seq = entry.seq;
        replayed++;
      }
      model = await this.readModel(report.refused);
    } catch (err) {
      if (this.db !== previous) this.db?.close();
      if (previous) this.db = previous;
      if (err instanceof AtomError) throw err;
      throw new AtomError(
        'storage',
        `${this.dbFile} is not a readable Atomic Coding database (${(err as Error).message}). ` +
          'Restore it from version control or a backup, or move it away to start empty.',
      );
    }
    previous?.close();
    this.entriesSinceSnapshot = replayed;
    if (!this.readOnlyReason) {
      await this.journal.close();
      await this.journal.open(journal.validBytes, journal.totalBytes);
      if (!bytes) await this.compactNow(); // created on first use
    }
    this.useModel(model);
    this.report = report;
    this.stampFiles();
    this.logReport(report);
    this.log.info(`store: ${this.atoms.size} atoms from ${this.dbFile} (${replayed} journal entries replayed)`);
  }

  /** What the last open (or reload from disk) refused; empty lists for a database this program wrote. */
  get openReport(): OpenReport {
    return this.report;
  }

  private logReport(report: OpenReport): void {
    for (const o of report.removed) {
      this.log.warn(`store: removed ${o.type} ${JSON.stringify(o.name)} from the loaded copy of ${this.dbFile}: it is not part of the Atomic Coding schema`);
    }
    const shown = report.refused.slice(0, 20);
    for (const r of shown) {
      this.log.warn(`store: refused atom ${JSON.stringify(r.name)} (${r.source === 'journal' ? 'journal entry' : 'atoms.db row'}): ${r.reason}`);
    }
    if (report.refused.length > shown.length) {
      this.log.warn(`store: ... and ${report.refused.length - shown.length} more atoms refused (get_status lists them)`);
    }
  }

  // ---- changes made by others (a git checkout, a restored backup) ------------------------------

  /** Remembers the files as this process last wrote them. */
  private stampFiles(): void {
    this.ownStamp = `${stamp(this.dbFile)}|${stamp(this.journalFile)}`;
  }

  /** True when the database files are not as this process left them. */
  changedOnDisk(): boolean {
    return `${stamp(this.dbFile)}|${stamp(this.journalFile)}` !== this.ownStamp;
  }

  private watchForExternalChanges(): void {
    try {
      this.watcher = watch(this.atomicDir, (_event, file) => {
        if (file !== 'atoms.db' && file !== 'atoms.journal') return;
        clearTimeout(this.watchTimer);
        this.watchTimer = setTimeout(() => {
          this.exclusive(async () => {}).catch((err) => this.log.warn(`store: ${(err as Error).message}`));
        }, 150);
      });
      this.watcher.on('error', () => {});
      this.watcher.unref();
    } catch {
      // No watching on this file system: writes still check before they commit.
    }
  }

  /** Loads the database again from disk and tells listeners everything may have changed. */
  private async reloadFromDisk(): Promise<void> {
    this.log.info(`store: ${this.dbFile} was changed by another program; reloading it`);
    await this.loadDatabase();
    this.changes.fire({ kind: 'reload' });
  }

  /**
   * Reads the model from the database, checking every atom as an upsert would (the draft on its
   * own, then its dependencies: present, loaded, no cycle). Refused atoms go to `refused`. Changes
   * nothing: `useModel` installs the result once the whole load has succeeded.
   *
   * Parsing every atom's code is most of the cost of an open (about 1 s for 10,000 atoms, 9.5 MB
   * of code, against 0.3 s for the rest), so it gives the event loop a turn every few hundred
   * atoms: the extension host stays responsive while a large workspace opens.
   */
  private async readModel(refused: RefusedAtom[]): Promise<Model> {
    const deps = new Map<unknown, unknown[]>();
    for (const [atomName, dependsOn] of this.rows('SELECT atom_name, depends_on FROM atom_dependencies ORDER BY depends_on')) {
      const list = deps.get(atomName);
      if (list) list.push(dependsOn);
      else deps.set(atomName, [dependsOn]);
    }
    const duplicated = new Set(this.rows('SELECT name FROM atoms GROUP BY name HAVING COUNT(*) > 1').map((r) => r[0]));
    const atoms = new Map<string, Atom>();
    let checked = 0;
    for (const r of this.rows(
      'SELECT name, type, code, description, inputs, outputs, version, created_at, updated_at FROM atoms ORDER BY name',
    )) {
      if (++checked % 250 === 0) await new Promise((resolve) => setImmediate(resolve));
      try {
        if (duplicated.has(r[0])) throw errors.invalid('atoms.db holds more than one row with this name');
        const atom = checkStoredAtom({
          name: r[0],
          type: r[1],
          code: r[2],
          description: r[3],
          inputs: parseJsonColumn(r[4], 'inputs'),
          outputs: parseJsonColumn(r[5], 'outputs'),
          dependencies: deps.get(r[0]) ?? [],
          version: r[6],
          created_at: r[7],
          updated_at: r[8],
        });
        atoms.set(atom.name, atom);
      } catch (err) {
        refused.push(refusal(r[0], err, 'database'));
      }
    }
    refuseBrokenGraph(atoms, refused);

    const embeddings = new Map<string, StoredEmbedding>();
    for (const r of this.rows('SELECT name, model, text_hash, vector FROM embeddings')) {
      const [name, model, textHash, blob] = r;
      // Vectors of atoms not loaded, or not shaped like ours, are left where they are.
      if (typeof name !== 'string' || !atoms.has(name) || typeof model !== 'string' || typeof textHash !== 'string') continue;
      if (!(blob instanceof Uint8Array) || blob.byteLength % 4 !== 0) continue;
      const vector = new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
      embeddings.set(name, { name, model, textHash, vector });
    }
    const build = this.rows(
      'SELECT id, status, bundle_path, atom_count, build_log, error_message, duration_ms, created_at FROM builds ORDER BY id DESC LIMIT 1',
    )[0];
    // Sorted here, not by the database: a table of someone else's may declare another collation.
    const sorted = [...atoms.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { atoms: sorted, embeddings, lastBuild: build ? rowToBuild(build) : undefined };
  }

  /** Installs a model read by `readModel`. */
  private useModel(model: Model): void {
    this.dependencyMapCache = undefined;
    this.atoms.clear();
    this.embeddings.clear();
    this.typeCount.clear();
    this.edgeCount = 0;
    for (const atom of model.atoms) {
      this.atoms.set(atom.name, atom);
      this.countType(atom.type, 1);
      this.edgeCount += atom.dependencies.length;
    }
    for (const [name, e] of model.embeddings) this.embeddings.set(name, e);
    this.lastBuildRecord = model.lastBuild;
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Every atom, sorted by name. */
  all(): Atom[] {
    return [...this.atoms.values()];
  }

  get(name: string): Atom | undefined {
    return this.atoms.get(name);
  }

  has(name: string): boolean {
    return this.atoms.has(name);
  }

  get size(): number {
    return this.atoms.size;
  }

  get edges(): number {
    return this.edgeCount;
  }

  /** Number of atoms of each type, from counters (no walk over the atoms). */
  countByType(): Record<AtomType, number> {
    return Object.fromEntries(ATOM_TYPES.map((t) => [t, this.typeCount.get(t) ?? 0])) as Record<AtomType, number>;
  }

  /** Number of atoms with a stored embedding vector. */
  get embeddingCount(): number {
    return this.embeddings.size;
  }

  dependencyMap(): DependencyMap {
    if (!this.dependencyMapCache) {
      const map = new Map<string, readonly string[]>();
      for (const atom of this.atoms.values()) map.set(atom.name, atom.dependencies);
      this.dependencyMapCache = map;
    }
    return this.dependencyMapCache;
  }

  /** Atoms that list `name` as a dependency, sorted. */
  dependents(name: string): string[] {
    const out: string[] = [];
    for (const atom of this.atoms.values()) if (atom.dependencies.includes(name)) out.push(atom.name);
    return out.sort();
  }

  lastBuild(): BuildRecord | undefined {
    return this.lastBuildRecord;
  }

  /** Every stored version of an atom, newest first (deleted atoms keep theirs). */
  history(name: string): AtomVersion[] {
    return this.rows(
      `SELECT name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted
       FROM atom_versions WHERE name = ? ORDER BY version DESC`,
      [name],
    ).map(rowToVersion);
  }

  /** Names of atoms that were deleted and not re-created, with their last version, newest first. */
  deletedAtoms(): { name: string; version: number; deleted_at: string }[] {
    return this.rows(
      `SELECT v.name, v.version, v.updated_at FROM atom_versions v
       WHERE v.deleted = 1 AND v.version = (SELECT MAX(version) FROM atom_versions WHERE name = v.name)
       ORDER BY v.updated_at DESC`,
    )
      // A name of someone else's database is shown only if it is one an upsert would take.
      .filter((r) => typeof r[0] === 'string' && r[0].length <= MAX_NAME_LENGTH && NAME_PATTERN.test(r[0]) && !this.atoms.has(r[0]))
      .map((r) => ({ name: r[0] as string, version: r[1] as number, deleted_at: r[2] as string }));
  }

  getEmbedding(name: string): StoredEmbedding | undefined {
    return this.embeddings.get(name);
  }

  allEmbeddings(): StoredEmbedding[] {
    return [...this.embeddings.values()];
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

  /** Creates or updates an atom. Refused input throws an AtomError and changes nothing. */
  upsert(draft: AtomDraft): Promise<UpsertResult> {
    return this.exclusive(async () => {
      const [result] = await this.upsertAll([draft]);
      return result!;
    });
  }

  /**
   * Creates or updates several atoms at once, all or nothing: each is validated against the
   * graph as it will be after the whole batch, and one journal entry commits them together.
   */
  upsertMany(drafts: AtomDraft[]): Promise<UpsertResult[]> {
    return this.exclusive(() => this.upsertAll(drafts));
  }

  private async upsertAll(drafts: AtomDraft[]): Promise<UpsertResult[]> {
    const normalized: NormalizedDraft[] = [];
    const seen = new Set<string>();
    for (const [i, draft] of drafts.entries()) {
      let d: NormalizedDraft;
      try {
        d = validateDraft(draft);
      } catch (err) {
        if (drafts.length > 1 && err instanceof AtomError) {
          throw new AtomError(err.code, `atoms[${i}] (${JSON.stringify(draft?.name)}): ${err.message}`);
        }
        throw err;
      }
      if (seen.has(d.name)) throw errors.invalid(`the batch lists "${d.name}" twice; give each atom once`);
      seen.add(d.name);
      normalized.push(d);
    }
    // The graph as it will be after the batch.
    const graph = new Map(this.dependencyMap());
    for (const d of normalized) graph.set(d.name, d.dependencies);
    for (const d of normalized) {
      graph.delete(d.name);
      try {
        checkDependencies(graph, d.name, d.dependencies);
      } catch (err) {
        if (normalized.length > 1 && err instanceof AtomError) {
          throw new AtomError(err.code, `${d.name}: ${err.message}`);
        }
        throw err;
      }
      graph.set(d.name, d.dependencies);
    }
    const now = timestamp();
    const results: UpsertResult[] = normalized.map((d) => {
      const previous = this.atoms.get(d.name);
      // Saving an atom unchanged is not an update: no new version, so upserts are idempotent.
      if (previous && sameContent(previous, d)) return { atom: previous, previous, created: false };
      const version = previous ? previous.version + 1 : this.lastVersion(d.name) + 1;
      const atom: Atom = { ...d, version, created_at: previous?.created_at ?? now, updated_at: now };
      return { atom, previous, created: !previous };
    });
    const changed = results.filter((r) => r.atom !== r.previous);
    if (changed.length > 0) await this.commit(changed.map((r) => ({ op: 'put', atom: r.atom })));
    for (const r of changed) this.changes.fire({ kind: 'upsert', atom: r.atom, previous: r.previous });
    return results;
  }

  /** Deletes an atom nothing depends on. */
  delete(name: string): Promise<Atom> {
    return this.exclusive(async () => {
      const atom = this.atoms.get(name);
      if (!atom) throw errors.notFound(name);
      const users = this.dependents(name);
      if (users.length > 0) throw errors.inUse(name, users);
      await this.commit([{ op: 'del', name, version: atom.version + 1, at: timestamp() }]);
      this.changes.fire({ kind: 'delete', atom });
      return atom;
    });
  }

  /** Records a build. Durable like every write, though losing one would lose no user work. */
  recordBuild(build: BuildRecord): Promise<BuildRecord> {
    return this.exclusive(async () => {
      // Not fsynced on its own (the next change's fsync carries it): a build record lost to a
      // crash loses no work, and an fsync per build doubled the cost of every small change.
      const previous = this.lastBuildRecord?.order;
      const sameOrder = previous !== undefined && previous.length === build.order.length && previous.every((n, i) => n === build.order[i]);
      const op: JournalOp = sameOrder ? { op: 'build', build: { ...build, order: [] }, sameOrder: true } : { op: 'build', build };
      await this.commit([op], { sync: false });
      return this.lastBuildRecord!;
    });
  }

  /** Stores embedding vectors; rows of atoms that no longer exist are ignored. */
  putEmbeddings(rows: StoredEmbedding[]): Promise<void> {
    return this.exclusive(async () => {
      const live = rows.filter((r) => this.atoms.has(r.name));
      if (live.length === 0) return;
      await this.commit([
        {
          op: 'emb',
          rows: live.map((r) => ({
            name: r.name,
            model: r.model,
            textHash: r.textHash,
            vector: Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength).toString('base64'),
          })),
        },
      ]);
    });
  }

  /** Writes the whole database as the snapshot and empties the journal. */
  compact(): Promise<void> {
    return this.exclusive(() => this.compactNow());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.watcher?.close();
    clearTimeout(this.watchTimer);
    await this.exclusive(async () => {
      if (!this.readOnlyReason && (this.entriesSinceSnapshot > 0 || !existsSync(this.dbFile))) await this.compactNow();
      await this.journal.close();
      this.db.close();
      this.closed = true;
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
      if (this.closed) throw new AtomError('storage', 'the workspace store is closed');
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
      this.stampFiles();
    }
    this.seq = entry.seq;
    this.applyToDatabase(entry);
    this.applyToModel(ops);
    this.entriesSinceSnapshot++;
    if (this.compactionDue()) this.scheduleCompaction();
  }

  private compactionDue(): boolean {
    const { compactAfterEntries = 1000, compactAfterBytes = 16 * 1024 * 1024 } = this.options;
    return this.entriesSinceSnapshot >= compactAfterEntries || this.journal.size >= compactAfterBytes;
  }

  /**
   * Compaction exports the whole database (about 110 ms at 10,000 atoms, plus writing and fsyncing
   * the snapshot), so it runs after the write that made it due has been answered, not inside it:
   * the change is already durable in the journal. It still takes its turn in the write queue.
   */
  private scheduleCompaction(): void {
    if (this.scheduledCompaction) return;
    this.scheduledCompaction = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.exclusive(async () => {
        if (this.compactionDue()) await this.compactNow();
      }))
      .catch((err: Error) => {
        // The changes are durable in the journal; compaction is tried again after the next write
        // (and a closed store compacted itself on close).
        if (!this.closed) this.log.warn(`store: compaction failed, will retry: ${err.message}`);
      })
      .finally(() => {
        this.scheduledCompaction = undefined;
      });
  }

  /** Resolves once the compaction a write scheduled, if any, has run. */
  async settled(): Promise<void> {
    await this.scheduledCompaction;
  }

  private async compactNow(): Promise<void> {
    if (this.readOnlyReason) throw readOnlyError(this.readOnlyReason);
    this.db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('journal_seq', ?)", [String(this.seq)]);
    const bytes = this.db.export();
    try {
      await writeFileAtomic(this.dbFile, bytes);
    } catch (err) {
      throw storageError(this.dbFile, err);
    }
    await this.journal.reset();
    this.entriesSinceSnapshot = 0;
    this.stampFiles();
  }

  private applyToDatabase(entry: JournalEntry): void {
    const db = this.db;
    db.run('BEGIN');
    try {
      for (const op of entry.ops) {
        switch (op.op) {
          case 'put': {
            const a = op.atom;
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
            break;
          }
          case 'del': {
            // The tombstone copies the last version, so a deleted atom can be restored.
            db.run(
              `INSERT OR REPLACE INTO atom_versions
                 (name, version, type, code, description, inputs, outputs, dependencies, created_at, updated_at, deleted)
               SELECT name, ?, type, code, description, inputs, outputs, dependencies, created_at, ?, 1
               FROM atom_versions WHERE name = ? AND version = ? - 1`,
              [op.version, op.at, op.name, op.version],
            );
            db.run('DELETE FROM atom_dependencies WHERE atom_name = ?', [op.name]);
            db.run('DELETE FROM embeddings WHERE name = ?', [op.name]);
            db.run('DELETE FROM atoms WHERE name = ?', [op.name]);
            break;
          }
          case 'emb':
            for (const r of op.rows) {
              db.run('INSERT OR REPLACE INTO embeddings (name, model, text_hash, vector) VALUES (?, ?, ?, ?)', [
                r.name,
                r.model,
                r.textHash,
                Buffer.from(r.vector, 'base64'),
              ]);
            }
            break;
          case 'build': {
            const b = op.build;
            // sameOrder: the order is copied inside the database, never through JavaScript.
            db.run(
              `INSERT INTO builds (status, bundle_path, atom_count, build_log, error_message, duration_ms, created_at)
               VALUES (?, ?, ?, ${op.sameOrder ? "COALESCE((SELECT build_log FROM builds ORDER BY id DESC LIMIT 1), '[]')" : '?'}, ?, ?, ?)`,
              op.sameOrder
                ? [b.status, b.bundle_path, b.atom_count, b.error_message, b.duration_ms, b.created_at]
                : [b.status, b.bundle_path, b.atom_count, JSON.stringify(b.order), b.error_message, b.duration_ms, b.created_at],
            );
            db.run('DELETE FROM builds WHERE id <= (SELECT MAX(id) FROM builds) - ?', [MAX_KEPT_BUILDS]);
            break;
          }
        }
      }
      db.run('COMMIT');
    } catch (err) {
      db.run('ROLLBACK');
      throw err;
    }
  }

  private applyToModel(ops: JournalOp[]): void {
    let inserted = false;
    for (const op of ops) {
      if (op.op === 'put' || op.op === 'del') this.dependencyMapCache = undefined;
      switch (op.op) {
        case 'put': {
          const previous = this.atoms.get(op.atom.name);
          this.edgeCount += op.atom.dependencies.length - (previous?.dependencies.length ?? 0);
          if (previous) this.countType(previous.type, -1);
          this.countType(op.atom.type, 1);
          inserted ||= !previous;
          this.atoms.set(op.atom.name, op.atom);
          break;
        }
        case 'del': {
          const gone = this.atoms.get(op.name);
          this.edgeCount -= gone?.dependencies.length ?? 0;
          if (gone) this.countType(gone.type, -1);
          this.atoms.delete(op.name);
          this.embeddings.delete(op.name);
          break;
        }
        case 'emb':
          for (const r of op.rows) {
            const buf = Buffer.from(r.vector, 'base64');
            const vector = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
            this.embeddings.set(r.name, { name: r.name, model: r.model, textHash: r.textHash, vector });
          }
          break;
        case 'build': {
          const id = this.rows('SELECT MAX(id) FROM builds')[0]?.[0] as number | undefined;
          const order = op.sameOrder ? (this.lastBuildRecord?.order ?? []) : op.build.order;
          this.lastBuildRecord = { ...op.build, order, id };
          break;
        }
      }
    }
    // Keep the map sorted by name, so all() needs no sort (an update keeps its place in a Map).
    if (inserted) {
      const sorted = [...this.atoms.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this.atoms.clear();
      for (const [k, v] of sorted) this.atoms.set(k, v);
    }
  }

  private countType(type: AtomType, delta: number): void {
    this.typeCount.set(type, (this.typeCount.get(type) ?? 0) + delta);
  }

  private lastVersion(name: string): number {
    return (this.rows('SELECT MAX(version) FROM atom_versions WHERE name = ?', [name])[0]?.[0] as number | null) ?? 0;
  }

  private metaValue(key: string): string | undefined {
    return this.rows('SELECT value FROM meta WHERE key = ?', [key])[0]?.[0] as string | undefined;
  }

  private rows(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.db.prepare(sql, params);
    try {
      const out: SqlValue[][] = [];
      while (stmt.step()) out.push(stmt.get());
      return out;
    } finally {
      stmt.free();
    }
  }
}

interface Model {
  /** Sorted by name. */
  atoms: Atom[];
  embeddings: Map<string, StoredEmbedding>;
  lastBuild: BuildRecord | undefined;
}

/**
 * An atom as stored (a row of atoms.db, or a journal entry's), checked as an upsert checks a
 * draft, plus the fields the store adds. Throws the AtomError that says what is wrong.
 */
function checkStoredAtom(raw: unknown): Atom {
  if (typeof raw !== 'object' || raw === null) throw errors.invalid('the entry holds no atom');
  const a = raw as Record<string, unknown>;
  const d = validateDraft({
    name: a.name,
    type: a.type,
    code: a.code,
    description: a.description ?? undefined,
    inputs: a.inputs,
    outputs: a.outputs,
    dependencies: a.dependencies,
  } as AtomDraft);
  const version = a.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    throw errors.invalid(`version ${JSON.stringify(version)} is not a whole number from 1 up`);
  }
  const [created_at, updated_at] = [a.created_at, a.updated_at].map((t, i) => {
    if (typeof t !== 'string' || !TIMESTAMP.test(t)) {
      throw errors.invalid(`${i === 0 ? 'created_at' : 'updated_at'} is not a timestamp such as "2026-02-08T12:00:00.000Z"`);
    }
    return t;
  }) as [string, string];
  return { ...d, version, created_at, updated_at };
}

/** ISO 8601 as written here, or SQL's `2026-02-08 12:00:00`: digits and separators, one line. */
const TIMESTAMP = /^\d[\dT:.+\- Z]{0,39}$/;

function parseJsonColumn(value: unknown, column: string): unknown {
  if (typeof value !== 'string') throw errors.invalid(`${column} is not JSON text`);
  try {
    return JSON.parse(value);
  } catch {
    throw errors.invalid(`${column} is not valid JSON`);
  }
}

/** A journal entry with the atoms it writes checked: a refused atom's write is left out. */
function checkedEntry(entry: JournalEntry, refused: RefusedAtom[]): JournalEntry {
  const ops: JournalOp[] = [];
  for (const op of entry.ops) {
    if (op?.op !== 'put') {
      ops.push(op);
      continue;
    }
    try {
      ops.push({ op: 'put', atom: checkStoredAtom(op.atom) });
    } catch (err) {
      refused.push(refusal((op.atom as unknown as Record<string, unknown> | undefined)?.name, err, 'journal'));
    }
  }
  return { seq: entry.seq, ops };
}

/**
 * Refuses, in `atoms`, each atom that depends on one missing or refused (and so on, to the atoms
 * that depend on those), then every atom left on a cycle or behind one: the graph an upsert
 * keeps, so the bundle can order it.
 */
function refuseBrokenGraph(atoms: Map<string, Atom>, refused: RefusedAtom[]): void {
  const users = dependentsMap(new Map([...atoms.values()].map((a) => [a.name, a.dependencies])));
  const queue: [string, string][] = [];
  for (const atom of atoms.values()) {
    const missing = atom.dependencies.filter((d) => !atoms.has(d));
    if (missing.length > 0) queue.push([atom.name, `depends on ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not loaded`]);
  }
  while (queue.length > 0) {
    const [name, reason] = queue.pop()!;
    if (!atoms.delete(name)) continue;
    refused.push({ name, reason, source: 'database' });
    for (const user of users.get(name) ?? []) if (atoms.has(user)) queue.push([user, `depends on ${name}, which is not loaded`]);
  }
  const { cyclic } = topologicalOrder(new Map([...atoms.values()].map((a) => [a.name, a.dependencies])));
  for (const name of cyclic) {
    atoms.delete(name);
    refused.push({ name, reason: 'is on a dependency cycle, or depends on an atom on one', source: 'database' });
  }
}

function refusal(name: unknown, err: unknown, source: RefusedAtom['source']): RefusedAtom {
  const text = typeof name === 'string' ? name : String(name);
  const reason = err instanceof Error ? err.message : String(err);
  return {
    name: text.length > 200 ? `${text.slice(0, 200)}…` : text,
    reason: reason.replace(/[\r\n\u2028\u2029]+/g, ' '),
    source,
  };
}

function sameContent(a: Atom, d: NormalizedDraft): boolean {
  return (
    a.type === d.type &&
    a.code === d.code &&
    a.description === d.description &&
    JSON.stringify(a.inputs) === JSON.stringify(d.inputs) &&
    JSON.stringify(a.outputs) === JSON.stringify(d.outputs) &&
    a.dependencies.join() === d.dependencies.join()
  );
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

/** ISO time to the millisecond; versions of one atom may be seconds apart. */
function timestamp(): string {
  return new Date().toISOString();
}

/** Identity and size of a file, to tell our own writes from someone else's. */
function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'none';
  }
}

function isReadOnlyError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}

function readOnlyError(reason: string): AtomError {
  return new AtomError('storage', `the workspace is read-only (${reason}): make it writable and open it again. Reading still works; nothing was changed.`);
}

function storageError(file: string, err: unknown): AtomError {
  const code = (err as NodeJS.ErrnoException).code;
  const hint =
    code === 'ENOSPC'
      ? 'the disk is full: free some space and try again'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'the workspace is read-only: make .atomic/ writable and try again'
        : 'check that the workspace folder is writable and try again';
  return new AtomError('storage', `could not write ${file} (${code ?? (err as Error).message}): ${hint}. Nothing was changed.`);
}
