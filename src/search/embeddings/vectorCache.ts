/**
 * This user's cache of embeddings, outside every workspace (util/cacheDir.ts): the same text,
 * embedded by the same model, is embedded once on this machine. A second clone, a branch switch
 * back, a worktree, a CI job that keeps the cache folder: their atoms' vectors are read here in
 * milliseconds instead of ~100 ms of model time each.
 *
 * One file per model (`embeddings/<hash of the model id>.bin`), appended to: a 32-byte header
 * (`ACEC`, format, dimensions, the hash of the model id), then records of the embedded text's
 * hash (textHash.ts, 16 bytes), the vector (float32, as the model gave it: a vector read here
 * is the one embedding would give) and 4 bytes of checksum over both. A record is used only when its checksum holds, so a write cut short (a
 * crash, a full disk) loses that record and no other: a writer first pads a cut-short file to
 * the next whole record. The file is opened as the store opens what a clone may have planted
 * (util/safeFile.ts: no link followed, a plain file of this user, bounded in size).
 *
 * Nothing here is ever required: any failure to read or write leaves search embedding as before.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { userCacheDir } from '../../util/cacheDir.js';
import { openPlainFile, readFully } from '../../util/safeFile.js';
import { textHash } from '../../util/textHash.js';
import type { EmbedderMemory, EmbeddingProvider } from './provider.js';

const MAGIC = 0x43454341; // "ACEC" little-endian
const FORMAT = 1;
const HEADER_BYTES = 32;
const HASH_BYTES = 16;
const CHECK_BYTES = 4;
/** The largest file used (~65,000 vectors of 512 dimensions); a file over it is started afresh. */
export const MAX_CACHE_BYTES = 128 * 1024 * 1024;

export interface CachedVector {
  textHash: string;
  vector: Float32Array;
}

/** The vectors of one model in this user's cache. */
export class VectorCache {
  /**
   * The hex text hash -> offset of its record in the file. Only this is kept in memory (~100
   * bytes an entry); vectors are read from the file when asked for, their checksum checked again.
   */
  private index: Map<string, number> | undefined;
  private loading: Promise<void> | undefined;
  private readonly modelKey: Buffer;
  private readonly recordBytes: number;
  readonly file: string;

  constructor(
    modelId: string,
    readonly dimensions: number,
    folder = join(userCacheDir(), 'embeddings'),
  ) {
    this.modelKey = createHash('sha256').update(`${modelId}\0${dimensions}`, 'utf8').digest().subarray(0, 16);
    this.recordBytes = HASH_BYTES + dimensions * 4 + CHECK_BYTES;
    this.file = join(folder, `${this.modelKey.toString('hex')}.bin`);
  }

  /** The cached vectors of these text hashes (those found). */
  async get(textHashes: readonly string[]): Promise<Map<string, Float32Array>> {
    await this.load();
    const found = new Map<string, Float32Array>();
    const toRead: Array<[string, number]> = [];
    for (const hash of textHashes) {
      const at = this.index!.get(hash);
      if (at !== undefined) toRead.push([hash, at]);
    }
    if (toRead.length === 0) return found;
    const handle = await openPlainFile(this.file, 'read', 0o600, MAX_CACHE_BYTES);
    try {
      const record = Buffer.alloc(this.recordBytes);
      // In file order: a clone's atoms were mostly appended together.
      toRead.sort((a, b) => a[1] - b[1]);
      for (const [hash, at] of toRead) {
        const { bytesRead } = await handle.read(record, 0, this.recordBytes, at);
        // Another process may have started the file afresh since: the record must still be this hash's.
        if (bytesRead !== this.recordBytes || !this.holds(record, hash)) continue;
        const vector = new Float32Array(this.dimensions);
        Buffer.from(vector.buffer).set(record.subarray(HASH_BYTES, HASH_BYTES + this.dimensions * 4));
        found.set(hash, vector);
      }
    } finally {
      await handle.close();
    }
    return found;
  }

  private holds(record: Buffer, hash?: string): boolean {
    const end = this.recordBytes - CHECK_BYTES;
    if (hash !== undefined && record.toString('hex', 0, HASH_BYTES) !== hash) return false;
    return checksum(record.subarray(0, end)).equals(record.subarray(end));
  }

