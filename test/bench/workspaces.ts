/**
 * Generated workspaces for the benchmarks, in their steady state: every atom stored, the
 * bundle built, and every atom embedded by the real model (so no background embedding runs
 * while tools are timed, and semantic_search has its vectors).
 *
 * Embedding 10,000 atoms with the shipped model takes tens of minutes on a small machine, so
 * vectors are cached by the hash of the embedded text (bench-results/cache/embeddings-*.jsonl,
 * appended as they are computed: an interrupted run keeps its progress), and each generated
 * workspace is cached whole. A run copies the cached workspace to a fresh temporary folder.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddingText } from '../../src/atoms/signature.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { textHash } from '../../src/util/textHash.js';
import { USE_LITE_MODEL_ID, UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { GENERATOR_VERSION, generateAtoms, type GeneratedSet } from './generate.js';
import { tempDir } from '../support/tmp.js';
import { upsertMany } from '../support/storeWrites.js';

export const RESULTS_DIR = join(__dirname, '..', '..', 'bench-results');
const CACHE_DIR = join(RESULTS_DIR, 'cache');
const BATCH = 500;
/**
 * How many atoms of a generated workspace the model embeds. The model takes 200-600 ms per atom
 * on a small shared machine, so beyond this the remaining atoms borrow real model vectors of other
 * generated atoms (their stored hash is their own text's, so the server treats them as current).
 * What a search costs does not depend on what the vectors hold; search quality is measured on
 * the labelled set, where every vector is the model's. BENCH_EMBED_LIMIT=100000 embeds them all.
 */
const EMBED_LIMIT = 1000;

export interface PreparedWorkspace {
  /** A fresh copy: the caller may change it. */
  dir: string;
  set: GeneratedSet;
  remove(): void;
}

type Progress = (message: string) => void;

/** Workspace sizes to measure: 100, 1,000 and 10,000 atoms (quick: 100 and 1,000; BENCH_SIZES=a,b overrides). */
export function benchSizes(options: { quick: boolean }): number[] {
  const override = process.env.BENCH_SIZES?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  if (override?.length) return override;
  return options.quick ? [100, 1000] : [100, 1000, 10_000];
}

/** A copy of the cached workspace of `count` generated atoms, generating it first if needed. */
export async function prepareWorkspace(count: number, progress: Progress = () => {}, seed = 42): Promise<PreparedWorkspace> {
  const set = generateAtoms(count, seed);
  return prepareFrom(`ws-g${GENERATOR_VERSION}-n${count}-s${seed}`, set, progress);
}

