/**
 * vectra's index as one binary file: a JSON header holding every item but its vector, then all the
 * vectors as binary16 (../embeddings/float16.ts, as the database keeps them). vectra rewrites the
 * whole file on every save; its default JSON turns 10,000 vectors of 512 numbers into ~48 MiB of
 * text, and writing or parsing that blocks the thread for most of a second. Here the file is
 * ~10 MiB at 10,000 atoms.
 *
 * Layout: "ACV2" | header length (u32 LE) | header JSON (UTF-8) | zero padding to a multiple of 4 |
 * binary16 little-endian values, item after item (the header gives each item's length as `n`).
 * Files of the previous layout, "ACV1" (float32 values), are still read.
 */
import { decodeHalf, encodeHalf } from '../embeddings/float16.js';
import type { DocumentCatalog, IndexCodec, IndexData, IndexItem, MetadataTypes } from './vectra.js';

const MAGIC = 'ACV2';
const MAGIC_FLOAT32 = 'ACV1';
const PREFIX = 8;

interface Header {
  version: number;
  metadata_config: IndexData['metadata_config'];
  items: Array<Omit<IndexItem, 'vector'> & { n: number }>;
}

const align4 = (n: number) => (n + 3) & ~3;

export class BinaryIndexCodec implements IndexCodec {
  readonly extension = '.bin';

  serializeIndex(data: IndexData): Buffer {
    let total = 0;
    const items = data.items.map(({ vector, ...rest }) => {
      total += vector.length;
      return { ...rest, n: vector.length };
    });
    const header: Header = { version: data.version, metadata_config: data.metadata_config, items };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const start = align4(PREFIX + json.length);
    const out = Buffer.from(new ArrayBuffer(start + total * 2));
    out.write(MAGIC, 0, 'latin1');
    out.writeUInt32LE(json.length, 4);
    json.copy(out, PREFIX);
    let at = start;
    for (const item of data.items) {
      out.set(encodeHalf(item.vector), at);
      at += item.vector.length * 2;
    }
    return out;
  }

  deserializeIndex(buffer: Buffer): IndexData {
    const magic = buffer.length < PREFIX ? '' : buffer.toString('latin1', 0, 4);
    if (magic !== MAGIC && magic !== MAGIC_FLOAT32) throw new Error('not a vector index file (no ACV2 header)');
    const width = magic === MAGIC ? 2 : 4;
    const length = buffer.readUInt32LE(4);
    if (PREFIX + length > buffer.length) throw new Error('vector index file is cut short in its header');
    const header = JSON.parse(buffer.toString('utf8', PREFIX, PREFIX + length)) as Header;
    const start = align4(PREFIX + length);
    const total = header.items.reduce((sum, item) => sum + item.n, 0);
    if (buffer.length !== start + total * width) {
      throw new Error(`vector index file holds ${buffer.length - start} bytes of vectors, expected ${total * width}`);
    }
    // One array of float32 values (decoded, or copied aligned: the buffer's own offset need not be a
    // multiple of 4); the items' vectors are views into it.
    let values: Float32Array;
    if (width === 2) {
      values = decodeHalf(buffer.subarray(start));
    } else {
      values = new Float32Array(total);
      new Uint8Array(values.buffer).set(buffer.subarray(start));
    }
    let at = 0;
    const items = header.items.map(({ n, ...rest }) => {
      const vector = values.subarray(at, at + n);
      at += n;
      // vectra only indexes, measures and slices vectors, which a Float32Array does as an array does.
      return { ...rest, vector: vector as unknown as number[] };
    });
    return { version: header.version, metadata_config: header.metadata_config, items };
  }

  // Catalogs and metadata files belong to vectra's document indexes, which are not used here.
  serializeCatalog(catalog: DocumentCatalog): Buffer {
    return Buffer.from(JSON.stringify(catalog), 'utf8');
  }

  deserializeCatalog(buffer: Buffer): DocumentCatalog {
    return JSON.parse(buffer.toString('utf8')) as DocumentCatalog;
  }

  serializeMetadata(metadata: Record<string, MetadataTypes>): Buffer {
    return Buffer.from(JSON.stringify(metadata), 'utf8');
  }

  deserializeMetadata(buffer: Buffer): Record<string, MetadataTypes> {
    return JSON.parse(buffer.toString('utf8')) as Record<string, MetadataTypes>;
  }
}
