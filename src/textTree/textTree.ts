/**
 * The text tree: every atom as a file `<folder>/<name>.js` (default `atoms/`) in the workspace, the
 * form a team commits, reviews and merges in git. The store (sql.js, the journal, the vectors) stays
 * the fast index, the local history and the cache; the files and the store follow each other both
 * ways:
 *
 * - store -> text: every durable change the store announces (MCP, the editor, a restore, a batch, a
 *   database reloaded) writes or removes the atom's file, atomically (temp file + rename). The
 *   workspace's writes await `written()`, so an acknowledged write has its file.
 * - text -> store: a file changed, added or removed by anyone else (an editor, git checkout, pull,
 *   merge, rebase, stash, a patch) is imported through upsert_atom's validation, at open and while
 *   the workspace is open (the folder is watched; events are gathered for a moment, so the files of
 *   a branch switch are taken together, in one change, and dependencies between them resolve).
 *   A file that is not valid is not taken: the atom keeps its last good version and the file is
 *   reported (problems.ts) until it is fixed; the files that are valid without it are taken.
 *
 * Which side is newer is decided per atom (fileDecision.ts) by what was last written or imported (records.ts): that
 * repairs a process killed between the store's commit and the file's write, and keeps the server
 * from ever rewriting a file it imported (a file formatted differently from the server's own
 * output stays as it is, so a git checkout leaves `git status` clean) or a file someone changed
 * that is not imported yet.
 *
 * One step at a time (`queue`): a round reads the files and the store, writes files, and commits
 * one store change; the next round sees its result.
 *
 * The open's round (the reconcile) runs in the background when the store was opened from this
 * machine's `.atomic/` after a close that finished: it only finds what changed while nothing
 * watched, and a file whose size and mtime are as recorded is not even read. Reads answer from
 * the store meanwhile; the workspace's writes wait for it (`reconciled()`), so none can overwrite
 * a file changed outside. A fresh clone (no records), a crash (no `#closed`), or an empty folder
 * is reconciled before `open` resolves, so every atom is there before the first read.
 *
 * A cloned repository is hostile input. Only plain files are read: a regular file with one name,
 * of this user, of at most MAX_FILE_BYTES, checked on the descriptor that is read (never a link,
 * a hard link to a file elsewhere, a FIFO, a device, a large sparse file); anything else is
 * reported as not taken. The folder is read and written only while it is the real folder it was
 * (lstat, device and inode; `checkFolder`): a link put in its place is never followed, not even
 * by the watcher, and is reported.
 */
