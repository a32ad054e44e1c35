/**
 * The store as the rest of the program sees it: reads only, and the change it announces. Views,
 * tools and the command line get an `AtomReader` (`AtomWorkspace.atoms`); every write goes through
 * the workspace, whose store announces each durable change, and the builder, the search index,
 * the tree and MCP subscribers react to that announcement.
 */
import type { DependencyMap } from '../atoms/graph.js';
import type { Atom, AtomType, AtomVersion } from '../atoms/model.js';
import type { BuildRecord } from './builds.js';
import type { OpenReport } from './openCheck.js';

/** A durable change, announced after it is applied (`AtomStore.onDidChange`). */
export type StoreChange =
  | { kind: 'upsert'; atom: Atom; previous?: Atom }
  | { kind: 'delete'; atom: Atom }
  /** The database was changed by another program and loaded again: anything may have changed. */
  | { kind: 'reload' };

export interface AtomReader {
  /** The workspace folder. */
  readonly workspaceDir: string;
  /** Its `.atomic` folder: the database, the journal, server.json, latest.js by default. */
  readonly atomicDir: string;
  readonly size: number;
  /** Number of dependency edges, from a counter. */
  readonly edges: number;
  /** Number of atoms with a stored embedding vector. */
  readonly embeddingCount: number;
  /** Why writes are refused, when the workspace could only be opened for reading. */
  readonly readOnly: string | undefined;
  /** What the last open (or reload from disk) refused; empty lists for a database this program wrote. */
  readonly openReport: OpenReport;
  /** What `.atomic/` held at open that was not trusted (a link, a device...) and what was done; empty when all was well. */
  readonly distrusted: readonly string[];
  /** Every atom, sorted by name. */
  all(): readonly Atom[];
  get(name: string): Atom | undefined;
  has(name: string): boolean;
  /** Number of atoms of each type, from counters (no walk over the atoms). */
  countByType(): Record<AtomType, number>;
  /** The same map until an atom changes, so callers can cache what they derive from it. */
  dependencyMap(): DependencyMap;
  /** Atoms that list `name` as a dependency, sorted. */
  dependents(name: string): string[];
  /** The atoms whose code may name one of `names` (a few more than do: read their code), sorted by name. */
  mayName(names: readonly string[]): readonly Atom[];
  /** Every stored version of an atom, newest first (deleted atoms keep theirs). */
  history(name: string): AtomVersion[];
  /** Names of atoms that were deleted and not re-created, with their last version, newest first. */
  deletedAtoms(): { name: string; version: number; deleted_at: string }[];
  lastBuild(): BuildRecord | undefined;
  /** Bytes on disk of the snapshot and the journal. */
  diskSize(): { database: number; journal: number };
}

/**
 * A view of `store` with its reads only: the object handed out has no write method to reach,
 * not even through a cast.
 */
export function readerOf(store: AtomReader): AtomReader {
  return Object.freeze({
    get workspaceDir() {
      return store.workspaceDir;
    },
    get atomicDir() {
      return store.atomicDir;
    },
    get size() {
      return store.size;
    },
    get edges() {
      return store.edges;
    },
    get embeddingCount() {
      return store.embeddingCount;
    },
    get readOnly() {
      return store.readOnly;
    },
    get openReport() {
      return store.openReport;
    },
    get distrusted() {
      return store.distrusted;
    },
    all: () => store.all(),
    get: (name: string) => store.get(name),
    has: (name: string) => store.has(name),
    countByType: () => store.countByType(),
    dependencyMap: () => store.dependencyMap(),
    dependents: (name: string) => store.dependents(name),
    mayName: (names: readonly string[]) => store.mayName(names),
    history: (name: string) => store.history(name),
    deletedAtoms: () => store.deletedAtoms(),
    lastBuild: () => store.lastBuild(),
    diskSize: () => store.diskSize(),
  });
}
