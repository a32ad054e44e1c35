/**
 * Rebuilds `latest.js` after every change and records each build. A failed build keeps the
 * previous bundle in place and says why. Rebuilds requested while one runs are coalesced.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AtomStore, BuildRecord } from '../store/atomStore.js';
import { writeFileAtomic } from '../util/atomicFile.js';
import { Emitter, type Disposable } from '../util/event.js';
import type { Logger } from '../util/log.js';
import { IncrementalBundler } from './bundler.js';

export class Builder {
  private running: Promise<BuildRecord> | undefined;
  private queued: Promise<BuildRecord> | undefined;
  private readonly built = new Emitter<BuildRecord>();
  private readonly bundler = new IncrementalBundler();
  private readonly subscription: Disposable;

  /** Fired after every build, successful or not. */
  readonly onDidBuild = this.built.event;

  constructor(
    private readonly store: AtomStore,
    private bundlePath: string,
    private readonly log: Logger,
  ) {
    // Editing code keeps the order; adding or deleting an atom updates it in place; only a
    // changed dependency list (or a reload) sorts again.
    this.subscription = store.onDidChange((e) => {
      if (e.kind === 'reload') this.bundler.invalidateOrder();
      else if (e.kind === 'delete') this.bundler.noteRemoved(e.atom.name);
      else if (!e.previous) this.bundler.noteAdded(e.atom);
      else if (e.previous.dependencies.join() !== e.atom.dependencies.join()) this.bundler.invalidateOrder();
      else if (e.previous.type !== e.atom.type) this.bundler.noteTypeChanged();
    });
  }

  get outputPath(): string {
    return this.bundlePath;
  }

  setOutputPath(path: string): void {
    this.bundlePath = path;
  }

  /**
   * Whether latest.js exists and ends as every bundle ends. It is written without fsync, so
   * after a power loss it may be empty or cut short; opening the workspace then rebuilds it.
   */
  hasWholeBundle(): boolean {
    try {
      const fd = openSync(this.bundlePath, 'r');
      try {
        const size = fstatSync(fd).size;
        const tail = Buffer.alloc(Math.min(size, BUNDLE_END.length));
        readSync(fd, tail, 0, tail.length, size - tail.length);
        return tail.toString('utf8') === BUNDLE_END;
      } finally {
        closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  /**
   * Builds from the store's current atoms. Calls made while a build runs share one follow-up
   * build, which sees every change made before it started.
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
    const run = this.buildOnce().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async buildOnce(): Promise<BuildRecord> {
    const started = performance.now();
    const atoms = this.store.all();
    let record: BuildRecord;
    try {
      const bundle = this.bundler.bundle(atoms);
      mkdirSync(dirname(this.bundlePath), { recursive: true });
      // Replaced atomically but not fsynced: latest.js is derived from the durable store, and
      // flushing ~10 MB (at 10,000 atoms) to disk on every change cost more than the change.
      // A bundle cut short by a power loss is found and rebuilt when the workspace opens.
      await writeFileAtomic(this.bundlePath, bundle.parts, 0o644, { durable: false });
      record = {
        status: 'success',
        bundle_path: this.bundlePath,
        atom_count: bundle.order.length,
        order: bundle.order,
        error_message: null,
        duration_ms: round(performance.now() - started),
        created_at: new Date().toISOString(),
      };
    } catch (err) {
      record = {
        status: 'error',
        bundle_path: this.bundlePath,
        atom_count: atoms.length,
        order: [],
        error_message: `build failed, the previous latest.js is kept: ${(err as Error).message}`,
        duration_ms: round(performance.now() - started),
        created_at: new Date().toISOString(),
      };
      this.log.error(record.error_message!);
    }
    try {
      record = await this.store.recordBuild(record);
    } catch (err) {
      this.log.warn(`build: could not record the build: ${(err as Error).message}`);
    }
    this.built.fire(record);
    return record;
  }

  dispose(): void {
    this.subscription.dispose();
    this.built.dispose();
  }
}

/** How every bundle ends (bundler.ts). */
const BUNDLE_END = '})();\n';

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
