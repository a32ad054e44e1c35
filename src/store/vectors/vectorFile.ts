/**
 * The vectors themselves, out of the database: `.atomic/vectors.bin`, fixed-size slots of binary16
 * vectors (float16.ts). The `embedding_slots` table says which slot holds each atom's vector
 * (schema 3); the database no longer carries 1 KiB of vector per atom.
 *
 * Why: sql.js holds the whole database in memory, and search holds every vector in memory too,
 * so a vector in the database was kept twice (53 MiB of the 161 MiB database at 50,000 atoms,
 * and read at every open and written at every snapshot). Here it is read once, when search loads
 * the vectors, and search's copy is the only one.
 *
 * Layout: a 16-byte header (`ACVF`, format 1, dimensions, reserved), then slot after slot, each
 * the 16 bytes of the text hash its vector was computed from (hashBytes), then the vector. A slot
 * is read back only when it holds the hash its row names, so a slot reused, a database from
 * elsewhere or a file cut short gives no vector (search embeds the atom again), never someone
 * else's.
 *
 * Durability: a vector is written to a free slot and flushed to disk before the journal entry
 * that names it is committed; the slot it replaces is free only once that entry is durable. A
 * crash in between leaves a slot nothing names, free at the next open.
 */
import { createHash } from 'node:crypto';
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, lstatSync, readSync, readvSync, write, writeSync } from 'node:fs';
import { openPlainFileSync } from '../../util/safeFile.js';
import { promisify } from 'node:util';
import { encodeHalf, halfVector, type Vector } from './float16.js';

const MAGIC = 0x46564341; // "ACVF" little-endian
const FORMAT = 1;
const HEADER_BYTES = 16;
const HASH_BYTES = 16;
/** A file claiming more dimensions than this is not ours (USE-lite has 512). */
const MAX_DIMENSIONS = 8192;
/** `readMany` reads at most this much at a time... */
const READ_WINDOW_BYTES = 256 * 1024;
/** ...and reads through a gap of at most this many slots not asked for rather than read twice. */
const WINDOW_GAP_SLOTS = 8;

/** A vector to store and the hash of the text it was computed from (textHash.ts: 32 hex digits). */
export interface VectorToWrite {
  textHash: string;
  vector: ArrayLike<number>;
}

export class VectorFile {
  private fd: number | undefined;
  private readFd: number | undefined;
  /** Vector length of every slot; undefined until the file exists. */
  private dimensions: number | undefined;
  /** Slots in the file (whole ones). */
  private slots = 0;
  /** Slots no row names. */
  private free = new Set<number>();
  /** A read's slot hash, compared at once (one buffer for every read). */
  private readonly hashRead = Buffer.alloc(HASH_BYTES);

  constructor(readonly file: string) {}

