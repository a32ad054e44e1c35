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
import { changed, planRename, planWrite } from './atoms/writePlan.js';
import { renameInCode } from './atoms/calls.js';
import { returnTypeWarning } from './atoms/returns.js';
import {
  emptyNotes,
  removedFields,
  signatureWarning,
  breakingChanges,
  bootInputsWarning,
  type AtomNotes,
  type WriteNotes,
} from './atoms/writeChecks.js';
import { Builder } from './bundle/builder.js';
import { AtomStore, type StoreOptions, type UpsertResult } from './store/atomStore.js';
import { machineMac } from './store/checkSeal.js';
import type { BuildRecord } from './store/builds.js';
import { readerOf, type AtomReader } from './store/reader.js';
import type { EmbeddingProvider } from './search/embeddings/provider.js';
import { UseLiteProvider } from './search/embeddings/useLite.js';
import { SearchIndex } from './search/searchIndex.js';
import { DEFAULT_ATOMS_FOLDER, TextTree, type TextTreeOptions, type TextTreeView } from './textTree/textTree.js';
import { noteWork } from './util/idleMemory.js';
import { silentLogger, type Logger } from './util/log.js';
import { Verification } from './verify/verification.js';

export interface WorkspaceOptions {
  log?: Logger;
  /** Where latest.js goes; default `.atomic/latest.js` in the workspace. */
  bundlePath?: string;
  store?: StoreOptions;
  /** Turns text into vectors for semantic_search; default: the shipped USE-lite model. */
  embeddings?: EmbeddingProvider;
  /** The atoms as files for git (textTree/): default `atoms/`; false: none (benchmarks, tests of the store alone). */
  textTree?: TextTreeOptions | false;
  /**
   * How long the first search after a start waits for the model's process before answering by words,
   * names and code (and saying so): SearchIndexOptions.coldQueryWaitMs. Unset: it waits for the model,
   * as the command line's server does (an agent's first semantic_search ranks by meaning); VS Code
   * sets it, where a person waits on Search Atoms and the first query comes seconds after a start.
   */
  coldQueryWaitMs?: number;
}

export interface WriteOutcome<T> {
  result: T;
  build: BuildRecord;
  /** What the answer adds after its first line (writeChecks.ts); empty for a restore. */
  notes: WriteNotes;
}

export class AtomWorkspace {
  /** The atoms, their history, builds and status: reads only. */
  readonly atoms: AtomReader;
  readonly builder: Builder;
  /** semantic_search: follows the store's changes; loads its index and model lazily. */
  readonly search: SearchIndex;
  /** The examples and test atoms, run after every change that reaches them (verify/). */
  readonly verification: Verification;
  private tree: TextTree | undefined;
  private readonly workNoted: { dispose(): void };

  private constructor(
    readonly dir: string,
    private readonly store: AtomStore,
    readonly log: Logger,
    bundlePath: string,
    /** The model behind semantic_search (get_status names it). */
    readonly embeddings: EmbeddingProvider,
    coldQueryWaitMs: number | undefined,
  ) {
    this.atoms = readerOf(store);
    // Builds after every change the store announces, a database changed by another program
    // (a git checkout) included.
    this.builder = new Builder(store, bundlePath, log);
    this.verification = new Verification(this.atoms, store.onDidChange, log);
    // A change (a tool's, an editor's, a file's) is work after which the heap may be given back (util/idleMemory.ts).
    this.workNoted = store.onDidChange(() => noteWork(log));
    // The user's cache of vectors (search/embeddings/vectorCache.ts): what this machine embedded
    // once, in any clone, is not embedded again. ATOMIC_EMBED_CACHE=0 turns it off.
    this.search = new SearchIndex(store, embeddings, {
      logger: log,
      vectorCache: process.env.ATOMIC_EMBED_CACHE !== '0',
      coldQueryWaitMs,
      // The full-text index between sessions: sealed with this machine's secret, so one committed to a repository is not read.
      lexicalSnapshot: { file: join(store.atomicDir, 'fulltext.bin'), seal: (parts) => machineMac('full-text snapshot', parts) },
      // The vector index between sessions, written at close: sealed the same way, for the same reason.
      vectorSnapshot: { file: join(store.atomicDir, 'vectors.idx'), seal: (parts) => machineMac('vector snapshot', parts) },
    });
  }

