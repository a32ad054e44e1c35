/**
 * The vector half of search: a vectra LocalIndex in `.atomic/vectors/`, one item per atom
 * (id = atom name). It is a cache of the vectors kept in the database: anything missing,
 * stale or unreadable here is rebuilt from there.
 *
 * vectra rewrites the whole file on every save, so the file is binary (binaryCodec.ts: 10,000
 * atoms are ~20 MiB of float32 instead of ~48 MiB of JSON text), and writes are coalesced:
 * changes land in an in-memory overlay at once (queries see them immediately) and are saved in
 * one beginUpdate/endUpdate batch once edits pause, through crash-safe storage. Changes lost to a crash are only re-indexed from the
 * database at the next open, never re-embedded.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { AtomType } from '../../atoms/model.js';
import { cosine } from '../embeddings/provider.js';
import { AtomicFileStorage } from './atomicStorage.js';
import { BinaryIndexCodec } from './binaryCodec.js';
import { LocalIndex, type MetadataFilter } from './vectra.js';

/** What each item carries besides its vector: enough to tell whether it is still current. */
export interface VectorMeta {
  type: AtomType;
  model: string;
  textHash: string;
}

type ItemMeta = VectorMeta & Record<string, string>;

export interface VectorHit {
  name: string;
  similarity: number;
}

/** How the index on disk was found when opened. */
export type OpenOutcome = 'loaded' | 'created' | 'recreated';

interface Entry {
  vector: Float32Array | number[];
  meta: VectorMeta;
}

export const INDEX_FILE = 'index.bin';
/** Where versions before the binary file kept the index; removed when found. */
const LEGACY_INDEX_FILE = 'index.json';

export class VectorIndex {
  private index: LocalIndex<ItemMeta>;
  /** What the index holds, committed or not: name -> metadata. */
  private readonly known = new Map<string, VectorMeta>();
  /** Changes not yet in vectra's committed data: an entry to upsert, or null to delete. */
  private overlay = new Map<string, Entry | null>();
  /** Whether the file has been loaded or created, so vectra can be asked about committed items. */
  private opened = false;
  private flushTimer: NodeJS.Timeout | undefined;
  /** When the oldest unsaved change was made (0: none). */
  private dirtySince = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** Changes being written right now; still answered from memory until vectra commits them. */
  private inFlight = new Map<string, Entry | null>();

  constructor(
    readonly folder: string,
    private readonly options: {
      /** Save once changes pause this long (default 5 s)... */
      flushDelayMs?: number;
      /** ...or once the oldest unsaved change is this old (default 30 s). */
      maxFlushDelayMs?: number;
      onError?: (err: Error) => void;
    } = {},
  ) {
    this.index = this.newIndex();
  }

  get size(): number {
    return this.known.size;
  }

  meta(name: string): VectorMeta | undefined {
    return this.known.get(name);
  }

  names(): string[] {
    return [...this.known.keys()];
  }

  /** Loads the index; a missing or unreadable one is replaced by an empty one to be refilled. */
  async open(): Promise<OpenOutcome> {
    this.opened = false;
    // The JSON index of earlier versions is not read: the index is a cache, refilled from the database.
    await fsp.rm(join(this.folder, LEGACY_INDEX_FILE), { force: true });
    const file = join(this.folder, INDEX_FILE);
    const exists = await fsp.access(file).then(
      () => true,
      () => false,
    );
    if (exists) {
      try {
        const items = await this.index.listItems();
        this.known.clear();
        for (const item of items) {
          const m = item.metadata;
          if (typeof m?.model === 'string' && typeof m.textHash === 'string' && typeof m.type === 'string') {
            this.known.set(item.id, { type: m.type as AtomType, model: m.model, textHash: m.textHash });
          } else {
            this.delete(item.id);
          }
        }
        this.opened = true;
        return 'loaded';
      } catch {
        await fsp.rm(file, { force: true });
      }
    }
    await fsp.mkdir(this.folder, { recursive: true });
    this.index = this.newIndex();
    await this.index.createIndex({ version: 1, deleteIfExists: true });
    this.known.clear();
    this.opened = true;
    return exists ? 'recreated' : 'created';
  }

