/**
 * Embedding vectors as the store keeps them: one row per atom in the `embeddings` table, with
 * the model and the hash of the text they were computed from, and all of them in memory for
 * search. A deleted atom's row goes with it.
 *
 * The table keeps each vector as binary16 (float16.ts: half the bytes of float32, with no
 * ranking change); the journal carries float32, and a vector is always read back from the
 * table, so it reads the same before and after a restart.
 */
import type { StoreDatabase } from '../database.js';
import type { SqlValue } from 'sql.js';
import { encodeHalf, halfVector, type Vector } from './float16.js';

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

/** A StoredEmbedding as a journal line carries it (journal.ts's `emb` op). */
export interface EmbeddingRow {
  name: string;
  model: string;
  textHash: string;
  /** base64 of the little-endian float32 vector */
  vector: string;
}

/**
 * Which atoms have a vector; the vectors themselves stay in the database until asked for. Search
 * reads them all once, in the background after an open, and keeps them (vectorIndex.ts): held
 * here too, they were decoded before the first answer (a third of a second at 50,000 atoms) and
 * kept twice in memory.
 */
export class StoredEmbeddings {
  private db: StoreDatabase | undefined;
  private readonly names = new Set<string>();

  get(name: string): StoredEmbedding | undefined {
    if (!this.db || !this.names.has(name)) return undefined;
    const [row] = this.db.rows('SELECT name, model, text_hash, vector FROM embeddings WHERE name = ?', [name]);
    return row ? storedOf(row) : undefined;
  }

  /**
   * A slice of the vectors, in name order: those of atoms named after `after`, from at most
   * `limit` rows (`next`: where the following slice starts; undefined after the last). A large
   * table is read a slice at a time, with turns of the event loop between (search's open).
   */
  page(after: string, limit: number): { embeddings: StoredEmbedding[]; next: string | undefined } {
    if (!this.db) return { embeddings: [], next: undefined };
    const embeddings: StoredEmbedding[] = [];
    let last: string | undefined;
    let read = 0;
    for (const row of this.db.rows('SELECT name, model, text_hash, vector FROM embeddings WHERE name > ? ORDER BY name LIMIT ?', [after, limit])) {
      read++;
      if (typeof row[0] !== 'string') continue;
      last = row[0];
      const e = this.names.has(row[0]) ? storedOf(row) : undefined;
      if (e) embeddings.push(e);
    }
    return { embeddings, next: read < limit ? undefined : last };
  }

  get size(): number {
    return this.names.size;
  }

  /** After `writeEmbeddings` committed `rows`. */
  apply(rows: readonly EmbeddingRow[]): void {
    for (const r of rows) this.names.add(r.name);
  }

  /** The atom was deleted (its row went with it: `deleteEmbedding`). */
  forget(name: string): void {
    this.names.delete(name);
  }

  /** The database loaded (at open or reload) and the atoms of it that have a vector (`readEmbeddingNames`). */
  replace(db: StoreDatabase, names: Iterable<string>): void {
    this.db = db;
    this.names.clear();
    for (const name of names) this.names.add(name);
  }
}

/** The journal's form of a vector. */
export function toRow(e: StoredEmbedding): EmbeddingRow {
  return {
    name: e.name,
    model: e.model,
    textHash: e.textHash,
    vector: Buffer.from(float32Bytes(e.vector)).toString('base64'),
  };
}

export function writeEmbeddings(db: StoreDatabase, rows: readonly EmbeddingRow[]): void {
  for (const r of rows) {
    db.run('INSERT OR REPLACE INTO embeddings (name, model, text_hash, vector) VALUES (?, ?, ?, ?)', [
      r.name,
      r.model,
      r.textHash,
      encodeHalf(decodeVector(r.vector)),
    ]);
  }
}

export function deleteEmbedding(db: StoreDatabase, name: string): void {
  db.run('DELETE FROM embeddings WHERE name = ?', [name]);
}

/** The atoms `loaded` accepts that have a vector shaped like ours; other rows are left where they are. */
export function readEmbeddingNames(db: StoreDatabase, loaded: (name: string) => boolean): Set<string> {
  const names = new Set<string>();
  const sql = "SELECT name FROM embeddings WHERE typeof(model) = 'text' AND typeof(text_hash) = 'text' AND typeof(vector) = 'blob' AND length(vector) % 2 = 0";
  for (const [name] of db.rows(sql)) if (typeof name === 'string' && loaded(name)) names.add(name);
  return names;
}

/**
 * The model id of the last vector read: every row names the same model, and sql.js hands each one
 * over as a string of its own (50,000 copies of 31 characters, 2.4 MiB, at 50,000 atoms).
 */
let modelId = '';

/** A row of (name, model, text_hash, vector) as a StoredEmbedding; undefined when not shaped like ours. */
function storedOf([name, read, textHash, blob]: SqlValue[]): StoredEmbedding | undefined {
  if (typeof name !== 'string' || typeof read !== 'string' || typeof textHash !== 'string') return undefined;
  if (read !== modelId) modelId = read;
  const model = modelId;
  if (!(blob instanceof Uint8Array) || blob.byteLength % 2 !== 0) return undefined;
  // sql.js hands each blob over in a buffer of its own, so a view on it is safe to keep.
  return { name, model, textHash, vector: halfVector(blob) };
}

/** The vector's float32 bytes (the journal's form), whatever it is held as. */
function float32Bytes(vector: Vector): Uint8Array {
  const f32 = vector instanceof Float32Array ? vector : Float32Array.from(vector);
  return new Uint8Array(f32.buffer, f32.byteOffset, f32.byteLength);
}

function decodeVector(base64: string): Float32Array {
  const buf = Buffer.from(base64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
