/**
 * Keeps atoms' vectors in step with their text. Atoms changed by an edit are embedded first
 * ("urgent": a search waits for them, so it reads its own writes); the backlog found when a
 * workspace opens (new provider, restored database) is worked off in the background in small
 * batches, so a query never waits behind more than one batch.
 */
import type { EmbeddingProvider } from './embeddings/provider.js';

export interface EmbedJobResult {
  name: string;
  text: string;
  vector: Float32Array;
}

export interface EmbedQueueHooks {
  /** The atom's current embedding text, or undefined when it no longer exists. */
  textOf(name: string): string | undefined;
  /** Called with fresh vectors; the queue waits for it before taking the next batch. */
  embedded(results: EmbedJobResult[]): Promise<void>;
  failed(err: Error): void;
  progress?(done: number, total: number): void;
}

/**
 * A backlog batch: the provider may split it across its model processes (useLite.ts: two on two
 * cores, eight texts a model run each); a query waits behind at most one batch.
 */
const BACKGROUND_BATCH = 16;
const URGENT_BATCH = 8;

export class EmbedQueue {
  private readonly urgent = new Set<string>();
  private readonly background = new Set<string>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private running: Promise<void> | undefined;
  private backlogTotal = 0;
  private backlogDone = 0;
  private stopped = false;
  /** The backlog waits until this is set, so opening a workspace does not start the model. */
  private backgroundAllowed = false;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly hooks: EmbedQueueHooks,
  ) {}

  /** Embeds `name` soon; the promise settles when its current text is embedded (or cannot be). */
  request(name: string, urgent: boolean): Promise<void> {
    // Stopped (the index is closing): nothing will run again, so nobody may wait for it.
    if (this.stopped) return Promise.resolve();
    if (urgent) {
      this.background.delete(name);
      this.urgent.add(name);
    } else if (!this.urgent.has(name) && !this.background.has(name)) {
      this.background.add(name);
      this.backlogTotal++;
    }
    const done = new Promise<void>((resolve) => {
      const list = this.waiters.get(name) ?? [];
      list.push(resolve);
      this.waiters.set(name, list);
    });
    this.kick();
    return done;
  }

  /** Lets the backlog be worked off (urgent atoms never wait for this). */
  allowBackground(): void {
    if (this.backgroundAllowed) return;
    this.backgroundAllowed = true;
    this.kick();
  }

  /** Drops a queued atom (deleted); whoever waits for it is released. */
  cancel(name: string): void {
    this.urgent.delete(name);
    if (this.background.delete(name)) this.backlogDone++;
    this.release(name);
  }

  /** Settles when every atom queued as urgent so far is embedded or given up. */
  async urgentSettled(): Promise<void> {
    await Promise.all([...this.urgent].map((name) => this.waitFor(name)));
  }

  /** Settles when nothing is queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  get pending(): number {
    return this.urgent.size + this.background.size;
  }

  /** Atoms queued as urgent (changed by an edit), not embedded yet. */
  get urgentCount(): number {
    return this.urgent.size;
  }

  private get runnable(): number {
    return this.urgent.size + (this.backgroundAllowed ? this.background.size : 0);
  }

  stop(): void {
    this.stopped = true;
    for (const name of [...this.urgent, ...this.background]) this.release(name);
    this.urgent.clear();
    this.background.clear();
  }

  private waitFor(name: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const list = this.waiters.get(name) ?? [];
      list.push(resolve);
      this.waiters.set(name, list);
    });
  }

  private release(name: string): void {
    const list = this.waiters.get(name);
    this.waiters.delete(name);
    for (const resolve of list ?? []) resolve();
  }

  private kick(): void {
    if (this.running || this.stopped || this.runnable === 0) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.runnable > 0 && !this.stopped) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.runnable > 0) {
      const fromUrgent = this.urgent.size > 0;
      const source = fromUrgent ? this.urgent : this.background;
      const names = [...source].slice(0, fromUrgent ? URGENT_BATCH : BACKGROUND_BATCH);
      const jobs: Array<{ name: string; text: string }> = [];
      for (const name of names) {
        const text = this.hooks.textOf(name);
        if (text === undefined) {
          source.delete(name);
          if (!fromUrgent) this.backlogDone++;
          this.release(name);
        } else {
          jobs.push({ name, text });
        }
      }
      if (jobs.length === 0) continue;
      try {
        const vectors = await this.provider.embed(jobs.map((j) => j.text));
        const results: EmbedJobResult[] = [];
        jobs.forEach((job, i) => {
          // Edited again while embedding: leave it queued, the newer text is embedded next.
          if (this.hooks.textOf(job.name) === job.text) results.push({ ...job, vector: vectors[i]! });
        });
        await this.hooks.embedded(results);
        for (const r of results) this.finish(r.name, fromUrgent);
      } catch (err) {
        this.hooks.failed(err as Error);
        // Without vectors these atoms are still found by their words; give up on them for now.
        for (const job of jobs) this.finish(job.name, fromUrgent);
      }
    }
  }

  private finish(name: string, fromUrgent: boolean): void {
    const source = fromUrgent ? this.urgent : this.background;
    if (!source.delete(name)) return;
    if (!fromUrgent) {
      this.backlogDone++;
      this.hooks.progress?.(this.backlogDone, this.backlogTotal);
      if (this.background.size === 0) this.backlogDone = this.backlogTotal = 0;
    }
    this.release(name);
  }
}
