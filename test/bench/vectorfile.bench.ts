/**
 * The vector index file, binary against vectra's JSON. vectra rewrites the whole file on every save
 * (coalesced to once edits pause) and parses it whole at open; both block the thread. Measured side
 * by side in this process on the same items: 512-d unit vectors with the product's metadata, the
 * JSON side with vectors rounded to six decimals as the product wrote them before.
 */
import { JsonCodec } from '../../node_modules/vectra/lib/codecs/JsonCodec.js';
import { BinaryIndexCodec } from '../../src/store/search/binaryCodec.js';
import type { IndexData } from '../../src/store/search/vectra.js';
import { bytes, ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { benchSizes } from './workspaces.js';

const DIM = 512;

function indexOf(count: number, round: boolean): IndexData {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
  const items = Array.from({ length: count }, (_, i) => {
    const v = Array.from({ length: DIM }, random);
    const norm = Math.hypot(...v);
    const vector = v.map((x) => (round ? Math.round((x / norm) * 1e6) / 1e6 : x / norm));
    return { id: `atom_${i}`, metadata: { type: 'util', model: 'use-lite-512@energetic-ai-0.2.0', textHash: `h${i}` }, vector, norm: 1 };
  });
  return { version: 1, metadata_config: {}, items };
}

function timeIt(rounds: number, work: () => void): number[] {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    work();
    samples.push(performance.now() - t);
  }
  return samples;
}

export default async function vectorFileBench(options: BenchOptions): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  for (const size of benchSizes(options)) {
    options.log(`vector file: ${size} items`);
    const rounds = size >= 10_000 ? (options.quick ? 3 : 5) : options.quick ? 5 : 15;
    const json = new JsonCodec();
    const binary = new BinaryIndexCodec();
    const data = indexOf(size, true);
    const jsonFile = json.serializeIndex(data);
    const binaryFile = binary.serializeIndex(data);
    // Interleaved, so a burst of load on the shared machine hits both sides alike.
    const save = { json: [] as number[], binary: [] as number[] };
    const load = { json: [] as number[], binary: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      save.json.push(...timeIt(1, () => json.serializeIndex(data)));
      save.binary.push(...timeIt(1, () => binary.serializeIndex(data)));
      load.json.push(...timeIt(1, () => json.deserializeIndex(jsonFile)));
      load.binary.push(...timeIt(1, () => binary.deserializeIndex(binaryFile)));
    }
    const s = { json: summarize(save.json), binary: summarize(save.binary) };
    const l = { json: summarize(load.json), binary: summarize(load.binary) };
    rows.push({
      items: size,
      'JSON file': bytes(jsonFile.length),
      'binary file': bytes(binaryFile.length),
      'save JSON p50 ms': ms(s.json.p50),
      'save binary p50 ms': ms(s.binary.p50),
      'save binary/JSON': ratio(s.binary.p50, s.json.p50),
      'load JSON p50 ms': ms(l.json.p50),
      'load binary p50 ms': ms(l.binary.p50),
      'load binary/JSON': ratio(l.binary.p50, l.json.p50),
    });
  }
  return {
    title: 'Vector index file: binary against JSON',
    rows,
    notes: [
      'Save = serializing the whole index to the bytes vectra writes (the atomic write and fsync come after, on the thread pool); load = parsing those bytes back into items. Both run on the main thread, so they are what a save or an open blocks.',
      'JSON is vectra 0.15\'s JsonCodec with vectors rounded to 6 decimals (what earlier versions wrote); binary is src/store/search/binaryCodec.ts (a JSON header without vectors, then float32 values).',
    ],
  };
}
