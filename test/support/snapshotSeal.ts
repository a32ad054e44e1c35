/** A SnapshotSeal (search/lexicalSnapshot.ts) keyed by `key`: stands for one machine's secret in tests. */
import { createHmac } from 'node:crypto';
import type { SnapshotSeal } from '../../src/search/lexicalSnapshot.js';

export function sealWith(key: string): SnapshotSeal {
  return (parts) => {
    const mac = createHmac('sha256', key);
    for (const part of parts) mac.update(part);
    return mac.digest();
  };
}
