/**
 * Rebuilds `latest.js` after every change and records each build. A failed build keeps the
 * previous bundle in place and says why. Rebuilds requested while one runs are coalesced.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AtomStore, BuildRecord } from '../store/atomStore.js';
import { writeFileAtomic } from '../util/atomicFile.js';
import { Emitter } from '../util/event.js';
import type { Logger } from '../util/log.js';
import { createBundle } from './bundler.js';

export class Builder {
  private running: Promise<BuildRecord> | undefined;
  private queued: Promise<BuildRecord> | undefined;
  private readonly built = new Emitter<BuildRecord>();

  /** Fired after every build, successful or not. */
  readonly onDidBuild = this.built.event;

  constructor(
    private readonly store: AtomStore,
    private bundlePath: string,
    private readonly log: Logger,
  ) {}

  get outputPath(): string {
    return this.bundlePath;
  }

  setOutputPath(path: string): void {
    this.bundlePath = path;
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
      const bundle = createBundle(atoms);
      mkdirSync(dirname(this.bundlePath), { recursive: true });
      await writeFileAtomic(this.bundlePath, bundle.code);
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
    this.built.dispose();
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
