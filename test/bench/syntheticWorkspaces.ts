/**
 * Generated workspaces whose vectors are synthetic: seeded random unit vectors, stored under
 * each atom's own model id and text hash, so the server treats them as current and never runs
 * the model for them. A workspace of 50,000 atoms is ready in a minute or two this way, where
 * embedding it would take hours on a small machine.
 *
 * What a search, an open or the memory costs does not depend on what the vectors hold (search
 * quality is measured on the labelled set, where every vector is the model's). Queries are still
 * embedded by the real model, in its own process.
 *
 * Cached whole in bench-results/cache/ like the model-embedded ones (workspaces.ts); each run
 * works on a fresh copy.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddingText } from '../../src/atoms/signature.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { textHash } from '../../src/util/textHash.js';
import { USE_LITE_MODEL_ID } from '../../src/search/embeddings/useLite.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { tempDir } from '../support/tmp.js';
import { GENERATOR_VERSION, generateAtoms, seeded } from './generate.js';
import { RESULTS_DIR, type PreparedWorkspace } from './workspaces.js';
import { upsertMany } from '../support/storeWrites.js';

const CACHE_DIR = join(RESULTS_DIR, 'cache');
const BATCH = 500;
const DIMENSIONS = 512;

type Progress = (message: string) => void;

/** A copy of the cached workspace of `count` generated atoms with synthetic vectors, generating it first if needed. */
export async function prepareSynthetic(count: number, progress: Progress = () => {}, seed = 42): Promise<PreparedWorkspace> {
  const set = generateAtoms(count, seed);
  const cached = join(CACHE_DIR, `ws-syn-g${GENERATOR_VERSION}-n${count}-s${seed}`);
  if (!existsSync(join(cached, 'ready.json'))) {
    rmSync(cached, { recursive: true, force: true });
    mkdirSync(cached, { recursive: true });
    const started = performance.now();
    progress(`generating ${count} atoms with synthetic vectors (cached for later runs)`);
    const store = await AtomStore.open(cached, { compactAfterEntries: Number.MAX_SAFE_INTEGER, compactAfterBytes: Number.MAX_SAFE_INTEGER });
    try {
      for (let i = 0; i < set.atoms.length; i += BATCH) await upsertMany(store, set.atoms.slice(i, i + BATCH));
      const random = seeded(seed * 7919 + count);
      for (let i = 0; i < set.atoms.length; i += BATCH) {
        await store.putEmbeddings(
          set.atoms.slice(i, i + BATCH).map((draft) => ({
            name: draft.name,
            model: USE_LITE_MODEL_ID,
            textHash: textHash(embeddingText(store.get(draft.name)!)),
            vector: unitVector(random),
          })),
        );
      }
    } finally {
      await store.close();
    }
    // Open once as the server does: builds latest.js and the vector index from the database.
    const workspace = await AtomWorkspace.open(cached);
    await workspace.search.whenIdle();
    await workspace.close();
    rmSync(join(cached, '.atomic', 'lock'), { force: true });
    const ms = Math.round(performance.now() - started);
    writeFileSync(join(cached, 'ready.json'), JSON.stringify({ atoms: count, ms, vectors: 'synthetic' }));
    progress(`  ready in ${(ms / 1000).toFixed(1)} s`);
  }
  const dir = tempDir(`atomic-bench-syn-${count}-`);
  cpSync(join(cached, '.atomic'), join(dir, '.atomic'), { recursive: true });
  return { dir, set, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A copy of the cached workspace of `count` atoms as this build keeps it: the generated one (made
 * by whichever build generated it first, possibly an older schema) opened once by this build, so
 * its migration, its seals, its vector file (rebuilt from the database) and its text tree are
 * those of a workspace this build has opened before, as a user's is. Cached per schema version
 * beside the generated one, which a baseline server (BENCH_BASELINE_CLI, an older build) keeps
 * using as it is.
 */
export async function prepareUpgraded(count: number, progress: Progress = () => {}, seed = 42): Promise<PreparedWorkspace> {
  const cached = join(CACHE_DIR, `ws-syn-g${GENERATOR_VERSION}-n${count}-s${seed}-schema${SCHEMA_VERSION}`);
  if (!existsSync(join(cached, 'ready.json'))) {
    const generated = await prepareSynthetic(count, progress, seed);
    try {
      rmSync(cached, { recursive: true, force: true });
      mkdirSync(cached, { recursive: true });
      cpSync(join(generated.dir, '.atomic'), join(cached, '.atomic'), { recursive: true });
      rmSync(join(cached, '.atomic', 'vectors'), { recursive: true, force: true });
    } finally {
      generated.remove();
    }
    const started = performance.now();
    progress(`opening ${count} atoms once with this build (schema ${SCHEMA_VERSION}; cached for later runs)`);
    const workspace = await AtomWorkspace.open(cached);
    await workspace.search.whenIdle();
    await workspace.close();
    rmSync(join(cached, '.atomic', 'lock'), { force: true });
    const ms = Math.round(performance.now() - started);
    writeFileSync(join(cached, 'ready.json'), JSON.stringify({ atoms: count, ms, vectors: 'synthetic', schema: SCHEMA_VERSION }));
    progress(`  ready in ${(ms / 1000).toFixed(1)} s`);
  }
  const dir = tempDir(`atomic-bench-syn-${count}-`);
  // Timestamps kept: a user's atom files are not all written a moment ago (the text tree trusts
  // the size and mtime it recorded only for files whose mtime is settled, records.ts).
  cpSync(cached, dir, { recursive: true, preserveTimestamps: true, filter: (source) => source !== join(cached, 'ready.json') });
  return { dir, set: generateAtoms(count, seed), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function unitVector(random: () => number): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i++) {
    v[i] = random() * 2 - 1;
    norm += v[i]! * v[i]!;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < DIMENSIONS; i++) v[i]! *= scale;
  return v;
}

/** `node --import tsx test/bench/syntheticWorkspaces.ts 10000 50000`: fills the cache ahead of a run. */
if (require.main === module) {
  void (async () => {
    for (const n of process.argv.slice(2).map(Number)) {
      const ws = await prepareSynthetic(n, (m) => process.stderr.write(`[${n}] ${m}\n`));
      process.stderr.write(`[${n}] ready: ${ws.dir}\n`);
      ws.remove();
    }
  })();
}
