/**
 * Embedding vectors as the store keeps them: one row per atom in the `embedding_slots` table, with
 * the model, the hash of the text they were computed from and the slot of `vectors.bin` that
 * holds the vector (vectorFile.ts, schema 3). A deleted atom's row goes with it, and its slot is
 * free once that is durable.
 *
 * Vectors are binary16 (float16.ts: half the bytes of float32, with no ranking change); a vector
 * is always read back from the file, so it reads the same before and after a restart. Schema 2
 * kept them in the database's `embeddings` table, and journals of that time carry them as
 * base64 float32: both are moved into the file at the first open (`LegacyVector`).
 */
import type { StoreDatabase } from '../database.js';
import type { SqlValue } from 'sql.js';
import { decodeHalf, roundToHalf, type Vector } from './float16.js';
import type { VectorFile } from './vectorFile.js';

/** A stored vector's row with its vector as a page's `keep` made it. */
export type StoredAs<V> = Omit<StoredEmbedding, 'vector'> & { vector: V };

/** An atom's vector as the database keeps it, with what it was computed from. */
export interface StoredEmbedding {
  name: string;
  /** The provider's modelId. */
  model: string;
  /** textHash() of the embedded text. */
  textHash: string;
  /** As computed (float32), or as read back (binary16 where the runtime has Float16Array: halfVector). */
  vector: Vector;
}

/** A StoredEmbedding as a journal line carries it (journal.ts's `emb` op): where its vector is. */
export interface EmbeddingRow {
  name: string;
  model: string;
  textHash: string;
  /** The slot of vectors.bin holding the vector, written and flushed before this row was committed. */
  slot: number;
}

/** An `emb` row as schema 2's journals wrote it: the vector itself, base64 of little-endian float32. */
export interface LegacyEmbeddingRow {
  name: string;
  model: string;
  textHash: string;
  vector: string;
}

/** A vector of schema 2 (its table's row or its journal's), to be moved into vectors.bin. */
export interface LegacyVector {
  name: string;
  model: string;
  textHash: string;
  vector: Float32Array;
}

/**
 * Which atoms have a vector, and in which slot; the vectors themselves stay in the file until
 * asked for. Search reads them all once, in the background after an open, and keeps them
 * (vectorIndex.ts): the only copy in memory.
 */
export class StoredEmbeddings {
  private db: StoreDatabase | undefined;
  /** Loaded atoms' slots; -1: a slot of a file started afresh since, never to be released. */
  private readonly slots = new Map<string, number>();
  /** Schema 2's vectors a read-only store could not move into the file (`hold`), served from memory. */
  private readonly held = new Map<string, StoredEmbedding>();

  constructor(private readonly file: VectorFile) {}

  get(name: string): StoredEmbedding | undefined {
    const held = this.held.get(name);
    if (held) return held;
    if (!this.db || !this.slots.has(name)) return undefined;
    const [row] = this.db.rows('SELECT name, model, text_hash, slot FROM embedding_slots WHERE name = ?', [name]);
    return row ? storedOf(row, (slot, hash) => this.file.read(slot, hash)) : undefined;
  }

