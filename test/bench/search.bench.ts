/**
 * semantic_search inside the process, at 1,000 and 10,000 atoms: a search with and without
 * embedding the query (the query vector is cached per text), words only, the first search (which
 * builds the full-text index), opening the vector index (rebuilt from the database, or loaded),
 * what indexing adds to an upsert, and one coalesced save of the vector index.
 *
 * Atoms come from the benchmark generator; their vectors are real USE-lite vectors of the game
 * atoms plus noise (embedding 10,000 atoms takes ~15 minutes), stored as current, so nothing is
 * embedded in the background while timing. Query vectors are computed by the real model.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AtomDraft } from '../../src/atoms/model.js';
import { embeddingText } from '../../src/atoms/signature.js';
import { validateDraft } from '../../src/atoms/validate.js';
import { textHash } from '../../src/util/textHash.js';
import { USE_LITE_MODEL_ID, UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { literalPattern } from '../../src/search/rank.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { VectorIndex } from '../../src/search/vectorIndex.js';
import type { StoredEmbedding } from '../../src/search/searchStore.js';
import { searchRrf } from './rrf.js';
import { GAME_ATOMS, GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import { MemorySource } from '../fixtures/search-source.js';
import { generateAtoms, seeded } from './generate.js';
import { bytes, ms, summarize, type BenchOptions, type BenchSection } from './report.js';
import { tempDir } from '../support/tmp.js';

const QUERIES = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);

/** `count` lines of code (with code's punctuation, at most 40 characters) from random atoms. */
function codeFragments(drafts: readonly AtomDraft[], count: number): string[] {
  const random = seeded(11);
  const out: string[] = [];
  for (let tries = 0; out.length < count && tries < count * 50; tries++) {
    const lines = drafts[Math.floor(random() * drafts.length)]!.code.split('\n').map((l) => l.trim().slice(0, 40).trim());
    const line = lines[Math.floor(random() * lines.length)]!;
    if (literalPattern(line) && !out.includes(line)) out.push(line);
  }
  return out;
}

