/**
 * The atom store as search sees it: the atoms, their changes, and the embeddings kept beside them.
 * The real AtomStore satisfies it structurally; the seam keeps search testable on its own (with an
 * in-memory store) and free of the store's internals.
 */
import type { Atom } from '../../atoms/model.js';
import type { Disposable } from '../../util/event.js';

/** An atom's vector as the database keeps it, with what it was computed from. */
export interface StoredEmbedding {
  name: string;
  /** The provider's modelId. */
  model: string;
  /** textHash() of the embedded text. */
  textHash: string;
  vector: Float32Array;
}

/** An atom changed (the store's StoreChange, spelled here so search does not import the store). */
export type SearchStoreChange =
  | { kind: 'upsert'; atom: Atom; previous?: Atom }
  | { kind: 'delete'; atom: Atom }
  | { kind: 'reload' };

export interface SearchStore {
  /** The workspace's `.atomic` folder; the vector index lives in its `vectors/` folder. */
  readonly atomicDir: string;
  all(): Atom[];
  get(name: string): Atom | undefined;
  onDidChange(listener: (e: SearchStoreChange) => void): Disposable;
  getEmbedding(name: string): StoredEmbedding | undefined;
  allEmbeddings(): StoredEmbedding[];
  /** Durable; rows for atoms that no longer exist are ignored. */
  putEmbeddings(rows: StoredEmbedding[]): Promise<void>;
}