  /**
   * A slice of the vectors, in name order: those of atoms named after `after`, from at most
   * `limit` rows (`next`: where the following slice starts; undefined after the last). Each vector
   * is read from its slot (a few milliseconds a slice of 2,000), so search's load reads the file a
   * slice at a time, with turns between.
   *
   * With `keep`, the page's vectors are read in the file's order, a window at a time
   * (VectorFile.readMany), each handed to `keep` as read, in bytes the next window reuses, and the
   * row holds what it returns: search keeps 8-bit copies, and the binary16 reads (a buffer of their
   * own each, 50 MiB at 50,000 atoms) are not made at all.
   */
  page(after: string, limit: number): { embeddings: StoredEmbedding[]; next: string | undefined };
  page<V>(after: string, limit: number, keep: (vector: Vector) => V): { embeddings: StoredAs<V>[]; next: string | undefined };
  page<V>(after: string, limit: number, keep?: (vector: Vector) => V): { embeddings: StoredAs<V | Vector>[]; next: string | undefined } {
    if (!this.db) return { embeddings: [], next: undefined };
    // Held vectors come only from a read-only store's upgrade, whose database names no slot.
    if (this.held.size > 0) {
      const held = after === '' ? [...this.held.values()].sort((a, b) => (a.name < b.name ? -1 : 1)) : [];
      return { embeddings: keep ? held.map((e) => ({ ...e, vector: keep(e.vector) })) : held, next: undefined };
    }
    let last: string | undefined;
    let read = 0;
    const rows: SqlValue[][] = [];
    for (const row of this.db.eachRow('SELECT name, model, text_hash, slot FROM embedding_slots WHERE name > ? ORDER BY name LIMIT ?', [after, limit])) {
      read++;
      if (typeof row[0] !== 'string') continue;
      last = row[0];
      if (this.slots.has(row[0])) rows.push(row);
    }
    const next = read < limit ? undefined : last;
    if (!keep) {
      const embeddings: StoredEmbedding[] = [];
      for (const row of rows) {
        const e = storedOf(row, (slot, hash) => this.file.read(slot, hash));
        if (e) embeddings.push(e);
      }
      return { embeddings, next };
    }
    // The page's vectors in the file's order, a window at a time (VectorFile.readMany), each kept as read.
    const found = rows.map(slotRowOf);
    const kept = new Array<V | undefined>(found.length);
    this.file.readMany(
      found.map((e) => e ?? { slot: -1, textHash: '' }),
      (i, vector) => (kept[i] = keep(vector)),
    );
    const embeddings: StoredAs<V>[] = [];
    found.forEach((e, i) => {
      if (e && kept[i] !== undefined) embeddings.push({ name: e.name, model: e.model, textHash: e.textHash, vector: kept[i] });
    });
    return { embeddings, next };
  }

  get size(): number {
    return this.slots.size + this.held.size;
  }

  /** A read-only store upgraded from schema 2 keeps that schema's vectors in memory (it cannot write vectors.bin). */
  hold(vectors: readonly LegacyVector[]): void {
    for (const v of vectors) this.held.set(v.name, { name: v.name, model: v.model, textHash: v.textHash, vector: roundToHalf(v.vector) });
  }

  /** After `writeEmbeddings` committed `rows`: the slots they replaced are free. */
  apply(rows: readonly EmbeddingRow[]): void {
    for (const r of rows) {
      const was = this.slots.get(r.name);
      if (was !== undefined && was !== r.slot && was >= 0) this.file.release(was);
      this.slots.set(r.name, r.slot);
    }
  }

  /** The atom was deleted (its row went with it: `deleteEmbedding`): its slot is free. */
  forget(name: string): void {
    this.held.delete(name);
    const was = this.slots.get(name);
    if (was !== undefined && was >= 0) this.file.release(was);
    this.slots.delete(name);
  }

  /** The file was started afresh (vectors of another length): no slot named so far is released. */
  forgetSlots(): void {
    for (const name of this.slots.keys()) this.slots.set(name, -1);
  }

  /** The database loaded (at open or reload): its loaded atoms' slots, and every slot its rows name. */
  replace(db: StoreDatabase, read: EmbeddingSlots): void {
    this.db = db;
    this.held.clear();
    this.slots.clear();
    for (const [name, slot] of read.loaded) this.slots.set(name, slot);
    this.file.reset(read.used);
  }
}

/** What `readEmbeddingSlots` finds. */
export interface EmbeddingSlots {
  /** The loaded atoms that have a row shaped like ours, and their slots. */
  loaded: Map<string, number>;
  /** Every slot a row names, of loaded atoms or not (those slots are not given out again). */
  used: Set<number>;
}

/** The rows of an `emb` op that name a slot and are shaped like ours (schema 2's, and anything else, left out). */
export function slotRows(rows: ReadonlyArray<EmbeddingRow | LegacyEmbeddingRow>): EmbeddingRow[] {
  return rows.filter(
    (r): r is EmbeddingRow =>
      typeof r === 'object' && r !== null && typeof r.name === 'string' && typeof r.model === 'string' && typeof r.textHash === 'string' &&
      'slot' in r && Number.isInteger(r.slot) && r.slot >= 0,
  );
}

