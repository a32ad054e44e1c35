/**
 * Schema 2 kept the vectors in the database (and in its journal's rows); they live in vectors.bin
 * now. Moved once, at the open that finds them: the vectors are written and flushed, their rows
 * take the slots and the old table is emptied; the store then writes the snapshot without the
 * space they took. A crash before that snapshot opens the old one again and moves them again; the
 * slots written meanwhile are named by no row, free.
 */
import type { StoreDatabase } from '../database.js';
import { writeEmbeddings, type EmbeddingRow, type LegacyVector, type StoredEmbeddings } from './stored.js';
import type { VectorFile } from './vectorFile.js';

/** Moves `vectors` (the newest per atom) into `vectorFile`; returns how many were moved. */
export async function moveLegacyVectors(
  parts: { db: StoreDatabase; vectorFile: VectorFile; embeddings: StoredEmbeddings },
  vectors: LegacyVector[],
): Promise<number> {
  const { db, vectorFile, embeddings } = parts;
  const newest = new Map(vectors.map((v) => [v.name, v]));
  const moving = [...newest.values()];
  // One length per file: vectors of another length than most are another model's, embedded again.
  const dimensions = mostCommon(moving.map((v) => v.vector.length));
  const kept = moving.filter((v) => v.vector.length === dimensions);
  const { slots, afresh } = await vectorFile.write(kept);
  if (afresh) embeddings.forgetSlots();
  const rows: EmbeddingRow[] = kept.map((v, i) => ({ name: v.name, model: v.model, textHash: v.textHash, slot: slots[i]! }));
  db.transaction(() => {
    writeEmbeddings(db, rows);
    db.run('DELETE FROM embeddings');
  });
  embeddings.apply(rows);
  db.vacuum();
  return rows.length;
}

/** The value found most often (the first of those tied). */
function mostCommon(values: number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: number | undefined;
  for (const [v, n] of counts) if (best === undefined || n > counts.get(best)!) best = v;
  return best;
}