export default async function searchBench(options: BenchOptions): Promise<BenchSection[]> {
  const sizes = benchSizes(options.quick);
  options.log('embedding the game atoms (basis of the synthetic vectors)');
  const basisProvider = new UseLiteProvider();
  const basis = await basisProvider.embed(GAME_ATOMS.map((d) => embeddingText(validateDraft(d))));
  await basisProvider.dispose();

  const rows: Record<string, string | number>[] = [];
  const upserts: Record<string, string | number>[] = [];
  for (const size of sizes) {
    options.log(`-- ${size} atoms`);
    const dir = tempDir(`atomic-search-bench-${size}-`);
    try {
      const drafts = generateAtoms(size).atoms;
      const source = new MemorySource(join(dir, '.atomic'), drafts);
      await source.putEmbeddings(syntheticVectors(source, basis));

      // Opening: the vector index is filled from the store's vectors (by reference, no file).
      const index = new SearchIndex(source, new UseLiteProvider(), { backlogDelayMs: 0 });
      let t = performance.now();
      await index.open();
      const fillMs = performance.now() - t;

      t = performance.now();
      await index.search('warm up: builds the full-text index and starts the model');
      const firstMs = performance.now() - t;

      // Interleaved per query (new text, the same text again, words only), so a burst of load
      // on this shared machine slows all three alike. Each round's texts are new to the cache.
      const n = options.quick ? 20 : QUERIES.length;
      const withEmbedding: number[] = [];
      const cached: number[] = [];
      const lexical: number[] = [];
      for (let round = 0; round < (options.quick ? 1 : 2); round++) {
        for (let i = 0; i < n; i++) {
          const query = round === 0 ? QUERIES[i]! : `${QUERIES[i]!} please`;
          let t0 = performance.now();
          await index.search(query);
          withEmbedding.push(performance.now() - t0);
          t0 = performance.now();
          await index.search(query);
          cached.push(performance.now() - t0);
          t0 = performance.now();
          await index.search(query, { mode: 'lexical' });
          lexical.push(performance.now() - t0);
        }
      }
      // Round 1's second pass against round 0's reciprocal rank fusion, in the same run and
      // interleaved per query (the order alternating), the query vector cached for both: on a
      // loaded machine the ratio is the figure to read, not either time alone.
      const shipped: number[] = [];
      const rrf: number[] = [];
      for (let round = 0; round < (options.quick ? 1 : 3); round++) {
        for (let i = 0; i < n; i++) {
          const query = QUERIES[i]!;
          await index.search(query); // the query vector is cached from here on
          await searchRrf(index, source, query);
          const order = (i + round) % 2 === 0 ? (['fused', 'rrf'] as const) : (['rrf', 'fused'] as const);
          for (const ranking of order) {
            const t0 = performance.now();
            await (ranking === 'fused' ? index.search(query) : searchRrf(index, source, query));
            (ranking === 'fused' ? shipped : rrf).push(performance.now() - t0);
          }
        }
      }
      const ratio = summarize(shipped).p50 / summarize(rrf).p50;
      // A query copied from code also scans every atom's code (rank.ts literal): lines of the
      // generated atoms' own code, the query vector cached as for the shipped row above.
      const literal: number[] = [];
      for (const fragment of codeFragments(drafts, n)) {
        await index.search(fragment);
        const t0 = performance.now();
        await index.search(fragment);
        literal.push(performance.now() - t0);
      }
      const row = (what: string, samples: number[]) => {
        const s = summarize(samples);
        rows.push({ atoms: size, what, n: s.n, 'p50 ms': ms(s.p50), 'p95 ms': ms(s.p95) });
      };
      row('search, query embedded (new query text)', withEmbedding);
      row('search, query vector cached (repeated query)', cached);
      row('search by words only (no vectors)', lexical);
      row('ranking: shipped second pass (rank.ts), query vector cached', shipped);
      row("ranking: round 0's RRF fusion (test/bench/rrf.ts), same queries interleaved", rrf);
      rows.push({ atoms: size, what: `ratio of p50s, shipped / RRF: ${ratio.toFixed(2)}`, n: shipped.length, 'p50 ms': '', 'p95 ms': '' });
      row("a fragment of code as the query (also scans every atom's code), query vector cached", literal);
      rows.push({ atoms: size, what: 'first search (builds the full-text index, starts the model)', n: 1, 'p50 ms': ms(firstMs), 'p95 ms': '' });
      rows.push({ atoms: size, what: "open: fill the vector index from the store's vectors", n: 1, 'p50 ms': ms(fillMs), 'p95 ms': '' });

      // What indexing adds to an upsert: the synchronous part runs inside the store's change
      // event (full-text index); embedding and the vector index follow off the caller's path.
      const iterations = options.quick ? 10 : 30;
      const random = seeded(7);
      const plain = new MemorySource(join(dir, 'plain'), drafts.slice(0, 50));
      const changeSync: number[] = [];
      const baseline: number[] = [];
      const searchable: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const draft = edit(drafts[Math.floor(random() * drafts.length)]!, i);
        let t0 = performance.now();
        plain.upsert(edit(drafts[i % 50]!, i));
        baseline.push(performance.now() - t0);
        t0 = performance.now();
        source.upsert(draft);
        changeSync.push(performance.now() - t0);
        await index.search(draft.name); // waits for its embedding: read your writes
        searchable.push(performance.now() - t0);
      }
      const vectors = new VectorIndex(undefined, { flushDelayMs: 60_000 });
      await vectors.open();
      await vectors.fill(source.allEmbeddings().map((e) => ({ name: e.name, vector: e.vector, meta: { type: 'util', model: e.model, textHash: e.textHash } })));
      const commits: number[] = [];
      for (let i = 0; i < (options.quick ? 3 : 5); i++) {
        vectors.upsert(drafts[i]!.name, basis[i % basis.length]!, { type: 'util', model: USE_LITE_MODEL_ID, textHash: `x${i}` });
        const t0 = performance.now();
        await vectors.flush();
        commits.push(performance.now() - t0);
      }
      const add = (what: string, samples: number[], note = '') => {
        const s = summarize(samples);
        upserts.push({ atoms: size, what, n: s.n, 'p50 ms': ms(s.p50), 'p95 ms': ms(s.p95), note });
      };
      add('store change event, no search index listening', baseline);
      add('store change event with the search index (full-text update)', changeSync, 'added to every upsert');
      add('upsert until a search finds it (embedding + search)', searchable, 'off the upsert path');
      add('one coalesced commit to the in-memory vector index', commits, 'background, once edits pause 200 ms (2 s at most)');
      await index.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return [
    { title: 'semantic_search in process', rows, notes: [modelSizeNote()] },
    { title: 'Indexing cost of an upsert', rows: upserts },
  ];
}

/** SEARCH_BENCH_SIZES=10000 measures only that size (a comparison before and after a ranking change). */
function benchSizes(quick: boolean): number[] {
  const chosen = (process.env.SEARCH_BENCH_SIZES ?? '').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  if (chosen.length > 0) return chosen;
  return quick ? [1000] : [1000, 10_000];
}

/** Current vectors for every atom: a real vector of a game atom plus noise, unit length. */
function syntheticVectors(source: MemorySource, basis: Float32Array[]): StoredEmbedding[] {
  const random = seeded(11);
  return source.all().map((atom, i) => {
    const base = basis[i % basis.length]!;
    const v = Float32Array.from(base, (x) => x + (random() - 0.5) * 0.08);
    const norm = Math.hypot(...v);
    for (let j = 0; j < v.length; j++) v[j]! /= norm;
    return { name: atom.name, model: USE_LITE_MODEL_ID, textHash: textHash(embeddingText(atom)), vector: v };
  });
}

function edit(draft: AtomDraft, i: number): AtomDraft {
  return { ...draft, description: `${draft.description ?? ''} (revision ${i})` };
}

function modelSizeNote(): string {
  const dist = join(__dirname, '..', '..', 'dist');
  const size = (p: string): number => {
    try {
      const st = statSync(p);
      return st.isDirectory() ? readdirSync(p).reduce((sum, f) => sum + size(join(p, f)), 0) : st.size;
    } catch {
      return 0;
    }
  };
  const model = size(join(dist, 'models'));
  const wasm = size(join(dist, 'tfjs-backend-wasm.wasm')) + size(join(dist, 'tfjs-backend-wasm-simd.wasm'));
  const worker = size(join(dist, 'embedding-worker.js'));
  return (
    `The embedding model adds ${bytes(model + wasm + worker)} to the extension: weights and vocabulary ${bytes(model)}, ` +
    `tfjs wasm ${bytes(wasm)}, worker bundle ${bytes(worker)} (measured in dist/ after npm run build).`
  );
}
