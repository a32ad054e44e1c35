/**
 * The vector half of search: a vectra LocalIndex, one item per atom (id = atom name), in memory.
 *
 * Each vector is kept once, here, and small: as 8-bit integers (`compactVector`), 512 bytes for
 * USE-lite's 512 dimensions, where the store keeps binary16 on disk (vectors.bin, read only when
 * search asks: StoredEmbeddings) and the model gives float32. Cosine similarity does not depend on
 * a vector's scale, and the rounding moves a cosine by a few ten-thousandths (test/unit/vector-
 * index.test.ts); at 50,000 atoms this keeps 25 MiB where binary16 kept 50 (and float32, on a
 * runtime without Float16Array such as Node 22's extension host, 100). Nothing is written to
 * disk: vectra runs on its in-memory VirtualFileStorage with a codec that keeps the index object
 * as it is (HeldIndexCodec) rather than encoding it. Earlier versions kept a second copy in
 * `.atomic/vectors/` (20 MiB of float32 at 10,000 atoms, rewritten whole after edits); that
 * folder's files are removed when found.
 *
 * Filling at open is one pass over the stored vectors (`fill`); later changes land in an
 * in-memory overlay at once (queries see them immediately) and are committed to vectra in one
 * beginUpdate/endUpdate batch once edits pause.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { AtomType } from '../atoms/model.js';
import type { Vector } from '../store/vectors/float16.js';
import { cosine } from './embeddings/provider.js';
import { LocalIndex, VirtualFileStorage, type DocumentCatalog, type IndexCodec, type IndexData, type MetadataFilter, type MetadataTypes } from './vectra.js';

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

/** An atom's vector and what it was computed from (kept as `compactVector` gives it). */
export interface VectorEntry {
  name: string;
  vector: Vector | Int8Array;
  meta: VectorMeta;
}

interface Entry {
  vector: Int8Array;
  meta: VectorMeta;
}

/**
 * A vector as the index keeps it: each component scaled by the same factor (127 over the largest
 * magnitude) and rounded to an 8-bit integer. Its direction, all that a cosine sees, is kept to
 * about 1 part in 250 per component; an Int8Array is taken as it is.
 */
export function compactVector(vector: ArrayLike<number>): Int8Array {
  if (vector instanceof Int8Array) return vector;
  return compactInto(vector, new Int8Array(vector.length));
}

/** `compactVector` into `out` (of the vector's length, zeros); returns `out`. */
function compactInto(vector: ArrayLike<number>, out: Int8Array): Int8Array {
  if (vector instanceof Int8Array) {
    out.set(vector);
    return out;
  }
  let largest = 0;
  for (let i = 0; i < vector.length; i++) largest = Math.max(largest, Math.abs(vector[i]!));
  if (!(largest > 0) || !Number.isFinite(largest)) return out;
  const scale = 127 / largest;
  for (let i = 0; i < vector.length; i++) out[i] = Math.round(vector[i]! * scale);
  return out;
}

/**
 * Room for `count` vectors of `dimensions` in one buffer, each compacted (`compactVector`) into a
 * view of it as it is taken: at 50,000 atoms, a buffer of its own per vector cost about 10 MiB
 * more (an ArrayBuffer and its native record each), and cosines over views are as fast. A view
 * keeps the whole buffer alive, so a slab is freed once every vector of it is replaced: at worst,
 * the size the vectors had when they were loaded. A vector of another length, or one past
 * `count`, gets a buffer of its own.
 */
export class VectorSlab {
  private readonly slab: Int8Array;
  private used = 0;

  constructor(
    count: number,
    private readonly dimensions: number,
  ) {
    this.slab = new Int8Array(count * dimensions);
  }

  take(vector: ArrayLike<number>): Int8Array {
    if (vector.length !== this.dimensions || this.used + this.dimensions > this.slab.length) return compactVector(vector);
    const view = this.slab.subarray(this.used, this.used + this.dimensions);
    this.used += this.dimensions;
    return compactInto(vector, view);
  }
}

/** Files earlier versions kept in the vectors folder: a second copy of the database's vectors. */
export const LEGACY_INDEX_FILES = ['index.bin', 'index.json', 'index.bin.tmp', 'index.json.tmp'];
const INDEX_NAME = 'index.held';

/**
 * vectra's codec seam used to keep, not encode: a save hands over the index object itself (its
 * items still pointing at the store's vectors), and a load gets that object back.
 */
class HeldIndexCodec implements IndexCodec {
  readonly extension = '.held';
  private held: IndexData | undefined;

  hold(data: IndexData): void {
    this.held = data;
  }

  serializeIndex(data: IndexData): Buffer {
    this.held = data;
    return Buffer.alloc(0);
  }

  deserializeIndex(): IndexData {
    if (!this.held) throw new Error('no vector index is held in memory');
    return this.held;
  }

  serializeCatalog(catalog: DocumentCatalog): Buffer {
    return Buffer.from(JSON.stringify(catalog));
  }

  deserializeCatalog(buffer: Buffer): DocumentCatalog {
    return JSON.parse(buffer.toString('utf8')) as DocumentCatalog;
  }

  serializeMetadata(metadata: Record<string, MetadataTypes>): Buffer {
    return Buffer.from(JSON.stringify(metadata));
  }