  static async open(dir: string, options: WorkspaceOptions = {}): Promise<AtomWorkspace> {
    const root = resolve(dir);
    const log = options.log ?? silentLogger;
    const store = await AtomStore.open(root, { log, ...options.store });
    const bundlePath = options.bundlePath ? resolve(root, options.bundlePath) : join(store.atomicDir, 'latest.js');
    const workspace = new AtomWorkspace(root, store, log, bundlePath, options.embeddings ?? new UseLiteProvider(), options.coldQueryWaitMs);
    // The open sorted the atoms to check their graph: the boot atom and the bundle's layout start
    // from that order (changes from here on reach both through the store's announcements).
    const order = store.takeOpenOrder();
    if (order) workspace.builder.startFrom(order);
    if (options.textTree !== false && !store.readOnly) {
      workspace.builder.mapSources = Builder.folderSources(resolve(root, options.textTree?.folder ?? DEFAULT_ATOMS_FOLDER), () => undefined);
      try {
        // A fresh clone's files are imported before anyone reads; a store opened from this
        // machine's .atomic/ answers at once, its files compared in the background (writes wait).
        // After a clean close its files are compared in the background, once search has loaded:
        // at 10,000 atoms the comparison's ~0.25 s on the loop had delayed a start's first search.
        workspace.tree = await TextTree.open(store, log, { backgroundAfter: () => workspace.search.loaded(), ...options.textTree });
        // latest.js.map points at the atoms' files, line for line.
        // The text each file has (or is about to have: the map may be written before the file) in its layout.
        const tree = workspace.tree;
        workspace.builder.mapSources = Builder.folderSources(tree.folderPath, (atom) => tree.documentText(atom));
      } catch (err) {
        await workspace.close();
        throw err;
      }
    }
    if (store.size > 0 && !workspace.builder.hasWholeBundle()) {
      await workspace.builder.rebuild();
      await workspace.builder.mapWritten(); // nobody waits on a write here: the bundle is whole at once
    }
    // In the background once the workspace is open (a search waits for it, the first answer does
    // not): started before the text tree's open, its slices took turns from it, 0.8 s at 50,000 atoms.
    // (A text tree comparing in the background has started it already: it waits for it.)
    void workspace.search.open().catch(() => {});
    // Nothing has run the checks of this open yet: they run in the background (a write's answer waits for its own).
    workspace.verification.checkAll();
    return workspace;
  }

  /** The atoms as files (`atoms/<name>.js`), and the files not taken; undefined when off or read-only. */
  get textTree(): TextTreeView | undefined {
    return this.tree;
  }

  /** Fired after every durable change (see AtomStore.onDidChange). */
  get onDidChange() {
    return this.store.onDidChange;
  }

  /**
   * The atom the bundle boots (bundler.ts's rule, BOOT_RULE), or null when there is no core
   * atom: the builder's, kept until the order or an atom's type changes, so asking is cheap.
   */
  bootAtom(): string | null {
    return this.builder.bootAtom();
  }

  /**
   * Creates or updates an atom. The atoms its code calls are added to its dependencies; a new
   * atom is linked to the atoms whose code already called it; all in one change (writeChecks.ts).
   */
  async upsert(draft: AtomDraft): Promise<WriteOutcome<UpsertResult>> {
    const { results, notes, changedSomething } = await this.save([draft]);
    return { result: results[0]!, notes, build: await this.buildAfter(changedSomething, notes, [results[0]!.atom.name]) };
  }

  /** Creates or updates several atoms together, all or nothing, as `upsert` does one. */
  async upsertMany(drafts: AtomDraft[]): Promise<WriteOutcome<UpsertResult[]>> {
    const { results, notes, changedSomething } = await this.save(drafts);
    return { result: results, notes, build: await this.buildAfter(changedSomething, notes, results.map((r) => r.atom.name)) };
  }

