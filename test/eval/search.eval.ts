/**
 * `npm run eval:search`: how well search finds atoms, and whether it puts the right one first.
 * One workspace of 154 atoms: 47 of a small browser game (test/fixtures/game-atoms.ts), 51 of
 * other apps (test/fixtures/search-app-atoms.ts: RPG stats and inventory, todo and notes, data
 * utilities, algorithms) and 56 of text tools (test/fixtures/search-text-atoms.ts: a text editor,
 * Markdown, dates and durations, geometry, strings). The query sets, by kind (paraphrase,
 * identifier-like, sibling):
 *
 *   game tuned      the game queries written beside the related-words list
 *   game held-out   game queries written after it, never used for tuning
 *   app tuned       half of the app queries (by a hash of the text): ranking changes are chosen here
 *   app held-out    the other half: only reported
 *   text tuned      half of the text-tools queries (written before issue 16's ranking changes)
 *   text held-out   the other half: only reported
 *   code tuned      half of the queries an agent types half-remembering an atom (test/fixtures/
 *                   search-code-queries.ts: a name fragment, an API call, code words, jargon, a
 *                   short request), over all three sets' atoms; written before the changes it measured
 *   code held-out   the other half: only reported
 *   fifth (unseen)  queries of the same kinds by another writer who read only the atoms (test/
 *                   fixtures/search-fifth-queries.ts), written after the changes before it; all
 *                   held out, only reported
 *
 * Prints recall@1, recall@5 and MRR for words alone, meaning alone and the fused ranking the
 * product uses. Runs the real embedding model; nothing is downloaded.
 *
 *   npm run eval:search                    the table, and the tuned sets' misses at rank 1
 *   npm run eval:search -- --product       the product ranking only (faster)
 *   npm run eval:search -- --held-out-misses   also the held-out misses (look only when done tuning)
 *   npm run eval:search -- --json          one JSON line per row, for comparing runs
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { SearchIndex, type SearchMode } from '../../src/search/searchIndex.js';
import { GAME_ATOMS, GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import { APP_ATOMS, APP_HELD_OUT, APP_TUNED, type QueryKind } from '../fixtures/search-app-atoms.js';
import { CODE_HELD_OUT, CODE_TUNED } from '../fixtures/search-code-queries.js';
import { FIFTH_QUERIES } from '../fixtures/search-fifth-queries.js';
import { MemorySource } from '../fixtures/search-source.js';
import { TEXT_ATOMS, TEXT_HELD_OUT, TEXT_TUNED } from '../fixtures/search-text-atoms.js';

export interface EvalQuery {
  query: string;
  relevant: string[];
  kind: QueryKind;
}

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
const PRODUCT = VARIANTS.at(-1)!;

export const EVAL_ATOMS = [...GAME_ATOMS, ...APP_ATOMS, ...TEXT_ATOMS];

export const EVAL_SETS: Array<{ set: string; tuned: boolean; queries: EvalQuery[] }> = [
  { set: 'game tuned', tuned: true, queries: GAME_QUERIES },
  { set: 'game held-out', tuned: false, queries: HELD_OUT_QUERIES },
  { set: 'app tuned', tuned: true, queries: APP_TUNED },
  { set: 'app held-out', tuned: false, queries: APP_HELD_OUT },
  { set: 'text tuned', tuned: true, queries: TEXT_TUNED },
  { set: 'text held-out', tuned: false, queries: TEXT_HELD_OUT },
  { set: 'code tuned', tuned: true, queries: CODE_TUNED },
  { set: 'code held-out', tuned: false, queries: CODE_HELD_OUT },
  { set: 'fifth (unseen)', tuned: false, queries: FIFTH_QUERIES },
];

export async function evaluateSearch(options: { productOnly?: boolean; heldOutMisses?: boolean } = {}): Promise<{ rows: EvalRow[]; misses: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-eval-'));
  const source = new MemorySource(join(dir, '.atomic'), EVAL_ATOMS);
  const index = new SearchIndex(source, new UseLiteProvider());
  try {
    await index.whenIdle();
    const rows: EvalRow[] = [];
    const misses: string[] = [];
    for (const { set, tuned, queries } of EVAL_SETS) {
      for (const variant of options.productOnly ? [PRODUCT] : VARIANTS) {
        const ranks: Array<{ q: EvalQuery; rank: number }> = [];
        for (const q of queries) {
          const { hits } = await index.search(q.query, { limit: 20, mode: variant.mode, threshold: variant.threshold, expand: variant.expand });
          const idx = hits.findIndex((h) => q.relevant.includes(h.atom.name));
          ranks.push({ q, rank: idx < 0 ? Infinity : idx + 1 });
          if (variant === PRODUCT && idx !== 0 && (tuned || options.heldOutMisses)) {
            const top = hits.slice(0, 3).map((h) => `${h.atom.name} ${h.similarity?.toFixed(3) ?? 'n/a'}`);
            misses.push(`[${set}, ${q.kind}] "${q.query}" -> ${q.relevant.join('|')} at ${idx < 0 ? '-' : idx + 1}; top: ${top.join(', ') || '(nothing)'}`);
          }
        }
        for (const kind of ['paraphrase', 'identifier', 'sibling', 'all'] as const) {
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
  const args = process.argv.slice(2);
  evaluateSearch({ productOnly: args.includes('--product'), heldOutMisses: args.includes('--held-out-misses') }).then(
    ({ rows, misses }) => {
      if (args.includes('--json')) {
        for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
        return;
      }
      const counts = EVAL_SETS.map((s) => `${s.set} ${s.queries.length}`).join(', ');
      process.stdout.write(`Search quality: ${EVAL_ATOMS.length} atoms; queries: ${counts}\n\n`);
      console.table(rows);
      if (misses.length > 0) process.stdout.write(`\nNot first in the product ranking:\n  ${misses.join('\n  ')}\n`);
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exitCode = 1;
    },
  );
}
