/**
 * Embedding vectors as the store keeps them: one row per atom in the `embeddings` table, with
 * the model and the hash of the text they were computed from, and all of them in memory for
 * search. A deleted atom's row goes with it.
 *
 * The table keeps each vector as binary16 (float16.ts: half the bytes of float32, with no
 * ranking change); the journal carries float32, and the vector in memory is always the one the
 * table gives back, so a vector reads the same before and after a restart.
 */
import type { StoreDatabase } from '../database.js';
import { decodeHalf, encodeHalf, roundToHalf } from './float16.js';

/** An atom's vector as the database keeps it, with what it was computed from. */
export interface StoredEmbedding {
  name: string;
  /** The provider's modelId. */
  model: string;
  /** textHash() of the embedded text. */
  textHash: string;
  vector: Float32Array;
}

/** A StoredEmbedding as a journal line carries it (journal.ts's `emb` op). */
export interface EmbeddingRow {
  name: string;
  model: string;
  textHash: string;
  /** base64 of the little-endian float32 vector */
  vector: string;
}

export class StoredEmbeddings {
  private readonly byName = new Map<string, StoredEmbedding>();

  get(name: string): StoredEmbedding | undefined {
    return this.byName.get(name);
  }

  all(): StoredEmbedding[] {
    return [...this.byName.values()];
  }

  get size(): number {
    return this.byName.size;
  }

  /** After `writeEmbeddings` committed `rows`. */
  apply(rows: readonly EmbeddingRow[]): void {
    for (const r of rows) {
      this.byName.set(r.name, { name: r.name, model: r.model, textHash: r.textHash, vector: roundToHalf(decodeVector(r.vector)) });
    }
  }

  /** The atom was deleted (its row went with it: `deleteEmbedding`). */
  forget(name: string): void {
    this.byName.delete(name);
  }

  /** Takes the vectors read by `readEmbeddings` (at open or reload). */
  replace(embeddings: ReadonlyMap<string, StoredEmbedding>): void {
    this.byName.clear();
    for (const [name, e] of embeddings) this.byName.set(name, e);
  }
}

/** The journal's form of a vector. */
export function toRow(e: StoredEmbedding): EmbeddingRow {
  return {
    name: e.name,
    model: e.model,
    textHash: e.textHash,
    vector: Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength).toString('base64'),
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

/** The vectors of the atoms `loaded` accepts; rows not shaped like ours are left where they are. */
export function readEmbeddings(db: StoreDatabase, loaded: (name: string) => boolean): Map<string, StoredEmbedding> {
  const embeddings = new Map<string, StoredEmbedding>();
  for (const [name, model, textHash, blob] of db.rows('SELECT name, model, text_hash, vector FROM embeddings')) {
    if (typeof name !== 'string' || !loaded(name) || typeof model !== 'string' || typeof textHash !== 'string') continue;
    if (!(blob instanceof Uint8Array) || blob.byteLength % 2 !== 0) continue;
    embeddings.set(name, { name, model, textHash, vector: decodeHalf(blob) });
  }
  return embeddings;
}

function decodeVector(base64: string): Float32Array {
  const buf = Buffer.from(base64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
