/**
 * Rebuilds `latest.js` after every change and records each build. A failed build keeps the
 * previous bundle in place and says why; a bundle whose atoms call a deleted atom is a failed
 * build (missingCalls.ts), not a success. Rebuilds requested while one runs are coalesced.
 *
 * The build hangs off the store's change event: every durable change (a write through the
 * workspace, or a database reloaded after another program changed it) asks for one, whoever made
 * it. A writer that wants the result awaits `caused()`.
 *
 * The output path comes from the workspace's settings, that is from whoever wrote the repository,
 * so it is checked before every write and read: it must lead (links resolved) inside the workspace
 * folder, and a file already there is only replaced when it is a bundle (it starts with the
 * bundle's header). Nothing else is ever written, or handed out as the bundle.
 */
import { closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, relative, sep } from 'node:path';
import type { AtomStore } from '../store/atomStore.js';
import type { BuildRecord } from '../store/builds.js';
import { removeStaleTempFilesOf, replaceFile, type OpenFile } from '../util/atomicFile.js';
import { Emitter, type Disposable } from '../util/event.js';
import { resolveInsideFolder } from '../util/insideFolder.js';
import type { Logger } from '../util/log.js';
import { bootAtom } from '../atoms/boot.js';
import { isProgramAtom, type Atom } from '../atoms/model.js';
import { BundleError, IncrementalBundler, prologueBytes, type AtomLookup, type BundlePlan } from './bundler.js';
import { MissingCallCheck, missingCallsMessage } from './missingCalls.js';
import { SourceMapEncoder, sourceMappingLine, type SourceMapSources } from './sourceMap.js';

/** What the builder needs of the store: the atoms, their changes, and the build records. */
export type BuildSource = Pick<AtomStore, 'workspaceDir' | 'all' | 'get' | 'size' | 'countByType' | 'onDidChange' | 'recordBuild' | 'deletedAtoms'>;

/**
 * The atoms of the program (latest.js): every atom but test atoms, which the checks run and no build
 * bundles. With no test atom in the workspace, the store itself (no copy of its list).
 */
function programOf(store: BuildSource): AtomLookup {
  return {
    get size() {
      return store.size - store.countByType().test;
    },
    get: (name) => {
      const atom = store.get(name);
      return atom && isProgramAtom(atom) ? atom : undefined;
    },
    all: () => (store.countByType().test === 0 ? store.all() : store.all().filter(isProgramAtom)),
  };
}

export class Builder {
  /** The build in progress (its answer and `onDidBuild` come at its end). */
  private running: Promise<void> | undefined;
  /** The map of the build announced last, not written yet: a later build replaces it (see `mapWritten`). */
  private pendingMap: (() => Promise<void>) | undefined;
  private mapTimer: ReturnType<typeof setTimeout> | undefined;
  /** The map being written, if any (maps are written one at a time). */
  private mapping: Promise<void> = Promise.resolve();
  /** What maps are written through: their own, so a build's bundle never waits for a map. */
  private mapBuffer: Buffer | undefined;
  private queued: Promise<BuildRecord> | undefined;
  /** The build the latest change asked for; it sees that change and every one before it. */
  private lastCaused: Promise<BuildRecord> | undefined;
  /** A build asked for by changes of this turn, not started yet. */
  private scheduled = false;
  private readonly built = new Emitter<BuildRecord>();
  /** Told of every change the store announces (the subscription below). */
  private readonly bundler = new IncrementalBundler(true);
  private readonly missingCalls = new MissingCallCheck();
  /** Names of deleted atoms (some may live again), kept from the change events; undefined: ask the store. */
  private deleted: Set<string> | undefined;
  private readonly subscription: Disposable;
  /** Replaced bundles being unlinked in the background (see writeFileAtomic's freeOldLater). */
  private readonly freeing = new Set<Promise<void>>();
  /** The output path whose temp files left by a killed process were removed. */
  private swept: string | undefined;
  /**
   * The bundle this builder wrote last, open: the next build copies the chunks of the atoms that
   * did not change from it (whatever has become of its name since), instead of keeping the
   * bundle's bytes in memory. `stat` is how it was left, so a change by someone else is seen.
   */
  private last: WrittenFile | undefined;
  /** What builds write through (one at a time), kept: buffers per build were garbage awaiting a full GC. */
  private buffers: [Buffer, Buffer] | undefined;

  /** Fired after every build, successful or not. */
  readonly onDidBuild = this.built.event;