  /** Adds vectors (appended to the file in one write); a failure is the caller's to log. */
  async put(vectors: readonly CachedVector[]): Promise<void> {
    await this.load();
    const index = this.index!;
    const fresh = vectors.filter((v) => v.vector.length === this.dimensions && !index.has(v.textHash));
    if (fresh.length === 0) return;
    mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
    const handle = await openPlainFile(this.file, 'append', 0o600);
    try {
      const size = (await handle.stat()).size;
      const parts: Buffer[] = [];
      if (size < HEADER_BYTES || size + fresh.length * this.recordBytes > MAX_CACHE_BYTES || !(await this.headerMatches())) {
        // Not ours, empty, or full: started afresh (O_APPEND: the writes then start at 0).
        await handle.truncate(0);
        index.clear();
        parts.push(this.header());
      } else {
        // A record cut short (a crash mid-write): pad to the next whole record, which fails its checksum.
        const partial = (size - HEADER_BYTES) % this.recordBytes;
        if (partial !== 0) parts.push(Buffer.alloc(this.recordBytes - partial));
      }
      const before = parts.reduce((n, p) => n + p.length, 0);
      for (const v of fresh) parts.push(this.record(v));
      const bytes = Buffer.concat(parts);
      await handle.write(bytes);
      // Where the records landed (should another process have appended meanwhile, a read finds
      // another hash there and counts a miss).
      const start = (await handle.stat()).size - bytes.length + before;
      fresh.forEach((v, k) => index.set(v.textHash, start + k * this.recordBytes));
    } finally {
      await handle.close();
    }
  }

  private async headerMatches(): Promise<boolean> {
    const handle = await openPlainFile(this.file, 'read');
    try {
      const header = Buffer.alloc(HEADER_BYTES);
      const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0);
      return bytesRead === HEADER_BYTES && header.equals(this.header());
    } finally {
      await handle.close();
    }
  }

  private header(): Buffer {
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(FORMAT, 4);
    header.writeUInt32LE(this.dimensions, 8);
    this.modelKey.copy(header, 16);
    return header;
  }

  private record(v: CachedVector): Buffer {
    const record = Buffer.alloc(this.recordBytes);
    record.write(v.textHash, 0, HASH_BYTES, 'hex');
    const vector = Float32Array.from(v.vector);
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(record, HASH_BYTES);
    checksum(record.subarray(0, this.recordBytes - CHECK_BYTES)).copy(record, this.recordBytes - CHECK_BYTES);
    return record;
  }

  private load(): Promise<void> {
    this.loading ??= this.read().catch(() => {
      // No file yet, or one that may not be read: nothing is cached.
      this.index = new Map();
    });
    return this.loading;
  }

  /**
   * Reads the file once to index it, a slice of whole records at a time (INDEX_READ_RECORDS): the
   * file may be 128 MiB (MAX_CACHE_BYTES), and read whole it was as much resident memory at once,
   * in the middle of the first write or search.
   */
  private async read(): Promise<void> {
    const handle = await openPlainFile(this.file, 'read', 0o644, MAX_CACHE_BYTES);
    const index = new Map<string, number>();
    try {
      // The read stops at the size checked on open, even if the file grows meanwhile (as readPlainFile's).
      const size = Math.min((await handle.stat()).size, MAX_CACHE_BYTES);
      const header = Buffer.alloc(HEADER_BYTES);
      if ((await readFully(handle, header, 0)) === HEADER_BYTES && header.equals(this.header())) {
        const slice = Buffer.alloc(this.recordBytes * INDEX_READ_RECORDS);
        for (let at = HEADER_BYTES; at + this.recordBytes <= size; ) {
          const want = Math.min(slice.length, size - at);
          const got = await readFully(handle, slice.subarray(0, want), at);
          const whole = got - (got % this.recordBytes);
          for (let k = 0; k < whole; k += this.recordBytes) {
            const record = slice.subarray(k, k + this.recordBytes);
            if (this.holds(record)) index.set(record.toString('hex', 0, HASH_BYTES), at + k);
          }
          if (got < want || whole === 0) break;
          at += whole;
        }
      }
    } finally {
      await handle.close();
    }
    this.index = index;
  }
}

/** Records read at a time when the file is indexed (~1 MiB at 512 dimensions). */
const INDEX_READ_RECORDS = 512;

function checksum(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest().subarray(0, CHECK_BYTES);
}

/**
 * A provider that reads this user's cache first and embeds only what it lacks, adding it. The
 * embed queue goes through it (atoms' texts); queries do not (they would only fill the cache).
 */
export class CachingProvider implements EmbeddingProvider {
  readonly modelId: string;
  readonly dimensions: number;

  constructor(
    private readonly inner: EmbeddingProvider,
    readonly cache: VectorCache,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    this.modelId = inner.modelId;
    this.dimensions = inner.dimensions;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const hashes = texts.map(textHash);
    const found = await this.cache.get(hashes).catch((err: Error) => (this.onError(err), new Map<string, Float32Array>()));
    const missing = texts.map((_, i) => i).filter((i) => !found.has(hashes[i]!));
    if (missing.length > 0) {
      const vectors = await this.inner.embed(missing.map((i) => texts[i]!));
      missing.forEach((i, k) => found.set(hashes[i]!, vectors[k]!));
      // Awaited (one append): a process that closes right after still leaves them cached.
      await this.cache.put(missing.map((i, k) => ({ textHash: hashes[i]!, vector: vectors[k]! }))).catch((err: Error) => this.onError(err));
    }
    return hashes.map((h) => found.get(h)!);
  }

  memory(): EmbedderMemory {
    return this.inner.memory?.() ?? { running: false };
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}
