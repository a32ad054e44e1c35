// Builds the table of a static first pass for search (src/search/embeddings/staticVectors.ts),
// model2vec-style: every sentencepiece piece of the shipped model's vocabulary goes through the
// shipped model (Universal Sentence Encoder lite) once, alone, in batches on two model processes;
// the 8,000 vectors are (optionally) projected on their first principal axes, weighted by how rare
// the piece is (SIF: a / (a + p), p the piece's unigram probability from the vocabulary's own
// log-probabilities) and written as int8 with a scale a piece. A text's static vector is then the
// sum of its pieces' rows: a fraction of a millisecond, in process.
//
// Not shipped: measured on the search evaluation it ranks no better than words alone during a
// catch-up (test/eval/static.eval.ts; DEVELOPERS.md, "Embedding catch-up", has the figures).
// Run at development time, when the model or the table's format changes (never at install):
//   node --import tsx scripts/static-vectors.ts [--dims 512] [--sif 1e-3] [--centre] [--raw file] [--out file]
// --raw keeps the model's piece vectors (float32, 8,000 x 512) in a file and reads them from it
// next time (the model pass takes a few minutes on a loaded 2-core machine).
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as energeticCore from '@energetic-ai/core';
import { tfjsWasmDir, useLiteModelDir } from '../src/search/embeddings/paths.js';
import type { Vocabulary } from '../src/search/embeddings/sentencePiece.js';
import { encodeStaticTable, staticTableModelId } from '../test/eval/staticVectors.js';

const root = join(__dirname, '..');
/** Where the table goes by default: not shipped (see DEVELOPERS.md, "Embedding catch-up"), measured by test/eval/static.eval.ts. */
export const STATIC_TABLE_FILE = join(root, 'bench-results', 'static', 'use-lite-static.bin');
const FULL_DIMENSIONS = 512;
/** Pieces a model run: each is a row of one token, so a run is cheap and 64 keep the overhead small. */
const PIECES_PER_RUN = 64;
const PROCESSES = 2;

interface Tensor {
  data(): Promise<Float32Array>;
  dispose(): void;
}
interface Tfjs {
  loadGraphModel(url: string): Promise<{ executeAsync(inputs: Record<string, Tensor>): Promise<Tensor> }>;
  ready(): Promise<void>;
  setWasmPaths(prefix: string): void;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
}

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Worker: the model on the ids it is sent, one piece a row (as the model's sparse input has it). */
async function worker(): Promise<void> {
  const tf = energeticCore as unknown as Tfjs;
  tf.setWasmPaths(`${tfjsWasmDir()}/`);
  await tf.ready();
  const graph = await tf.loadGraphModel(`file://${join(useLiteModelDir(), 'model.json')}`);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (ids: number[]) => {
    void (async () => {
      const out = new Float32Array(ids.length * FULL_DIMENSIONS);
      for (let i = 0; i < ids.length; i += PIECES_PER_RUN) {
        const batch = ids.slice(i, i + PIECES_PER_RUN);
        const indices = new Int32Array(batch.length * 2);
        batch.forEach((_, row) => (indices[2 * row] = row));
        const inputs = { indices: tf.tensor2d(indices, [batch.length, 2], 'int32'), values: tf.tensor1d(Int32Array.from(batch), 'int32') };
        const output = await graph.executeAsync(inputs);
        out.set(await output.data(), i * FULL_DIMENSIONS);
        output.dispose();
        inputs.indices.dispose();
        inputs.values.dispose();
      }
      process.send!(out);
    })();
  });
  process.send!('ready');
}

/** The model's vector of every piece alone, id by id (8,000 x 512, float32). */
async function pieceVectors(count: number): Promise<Float32Array> {
  const all = new Float32Array(count * FULL_DIMENSIONS);
  const size = Math.ceil(count / PROCESSES);
  await Promise.all(
    Array.from({ length: PROCESSES }, (_, p) => {
      const ids = Array.from({ length: Math.max(0, Math.min(count, (p + 1) * size) - p * size) }, (_, k) => p * size + k);
      const child = fork(__filename, ['--worker'], { execArgv: process.execArgv, serialization: 'advanced' });
      return new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) => (code ? reject(new Error(`a model process exited with ${code}`)) : undefined));
        child.on('message', (m: 'ready' | Float32Array) => {
          if (m === 'ready') child.send(ids);
          else {
            all.set(m, p * size * FULL_DIMENSIONS);
            child.disconnect();
            resolve();
          }
        });
      });
    }),
  );
  return all;
}

