/**
 * `npm run eval:search`: how well search finds atoms, on a labelled set of 47 atoms of a small
 * browser game and 53 queries (most paraphrase the atom without its words, some are written
 * like identifiers). Prints recall@1, recall@5 and MRR for words alone, meaning alone and the
 * fused ranking the product uses. Runs the real embedding model; nothing is downloaded.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { UseLiteProvider } from '../../src/store/embeddings/useLite.js';
import { SearchIndex, type SearchMode } from '../../src/store/search/searchIndex.js';
import { GAME_ATOMS, GAME_QUERIES, HELD_OUT_QUERIES, type LabelledQuery } from '../fixtures/game-atoms.js';
import { MemorySource } from '../fixtures/search-source.js';
import { tempDir } from '../support/tmp.js';

export interface EvalRow {
  set: string;
  method: string;
  queries: string;
  n: number;
  'recall@1': number;
  'recall@5': number;
  MRR: number;
}

interface Variant {
  method: string;
  mode: SearchMode;
  threshold?: number;
  expand?: boolean;
}

const VARIANTS: Variant[] = [
  { method: 'lexical (BM25, split names, stems)', mode: 'lexical', expand: false },
  { method: 'lexical + related words', mode: 'lexical' },
  { method: 'embedding (USE-lite cosine)', mode: 'semantic', threshold: -1 },
  { method: 'fused, no related words', mode: 'fused', expand: false },
  { method: 'fused (the product)', mode: 'fused' },
];

export async function evaluateSearch(): Promise<{ rows: EvalRow[]; misses: string[] }> {
  const dir = tempDir('atomic-eval-');
  const source = new MemorySource(join(dir, '.atomic'), GAME_ATOMS);
  const index = new SearchIndex(source, new UseLiteProvider());
  try {
    await index.whenIdle();
    const rows: EvalRow[] = [];
    const misses: string[] = [];
    for (const [set, queries] of [['tuned', GAME_QUERIES], ['held-out', HELD_OUT_QUERIES]] as const) for (const variant of VARIANTS) {
      const ranks: Array<{ q: LabelledQuery; rank: number }> = [];
      for (const q of queries) {
        const { hits } = await index.search(q.query, { limit: 20, mode: variant.mode, threshold: variant.threshold, expand: variant.expand });
        const idx = hits.findIndex((h) => q.relevant.includes(h.atom.name));
        ranks.push({ q, rank: idx < 0 ? Infinity : idx + 1 });
        if (variant.mode === 'fused' && variant.expand === undefined && (idx < 0 || idx >= 5)) {
          misses.push(`[${set}] "${q.query}" -> expected ${q.relevant.join('|')}, got ${hits.slice(0, 5).map((h) => h.atom.name).join(', ') || '(nothing)'}`);
        }
      }
      for (const kind of ['paraphrase', 'identifier', 'all'] as const) {
        const subset = ranks.filter((r) => kind === 'all' || r.q.kind === kind);
        const n = subset.length;
        if (n === 0) continue;
        rows.push({
          set,
          method: variant.method,
          queries: kind,
          n,
          'recall@1': round(subset.filter((r) => r.rank <= 1).length / n),
          'recall@5': round(subset.filter((r) => r.rank <= 5).length / n),
          MRR: round(subset.reduce((sum, r) => sum + (Number.isFinite(r.rank) ? 1 / r.rank : 0), 0) / n),
        });
      }
    }
    return { rows, misses };
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

if (require.main === module) {
  evaluateSearch().then(
    ({ rows, misses }) => {
      process.stdout.write(
        `Search quality: ${GAME_ATOMS.length} atoms; ${GAME_QUERIES.length} queries written beside the related-words list, ${HELD_OUT_QUERIES.length} held out\n\n`,
      );
      console.table(rows);
      if (misses.length > 0) process.stdout.write(`\nMissed by the product ranking (not in the top 5):\n  ${misses.join('\n  ')}\n`);
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exitCode = 1;
    },
  );
}
