/**
 * Gives a large temporary buffer's memory back now instead of at the next full garbage collection.
 *
 * A buffer that lives long enough to be promoted to V8's old generation (a load's spool, an array
 * that grew) keeps its bytes until a full collection finds it unreachable, and those come when the
 * JavaScript heap, not the buffers, has grown enough: at 50,000 atoms, tens of MiB of released
 * buffers were still resident at the server's peak. `transfer(0)` (ES2024) detaches the buffer and
 * frees its bytes at once; every view of it is empty afterwards, so only a buffer no one else
 * holds may be released. Where the runtime lacks `transfer` (Node 20), the collector frees it as before.
 */
export function releaseBuffer(view: ArrayBufferView): void {
  const buffer = view.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer; detached?: boolean };
  if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer?.(0);
}