async function main(): Promise<void> {
  const vocabulary = JSON.parse(readFileSync(join(useLiteModelDir(), 'vocab.json'), 'utf8')) as Vocabulary;
  const rawFile = arg('--raw');
  let raw: Float32Array;
  if (rawFile && existsSync(rawFile)) {
    const bytes = readFileSync(rawFile);
    raw = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    process.stderr.write(`read the model's piece vectors from ${rawFile}\n`);
  } else {
    const t0 = performance.now();
    raw = await pieceVectors(vocabulary.length);
    process.stderr.write(`${vocabulary.length} pieces through the model in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    if (rawFile) writeFileSync(rawFile, raw);
  }
  const dims = Number(arg('--dims') ?? 512);
  const sif = Number(arg('--sif') ?? 1e-3);
  const table = encodeStaticTable(buildRows(raw, vocabulary, dims, sif, process.argv.includes('--centre')), vocabulary.length, dims);
  const out = arg('--out') ?? STATIC_TABLE_FILE;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, table);
  process.stderr.write(`wrote ${out}: ${table.length} bytes, ${dims} dimensions, model id ${staticTableModelId(table)}\n`);
}

/**
 * The table's rows: the pieces' vectors (centred when asked: on the eval's tuned sets centring lost
 * 0.04 of recall@1), projected on the first `dims` principal axes (of the uncentred vectors unless
 * centred: an SVD), each multiplied by its SIF weight (a / (a + p)); the reserved pieces are zero.
 */
export function buildRows(raw: Float32Array, vocabulary: Vocabulary, dims: number, sif: number, centre = false): Float32Array {
  const n = vocabulary.length;
  const d = FULL_DIMENSIONS;
  const mean = new Float64Array(d);
  if (centre) for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) mean[k]! += raw[i * d + k]! / n;
  const centred = new Float64Array(n * d);
  for (let i = 0; i < n; i++) for (let k = 0; k < d; k++) centred[i * d + k] = raw[i * d + k]! - mean[k]!;
  const components = dims < d ? principalComponents(centred, n, d, dims) : identity(d);
  const rows = new Float32Array(n * dims);
  for (let i = 0; i < n; i++) {
    const score = vocabulary[i]![1];
    // Reserved symbols (score 0, never matched in text but the unknown id 0) add nothing.
    const weight = score < 0 ? sif / (sif + Math.exp(score)) : 0;
    for (let c = 0; c < dims; c++) {
      let dot = 0;
      for (let k = 0; k < d; k++) dot += centred[i * d + k]! * components[c * d + k]!;
      rows[i * dims + c] = dot * weight;
    }
  }
  return rows;
}

function identity(d: number): Float64Array {
  const m = new Float64Array(d * d);
  for (let i = 0; i < d; i++) m[i * d + i] = 1;
  return m;
}

/** The first `k` eigenvectors (rows of d) of the covariance of `x` (n x d), by cyclic Jacobi. */
function principalComponents(x: Float64Array, n: number, d: number, k: number): Float64Array {
  const a = new Float64Array(d * d);
  for (let i = 0; i < n; i++) {
    const row = i * d;
    for (let p = 0; p < d; p++) {
      const xp = x[row + p]!;
      if (xp === 0) continue;
      for (let q = p; q < d; q++) a[p * d + q]! += xp * x[row + q]!;
    }
  }
  for (let p = 0; p < d; p++) for (let q = p + 1; q < d; q++) a[q * d + p] = a[p * d + q]!;
  const v = identity(d);
  for (let sweep = 0; sweep < 30; sweep++) {
    let off = 0;
    for (let p = 0; p < d; p++) for (let q = p + 1; q < d; q++) off += a[p * d + q]! ** 2;
    if (off < 1e-18) break;
    for (let p = 0; p < d - 1; p++) {
      for (let q = p + 1; q < d; q++) {
        const apq = a[p * d + q]!;
        if (Math.abs(apq) < 1e-15) continue;
        const theta = (a[q * d + q]! - a[p * d + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < d; r++) {
          const arp = a[r * d + p]!;
          const arq = a[r * d + q]!;
          a[r * d + p] = c * arp - s * arq;
          a[r * d + q] = s * arp + c * arq;
        }
        for (let r = 0; r < d; r++) {
          const apr = a[p * d + r]!;
          const aqr = a[q * d + r]!;
          a[p * d + r] = c * apr - s * aqr;
          a[q * d + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < d; r++) {
          const vrp = v[r * d + p]!;
          const vrq = v[r * d + q]!;
          v[r * d + p] = c * vrp - s * vrq;
          v[r * d + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const order = Array.from({ length: d }, (_, i) => i).sort((i, j) => a[j * d + j]! - a[i * d + i]!);
  const out = new Float64Array(k * d);
  for (let c = 0; c < k; c++) for (let r = 0; r < d; r++) out[c * d + r] = v[r * d + order[c]!]!;
  return out;
}

if (process.argv.includes('--worker')) void worker();
else if (require.main === module) {
  main().catch((err: Error) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
