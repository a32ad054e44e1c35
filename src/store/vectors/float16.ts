/**
 * Vectors as half-precision floats (IEEE 754 binary16, little-endian): how the database and the
 * vector file keep them, at half the bytes of float32. An embedding's components are a few
 * hundredths in size; binary16 keeps them to about 1 part in 2,000, which moves a cosine
 * similarity by less than 0.001, far below the gaps that decide a ranking. Node 22 (VS Code's
 * extension host) has no Float16Array, so the conversion is written out here; where the runtime
 * has one (Node 24), a vector read back is a view on its binary16 bytes (`halfVector`).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** One float32 value as binary16 bits, rounded to nearest even. */
export function toHalf(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf, NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // too large: Inf
  if (e <= 0) {
    if (e < -10) return sign; // too small: zero
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++; // a carry into the exponent is still right
  return sign | half;
}

/** binary16 bits as a number. */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** A vector as binary16 bytes, little-endian. */
export function encodeHalf(vector: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(vector.length * 2);
  for (let i = 0; i < vector.length; i++) {
    const h = toHalf(vector[i]!);
    out[2 * i] = h & 0xff;
    out[2 * i + 1] = h >>> 8;
  }
  return out;
}

/** Every binary16 value as float32, built on first use (256 KiB): decoding is one lookup per value. */
let table: Float32Array | undefined;

/** binary16 bytes (little-endian, an even count) as a float32 vector. */
export function decodeHalf(bytes: Uint8Array): Float32Array {
  if (!table) {
    table = new Float32Array(0x10000);
    for (let h = 0; h < 0x10000; h++) table[h] = fromHalf(h);
  }
  const t = table;
  const out = new Float32Array(bytes.byteLength >>> 1);
  for (let i = 0; i < out.length; i++) out[i] = t[bytes[2 * i]! | (bytes[2 * i + 1]! << 8)]!;
  return out;
}

/** A vector to compute with: float32, or binary16 where the runtime has Float16Array. */
export type Vector = Float32Array | Float16Array;

/** Float16Array where the runtime has it (Node 24), else undefined (Node 22). */
const RUNTIME_HALF = (globalThis as { Float16Array?: Float16ArrayConstructor }).Float16Array;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * binary16 bytes (little-endian, an even count) as a vector: with Float16Array, a view on the
 * bytes themselves (half the memory of float32, nothing converted: 50 MiB less at 50,000 atoms);
 * without it, decoded to float32. The values are the same either way (every binary16 value is a
 * float32 value), so rankings are too. `bytes` must be the caller's own: it is not copied.
 */
export function halfVector(bytes: Uint8Array, Half: Float16ArrayConstructor | null = RUNTIME_HALF ?? null): Vector {
  if (Half && LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) return new Half(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1);
  return decodeHalf(bytes);
}

/** The vector as binary16 keeps it: what a save and a read back give. */
export function roundToHalf(vector: Float32Array): Float32Array {
  return decodeHalf(encodeHalf(vector));
}
