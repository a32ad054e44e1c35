import { createHash } from 'node:crypto';

/**
 * Short, stable fingerprint of the text that was embedded. Stored beside the vector so a
 * restored or edited database re-embeds only atoms whose text really changed.
 */
export function textHash(text: string): string {
  // The first 16 bytes hexed, not the 64 digits sliced: a slice keeps the whole string alive.
  return createHash('sha256').update(text, 'utf8').digest().toString('hex', 0, 16);
}
