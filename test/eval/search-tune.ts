/**
 * A tuning harness for the second pass (issue 16): the eval's workspace and query sets, the model's
 * vectors memoised, and a compact table (r@1 / r@5 per set and kind) per variant. Variants are
 * chosen on the tuned halves only; the held-out halves are printed beside them, never looked into.
 *
 *   node --import tsx test/eval/search-tune.ts
 *
 * Another script imports run() and passes variants: a setup() that changes rank.ts's WEIGHTS (or
 * a provider that embeds atoms differently, for the description-only embedding) before the
 * workspace is indexed, and a teardown() that puts them back. Round 2's ablations ran this way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { MemorySource } from '../fixtures/search-source.js';
import { EVAL_ATOMS, EVAL_SETS } from './search.eval.js';

/** Embeds each text once (the eval's hundreds of queries overflow the index's own query cache). */
class MemoProvider implements EmbeddingProvider {
  readonly modelId: string;
  readonly dimensions: number;
  private readonly memo = new Map<string, Float32Array>();
  constructor(private readonly inner: EmbeddingProvider) {
    this.modelId = inner.modelId;
    this.dimensions = inner.dimensions;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.memo.has(t)))];
    if (missing.length > 0) {
      const vs = await this.inner.embed(missing);
      missing.forEach((t, i) => this.memo.set(t, vs[i]!));
    }
    return texts.map((t) => this.memo.get(t)!);
  }
  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

export type Row = Record<string, string>;

export async function run(variants: Array<{ name: string; setup?: () => void; teardown?: () => void }>, provider?: EmbeddingProvider): Promise<void> {
  const inner = new UseLiteProvider();
  const memo = provider ?? new MemoProvider(inner);
  const table: Row[] = [];
  try {
    for (const v of variants) {
      v.setup?.();
      const dir = mkdtempSync(join(tmpdir(), 'atomic-tune-'));
      const index = new SearchIndex(new MemorySource(join(dir, '.atomic'), EVAL_ATOMS), memo, { backlogDelayMs: 0 });
      try {
        await index.whenIdle();
        const row: Row = { variant: v.name };
        for (const { set, queries } of EVAL_SETS) {
          const byKind = new Map<string, number[]>();
          for (const q of queries) {
            const { hits } = await index.search(q.query, { limit: 20 });
            const idx = hits.findIndex((h) => q.relevant.includes(h.atom.name));
            const r = idx < 0 ? Infinity : idx + 1;
            byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), r]);
          }
          for (const [kind, ranks] of byKind) {
            const r1 = ranks.filter((r) => r <= 1).length / ranks.length;
            const r5 = ranks.filter((r) => r <= 5).length / ranks.length;
            row[`${set.replace('held-out', 'HO')} ${kind.slice(0, 5)}`] = `${r1.toFixed(2)}/${r5.toFixed(2)}`;
          }
        }
        table.push(row);
      } finally {
        v.teardown?.();
        await index.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await inner.dispose();
  }
  console.table(table);
}

if (require.main === module) {
  run([{ name: 'product' }]).catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  });
}
