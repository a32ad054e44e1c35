import { createHash } from 'node:crypto';

/**
 * Short, stable fingerprint of the text that was embedded. Stored beside the vector so a
 * restored or edited database re-embeds only atoms whose text really changed.
 */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}