  upsert(name: string, vector: Float32Array | number[], meta: VectorMeta): void {
    this.known.set(name, meta);
    this.overlay.set(name, { vector, meta });
    this.scheduleFlush();
  }

  delete(name: string): void {
    this.known.delete(name);
    this.overlay.set(name, null);
    this.scheduleFlush();
  }

  /** The `limit` most similar items (optionally of one type), pending changes included. */
  async query(vector: Float32Array, limit: number, type?: AtomType): Promise<VectorHit[]> {
    const overlay = this.overlay;
    const inFlight = this.inFlight;
    const filter: MetadataFilter | undefined = type ? { type: { $eq: type } } : undefined;
    const extra = overlay.size + inFlight.size;
    // Until open() succeeds only the pending changes are known (vectra throws on a missing file).
    const committed = this.opened ? await this.index.queryItems(Array.from(vector), '', limit + extra, filter) : [];
    const hits = new Map<string, number>();
    for (const r of committed) {
      if (!overlay.has(r.item.id) && !inFlight.has(r.item.id)) hits.set(r.item.id, r.score);
    }
    for (const pending of [inFlight, overlay]) {
      for (const [name, entry] of pending) {
        if (entry && (!type || entry.meta.type === type)) hits.set(name, cosine(vector, entry.vector));
        else hits.delete(name);
      }
    }
    return [...hits]
      .map(([name, similarity]) => ({ name, similarity }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, limit);
  }

  /** The stored vector of one atom, pending changes included. */
  async vector(name: string): Promise<ArrayLike<number> | undefined> {
    for (const pending of [this.overlay, this.inFlight]) {
      if (pending.has(name)) return pending.get(name)?.vector;
    }
    return this.opened ? (await this.index.getItem(name))?.vector : undefined;
  }

  /** Saves every pending change now (one file write). */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.dirtySince = 0;
    this.flushing = this.flushing.then(() => this.save());
    return this.flushing;
  }

  async dispose(): Promise<void> {
    await this.flush().catch(() => {});
  }

  private async save(): Promise<void> {
    if (this.overlay.size === 0) return;
    this.inFlight = this.overlay;
    this.overlay = new Map();
    try {
      await this.index.beginUpdate();
      try {
        const deletions: string[] = [];
        for (const [name, entry] of this.inFlight) {
          if (entry) await this.index.upsertItem({ id: name, vector: Float32Array.from(entry.vector) as unknown as number[], metadata: entry.meta as ItemMeta });
          else deletions.push(name);
        }
        if (deletions.length > 0) await this.index.deleteItems(deletions);
        await this.index.endUpdate();
      } catch (err) {
        this.index.cancelUpdate();
        throw err;
      }
      this.inFlight = new Map();
    } catch (err) {
      // Put the changes back (newer ones win) so the next flush retries them.
      for (const [name, entry] of this.inFlight) if (!this.overlay.has(name)) this.overlay.set(name, entry);
      this.inFlight = new Map();
      this.options.onError?.(err as Error);
      throw err;
    }
  }

  private scheduleFlush(): void {
    const now = Date.now();
    if (this.dirtySince === 0) this.dirtySince = now;
    const idle = this.options.flushDelayMs ?? 5_000;
    const deadline = this.dirtySince + (this.options.maxFlushDelayMs ?? 30_000);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(
      () => {
        this.flushTimer = undefined;
        this.flush().catch(() => {});
      },
      Math.max(0, Math.min(idle, deadline - now)),
    );
    this.flushTimer.unref?.();
  }

  private newIndex(): LocalIndex<ItemMeta> {
    return new LocalIndex<ItemMeta>(this.folder, INDEX_FILE, new AtomicFileStorage(), new BinaryIndexCodec());
  }
}
