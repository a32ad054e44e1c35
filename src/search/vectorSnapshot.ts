/**
 * The vector index kept between sessions (`.atomic/vectors.idx`), so a start does not rebuild it from
 * the store: reading every atom's row and vector (binary16, vectors.bin), compacting each to 8 bits
 * and hashing every atom's embedded text to know the vector is still its text's took ~0.3 s of the
 * event loop at 10,000 atoms, before the first search could answer. It is derived data: written at
 * close, without fsync, and trusted only as far as it proves (as the full-text snapshot,
 * lexicalSnapshot.ts):
 *
 * - sealed with this machine's secret: a file committed to a repository, or one damaged on disk, is
 *   not read, and the index is built from the store as before;
 * - made by this product's version, for one model and its dimensions: another model's vectors are
 *   never compared with this one's queries;
 * - each vector carries the fingerprint of the atom it was current for when written
 *   (`atomFingerprint`: its version and that version's time), and is taken only for an atom whose
 *   fingerprint still matches: any change of an atom is a new version. The others are read from the
 *   store as before (searchIndex.ts).
 *
 * Layout: MAGIC, a little-endian u32 length and the header's JSON, the entries' JSON (name,
 * fingerprint, text hash), zeros to a multiple of 4, the vectors (8-bit, `dimensions` each, in the
 * entries' order), then the 32-byte seal of everything before it. The vectors read back are views of
 * the file's bytes: the index keeps them as they are (vectorIndex.ts keeps 8-bit vectors).
 */
import { VERSION } from '../version.js';
import { openSnapshot, sealSnapshot, type SnapshotSeal } from './lexicalSnapshot.js';

const MAGIC = Buffer.from('ACVIDX01', 'latin1');
/** Raise when the layout or the header's shape changes. */
const FORMAT = 1;

/** One atom's vector as kept: current for the atom's text when the fingerprint was taken. */
export interface KeptVector {
  fingerprint: string;
  textHash: string;
  vector: Int8Array;
}

/** A snapshot read back: whose vectors, and each atom's. */
export interface VectorSnapshot {
  model: string;
  dimensions: number;
  vectors: Map<string, KeptVector>;
}

interface Header {
  format: number;
  product: string;
  model: string;
  dimensions: number;
  count: number;
  /** Bytes of the entries' JSON after the header. */
  entries: number;
}

/** The snapshot's bytes, or undefined where none can be kept (no secret, or a vector not of `dimensions`). */
export function encodeVectorSnapshot(model: string, dimensions: number, vectors: ReadonlyMap<string, KeptVector>, seal: SnapshotSeal): Buffer | undefined {
  const entries: Array<[name: string, fingerprint: string, textHash: string]> = [];
  const body = Buffer.alloc(vectors.size * dimensions);
  let at = 0;
  for (const [name, kept] of vectors) {
    if (kept.vector.length !== dimensions) return undefined;
    entries.push([name, kept.fingerprint, kept.textHash]);
    body.set(new Uint8Array(kept.vector.buffer, kept.vector.byteOffset, dimensions), at);
    at += dimensions;
  }
  const entriesJson = Buffer.from(JSON.stringify(entries), 'utf8');
  const header: Header = { format: FORMAT, product: VERSION, model, dimensions, count: entries.length, entries: entriesJson.length };
  return sealSnapshot(MAGIC, header, [entriesJson], [body], seal);
}

/** The snapshot in `bytes`, or why it cannot be used (not sealed here, another version, cut short...). */
export function decodeVectorSnapshot(bytes: Buffer, seal: SnapshotSeal): VectorSnapshot | string {
  const opened = openSnapshot(bytes, MAGIC, 'vector snapshot', seal);
  if (typeof opened === 'string') return opened;
  const { body } = opened;
  const header = opened.header as Header;
  let at = opened.at;
  try {
    if (header.format !== FORMAT || header.product !== VERSION) return 'written by another version';
    const { model, dimensions, count } = header;
    if (typeof model !== 'string' || !isCount(dimensions) || dimensions === 0 || !isCount(count) || !isCount(header.entries)) return 'not as the format says';
    if (at + header.entries > body.length) return 'cut short';
    const entries = JSON.parse(body.toString('utf8', at, at + header.entries)) as unknown;
    at += header.entries;
    at += (4 - (at % 4)) % 4;
    if (!Array.isArray(entries) || entries.length !== count) return 'not as the format says';
    if (at + count * dimensions !== body.length) return 'not as long as it says';
    const vectors = new Map<string, KeptVector>();
    for (let i = 0; i < count; i++) {
      const entry = entries[i] as unknown;
      if (!Array.isArray(entry) || entry.length !== 3 || !entry.every((part) => typeof part === 'string')) return 'not as the format says';
      const [name, fingerprint, textHash] = entry as [string, string, string];
      if (vectors.has(name)) return 'not as the format says';
      vectors.set(name, { fingerprint, textHash, vector: new Int8Array(body.buffer, body.byteOffset + at + i * dimensions, dimensions) });
    }
    return { model, dimensions, vectors };
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
}

function isCount(n: unknown): n is number {
  return Number.isSafeInteger(n) && (n as number) >= 0;
}