  /**
   * Every write waits for the text tree's open reconcile, so it can neither overwrite a file
   * changed while nothing watched nor be overwritten by that file's import right after.
   */
  private async writable(): Promise<void> {
    await this.tree?.reconciled();
  }

  private async save(drafts: AtomDraft[]): Promise<{ results: UpsertResult[]; notes: WriteNotes; changedSomething: boolean }> {
    await this.writable();
    return this.store.change(
      (atoms) => ({ ...planWrite(atoms, { mode: 'save', drafts }), was: this.bootAtom() }),
      (plan, outcome) => {
        const results = outcome.upserts.slice(0, drafts.length);
        // Callers changed in the same write are being fixed: only the others are named.
        const names = new Set(outcome.upserts.map((u) => u.atom.name));
        const notes = emptyNotes();
        results.forEach((r, i) => {
          const breaking = r.previous && changed(r) ? breakingChanges(r.previous, r.atom) : [];
          const n: AtomNotes = {
            dependenciesAdded: plan.added[i]!,
            removed: r.previous && changed(r) ? removedFields(r.previous, r.atom) : [],
            signatureWarning: signatureWarning(r.atom.code, r.atom.inputs),
            returnWarning: changed(r) ? returnTypeWarning(r.atom.code, r.atom.outputs) : undefined,
            ...(breaking.length > 0 ? { breaking: { changes: breaking, callers: this.store.dependents(r.atom.name).filter((c) => !names.has(c)) } } : {}),
          };
          if (n.dependenciesAdded.length > 0 || n.removed.length > 0 || n.signatureWarning || n.returnWarning || n.breaking?.callers.length) notes.atoms.set(r.atom.name, n);
        });
        notes.linked = plan.linked;
        notes.notLinked = plan.notLinked;
        this.noteBoot(notes, plan.was);
        return { results, notes, changedSomething: outcome.upserts.some(changed) };
      },
    );
  }

  /**
   * Saves an old version of an atom again, as a new version, with the usual validation (its
   * dependencies must exist). Brings back a deleted atom too: without `version`, as it was last.
   * This is the undo for changes that bypassed the editor (MCP tools).
   */
  async restore(name: string, version?: number): Promise<WriteOutcome<UpsertResult> & { from: AtomVersion; renamedTo?: string }> {
    await this.writable();
    const from = versionToRestore(this.store.history(name), name, this.store.has(name), version);
    const renamedTo = this.renamedTo(name);
    let saved: Awaited<ReturnType<AtomWorkspace['save']>>;
    try {
      // As an upsert: atoms whose code calls it are linked to it again (the answer's notes say so).
      saved = await this.save([draftOf(from)]);
    } catch (err) {
      if (err instanceof AtomError && err.code === 'dependencies_not_found') {
        throw new AtomError(err.code, `cannot restore ${name} v${from.version}: ${err.message} (restore the atoms it needs first)`);
      }
      throw err;
    }
    return { from, renamedTo, result: saved.results[0]!, notes: saved.notes, build: await this.buildAfter(saved.changedSomething, saved.notes, [name]) };
  }

  /**
   * The atom that a deleted `name` was renamed to, if that atom still exists (undefined otherwise, or
   * while `name` is an atom). The store keeps no rename record: a rename deletes the old name and
   * creates the new one in one change, so the new atom was created when the old one's deletion marker
   * was written, and its first version is the old one's last code with the name rewritten.
   */
  renamedTo(name: string): string | undefined {
    if (this.store.has(name)) return undefined;
    const last = this.store.history(name)[0];
    if (!last?.deleted) return undefined;
    const at = Date.parse(last.updated_at);
    for (const atom of this.store.all()) {
      if (!(Math.abs(Date.parse(atom.created_at) - at) <= RENAME_WINDOW_MS)) continue;
      const first = this.store.history(atom.name).at(-1);
      try {
        if (first && renameInCode(first.code, atom.name, name, true) === last.code) return atom.name;
      } catch {}
    }
    return undefined;
  }

