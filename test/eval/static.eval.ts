/**
 * Would a static first pass (scripts/static-vectors.ts) rank better than words alone while a
 * fresh clone's atoms wait for the model? The eval's workspace and query sets (search.eval.ts),
 * the product's ranking (rank.ts, unchanged) in two states of a catch-up:
 *
 *   words only   what the product does while atoms wait today: meaning left out for every candidate
 *                (a provider that refuses, as the keyword setting: the same code path)
 *   static only  every atom and the query by the static table: meaning from the static space alone
 *
 * and the static cosine alone (no words). The full model's figures are `npm run eval:search`'s.
 *
 *   node --import tsx scripts/static-vectors.ts           the table, in bench-results/static/
 *   node --import tsx test/eval/static.eval.ts [table]    this table (default that file)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STATIC_TABLE_FILE } from '../../scripts/static-vectors.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { useLiteModelDir } from '../../src/search/embeddings/paths.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import { StaticVectors } from './staticVectors.js';
import { SearchIndex, type SearchMode } from '../../src/search/searchIndex.js';
import { MemorySource } from '../fixtures/search-source.js';
import { EVAL_ATOMS, EVAL_SETS } from './search.eval.js';

/** The static table as a provider, so the product's ranking runs unchanged on its vectors. */
class StaticProvider implements EmbeddingProvider {
  readonly modelId: string;
  readonly dimensions: number;
  constructor(private readonly table: StaticVectors) {
    this.modelId = table.modelId;
    this.dimensions = table.dimensions;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.table.embed(t));
  }
  async dispose(): Promise<void> {}
}

async function measure(method: string, provider: EmbeddingProvider, mode: SearchMode): Promise<Array<Record<string, string | number>>> {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-static-eval-'));
  const index = new SearchIndex(new MemorySource(join(dir, '.atomic'), EVAL_ATOMS), provider, { backlogDelayMs: 0 });
  const rows: Array<Record<string, string | number>> = [];
  const round = (x: number) => Math.round(x * 1000) / 1000;
  try {
    await index.whenIdle();
    const pooled = { tuned: [] as number[], 'held-out': [] as number[] };
    for (const { set, tuned, queries } of EVAL_SETS) {
      const ranks: number[] = [];
      for (const q of queries) {
        const { hits } = await index.search(q.query, { limit: 20, mode, threshold: mode === 'semantic' ? -1 : undefined });
        const idx = hits.findIndex((h) => q.relevant.includes(h.atom.name));
        ranks.push(idx < 0 ? Infinity : idx + 1);
      }
      pooled[tuned ? 'tuned' : 'held-out'].push(...ranks);
      rows.push(row(method, set, ranks));
    }
    for (const [set, ranks] of Object.entries(pooled)) rows.push(row(method, `all ${set}`, ranks));
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;

  function row(m: string, set: string, ranks: number[]): Record<string, string | number> {
    const n = ranks.length;
    return {
      method: m,
      set,
      n,
      'recall@1': round(ranks.filter((r) => r <= 1).length / n),
      'recall@5': round(ranks.filter((r) => r <= 5).length / n),
      MRR: round(ranks.reduce((s, r) => s + (Number.isFinite(r) ? 1 / r : 0), 0) / n),
    };
  }
}

async function main(): Promise<void> {
  const file = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? STATIC_TABLE_FILE;
  if (!existsSync(file)) throw new Error(`no static table at ${file}: run node --import tsx scripts/static-vectors.ts first`);
  const table = StaticVectors.load(file, join(useLiteModelDir(), 'vocab.json'));
  const rows = [
    ...(await measure('words only (meaning left out)', new KeywordOnlyProvider(), 'fused')),
    ...(await measure(`static only (${table.modelId})`, new StaticProvider(table), 'fused')),
    ...(await measure('static cosine alone', new StaticProvider(table), 'semantic')),
  ];
  if (process.argv.includes('--json')) for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
  else console.table(rows);
}

if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