  constructor(
    private readonly store: BuildSource,
    private bundlePath: string,
    private readonly log: Logger,
  ) {
    // Editing code keeps the order; adding or deleting an atom updates it in place; only a
    // changed dependency list (or a reload) sorts again.
    this.subscription = store.onDidChange((e) => {
      if (e.kind === 'reload') {
        this.bundler.invalidateOrder();
        this.deleted = undefined;
      } else if (e.kind === 'delete') {
        if (isProgramAtom(e.atom)) this.bundler.noteRemoved(e.atom.name);
        this.deleted?.add(e.atom.name);
      }
      // A test atom is no part of the bundle: becoming one removes it, ceasing to be one adds it.
      else if (!isProgramAtom(e.atom)) {
        if (!e.previous || !isProgramAtom(e.previous)) return;
        this.bundler.noteRemoved(e.atom.name);
      } else if (!e.previous || !isProgramAtom(e.previous)) this.bundler.noteAdded(e.atom);
      else if (e.previous.dependencies.join() !== e.atom.dependencies.join()) this.bundler.invalidateOrder();
      else this.bundler.noteChanged(e.atom.name, e.previous.type !== e.atom.type);
      this.changed();
    });
  }

  /**
   * A change was announced: build once the announcements of this turn are done (a batch of
   * atoms announces each; they share one build, which starts after the bundler has heard them all).
   */
  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.lastCaused = Promise.resolve().then(() => {
      this.scheduled = false;
      return this.rebuild();
    });
  }

  /**
   * The build caused by the latest change (it includes that change and every earlier one), or,
   * when no change has asked for one, a new build.
   */
  caused(): Promise<BuildRecord> {
    return this.lastCaused ?? this.rebuild();
  }

  /**
   * The atom the bundle boots (the boot rule: atoms/boot.ts), from the order the bundler keeps for
   * the next build (IncrementalBundler.entryPoint, kept until the order or a type changes): the
   * same order the bundle's Boot line is read from, so get_status, the preview and latest.js name
   * the same atom.
   */
  bootAtom(): string | null {
    // No core atom: nothing boots, and no walk of an order without one (countByType is a count kept).
    if (this.store.countByType().core === 0) return null;
    try {
      return this.bundler.entryPoint(programOf(this.store));
    } catch (err) {
      // Atoms on a cycle (a database edited by hand) cannot be bundled: the rule over the others.
      if (err instanceof BundleError) return bootAtom(this.store.all());
      throw err;
    }
  }

  /** The atoms' dependency order, sorted by someone already (the store's open): see IncrementalBundler.startFrom. */
  startFrom(order: readonly string[]): void {
    this.bundler.startFrom(order);
  }

  /** Resolves once no build is asked for, running or queued, and the bundles they replaced are gone. */
  async idle(): Promise<void> {
    for (;;) {
      const pending = this.scheduled ? this.lastCaused : (this.queued ?? this.running);
      if (!pending) break;
      await pending;
    }
    await this.mapWritten();
    await Promise.all(this.freeing);
  }

  /**
   * Where the bundle is written: the configured path with its links resolved, checked again on
   * every call. undefined when the configured path leads outside the workspace folder (then
   * nothing is written or read; `checkOutputPath()` says why).
   */
  get outputPath(): string | undefined {
    try {
      return this.checkOutputPath();
    } catch {
      return undefined;
    }
  }

  /**
   * Takes a new output path; the next build writes there. A path outside the workspace folder
   * is kept too, so that every build (and get_status) says why nothing is written, until the
   * setting is corrected: call `checkOutputPath()` to tell the user at once.
   */
  setOutputPath(path: string): void {
    this.bundlePath = path;
  }

  /**
   * The real path the bundle goes to, or an Error saying that the configured path leads outside
   * the workspace folder and how to fix it.
   */
  checkOutputPath(): string {
    return resolveInsideFolder(this.store.workspaceDir, this.bundlePath, BUNDLE_SETTING);
  }

  /**
   * Whether latest.js exists, is a bundle and ends as every bundle ends. It is written without
   * fsync, so after a power loss it may be empty or cut short; opening the workspace then rebuilds it.
   */
  hasWholeBundle(): boolean {
    try {
      const path = this.checkOutputPath();
      const fd = openSync(path, 'r');
      try {
        const stat = fstatSync(fd);
        const size = stat.size;
        if (!startsAsBundle(fd, size)) return false;
        // A bundle written before maps (no map line) is built again, so that it gets its map.
        const end = BUNDLE_END + sourceMappingLine(basename(path) + '.map');
        const tail = Buffer.alloc(Math.min(size, Buffer.byteLength(end)));
        readSync(fd, tail, 0, tail.length, size - tail.length);
        if (tail.toString('utf8') !== end) return false;
        // The map is written after the bundle (`mapWritten`): one older than the bundle was not (a
        // crash in between), and is written again with it.
        const map = statSync(path + '.map', { throwIfNoEntry: false });
        return map !== undefined && map.mtimeMs >= stat.mtimeMs;
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  /**
   * The text of the bundle at the output path, for the `atoms://bundle` resource and the preview.
   * Never anything but a bundle: a path outside the workspace folder, or a file there that does
   * not start with the bundle's header, gives a `BundleUnavailable` that says why and what to do.
   */
  readBundle(): string {
    let path: string;
    try {
      path = this.checkOutputPath();
    } catch (err) {
      throw new BundleUnavailable((err as Error).message);
    }
    let text: string;
    try {
      const fd = openSync(path, 'r');
      try {
        if (!startsAsBundle(fd, fstatSync(fd).size)) throw new BundleUnavailable(notABundle(path, 'read'));
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if (err instanceof BundleUnavailable) throw err;
      throw new BundleUnavailable(NO_BUNDLE_YET);
    }
    // Checked again on the text itself: the file may have been replaced between the two reads.
    if (!text.startsWith(BUNDLE_HEADER)) {
      throw new BundleUnavailable(BUNDLE_HEADER.startsWith(text) ? NO_BUNDLE_YET : notABundle(path, 'read'));
    }
    return text;
  }

  /**
   * Builds from the store's current atoms. Calls made while a build runs share one follow-up
   * build, which sees every change made before it started. Resolves with the build's record once
   * latest.js is written and the build recorded (`onDidBuild` fires then too); its source map is
   * written once builds pause (MAP_DELAY_MS) or someone asks for it (`mapWritten()`, `idle()`), so
   * writes in a row never wait for maps no one reads.
   */
  rebuild(): Promise<BuildRecord> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    this.queued = this.running.then(() => {
      this.queued = undefined;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<BuildRecord> {
    let answer!: (record: BuildRecord) => void;
    let fail!: (err: unknown) => void;
    const answered = new Promise<BuildRecord>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    });
    // A build that throws before it answers (it records its own failures) fails its callers.
    const run = this.buildOnce(answer)
      .catch(fail)
      .finally(() => {
        if (this.running === run) this.running = undefined;
      });
    this.running = run;
    return answered;
  }

  /** One build: its event and `answer` once the bundle is written and recorded; its map later (`mapWritten`). */
  private async buildOnce(answer: (record: BuildRecord) => void): Promise<void> {
    const started = performance.now();
    const program = programOf(this.store);
    let record: BuildRecord;
    // How a successful build's order differs from the one handed out before, when known (BundlePlan.orderChange).
    let shift: BundlePlan['orderChange'];
    let target: string | undefined;
    /** The source map of the bundle written, to write once the build has answered. */
    let writeMap: (() => Promise<void>) | undefined;
    try {
      // Before bundling: a refused path writes nothing and says so, whatever the atoms are.
      target = this.checkOutputPath();
      refuseToReplaceNonBundle(target);
      // The bundle written last is copied from only as this builder left it.
      if (this.last && !(await unchanged(this.last))) this.forgetLast();
      let bundle = this.bundler.bundle(program);
      // Before writing: a bundle calling a deleted atom is not a success (missingCalls.ts).
      let live: Set<string> | undefined;
      // The atoms' list only when some atom was deleted: at 50,000 atoms a copy of it was ~2 ms of every build.
      const missing = this.missingCalls.find(() => program.all(), this.deletedNames(), (name) => (live ??= new Set(bundle.order)).has(name));
      if (missing.length > 0) throw new Error(missingCallsMessage(missing));
      // The bundle's last line names its map (an addition after the contract's last line, `})();`).
      const mapPath = `${target}.map`;
      bundle.parts.push({ kind: 'bytes', bytes: Buffer.from(sourceMappingLine(basename(mapPath))) });
      mkdirSync(dirname(target), { recursive: true });
      if (this.swept !== target) {
        removeStaleTempFilesOf(target);
        this.swept = target;
      }
      let written: OpenFile;
      try {
        written = await this.write(target, bundle);
      } catch (err) {
        if (!(err instanceof BundleShorter)) throw err;
        // Cut short after the check above (someone truncated it): every atom is encoded again.
        this.forgetLast();
        bundle = this.bundler.bundle(program);
        written = await this.write(target, bundle);
      }
      // The bundle just written is the one to copy from next, known by how it was left; should
      // that not be known, the next build encodes every atom rather than copy from the wrong file.
      const stat = await written.stat().catch(() => undefined);
      const plan = bundle;
      writeMap = () => this.writeMap(mapPath, plan);
      const previous = this.last;
      if (stat) {
        this.last = { handle: written, stat };
        this.bundler.written(bundle);
      } else {
        void written.close().catch(() => {});
        this.last = undefined;
        this.bundler.forgetWritten();
      }
      void previous?.handle.close().catch(() => {});
      shift = bundle.orderChange;
      record = {
        status: 'success',
        bundle_path: target,
        atom_count: bundle.order.length,
        order: bundle.order,
        error_message: null,
        duration_ms: round(performance.now() - started),
        created_at: new Date().toISOString(),
      };
    } catch (err) {
      record = {
        status: 'error',
        bundle_path: target ?? this.bundlePath,
        atom_count: program.size,
        order: [],
        error_message:
          target === undefined || err instanceof BundleRefused
            ? `build refused, nothing was written: ${(err as Error).message}`
            : `build failed, the previous latest.js is kept: ${(err as Error).message}`,
        duration_ms: round(performance.now() - started),
        created_at: new Date().toISOString(),
      };
      this.log.error(record.error_message!);
    }
    try {
      record = await this.store.recordBuild(record, shift);
    } catch (err) {
      this.log.warn(`build: could not record the build: ${(err as Error).message}`);
    }
    // Rewriting the map is a large part of a build once the workspace is large (every atom's lines:
    // ~3 ms at 1,000 atoms, ~75 ms at 50,000): not on the write's path. A later build's map replaces
    // this one; whoever reads the map waits for it (`mapWritten`).
    this.pendingMap = writeMap;
    clearTimeout(this.mapTimer);
    if (writeMap) {
      this.mapTimer = setTimeout(() => void this.mapWritten(), MAP_DELAY_MS);
      this.mapTimer.unref?.();
    }
    this.built.fire(record);
    answer(record);
  }

  /**
   * Resolves once latest.js.map goes with the bundle of the last build announced (`onDidBuild`),
   * writing it now if it is still to be written. Readers of the map wait for this.
   */
  mapWritten(): Promise<void> {
    const write = this.pendingMap;
    if (write) {
      this.pendingMap = undefined;
      clearTimeout(this.mapTimer);
      this.mapping = this.mapping.then(write);
    }
    return this.mapping;
  }

  /**
   * Writes `plan` as the bundle at `target`, atomically. Replaced atomically but not fsynced:
   * latest.js is derived from the durable store, and flushing ~10 MB (at 10,000 atoms) to disk on
   * every change cost more than the change. A bundle cut short by a power loss is found and
   * rebuilt when the workspace opens. The old bundle is freed after the answer, not in the rename
   * (~25 ms at 50,000 atoms). A bundle of up to a few MiB is written inline (atomicFile.ts's
   * InlineFile): its calls then take less than the thread pool's round trips did.
   */
  private write(target: string, plan: BundlePlan): Promise<OpenFile> {
    const from = this.last?.handle;
    // As large as the bundle (the last one, or about 1 KiB an atom), within 64 KiB..1 MiB: a small
    // workspace keeps little.
    const expected = this.last?.stat.size ?? this.store.size * 1024;
    const size = Math.min(WRITE_BUFFER_BYTES, Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(expected || 1))));
    if (!this.buffers || this.buffers[0].length < size) this.buffers = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
    const buffers = this.buffers;
    // A small bundle's pages are freed in the rename faster than a link and an unlink would take.
    const small = expected <= INLINE_BUNDLE_BYTES;
    return replaceFile(target, (out) => writePlan(out, plan, from, buffers), 0o644, {
      durable: false,
      inline: small,
      freeOldLater: small ? undefined : (freed) => this.track(freed),
    });
  }

  /**
   * Where the map's sources are: set by the workspace (the text tree's folder, else the atom editor's
   * `atom:` documents, embedded). Called with the map's path.
   */
  mapSources: (mapPath: string) => SourceMapSources = () => ({ prefix: 'atom:/', embed: true });

  /**
   * Sources under `folder` (the text tree's), relative to the map; `fileText` gives an atom's file text
   * as a person sees it (the file, or what the text tree is about to write there), even before it is written.
   */
  static folderSources(folder: string, fileText: (atom: Atom) => string | undefined): (mapPath: string) => SourceMapSources {
    return (mapPath) => {
      const base = relative(dirname(mapPath), folder).split(sep).join('/');
      return { prefix: base ? `${base}/` : '', embed: false, fileText };
    };
  }

  /**
   * latest.js.map next to latest.js (sourceMap.ts). Not fatal: a map that cannot be written is logged,
   * and a file there that is not a source map is left alone.
   */
  private async writeMap(mapPath: string, plan: BundlePlan): Promise<void> {
    try {
      if (existsSync(mapPath)) {
        const fd = openSync(mapPath, 'r');
        const head = Buffer.alloc(12);
        try {
          readSync(fd, head, 0, 12, 0);
        } finally {
          closeSync(fd);
        }
        if (!head.toString('utf8').startsWith('{"version":3')) {
          this.log.warn(`build: ${mapPath} is not a source map this builder wrote; it is left alone`);
          return;
        }
      }
      const firstLine = prologueBytes(plan).reduce((lines, bytes) => lines + countNewlines(bytes), 0);
      const encoder = new SourceMapEncoder(plan.atoms, firstLine, this.mapSources(mapPath), basename(mapPath).replace(/\.map$/, ''));
      // Through a buffer of its own, 64 KiB at a time: the map is never whole in memory.
      const buffer = (this.mapBuffer ??= Buffer.allocUnsafeSlow(64 * 1024));
      const written = await replaceFile(
        mapPath,
        async (out) => {
          for (let position = 0; !encoder.done; ) {
            const length = encoder.fill(buffer, 0);
            for (let done = 0; done < length; ) done += (await out.write(buffer, done, length - done, position + done)).bytesWritten;
            position += length;
          }
        },
        0o644,
        { durable: false },
      );
      await written.close();
    } catch (err) {
      this.log.warn(`build: could not write the source map ${mapPath}: ${(err as Error).message}`);
    }
  }

  /** The bundle written last is not to be copied from: every atom is encoded at the next build. */
  private forgetLast(): void {
    void this.last?.handle.close().catch(() => {});
    this.last = undefined;
    this.bundler.forgetWritten();
  }

  private track(freed: Promise<void>): void {
    this.freeing.add(freed);
    void freed.then(() => this.freeing.delete(freed));
  }

  /** The names of deleted atoms: asked of the store once, then kept up to date by its announcements. */
  private deletedNames(): ReadonlySet<string> {
    this.deleted ??= new Set(this.store.deletedAtoms().map((d) => d.name));
    return this.deleted;
  }

  dispose(): void {
    clearTimeout(this.mapTimer);
    this.forgetLast();
    this.subscription.dispose();
    this.built.dispose();
  }
}

/** Why there is no bundle to read (`readBundle`); the message is for the user as it stands. */
export class BundleUnavailable extends Error {
  override name = 'BundleUnavailable';
}

/**
 * Writes a bundle's plan through two buffers: bytes as they are, atoms encoded one after
 * another, runs of the bundle written last (`from`) read into them. One buffer is written out
 * while the other fills, so a run's reads overlap the writes before it. Memory stays at the
 * buffers' size whatever the bundle's (51 MiB at 50,000 atoms).
 */
async function writePlan(out: OpenFile, plan: BundlePlan, from: OpenFile | undefined, buffers: readonly [Buffer, Buffer]): Promise<void> {
  let buffer = buffers[0];
  let used = 0;
  let position = 0;
  let writing: Promise<void> = Promise.resolve();
  const writeOut = async (bytes: Buffer, length: number, at: number) => {
    for (let done = 0; done < length; ) done += (await out.write(bytes, done, length - done, at + done)).bytesWritten;
  };
  const flush = async () => {
    await writing; // the other buffer is free again
    writing = writeOut(buffer, used, position);
    // Handled here so that a failure while the next buffer fills is not an unhandled rejection;
    // the next `await writing` throws it.
    writing.catch(() => {});
    position += used;
    buffer = buffer === buffers[0] ? buffers[1] : buffers[0];
    used = 0;
  };
  try {
    for (const part of plan.parts) {
      if (part.kind === 'bytes') {
        for (let done = 0; done < part.bytes.length; ) {
          if (used === buffer.length) await flush();
          const n = part.bytes.copy(buffer, used, done);
          used += n;
          done += n;
        }
      } else if (part.kind === 'atoms') {
        for (let i = part.from; i < part.to; i++) {
          const text = plan.chunkText(i);
          // UTF-8 takes at most 3 bytes per UTF-16 unit: counted only when that might not fit. An
          // atom's chunk (2 KB of code, indented: at most about 6 KB) fits the smallest buffer.
          if (text.length * 3 > buffer.length - used && Buffer.byteLength(text) > buffer.length - used) await flush();
          const n = buffer.write(text, used);
          plan.lengths[i] = n;
          used += n;
        }
      } else {
        if (!from) throw new Error('the bundle plan copies from a bundle that is not open');
        for (let at = part.start; at < part.end; ) {
          if (used === buffer.length) await flush();
          const { bytesRead } = await from.read(buffer, used, Math.min(buffer.length - used, part.end - at), at);
          if (bytesRead === 0) throw new BundleShorter();
          used += bytesRead;
          at += bytesRead;
        }
      }
    }
    await flush();
  } finally {
    // Never leave a write running into a buffer the next build fills.
    await writing.catch(() => {});
  }
  await writing;
}

const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * The largest bundle written inline (on the event loop's thread): ~4,000 atoms. Copying it
 * takes ~2 ms there; a larger one goes through the thread pool, so the loop keeps answering.
 */
const INLINE_BUNDLE_BYTES = 4 * 1024 * 1024;

/** How long builds must pause before the last one's map is written (unless someone asks first). */
const MAP_DELAY_MS = 250;

/** A bundle this builder wrote, open, and how it was left. */
interface WrittenFile {
  handle: OpenFile;
  stat: Stats;
}

/** The bundle written last ends before a run the plan copies from it: someone cut it short. */
class BundleShorter extends Error {}

/** Whether the bundle written last is as this builder left it (size, times and inode). */
async function unchanged(last: WrittenFile): Promise<boolean> {
  try {
    const now = await last.handle.stat();
    return now.size === last.stat.size && now.mtimeMs === last.stat.mtimeMs && now.ctimeMs === last.stat.ctimeMs && now.ino === last.stat.ino;
  } catch {
    return false;
  }
}

/** A file that is not a bundle stands at the output path: the build leaves it alone. */
class BundleRefused extends Error {}

/** The setting the output path comes from, as error messages name it. */
const BUNDLE_SETTING = 'The bundle path (setting atomicCoding.bundle.outputPath)';

/** How every bundle starts and ends (bundler.ts). */
export const BUNDLE_HEADER = '// === Atomic Coding Bundle ===\n';
const BUNDLE_END = '})();\n';

const NO_BUNDLE_YET = 'No bundle yet: create an atom with upsert_atom, and latest.js is built';

function notABundle(path: string, verb: 'read' | 'replaced'): string {
  return (
    `${path} is not a bundle (it does not start with "${BUNDLE_HEADER.trim()}"), so it is not ${verb}: ` +
    `it was not written by Atomic Coding. Move that file away, or set atomicCoding.bundle.outputPath to another path inside the workspace folder.`
  );
}

/**
 * Whether the open file starts with the bundle's header. An empty file, or one shorter than the
 * header that matches it so far, counts: a bundle cut short by a power loss.
 */
function startsAsBundle(fd: number, size: number): boolean {
  const head = Buffer.alloc(Math.min(size, BUNDLE_HEADER.length));
  const read = readSync(fd, head, 0, head.length, 0);
  return BUNDLE_HEADER.startsWith(head.subarray(0, read).toString('utf8'));
}

/** Throws BundleRefused when something other than a bundle (or a bundle cut short) is at `path`. */
function refuseToReplaceNonBundle(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return; // nothing there yet
  }
  if (!stat.isFile()) throw new BundleRefused(`${path} exists and is not a file, so it is not replaced: set atomicCoding.bundle.outputPath to a file path inside the workspace folder.`);
  const fd = openSync(path, 'r');
  try {
    if (!startsAsBundle(fd, stat.size)) throw new BundleRefused(notABundle(path, 'replaced'));
  } finally {
    closeSync(fd);
  }
}

function countNewlines(bytes: Buffer): number {
  let n = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) n++;
  return n;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
