/**
 * The static first pass of search: a text's vector as the sum of its sentencepiece pieces' static
 * vectors, in this process, a fraction of a millisecond an atom where the model takes ~100 ms.
 * The table (models/use-lite-static.bin, dist/models/ when bundled) was taken from the shipped
 * model once, model2vec-style, by scripts/static-vectors.ts: each of the vocabulary's 8,000 pieces
 * through USE-lite alone, centred, projected on its first principal components, weighted by rarity
 * (SIF), int8 with a scale a piece.
 *
 * Static vectors live in their own space: a static vector is compared only with static vectors
 * (the search index keeps them apart, StaticIndex in ../staticIndex.ts, and never ranks one query
 * with both spaces). Their model id is not USE-lite's, so no store or cache ever mistakes one for
 * the other.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SentencePiece, type Vocabulary } from '../../src/search/embeddings/sentencePiece.js';

const MAGIC = 0x54534341; // "ACST" little-endian
const FORMAT = 1;
const HEADER_BYTES = 32;
const HASH_BYTES = 16;

/** Turns a text into a vector of the static space. */
export interface StaticEmbedder {
  /** Names the table (its dimensions and a hash of its bytes); never a full model's id. */
  readonly modelId: string;
  readonly dimensions: number;
  /** The text's static vector (not normalized: cosine does not need it). */
  embed(text: string): Float32Array;
}

/** The table's bytes: header, a float32 scale a piece, then the pieces' int8 rows. */
export function encodeStaticTable(rows: Float32Array, pieces: number, dims: number): Buffer {
  const body = Buffer.alloc(pieces * 4 + pieces * dims);
  for (let i = 0; i < pieces; i++) {
    let largest = 0;
    for (let c = 0; c < dims; c++) largest = Math.max(largest, Math.abs(rows[i * dims + c]!));
    const scale = largest > 0 ? largest / 127 : 0;
    body.writeFloatLE(scale, i * 4);
    for (let c = 0; c < dims; c++) body.writeInt8(scale > 0 ? Math.round(rows[i * dims + c]! / scale) : 0, pieces * 4 + i * dims + c);
  }
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(FORMAT, 4);
  header.writeUInt32LE(pieces, 8);
  header.writeUInt32LE(dims, 12);
  createHash('sha256').update(body).digest().copy(header, 16, 0, HASH_BYTES);
  return Buffer.concat([header, body]);
}

/** The model id of a table: its dimensions and the hash of its rows, so a new table is a new space. */
export function staticTableModelId(table: Buffer): string {
  return `use-lite-static-${table.readUInt32LE(12)}@${table.toString('hex', 16, 24)}`;
}

/** A table read and checked, with the tokenizer of the vocabulary it was made for. */
export class StaticVectors implements StaticEmbedder {
  readonly modelId: string;
  readonly dimensions: number;
  private readonly scales: Float32Array;
  private readonly rows: Int8Array;
  private readonly tokenizer: SentencePiece;

  constructor(table: Buffer, vocabulary: Vocabulary | SentencePiece) {
    if (table.length < HEADER_BYTES || table.readUInt32LE(0) !== MAGIC || table.readUInt32LE(4) !== FORMAT) {
      throw new Error('the static vector table is not one this version reads');
    }
    const pieces = table.readUInt32LE(8);
    const dims = table.readUInt32LE(12);
    const body = table.subarray(HEADER_BYTES);
    if (body.length !== pieces * 4 + pieces * dims) throw new Error('the static vector table is cut short');
    if (!createHash('sha256').update(body).digest().subarray(0, HASH_BYTES).equals(table.subarray(16, 16 + HASH_BYTES))) {
      throw new Error('the static vector table is damaged (its checksum does not hold)');
    }
    this.tokenizer = vocabulary instanceof SentencePiece ? vocabulary : new SentencePiece(vocabulary);
    if (this.tokenizer.size !== pieces) throw new Error(`the static vector table has ${pieces} pieces, the vocabulary ${this.tokenizer.size}`);
    // Copied out of the file's buffer, aligned for the float view.
    this.scales = new Float32Array(pieces);
    for (let i = 0; i < pieces; i++) this.scales[i] = body.readFloatLE(i * 4);
    this.rows = new Int8Array(body.buffer.slice(body.byteOffset + pieces * 4, body.byteOffset + body.length));
    this.dimensions = dims;
    this.modelId = staticTableModelId(table);
  }

  /** Reads the table file and the model's vocabulary (vocab.json); throws when either is missing or damaged. */
  static load(tableFile: string, vocabularyFile: string): StaticVectors {
    return new StaticVectors(readFileSync(tableFile), JSON.parse(readFileSync(vocabularyFile, 'utf8')) as Vocabulary);
  }

  embed(text: string): Float32Array {
    const dims = this.dimensions;
    const out = new Float32Array(dims);
    const rows = this.rows;
    for (const id of this.tokenizer.encode(text)) {
      const scale = this.scales[id]!;
      if (scale === 0) continue;
      const at = id * dims;
      for (let c = 0; c < dims; c++) out[c]! += rows[at + c]! * scale;
    }
    return out;
  }
}