import { promises as fsp, lstatSync, mkdirSync, opendirSync, readdirSync, readlinkSync, watch, type Dir, type FSWatcher, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { parseAtomDocument, sameAtom } from '../atoms/atomDocument.js';
import { keepCodeNames } from '../atoms/calls.js';
import { AtomError } from '../atoms/errors.js';
import { MAX_CODE_BYTES, type Atom, type AtomDraft } from '../atoms/model.js';
import { planWrite } from '../atoms/writePlan.js';
import type { AtomStore } from '../store/atomStore.js';
import type { StoreChange } from '../store/reader.js';
import { removeStaleTempFiles, writeFileAtomic } from '../util/atomicFile.js';
import type { Disposable, Listener } from '../util/event.js';
import { resolveInsideFolder } from '../util/insideFolder.js';
import type { Logger } from '../util/log.js';
import { nextTurn } from '../util/turn.js';
import { readPlainFileSync, UnsafeFileError, unsafeReason } from '../util/safeFile.js';
import { decideFile, needsReading, type Cause } from './fileDecision.js';
import { atomFileName, atomFileText, hashText, MAX_FILE_BYTES, noteWrittenHash } from './format.js';
import { statKey, TextRecords } from './records.js';
import { TextProblems, type TextProblem } from './problems.js';

export const DEFAULT_ATOMS_FOLDER = 'atoms';
export const ATOMS_FOLDER_SETTING = 'The atoms folder (atomicCoding.atomsFolder, --atoms-folder)';

export interface TextTreeOptions {
  /** The folder of atom files, relative to the workspace folder (it must stay inside it); default `atoms`. */
  folder?: string;
  /** How long file events are gathered before they are imported together, in ms; default 150. */
  settleMs?: number;
  /**
   * Tests only (test/support/textTreeWriter.ts): called right before an atom's file is written, after
   * the store committed the change, so a crash test can kill the process exactly there.
   */
  beforeWrite?: (name: string) => void;
  /** Tests only: awaited before the open's round, so a test can hold the reconcile while it reads and writes. */
  beforeReconcile?: () => Promise<void>;
  /**
   * Awaited before the open's round when it runs in the background (after a clean close): the
   * workspace passes its search index's load, so that a start's first search, not this
   * comparison, has the event loop first. Writes still wait for the comparison.
   */
  backgroundAfter?: () => Promise<unknown>;
}

/** What the store must offer the text tree: reads, the change event, and one all-or-nothing change. */
export type TextTreeStore = Pick<AtomStore, 'workspaceDir' | 'atomicDir' | 'get' | 'all' | 'size' | 'onDidChange' | 'change'>;

/** What the rest of the program reads of the text tree (get_status, the CLI log, VS Code's Problems). */
export interface TextTreeView {
  /** The folder relative to the workspace, with `/` (`atoms`). */
  readonly folder: string;
  /** Its absolute path. */
  readonly folderPath: string;
  /** Atom files the tree knows (written or imported). */
  readonly files: number;
  /** Files not taken, with the reason, sorted by file. */
  problems(): TextProblem[];
  /** Fired with every problem after a round that changed any. */
  onDidChangeProblems(listener: Listener<readonly TextProblem[]>): Disposable;
  /** Resolves once the files of every change announced so far are written (or reported). */
  written(): Promise<void>;
  /** Resolves once the open's reconcile (files changed while nothing watched taken, missing files written) is done. */
  reconciled(): Promise<void>;
  /**
   * The atom's text in the layout its file has (a one-line `@requires a, b` stays one line): what the
   * atom editor shows, so a save changes only the lines edited. The canonical text without a file.
   */
  layoutText(atom: Atom): string;
  /**
   * The atom's document as a person sees it in `atoms/<name>.js`: the file itself when it holds this
   * version of the atom (whatever its layout), else the text the tree is about to write for it. What
   * lines are counted in (the source map, the checks' and the language features' positions).
   */
  documentText(atom: Atom): string;
  /**
   * Holds the atom's file out of the rounds until the returned disposable is disposed (by every
   * holder): its changes on disk are not imported and the store's changes are not written over it
   * meanwhile. On release one round takes the file as it is then: one version for many auto-saves.
   * A store change that came meanwhile makes the import warn as any file written over a server's
   * save does (that version stays in the history). A crash while held loses nothing: the file is on
   * disk, and the next open imports files changed while nothing watched.
   */
  hold(name: string): Disposable;
}

interface Put {
  draft: AtomDraft;
  hash: string;
  stat: string | undefined;
}

/** What a round's comparison found: files to import, atoms to delete, files to write and to remove. */
interface RoundFindings {
  puts: Map<string, Put>;
  deletes: Set<string>;
  writes: Atom[];
  unlinks: string[];
}

/** File writes in flight at once (a workspace written out for the first time has thousands). */
const PARALLEL_WRITES = 16;

/**
 * A round stats and reads its files on the event loop's thread: a few µs a call for an atom's
 * file, against ~130 µs through the thread pool, much of it the loop's own (promises, BigInt
 * stats). A large round (the open's, a checkout's) does so in slices of at most ROUND_SLICE_MS
 * with a turn between, so the loop keeps answering meanwhile. 10,000 files' lstat: 44-59 ms on
 * the loop, against 77-171 ms through the pool, 16 at a time (127-254 ms of CPU); 1,000 files
 * read: 16-24 ms against 45-103.
 */
const ROUND_SLICE_MS = 8;
/**
 * A round of at most this many files (a write's, or the events of a save) writes them on the
 * event loop's thread too (creating and renaming, which can wait on the file system's journal,
 * still go to the pool: atomicFile.ts's InlineFile); a larger one through the pool,
 * PARALLEL_WRITES files at a time.
 */
const INLINE_ROUND_FILES = 64;
/** A branch switch that keeps changing files is imported after this long at the latest. */
const MAX_SETTLE_MS = 2000;

export class TextTree implements TextTreeView {
  private readonly records: TextRecords;
  private readonly problemList: TextProblems;
  private readonly subscription: Disposable;
  private queue: Promise<void> = Promise.resolve();
  private watcher: FSWatcher | undefined;
  private watchedIno: number | undefined;
  /**
   * The folder as it was checked (lstat: a real folder, not a link): its device and inode. Before
   * the folder is read or written it must still be that folder, or a real folder that replaced it
   * at the same real path inside the workspace (a checkout that removed and recreated it); a link
   * put in its place is never followed (see checkFolder).
   */
  private folderId: { dev: number; ino: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private firstEventAt = 0;
  /** Names the store changed since the last store round (`all`: a reload, anything may have). */
  private readonly storeNames = new Set<string>();
  private storeAll = false;
  private storeRoundQueued = false;
  /** Names whose files changed since the last file round (`all`: rescan the folder). */
  private readonly fileNames = new Set<string>();
  private fileAll = false;
  /** Names held out of the rounds (hold()), by how many holders. */
  private readonly held = new Map<string, number>();
  /** Held names a round skipped, with its cause ('store' once any store change came for them). */
  private readonly heldWaiting = new Map<string, Cause>();
  /** Atoms this tree just imported: their store announcement needs no look at the file. */
  private readonly justImported = new Map<string, Atom>();
  private closed = false;
  private reconcile: Promise<void> = Promise.resolve();
  /**
   * The open's comparison runs in the background (the workspace was closed cleanly here): a close
   * may cut it short, since the next open compares every file again anyway. At 50,000 atoms it
   * takes seconds, and a stdio client kills a server that does not end within a few.
   */
  private openInBackground = false;

  private constructor(
    private readonly store: TextTreeStore,
    private readonly log: Logger,
    readonly folder: string,
    readonly folderPath: string,
    private readonly options: TextTreeOptions,
    folderStat: Stats,
  ) {
    this.folderId = { dev: folderStat.dev, ino: folderStat.ino };
    this.records = new TextRecords(join(store.atomicDir, 'text-tree'), folder);
    this.problemList = new TextProblems(log);
    this.subscription = store.onDidChange((change) => this.storeChanged(change));
  }

  /**
   * Opens the text tree of the store's workspace: checks the folder (inside the workspace, a
   * folder), creates it, watches it, then brings both sides together (writes the files of atoms
   * only the store has, imports files changed or added while nothing watched, deletes atoms whose
   * files were removed): in the background after a clean close (see the module's comment), else
   * before it resolves.
   */
  static async open(store: TextTreeStore, log: Logger, options: TextTreeOptions = {}): Promise<TextTree> {
    const wanted = options.folder || DEFAULT_ATOMS_FOLDER;
    let folderPath: string;
    let folderStat: Stats;
    try {
      // The real path (links resolved, refused when they lead out of the workspace), then the
      // folder itself as it is now: a real folder, not a link (lstat), whose identity is kept.
      folderPath = resolveInsideFolder(store.workspaceDir, wanted, ATOMS_FOLDER_SETTING);
      mkdirSync(folderPath, { recursive: true });
      folderStat = lstatSync(folderPath);
      if (!folderStat.isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (!code) throw new AtomError('storage', (err as Error).message); // resolveInsideFolder's refusal says it all
      const reason = code === 'EEXIST' || code === 'ENOTDIR' ? 'is a file, not a folder: move it away or choose another folder' : `cannot be created (${code}): choose a writable folder inside the workspace`;
      throw new AtomError('storage', `${ATOMS_FOLDER_SETTING} "${wanted}" ${reason}`);
    }
    const folder = relative(store.workspaceDir, folderPath).split(sep).join('/') || '.';
    const tree = new TextTree(store, log, folder, folderPath, options, folderStat);
    tree.watch();
    const background = tree.records.wasClosedCleanly && store.size > 0 && tree.hasAtomFiles();
    tree.openInBackground = background;
    tree.reconcile = tree.enqueue(async () => {
      if (background) await options.backgroundAfter?.().catch(() => {});
      await options.beforeReconcile?.();
      // One listing of the folder serves both: the litter of a killed writer, and the files to compare.
      const listing = tree.listFolder();
      const stale = removeStaleTempFiles(folderPath, listing);
      if (stale > 0) log.info(`text tree: removed ${stale} temp file(s) a killed process left in ${folder}/`);
      await tree.round('open', tree.everyName(listing));
      await tree.records.compact();
      log.info(`text tree: ${tree.records.size} atom files in ${folder}/${tree.problemList.size ? ` (${tree.problemList.size} not taken, see get_status)` : ''}`);
    });
    if (!background) await tree.reconcile;
    return tree;
  }

  /** Resolves once the open's reconcile is done (at once when `open` waited for it). */
  reconciled(): Promise<void> {
    return this.reconcile;
  }

  get files(): number {
    return this.records.size;
  }

  problems(): TextProblem[] {
    return this.problemList.all();
  }

  onDidChangeProblems(listener: Listener<readonly TextProblem[]>): Disposable {
    return this.problemList.onDidChange(listener);
  }

  hold(name: string): Disposable {
    this.held.set(name, (this.held.get(name) ?? 0) + 1);
    let released = false;
    return {
      dispose: () => {
        if (released) return;
        released = true;
        const holders = (this.held.get(name) ?? 1) - 1;
        if (holders > 0) {
          this.held.set(name, holders);
          return;
        }
        this.held.delete(name);
        const cause = this.heldWaiting.get(name);
        this.heldWaiting.delete(name);
        if (cause !== undefined && !this.closed) void this.enqueue(() => this.round(cause, [name]));
      },
    };
  }

  /** The names a round may look at now: held ones wait for their release (hold()). */
  private notHeld(cause: Cause, names: Iterable<string>): string[] {
    const out: string[] = [];
    for (const name of names) {
      if (cause === 'open' || !this.held.has(name)) out.push(name);
      else this.heldWaiting.set(name, cause === 'store' || this.heldWaiting.get(name) === 'store' ? 'store' : 'file');
    }
    return out;
  }

  /** Resolves once the files of every change announced so far are written (or reported). */
  written(): Promise<void> {
    return this.queue;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscription.dispose();
    this.watcher?.close();
    if (this.timer) clearTimeout(this.timer);
    await this.queue;
    await this.records.compact(true).catch((err) => this.log.warn(`text tree: ${(err as Error).message}`));
    this.records.close();
    this.problemList.dispose();
  }

  // ---- what starts a round ------------------------------------------------------------------

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step).catch((err) => this.log.error(`text tree: ${(err as Error).stack ?? err}`));
    this.queue = run;
    return run;
  }

  /** The store announced a change: its files follow in the next round (one round per batch). */
  private storeChanged(change: StoreChange): void {
    if (change.kind === 'reload') this.storeAll = true;
    else this.storeNames.add(change.atom.name);
    if (this.storeRoundQueued || this.closed) return;
    this.storeRoundQueued = true;
    void this.enqueue(async () => {
      this.storeRoundQueued = false;
      const names = this.storeAll ? this.everyName() : new Set(this.storeNames);
      this.storeAll = false;
      this.storeNames.clear();
      for (const name of names) {
        const imported = this.justImported.get(name);
        if (imported && imported === this.store.get(name)) names.delete(name);
      }
      this.justImported.clear();
      // A missing dependency may have just been created: look at the files not taken again.
      for (const name of this.problemNames()) names.add(name);
      await this.round('store', names);
    });
  }

  private watch(): void {
    try {
      // Only the real folder is watched: fs.watch would follow a link put in its place.
      const st = lstatSync(this.folderPath);
      if (!st.isDirectory()) return;
      this.watchedIno = st.ino;
      this.watcher = watch(this.folderPath, { persistent: false }, (_event, file) => {
        const name = typeof file === 'string' ? atomFileName(file) : undefined;
        if (name !== undefined) this.fileNames.add(name);
        else if (typeof file !== 'string') this.fileAll = true;
        else return; // temp files, other kinds of files
        this.fileEvent();
      });
      this.watcher.on('error', () => {
        this.fileAll = true;
        this.fileEvent();
      });
    } catch (err) {
      this.log.warn(`text tree: cannot watch ${this.folderPath} (${(err as Error).message}): files changed outside are taken at the next open`);
    }
  }

  /** Files changed: import them once the events have stopped for a moment (a branch switch comes as many). */
  private fileEvent(): void {
    if (this.closed) return;
    const now = Date.now();
    if (!this.timer) this.firstEventAt = now;
    else clearTimeout(this.timer);
    const wait = Math.min(this.options.settleMs ?? 150, Math.max(0, this.firstEventAt + MAX_SETTLE_MS - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.enqueue(async () => {
        const names = this.fileAll ? this.everyName() : new Set(this.fileNames);
        this.fileAll = false;
        this.fileNames.clear();
        for (const name of this.problemNames()) names.add(name);
        await this.round('file', names);
        this.rewatchIfMoved();
      });
    }, wait);
    this.timer.unref();
  }

  /** The folder was removed or replaced (a checkout of a branch without it): watch the new one. */
  private rewatchIfMoved(): void {
    let st: Stats | undefined;
    try {
      st = lstatSync(this.folderPath);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory() && st.ino === this.watchedIno) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedIno = undefined;
    if (!st) {
      try {
        // Created again only where the setting still leads, inside the workspace, with no link on the way.
        if (this.realFolderPath() !== this.folderPath) throw new Error('the path now leads elsewhere through a symbolic link');
        mkdirSync(this.folderPath, { recursive: true });
      } catch (err) {
        this.log.warn(`text tree: cannot create ${this.folderPath}: ${(err as Error).message}`);
        return;
      }
    }
    if (!this.checkFolder()) return; // a link or not a folder: reported, neither watched nor read
    this.watch();
    this.fileAll = true;
    this.fileEvent();
  }

  /** Every name either side knows: the store's atoms, the folder's files, the records, the problems. */
  private everyName(listing: readonly string[] = this.listFolder()): Set<string> {
    const names = new Set(this.store.all().map((a) => a.name));
    for (const file of listing) {
      const name = atomFileName(file);
      if (name !== undefined) names.add(name);
    }
    for (const name of this.records.names()) names.add(name);
    for (const name of this.problemNames()) names.add(name);
    return names;
  }

  /** The folder's file names; none when there is no folder (then every recorded file counts as removed). */
  private listFolder(): string[] {
    try {
      return readdirSync(this.folderPath);
    } catch {
      return [];
    }
  }

  /** Whether the folder has an atom file; stops at the first (a folder of 10,000 is not listed whole). */
  private hasAtomFiles(): boolean {
    let dir: Dir | undefined;
    try {
      dir = opendirSync(this.folderPath);
      // The entry's own type (a link is not followed): only a regular file counts.
      for (let entry = dir.readSync(); entry; entry = dir.readSync()) if (entry.isFile() && atomFileName(entry.name) !== undefined) return true;
      return false;
    } catch {
      return false;
    } finally {
      dir?.closeSync();
    }
  }

  private problemNames(): string[] {
    const names: string[] = [];
    for (const file of this.problemList.files()) {
      const name = atomFileName(file.slice(file.lastIndexOf('/') + 1));
      if (name !== undefined) names.push(name); // not the folder's own problem (`atoms/`)
    }
    return names;
  }

  // ---- the folder is still the folder -------------------------------------------------------

  /** The folder's problem is reported under this name (`atoms/`). */
  private get folderFile(): string {
    return `${this.folder}/`;
  }

  /** Where the setting leads now (links resolved), or undefined when it leads nowhere allowed. */
  private realFolderPath(): string | undefined {
    try {
      return resolveInsideFolder(this.store.workspaceDir, this.options.folder || DEFAULT_ATOMS_FOLDER, ATOMS_FOLDER_SETTING);
    } catch {
      return undefined;
    }
  }

  /**
   * Whether the folder may be read and written: it is still the real folder checked at open (lstat:
   * a folder, not a link, the same device and inode), or a real folder that replaced it where the
   * setting still leads inside the workspace (a checkout that removed and recreated it: taken as
   * the folder from then on). A missing folder is fine (nothing is there to follow). Anything else
   * (a symbolic link put in its place, a file) is logged and reported, and nothing is read or
   * written there until it is a real folder again.
   */
  private checkFolder(): boolean {
    let st: Stats;
    try {
      st = lstatSync(this.folderPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
      return this.folderRefused(`cannot be checked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (st.isSymbolicLink()) {
      let target = '';
      try {
        target = ` to ${readlinkSync(this.folderPath)}`;
      } catch {}
      return this.folderRefused(`was replaced by a symbolic link${target} while the workspace is open`);
    }
    if (!st.isDirectory()) return this.folderRefused('is no longer a folder');
    if (st.dev !== this.folderId?.dev || st.ino !== this.folderId.ino) {
      if (this.realFolderPath() !== this.folderPath) return this.folderRefused('now leads elsewhere through a symbolic link');
      this.folderId = { dev: st.dev, ino: st.ino };
    }
    if (this.problemList.has(this.folderFile)) {
      this.problemList.clear(this.folderFile);
      this.problemList.flush();
    }
    return true;
  }

  private folderRefused(what: string): false {
    const reason =
      `${this.folderFile} ${what}: the text tree neither reads nor writes there, and does not follow it ` +
      `(the store keeps every change). Put the real folder back and open the workspace again`;
    if (!this.problemList.has(this.folderFile)) this.log.error(`text tree: ${reason}`);
    this.problemList.set(this.folderFile, this.folderPath, reason);
    this.problemList.flush();
    return false;
  }

  // ---- a round ----------------------------------------------------------------------------

  private fileOf(name: string): string {
    return this.folder === '.' ? `${name}.js` : `${this.folder}/${name}.js`;
  }

  private pathOf(name: string): string {
    return join(this.folderPath, `${name}.js`);
  }

  /** Decides, per name, which side is newer, and brings the other side up to it. */
  private async round(cause: Cause, names: Iterable<string>): Promise<void> {
    if (this.closed && cause !== 'open') return;
    if (!this.checkFolder()) return; // reported; the files are compared again at the next open
    const puts = new Map<string, Put>();
    const deletes = new Set<string>();
    const writes: Atom[] = [];
    const unlinks: string[] = [];
    const list = this.notHeld(cause, names);
    const inline = list.length <= INLINE_ROUND_FILES;
    const found: RoundFindings = { puts, deletes, writes, unlinks };
    let sliceStarted = performance.now();
    for (const name of list) {
      if (this.closed && this.openInBackground) break; // see openInBackground
      if (performance.now() - sliceStarted >= ROUND_SLICE_MS) {
        await nextTurn();
        sliceStarted = performance.now();
        if (this.closed && this.openInBackground) break;
      }
      this.compareFile(name, cause, found);
    }
    if (deletes.size > 0 && deletes.size === this.store.size && !this.hasAtomFiles()) {
      // Every file gone at once, the folder empty or missing: far more often a copy of .atomic/
      // without the folder, or a folder removed by mistake, than a wish to delete every atom. The
      // files are written again; atoms are deleted through the server, or file by file.
      this.log.warn(
        `text tree: ${this.folder}/ has no atom files while the store has ${deletes.size} atoms: writing them again rather than deleting every atom ` +
          `(to delete atoms, remove their files while others remain, or use delete_atom)`,
      );
      for (const name of deletes) {
        this.records.delete(name);
        writes.push(this.store.get(name)!);
      }
      deletes.clear();
    }
    await this.writeFiles(writes, inline);
    await this.removeFiles(unlinks);
    if (puts.size > 0 || deletes.size > 0) await this.importFiles(puts, deletes);
    if (this.records.wantsCompaction) await this.records.compact();
    this.problemList.flush();
  }

  /** One file of a round against its record and the store's atom: what it finds goes to `found`. */
  private compareFile(name: string, cause: Cause, { puts, deletes, writes, unlinks }: RoundFindings): void {
    const file = this.fileOf(name);
    const path = this.pathOf(name);
    const record = this.records.get(name);
    let bytes: Buffer | undefined;
    let stat: string | undefined;
    try {
      // The stat first: a file as recorded (size, mtime, inode) is not read; one that changes
      // after the stat has a newer mtime, and is read at the next round. lstat: a link is never
      // followed. Only a plain file of a bounded size is read (not a link, a hard link to a file
      // elsewhere, a FIFO, a device, a large sparse file), and that is checked again on the
      // descriptor that is read (readPlainFileSync), so a file swapped after the lstat is refused too.
      const st = lstatSync(path, { bigint: true });
      const unsafe = unsafeReason(st) ?? (st.size > MAX_FILE_BYTES ? tooLarge(st.size) : undefined);
      if (unsafe) {
        this.problemList.set(file, path, this.refusedFile(name, unsafe));
        return;
      }
      stat = statKey(st);
      if (needsReading(name, record, stat)) bytes = readPlainFileSync(path, MAX_FILE_BYTES);
    } catch (err) {
      if (err instanceof UnsafeFileError) {
        this.problemList.set(file, path, this.refusedFile(name, err.reason));
        return;
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        this.problemList.set(file, path, `cannot be read (${code ?? (err as Error).message}): make it a readable file`);
        return;
      }
    }
    const atom = this.store.get(name);
    const decision = decideFile({ name, file, cause, stat, bytes, record, atom });
    if (decision.kind === 'problem') {
      this.problemList.set(file, path, decision.reason);
      return;
    }
    if ('record' in decision && decision.record) this.records.set(name, decision.record);
    if (decision.kind === 'none' || decision.kind === 'forget' || (decision.kind === 'write' && decision.clear)) this.problemList.clear(file);
    if (decision.kind === 'write') writes.push(atom!);
    else if (decision.kind === 'unlink') unlinks.push(name);
    else if (decision.kind === 'delete') deletes.add(name);
    else if (decision.kind === 'forget') this.records.delete(name);
    else if (decision.kind === 'import') {
      if (decision.warning) this.log.warn(decision.warning);
      puts.set(name, { draft: decision.draft, hash: decision.hash, stat });
    }
  }

  /** Why a file that is not a plain file of a bounded size was not read. */
  private refusedFile(name: string, what: string): string {
    return (
      `not read: it is ${what}. An atom file is read only when it is a regular file with one name, of this user, ` +
      `of at most ${MAX_FILE_BYTES} bytes (not a link, a hard link, a FIFO or a device): replace it with a plain file ` +
      `(${this.store.get(name) ? `the last good version of ${name} stays in the store and the bundle` : `${name} is not created until then`})`
    );
  }

  /** The file's current text when it is a plain readable file, else undefined. */
  private currentText(name: string): string | undefined {
    try {
      return readPlainFileSync(this.pathOf(name), MAX_FILE_BYTES).toString('utf8');
    } catch {
      return undefined;
    }
  }

  layoutText(atom: Atom): string {
    return atomFileText(atom, this.currentText(atom.name));
  }

  documentText(atom: Atom): string {
    const current = this.currentText(atom.name);
    if (current !== undefined) {
      try {
        const { draft } = parseAtomDocument(atom.name, current);
        if (sameAtom(atom, { ...draft, type: draft.type ?? atom.type })) return current;
      } catch {
        // not this atom's document (yet): the text about to be written
      }
    }
    return atomFileText(atom, current);
  }

  /** `inline`: through InlineFile (a round of a few files, see INLINE_ROUND_FILES). */
  private async writeFiles(atoms: Atom[], inline: boolean): Promise<void> {
    if (atoms.length === 0 || !this.checkFolder()) return; // the folder checked again right before its writes
    await forEachLimited(atoms, PARALLEL_WRITES, async (atom) => {
      const file = this.fileOf(atom.name);
      // The header keeps the layout its file has (only the parts that changed are written anew).
      const current = this.currentText(atom.name);
      const text = atomFileText(atom, current);
      try {
        this.options.beforeWrite?.(atom.name);
        // No fsync: the store is durable, and a file lost with the machine is written again at open.
        await writeFileAtomic(this.pathOf(atom.name), text, 0o644, { durable: false, inline });
      } catch (err) {
        this.problemList.set(
          file,
          this.pathOf(atom.name),
          `could not be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): the atom is saved in the store; its file is written at the next change or open`,
        );
        return;
      }
      // Without a file to take the layout from, the text written is the atom's own.
      const fileHash = hashText(text);
      const atomHash = current === undefined ? fileHash : hashText(atomFileText(atom));
      noteWrittenHash(atom, atomHash);
      this.records.set(atom.name, { file: fileHash, atom: atomHash });
      this.problemList.clear(file);
    });
  }

  private async removeFiles(names: string[]): Promise<void> {
    if (names.length === 0 || !this.checkFolder()) return;
    for (const name of names) {
      try {
        await fsp.unlink(this.pathOf(name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          this.problemList.set(this.fileOf(name), this.pathOf(name), `the atom was deleted, but its file could not be removed (${(err as NodeJS.ErrnoException).code}): remove it`);
          continue;
        }
      }
      this.records.delete(name);
      this.problemList.clear(this.fileOf(name));
    }
  }

  /**
   * Takes the changed files and the removed ones as one store change: those valid together
   * (validated against the atoms as they are in the write turn), the others reported.
   */
  private async importFiles(puts: Map<string, Put>, deletes: Set<string>): Promise<void> {
    let refused = new Map<string, string>();
    // First as one batch, each file validated once (by the store); only when that is refused is
    // each file validated on its own to find the ones to leave out (planWrite's `thorough`).
    let thorough = false;
    for (;;) {
      try {
        await this.importOnce(puts, deletes, thorough, (r) => (refused = r));
        break;
      } catch (err) {
        if (!thorough && err instanceof AtomError && err.code !== 'storage') {
          thorough = true;
          continue;
        }
        // A store that cannot write (a full disk, a read-only folder): nothing was taken, and every file says why.
        for (const name of [...puts.keys(), ...deletes]) refused.set(name, (err as Error).message);
        break;
      }
    }
    let taken = 0;
    for (const name of [...puts.keys(), ...deletes]) {
      const reason = refused.get(name);
      if (reason === undefined) {
        taken++;
        this.problemList.clear(this.fileOf(name));
      } else {
        this.problemList.set(this.fileOf(name), this.pathOf(name), reason);
      }
    }
    if (taken > 0) this.log.info(`text tree: took ${taken} file change${taken === 1 ? '' : 's'} from ${this.folder}/`);
  }

  /** One store change with the files planWrite's `import` keeps; throws the store's refusal, having written nothing. */
  private async importOnce(puts: Map<string, Put>, deletes: Set<string>, thorough: boolean, refusedBy: (refused: Map<string, string>) => void): Promise<void> {
    // A clone's first import plans hundreds of files in one task: their code is parsed before, in slices
    // (each file is parsed once either way).
    const release = await keepCodeNames([...puts.values()].map((p) => p.draft.code), nextTurn);
    try {
      await this.importPlanned(puts, deletes, thorough, refusedBy);
    } finally {
      release();
    }
  }

  private async importPlanned(puts: Map<string, Put>, deletes: Set<string>, thorough: boolean, refusedBy: (refused: Map<string, string>) => void): Promise<void> {
    await this.store.change(
      (atoms) => {
        const plan = planWrite(atoms, { mode: 'import', drafts: [...puts.values()].map((p) => p.draft), deletes: [...deletes], thorough });
        refusedBy(plan.refused);
        return { upserts: plan.upserts, deletes: plan.deletes };
      },
      (_plan, outcome) => {
        for (const r of outcome.upserts) {
          const put = puts.get(r.atom.name)!;
          this.records.set(r.atom.name, { file: put.hash, atom: hashText(atomFileText(r.atom)), stat: put.stat });
          this.justImported.set(r.atom.name, r.atom);
        }
        for (const atom of outcome.deleted) this.records.delete(atom.name);
        return outcome;
      },
    );
  }
}

/** A file too large to be an atom file, in words: refused before it is read. */
function tooLarge(size: bigint | number): string {
  return `${size} bytes, more than an atom file can be (at most ${MAX_FILE_BYTES} bytes; an atom's code is at most ${MAX_CODE_BYTES})`;
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