  /**
   * After a load: `used` are the slots the database's rows name. The file's header is read (a file
   * that is not ours, or none, counts as empty: the next write starts it afresh), and the slots
   * after the last one named are cut off.
   */
  reset(used: Iterable<number>): void {
    this.closeFile();
    const taken = new Set(used);
    this.dimensions = undefined;
    this.slots = 0;
    try {
      const fd = openPlainFileSync(this.file, 'read');
      try {
        const header = Buffer.alloc(HEADER_BYTES);
        if (readSync(fd, header, 0, HEADER_BYTES, 0) === HEADER_BYTES && header.readUInt32LE(0) === MAGIC && header.readUInt32LE(4) === FORMAT) {
          const dimensions = header.readUInt32LE(8);
          if (dimensions > 0 && dimensions <= MAX_DIMENSIONS) {
            this.dimensions = dimensions;
            this.slots = Math.floor((fstatSync(fd).size - HEADER_BYTES) / slotBytes(dimensions));
          }
        }
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // Slots after the last one named are cut off (a workspace that shrank gives its space back).
    let end = 0;
    for (const slot of taken) if (slot < this.slots) end = Math.max(end, slot + 1);
    if (this.dimensions !== undefined && end < this.slots) {
      try {
        const fd = openPlainFileSync(this.file, 'update');
        try {
          ftruncateSync(fd, HEADER_BYTES + end * slotBytes(this.dimensions));
        } finally {
          closeSync(fd);
        }
        this.slots = end;
      } catch {
        // A read-only workspace keeps its file as it is; those slots are still free to write.
      }
    }
    this.free = new Set();
    for (let slot = 0; slot < this.slots; slot++) if (!taken.has(slot)) this.free.add(slot);
  }

  /**
   * Writes `vectors` into free slots (growing the file as needed) and flushes them to disk;
   * returns their slots, in order. Vectors of another length than the file's start the file
   * afresh (`afresh`): every slot it held was another model's, and no row's slot is read again.
   */
  async write(vectors: readonly VectorToWrite[]): Promise<{ slots: number[]; afresh: boolean }> {
    if (vectors.length === 0) return { slots: [], afresh: false };
    const dimensions = vectors[0]!.vector.length;
    if (dimensions === 0 || dimensions > MAX_DIMENSIONS || vectors.some((v) => v.vector.length !== dimensions)) {
      throw new Error(`vectors of ${dimensions} dimensions cannot be stored (all must have the same length, 1 to ${MAX_DIMENSIONS})`);
    }
    const afresh = this.dimensions !== dimensions;
    if (afresh) this.startAfresh(dimensions);
    const fd = this.open();
    const size = slotBytes(dimensions);
    const slots: number[] = [];
    try {
      for (const v of vectors) {
        const slot = this.takeFree() ?? this.slots++;
        slots.push(slot);
        const bytes = Buffer.alloc(size);
        hashBytes(v.textHash).copy(bytes, 0);
        bytes.set(encodeHalf(v.vector), HASH_BYTES);
        for (let done = 0; done < size; ) done += await writeAsync(fd, bytes, done, size - done, HEADER_BYTES + slot * size + done);
      }
      await fdatasyncAsync(fd);
    } catch (err) {
      for (const slot of slots) this.release(slot);
      throw err;
    }
    return { slots, afresh };
  }

  /** Nothing names `slot` any more (its row was replaced or deleted, durably). */
  release(slot: number): void {
    if (Number.isInteger(slot) && slot >= 0 && slot < this.slots) this.free.add(slot);
  }

  /** How many slots the file has, and how many of them are free. */
  get usage(): { slots: number; free: number } {
    return { slots: this.slots, free: this.free.size };
  }

  private takeFree(): number | undefined {
    for (const slot of this.free) {
      this.free.delete(slot);
      return slot;
    }
    return undefined;
  }

  /**
   * One slot's vector, when it holds `textHash`'s; undefined otherwise. The vector gets a buffer of
   * its own: vectra scored 50,000 Float16Array views into one large buffer at two thirds the speed
   * (a search at 50,000 atoms: 60 ms against 40). Many at once: `readMany`.
   */
  read(slot: number, textHash: string): Vector | undefined {
    const dimensions = this.dimensions;
    if (dimensions === undefined || !Number.isInteger(slot) || slot < 0 || slot >= this.slots) return undefined;
    const hash = this.hashRead;
    const vector = new Uint8Array(dimensions * 2);
    const read = readvSync(this.openForReading(), [hash, vector], HEADER_BYTES + slot * slotBytes(dimensions));
    if (read !== HASH_BYTES + vector.length || !holds(hash, textHash)) return undefined;
    return halfVector(vector);
  }

  /**
   * The vectors of many slots, as `read` gives each (only where the slot holds its hash), handed to
   * `take` as they are read, with the index of their request, in bytes the next read reuses. Read in
   * the file's order, a window of neighbouring slots at a time: one call a slot cost ~4 µs of the
   * event loop each (10,000 slots: 40-47 ms, against 9 in windows).
   */
  readMany(wanted: readonly { slot: number; textHash: string }[], take: (index: number, vector: Vector) => void): void {
    const dimensions = this.dimensions;
    if (dimensions === undefined) return;
    const size = slotBytes(dimensions);
    const order: number[] = [];
    for (let i = 0; i < wanted.length; i++) {
      const slot = wanted[i]!.slot;
      if (Number.isInteger(slot) && slot >= 0 && slot < this.slots) order.push(i);
    }
    if (order.length === 0) return;
    order.sort((a, b) => wanted[a]!.slot - wanted[b]!.slot);
    const perWindow = Math.max(1, Math.floor(READ_WINDOW_BYTES / size));
    // No larger than the most a read can span: every slot asked for, and the gaps between them.
    const window = Buffer.allocUnsafeSlow(Math.min(perWindow, order.length * (WINDOW_GAP_SLOTS + 1)) * size);
    const fd = this.openForReading();
    for (let i = 0; i < order.length; ) {
      const first = wanted[order[i]!]!.slot;
      let j = i;
      // Neighbours share a read while they fit the window and lie close (a gap is read and skipped).
      while (j + 1 < order.length) {
        const next = wanted[order[j + 1]!]!.slot;
        if ((next - first + 1) * size > window.length || next - wanted[order[j]!]!.slot > WINDOW_GAP_SLOTS) break;
        j++;
      }
      const length = (wanted[order[j]!]!.slot - first + 1) * size;
      let got = 0;
      while (got < length) {
        const n = readSync(fd, window, got, length - got, HEADER_BYTES + first * size + got);
        if (n === 0) break; // cut short: the slots past its end give no vector
        got += n;
      }
      for (let k = i; k <= j; k++) {
        const { slot, textHash } = wanted[order[k]!]!;
        const at = (slot - first) * size;
        if (at + size <= got && holds(window.subarray(at, at + HASH_BYTES), textHash)) take(order[k]!, halfVector(window.subarray(at + HASH_BYTES, at + size)));
      }
      i = j + 1;
    }
  }

  close(): void {
    this.closeFile();
  }

  private open(): number {
    this.fd ??= openPlainFileSync(this.file, 'update');
    return this.fd;
  }

  /** Reads need no write access: a read-only workspace still reads its vectors. */
  private openForReading(): number {
    this.readFd ??= this.fd ?? openPlainFileSync(this.file, 'read');
    return this.readFd;
  }

  private closeFile(): void {
    if (this.readFd !== undefined && this.readFd !== this.fd) closeSync(this.readFd);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.readFd = undefined;
  }

  /** A file of `dimensions`-long slots, none used: what the slots held is no longer read. */
  private startAfresh(dimensions: number): void {
    this.closeFile();
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(FORMAT, 4);
    header.writeUInt32LE(dimensions, 8);
    const fd = openPlainFileSync(this.file, 'write');
    try {
      writeAll(fd, header, 0);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.dimensions = dimensions;
    this.slots = 0;
    this.free = new Set();
  }
}

function slotBytes(dimensions: number): number {
  return HASH_BYTES + dimensions * 2;
}

const HEX_HASH = /^[0-9a-f]{32}$/;

/** The 16 bytes a slot keeps of its text hash: the hash itself (32 hex digits, as textHash.ts makes it), or a digest of another. */
function hashBytes(textHash: string): Buffer {
  return HEX_HASH.test(textHash) ? Buffer.from(textHash, 'hex') : createHash('sha256').update(textHash).digest().subarray(0, HASH_BYTES);
}

function holds(hash: Buffer, textHash: string): boolean {
  return HEX_HASH.test(textHash) ? hash.toString('hex') === textHash : hash.equals(hashBytes(textHash));
}

const writeAsync = async (fd: number, bytes: Uint8Array, offset: number, length: number, position: number): Promise<number> =>
  (await promisify(write)(fd, bytes, offset, length, position)).bytesWritten;
const fdatasyncAsync = promisify(fdatasync);

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/** Whether `file` (a workspace's vectors.bin) holds any vector: its workspace was embedded before. Looks without following a link. */
export function holdsVectors(file: string): boolean {
  try {
    const st = lstatSync(file);
    return st.isFile() && st.size > HEADER_BYTES;
  } catch {
    return false;
  }
}
