/**
 * One open workspace: the store, the builder and (when wired) the search index. Every write
 * goes through here, so an MCP tool and an editor save take the same path: validation, the
 * durable store, then the rebuild that the store's change announcement calls for.
 *
 * The store stays private: views, tools and the command line read through `atoms`, a view with
 * no write method, so there is no second way in. What reacts to a change (the builder, the search
 * index, the tree, MCP subscribers) listens to the store's announcement, not to this class, so it
 * follows every durable change whoever made it.
 */
import { join, resolve } from 'node:path';
import { AtomError } from './atoms/errors.js';
import { draftOf, versionToRestore } from './atoms/history.js';
import type { Atom, AtomDraft, AtomVersion } from './atoms/model.js';
import { Builder } from './build/builder.js';
import { AtomStore, type StoreOptions, type UpsertResult } from './store/atomStore.js';
import { changed } from './store/atoms/batch.js';
import type { BuildRecord } from './store/builds.js';
import { readerOf, type AtomReader } from './store/reader.js';
import type { EmbeddingProvider } from './store/embeddings/provider.js';
import { UseLiteProvider } from './store/embeddings/useLite.js';
import { SearchIndex } from './store/search/searchIndex.js';
import { silentLogger, type Logger } from './util/log.js';

export interface WorkspaceOptions {
  log?: Logger;
  /** Where latest.js goes; default `.atomic/latest.js` in the workspace. */
  bundlePath?: string;
  store?: StoreOptions;
  /** Turns text into vectors for semantic_search; default: the shipped USE-lite model. */
  embeddings?: EmbeddingProvider;
}

export interface WriteOutcome<T> {
  result: T;
  build: BuildRecord;
}

export class AtomWorkspace {
  /** The atoms, their history, builds and status: reads only. */
  readonly atoms: AtomReader;
  readonly builder: Builder;
  /** semantic_search: follows the store's changes; loads its index and model lazily. */
  readonly search: SearchIndex;

  private constructor(
    readonly dir: string,
    private readonly store: AtomStore,
    readonly log: Logger,
    bundlePath: string,
    /** The model behind semantic_search (get_status names it). */
    readonly embeddings: EmbeddingProvider,
  ) {
    this.atoms = readerOf(store);
    // Builds after every change the store announces, a database changed by another program
    // (a git checkout) included.
    this.builder = new Builder(store, bundlePath, log);
    this.search = new SearchIndex(store, embeddings, { logger: log });
  }

  static async open(dir: string, options: WorkspaceOptions = {}): Promise<AtomWorkspace> {
    const root = resolve(dir);
    const log = options.log ?? silentLogger;
    const store = await AtomStore.open(root, { log, ...options.store });
    const bundlePath = options.bundlePath ? resolve(root, options.bundlePath) : join(store.atomicDir, 'latest.js');
    const workspace = new AtomWorkspace(root, store, log, bundlePath, options.embeddings ?? new UseLiteProvider());
    // In the background: a search or an edit waits for it, opening the workspace does not.
    void workspace.search.open().catch(() => {});
    if (store.size > 0 && !workspace.builder.hasWholeBundle()) await workspace.builder.rebuild();
    return workspace;
  }

  /** Fired after every durable change (see AtomStore.onDidChange). */
  get onDidChange() {
    return this.store.onDidChange;
  }

  async upsert(draft: AtomDraft): Promise<WriteOutcome<UpsertResult>> {
    const result = await this.store.upsert(draft);
    return { result, build: await this.buildAfter(changed(result)) };
  }

  async upsertMany(drafts: AtomDraft[]): Promise<WriteOutcome<UpsertResult[]>> {
    const result = await this.store.upsertMany(drafts);
    return { result, build: await this.buildAfter(result.some(changed)) };
  }

  /**
   * Saves an old version of an atom again, as a new version, with the usual validation (its
   * dependencies must exist). Brings back a deleted atom too: without `version`, as it was last.
   * This is the undo for changes that bypassed the editor (MCP tools).
   */
  async restore(name: string, version?: number): Promise<WriteOutcome<UpsertResult> & { from: AtomVersion }> {
    const from = versionToRestore(this.store.history(name), name, this.store.has(name), version);
    let result: UpsertResult;
    try {
      result = await this.store.upsert(draftOf(from));
    } catch (err) {
      if (err instanceof AtomError && err.code === 'dependencies_not_found') {
        throw new AtomError(err.code, `cannot restore ${name} v${from.version}: ${err.message} (restore the atoms it needs first)`);
      }
      throw err;
    }
    return { from, result, build: await this.buildAfter(changed(result)) };
  }

  async delete(name: string): Promise<WriteOutcome<Atom>> {
    const result = await this.store.delete(name);
    return { result, build: await this.buildAfter(true) };
  }

  rebuild(): Promise<BuildRecord> {
    return this.builder.rebuild();
  }

  /** Writes the whole database as the snapshot now and empties the journal (see compaction.ts). */
  compact(): Promise<void> {
    return this.store.compact();
  }

  /**
   * The build a write's change caused (the builder reacts to the store's announcement), for the
   * write's answer. A write that changed nothing announces nothing, and builds anyway, as a save
   * always has: saving an atom unchanged after fixing the bundle path brings a bundle.
   */
  private buildAfter(changedSomething: boolean): Promise<BuildRecord> {
    return changedSomething ? this.builder.caused() : this.builder.rebuild();
  }

  async close(): Promise<void> {
    // The build the last change asked for finishes before the store closes under it.
    await this.builder.idle();
    this.builder.dispose();
    await this.search.close();
    await this.store.close();
  }
}