/** A copy of the cached workspace holding exactly `set`, under the cache key `key`. */
export async function prepareFrom(key: string, set: GeneratedSet, progress: Progress = () => {}): Promise<PreparedWorkspace> {
  const cached = join(CACHE_DIR, key);
  if (!existsSync(join(cached, 'ready.json'))) await generateWorkspace(cached, set, progress);
  const dir = tempDir(`atomic-bench-${set.atoms.length}-`);
  cpSync(join(cached, '.atomic'), join(dir, '.atomic'), { recursive: true });
  // The atoms as files (src/textTree/), so opening the copy does not write them all first.
  if (existsSync(join(cached, 'atoms'))) cpSync(join(cached, 'atoms'), join(dir, 'atoms'), { recursive: true });
  return { dir, set, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function generateWorkspace(target: string, set: GeneratedSet, progress: Progress): Promise<void> {
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const started = performance.now();
  const store = await AtomStore.open(target, { compactAfterEntries: Number.MAX_SAFE_INTEGER, compactAfterBytes: Number.MAX_SAFE_INTEGER });
  try {
    for (let i = 0; i < set.atoms.length; i += BATCH) await upsertMany(store, set.atoms.slice(i, i + BATCH));
    const vectors = await embedAll(store, set, progress);
    for (let i = 0; i < vectors.length; i += BATCH) await store.putEmbeddings(vectors.slice(i, i + BATCH));
  } finally {
    await store.close();
  }
  // Open once as the server does: builds latest.js and the vector index from the database.
  const workspace = await AtomWorkspace.open(target);
  await workspace.search.whenIdle();
  await workspace.close();
  rmSync(join(target, '.atomic', 'lock'), { force: true });
  writeFileSync(join(target, 'ready.json'), JSON.stringify({ atoms: set.atoms.length, ms: Math.round(performance.now() - started) }));
}

/** Vectors for every atom of the store, from the cache or computed by the shipped model. */
async function embedAll(store: AtomStore, set: GeneratedSet, progress: Progress) {
  mkdirSync(CACHE_DIR, { recursive: true });
  const cacheFile = join(CACHE_DIR, `embeddings-${USE_LITE_MODEL_ID.replace(/[^a-z0-9.-]/gi, '_')}.jsonl`);
  const cache = new Map<string, string>();
  if (existsSync(cacheFile)) {
    for (const line of readFileSync(cacheFile, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const { h, v } = JSON.parse(line) as { h: string; v: string };
        cache.set(h, v);
      } catch {} // a line torn by an interrupted run
    }
  }
  // In generation order, so the atoms the model embeds are the same whatever the size.
  const atoms = set.atoms.map((draft) => ({ name: draft.name, text: embeddingText(store.get(draft.name)!) }));
  const limit = Number(process.env.BENCH_EMBED_LIMIT ?? EMBED_LIMIT);
  const missing = atoms.slice(0, limit).filter((a) => !cache.has(textHash(a.text)));
  if (missing.length > 0) {
    progress(`embedding ${missing.length} atoms with the shipped model (cached for later runs)`);
    // Two model workers (one per core); the cache file is appended as each chunk finishes.
    const providers = [new UseLiteProvider(), new UseLiteProvider()];
    const started = performance.now();
    let next = 0;
    let done = 0;
    const work = async (provider: UseLiteProvider) => {
      while (next < missing.length) {
        const chunk = missing.slice(next, next + 16);
        next += chunk.length;
        const vectors = await provider.embed(chunk.map((a) => a.text));
        const lines = chunk.map((a, k) => {
          const v = Buffer.from(vectors[k]!.buffer, vectors[k]!.byteOffset, vectors[k]!.byteLength).toString('base64');
          cache.set(textHash(a.text), v);
          return JSON.stringify({ h: textHash(a.text), v });
        });
        appendFileSync(cacheFile, lines.join('\n') + '\n');
        const before = done;
        done += chunk.length;
        if (Math.floor(done / 512) > Math.floor(before / 512) || done === missing.length) {
          progress(`  embedded ${done}/${missing.length} (${((performance.now() - started) / done).toFixed(0)} ms each)`);
        }
      }
    };
    try {
      await Promise.all(providers.map(work));
    } finally {
      await Promise.all(providers.map((p) => p.dispose()));
    }
  }
  const embedded = atoms.filter((a) => cache.has(textHash(a.text)));
  if (embedded.length < atoms.length) {
    progress(`${atoms.length - embedded.length} atoms beyond the first ${limit} borrow model vectors of other generated atoms (BENCH_EMBED_LIMIT)`);
  }
  return atoms.map((a, i) => {
    const own = cache.get(textHash(a.text));
    const buf = Buffer.from(own ?? cache.get(textHash(embedded[i % embedded.length]!.text))!, 'base64');
    return {
      name: a.name,
      model: USE_LITE_MODEL_ID,
      textHash: textHash(a.text),
      vector: new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)),
    };
  });
}

/** `node --import tsx test/bench/workspaces.ts 100 1000 10000`: fills the cache ahead of a run. */
if (require.main === module) {
  void (async () => {
    for (const n of process.argv.slice(2).map(Number)) {
      const ws = await prepareWorkspace(n, (m) => process.stderr.write(`[${n}] ${m}\n`));
      process.stderr.write(`[${n}] ready\n`);
      ws.remove();
    }
  })();
}