  deserializeMetadata(buffer: Buffer): Record<string, MetadataTypes> {
    return JSON.parse(buffer.toString('utf8')) as Record<string, MetadataTypes>;
  }
}

export class VectorIndex {
  private readonly codec = new HeldIndexCodec();
  private readonly storage = new VirtualFileStorage();
  private index: LocalIndex<ItemMeta>;
  /** What the index holds, committed or not: name -> metadata. */
  private readonly known = new Map<string, VectorMeta>();
  /** Changes not yet in vectra's committed data: an entry to upsert, or null to delete. */
  private overlay = new Map<string, Entry | null>();
  /** Whether vectra holds an index, so it can be asked about committed items. */
  private opened = false;
  private flushTimer: NodeJS.Timeout | undefined;
  /** When the oldest uncommitted change was made (0: none). */
  private dirtySince = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** Changes being committed right now; still answered from the overlay's copy until then. */
  private inFlight = new Map<string, Entry | null>();

  constructor(
    /** Where earlier versions kept the index file; only cleaned up now. */
    readonly legacyFolder: string | undefined,
    private readonly options: {
      /** Commit once changes pause this long (default 200 ms)... */
      flushDelayMs?: number;
      /** ...or once the oldest uncommitted change is this old (default 2 s). */
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

  /**
   * Starts an empty index (the caller fills it from the store) and removes what earlier
   * versions wrote to disk. Once open, it stays open: a reload reconciles, it does not reopen.
   */
  async open(): Promise<void> {
    if (this.legacyFolder) {
      const folder = this.legacyFolder;
      // Best effort: a folder that cannot be cleaned (a file in its place, no permission) costs disk, not search.
      await Promise.all(LEGACY_INDEX_FILES.map((f) => fsp.rm(join(folder, f), { force: true }).catch(() => {})));
      await fsp.rmdir(folder).catch(() => {}); // only when empty: never someone else's files
    }
    if (this.opened) return;
    await this.index.createIndex({ version: 1, deleteIfExists: true });
    this.opened = true;
  }

  /**
   * Takes many vectors at once, by reference, in one pass (vectra's upsertItem looks each id up
   * in a list: 10,000 of them one by one cost quadratic time). Entries replace committed items of
   * the same name; pending changes stay newer.
   */
  fill(entries: readonly VectorEntry[]): Promise<void> {
    if (!this.opened) return Promise.reject(new Error('open the vector index before filling it'));
    for (const e of entries) if (!this.overlay.has(e.name) && !this.inFlight.has(e.name)) this.known.set(e.name, e.meta);
    // In line with commits, so a commit in flight cannot hand vectra's older object back after it.
    this.flushing = this.flushing.then(() => {
      const current = this.codec.deserializeIndex();
      const byName = new Map(current.items.map((item) => [item.id, item]));
      for (const e of entries) {
        const vector = compactVector(e.vector);
        // The metadata object `known` holds (vectra does not change an item's metadata).
        byName.set(e.name, { id: e.name, metadata: e.meta as ItemMeta, vector: vector as unknown as number[], norm: norm(vector) });
      }
      this.codec.hold({ ...current, items: [...byName.values()] });
      // A fresh LocalIndex reads the held object on first use.
      this.index = this.newIndex();
    });
    return this.flushing;
  }

  /** Every vector the index holds, as it keeps them (8-bit), its pending changes committed first: for a snapshot (vectorSnapshot.ts). */
  async entries(): Promise<Array<{ name: string; vector: Int8Array; meta: VectorMeta }>> {
    await this.flush();
    if (!this.opened) return [];
    return this.codec.deserializeIndex().items.map((item) => ({ name: item.id, vector: compactVector(item.vector), meta: item.metadata as unknown as VectorMeta }));
  }

  upsert(name: string, vector: Vector | Int8Array | number[], meta: VectorMeta): void {
    this.known.set(name, meta);
    this.overlay.set(name, { vector: compactVector(vector), meta });
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

  /** The vector of one atom, pending changes included. */
  async vector(name: string): Promise<ArrayLike<number> | undefined> {
    for (const pending of [this.overlay, this.inFlight]) {
      if (pending.has(name)) return pending.get(name)?.vector;
    }
    return this.opened ? (await this.index.getItem(name))?.vector : undefined;
  }

  /** Commits every pending change to vectra now. */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.dirtySince = 0;
    this.flushing = this.flushing.then(() => this.commit());
    return this.flushing;
  }

  async dispose(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushing.catch(() => {});
  }

  private async commit(): Promise<void> {
    if (this.overlay.size === 0 || !this.opened) return;
    this.inFlight = this.overlay;
    this.overlay = new Map();
    try {
      await this.index.beginUpdate();
      try {
        const deletions: string[] = [];
        for (const [name, entry] of this.inFlight) {
          if (entry) await this.index.upsertItem({ id: name, vector: entry.vector as unknown as number[], metadata: { ...entry.meta } as ItemMeta });
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
    const idle = this.options.flushDelayMs ?? 200;
    const deadline = this.dirtySince + (this.options.maxFlushDelayMs ?? 2_000);
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
    return new LocalIndex<ItemMeta>('vectors', INDEX_NAME, this.storage, this.codec);
  }
}

/** vectra's norm of a vector (ItemSelector.normalize): its Euclidean length. */
function norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}