/** Writes an `emb` op's rows (those `slotRows` keeps). */
export function writeEmbeddings(db: StoreDatabase, rows: ReadonlyArray<EmbeddingRow | LegacyEmbeddingRow>): void {
  for (const r of slotRows(rows)) {
    db.run('INSERT OR REPLACE INTO embedding_slots (name, model, text_hash, slot) VALUES (?, ?, ?, ?)', [r.name, r.model, r.textHash, r.slot]);
  }
}

export function deleteEmbedding(db: StoreDatabase, name: string): void {
  db.run('DELETE FROM embedding_slots WHERE name = ?', [name]);
  db.run('DELETE FROM embeddings WHERE name = ?', [name]);
}

/** The rows of `embedding_slots`: those of atoms `loaded` accepts, shaped like ours, and every slot named. */
export function readEmbeddingSlots(db: StoreDatabase, loaded: (name: string) => boolean): EmbeddingSlots {
  const found: EmbeddingSlots = { loaded: new Map(), used: new Set() };
  // The model and hash are only checked here (50,000 of each read as strings cost the open time).
  const sql = "SELECT name, slot, typeof(model) = 'text' AND typeof(text_hash) = 'text' FROM embedding_slots";
  for (const [name, slot, shaped] of db.rows(sql)) {
    if (typeof slot !== 'number' || !Number.isInteger(slot) || slot < 0) continue;
    found.used.add(slot);
    if (typeof name === 'string' && shaped === 1 && loaded(name)) found.loaded.set(name, slot);
  }
  return found;
}

/** Schema 2's vectors of atoms `loaded` accepts, shaped like ours, from its `embeddings` table. */
export function readLegacyVectors(db: StoreDatabase, loaded: (name: string) => boolean): LegacyVector[] {
  const sql = "SELECT name, model, text_hash, vector FROM embeddings WHERE typeof(model) = 'text' AND typeof(text_hash) = 'text' AND typeof(vector) = 'blob' AND length(vector) % 2 = 0 AND length(vector) > 0";
  const out: LegacyVector[] = [];
  for (const [name, model, textHash, blob] of db.rows(sql)) {
    if (typeof name === 'string' && loaded(name) && blob instanceof Uint8Array) {
      out.push({ name, model: model as string, textHash: textHash as string, vector: decodeHalf(blob) });
    }
  }
  return out;
}

/** A journal row of schema 2, with its vector decoded; undefined for a row of this schema or one not shaped like either. */
export function legacyOf(row: EmbeddingRow | LegacyEmbeddingRow): LegacyVector | undefined {
  if (typeof row !== 'object' || row === null || !('vector' in row) || typeof row.vector !== 'string') return undefined;
  if (typeof row.name !== 'string' || typeof row.model !== 'string' || typeof row.textHash !== 'string') return undefined;
  const buf = Buffer.from(row.vector, 'base64');
  if (buf.byteLength === 0 || buf.byteLength % 4 !== 0) return undefined;
  return { name: row.name, model: row.model, textHash: row.textHash, vector: new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)) };
}

/**
 * The model id of the last vector read: every row names the same model, and sql.js hands each one
 * over as a string of its own (50,000 copies of 31 characters, 2.4 MiB, at 50,000 atoms).
 */
let modelId = '';

/** A row of (name, model, text_hash, slot) shaped like ours; undefined otherwise. */
function slotRowOf([name, read, textHash, slot]: SqlValue[]): EmbeddingRow | undefined {
  if (typeof name !== 'string' || typeof read !== 'string' || typeof textHash !== 'string' || typeof slot !== 'number') return undefined;
  if (read !== modelId) modelId = read;
  return { name, model: modelId, textHash, slot };
}

/** A row of (name, model, text_hash, slot) as a StoredEmbedding; undefined when not shaped like ours or its slot does not hold it. */
function storedOf(row: SqlValue[], vectorAt: (slot: number, textHash: string) => Vector | undefined): StoredEmbedding | undefined {
  const r = slotRowOf(row);
  const vector = r && vectorAt(r.slot, r.textHash);
  return vector ? { name: r.name, model: r.model, textHash: r.textHash, vector } : undefined;
}