  /**
   * Deletes an atom no other atom uses: refused while one declares it as a dependency, or while
   * one's code calls it (declared or not), so the bundle never calls a missing function.
   */
  async delete(name: string): Promise<WriteOutcome<Atom>> {
    await this.writable();
    const { atom, notes, unlinked } = await this.store.change(
      (atoms) => ({ ...planWrite(atoms, { mode: 'save', drafts: [], deletes: [name] }), was: this.bootAtom() }),
      (plan, outcome) => {
        const notes = emptyNotes();
        this.noteBoot(notes, plan.was);
        // Test atoms that called it no longer declare it (writePlan.ts): their checks say what broke.
        return { atom: outcome.deleted[0]!, notes, unlinked: outcome.upserts.map((u) => u.atom.name) };
      },
    );
    return { result: atom, notes, build: await this.buildAfter(true, notes, [name, ...unlinked]) };
  }

  /**
   * Renames an atom, all or nothing: the atom under its new name (its function renamed, and its
   * calls to itself), every atom whose code calls it rewritten to call the new name and
   * depending on it instead, and the old name deleted (its history stays under the old name),
   * in one journal entry. Refused, changing nothing, when the new name is taken or not a name,
   * or when a rewritten atom would be refused (over 2 KB with the longer name, or declaring the
   * new name itself).
   */
  async rename(
    name: string,
    newName: string,
    options: { rewriteDescriptions?: boolean } = {},
  ): Promise<WriteOutcome<{ atom: Atom; from: Atom; callers: string[]; descriptions: string[] }>> {
    await this.writable();
    const { value, notes } = await this.store.change(
      (atoms) => ({ ...planRename(atoms, name, newName, options), was: this.bootAtom() }),
      (plan, outcome) => {
        const notes = emptyNotes();
        this.noteBoot(notes, plan.was);
        return { value: { atom: outcome.upserts[0]!.atom, from: plan.from, callers: plan.callers, descriptions: plan.descriptions }, notes };
      },
    );
    return { result: value, notes, build: await this.buildAfter(true, notes, [value.atom.name, ...value.callers]) };
  }

  /** Adds the Boot line when the change moved the boot atom (it is worked out again after it). */
  private noteBoot(notes: WriteNotes, was: string | null): void {
    const now = this.bootAtom();
    if (now !== was) notes.boot = { now, was };
    // Said at every write while it holds: the bundle would call it with no arguments on load.
    const warning = bootInputsWarning(now === null ? undefined : this.store.get(now));
    if (warning) notes.bootWarning = warning;
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
  private async buildAfter(changedSomething: boolean, notes?: WriteNotes, names: readonly string[] = []): Promise<BuildRecord> {
    const build = changedSomething ? this.builder.caused() : this.builder.rebuild();
    // An acknowledged write has its file (the text tree follows the same announcement).
    await this.tree?.written();
    // The examples and tests the change touched, run before the answer: it says how they went.
    if (notes && changedSomething && names.length > 0) {
      await this.verification.settle();
      const checks = this.verification.touchedBy(names);
      if (checks.length > 0) notes.checks = checks;
    }
    return build;
  }

  async close(): Promise<void> {
    // The text tree's round in progress finishes (files changed after it are taken at the next
    // open); told at once, a comparison in the background stops where it is.
    const tree = this.tree?.close();
    // Search's background work (the full-text build, embeddings) stops rather than taking turns
    // from what must finish; the next open reconciles it with the store anyway.
    await this.search.close();
    await tree;
    // The build the last change asked for finishes before the store closes under it.
    await this.builder.idle();
    this.builder.dispose();
    this.verification.dispose();
    this.workNoted.dispose();
    await this.store.close();
  }
}

/** How far apart a rename's deletion marker and its new atom's first version may be stamped (one change, a few ms). */
const RENAME_WINDOW_MS = 5_000;
