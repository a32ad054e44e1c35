/**
 * The atom store as search sees it: the atoms, their changes, and the embeddings kept beside them.
 * The real AtomStore satisfies it structurally; the seam keeps search testable on its own (with an
 * in-memory store) and free of the store's internals.
 */
import type { Atom } from '../atoms/model.js';
import type { Disposable } from '../util/event.js';
import type { Vector } from '../store/vectors/float16.js';
import type { StoredAs, StoredEmbedding } from '../store/vectors/stored.js';
import type { StoreChange } from '../store/reader.js';

// Owned by the store's modules (types only: search still imports no store code).
export type { StoredEmbedding };

/** An atom changed: the store's StoreChange. */
export type SearchStoreChange = StoreChange;

export interface SearchStore {
  /** The workspace's `.atomic` folder (earlier versions kept a vector index in its `vectors/` folder). */
  readonly atomicDir: string;
  all(): readonly Atom[];
  get(name: string): Atom | undefined;
  onDidChange(listener: (e: SearchStoreChange) => void): Disposable;
  getEmbedding(name: string): StoredEmbedding | undefined;
  /**
   * Stored vectors of atoms named after `after`, in name order, from at most `limit` rows; `next`
   * is where the following slice starts (undefined: that was the last). Each vector is handed to
   * `keep` as read, valid only during that call; the row holds what `keep` returns.
   */
  embeddingsPage<V>(after: string, limit: number, keep: (vector: Vector) => V): { embeddings: StoredAs<V>[]; next: string | undefined };
  /** Durable; rows for atoms that no longer exist are ignored. */
  putEmbeddings(rows: StoredEmbedding[]): Promise<void>;
}
