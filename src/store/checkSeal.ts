/**
 * Seals on atom rows this program checked, so an open need not parse every atom again.
 *
 * Checking each atom as an upsert would (openCheck.ts) parses its code: most of an open's time
 * (seconds at 10,000 atoms). An atom this program wrote was checked before it was written, so
 * each row written gets a seal: an HMAC-SHA256 of every column it loads from, keyed by a secret
 * of this machine's user kept outside every workspace (`~/.cache/atomic-coding/open-check.key`,
 * or `$XDG_CACHE_HOME/...`, or `$ATOMIC_CODING_CACHE_DIR`). A row whose seal matches loads
 * without being parsed again. A database from anywhere else (a cloned repository's `.atomic/`)
 * cannot carry a valid seal without that secret, so every row of it is checked in full, as
 * before; so is a row whose seal is missing or does not match its columns.
 *
 * Without a usable secret (a home folder that cannot be written) nothing is sealed and every
 * open checks every atom. CHECK_VERSION is part of every seal: raise it when the checks an
 * upsert makes become stricter, and every atom is checked again at its next open.
 */
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlValue } from 'sql.js';
import { userCacheDir } from '../util/cacheDir.js';

export const CHECK_VERSION = 2;
const KEY_FILE = 'open-check.key';

/**
 * The secret as a KeyObject, found once per place it may live: an open checks one seal per row,
 * and importing a raw key for every HMAC cost more than the hashing (140 ms vs 30 ms per 10,000).
 */
let cached: { where: string; key: KeyObject | null } | undefined;

/** This machine's secret (created on first use, readable by its user only); null when unavailable. */
function sealKey(): KeyObject | null {
  const { ATOMIC_CODING_CACHE_DIR: a = '', XDG_CACHE_HOME: x = '', HOME: h = '' } = process.env;
  const where = `${a}\0${x}\0${h}`;
  if (cached?.where === where) return cached.key;
  // Outside every workspace: this user's cache folder.
  const dir = userCacheDir();
  let key: Buffer | null;
  const file = join(dir, KEY_FILE);
  try {
    key = readFileSync(file);
    if (key.length < 32) key = null;
  } catch {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const fresh = randomBytes(32);
      writeFileSync(file, fresh, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      key = fresh;
    } catch {
      // Another process may have created it in between: use theirs.
      try {
        key = readFileSync(file);
        if (key.length < 32) key = null;
      } catch {
        key = null;
      }
    }
  }
  cached = { where, key: key ? createSecretKey(key) : null };
  return cached.key;
}

/** The columns a seal covers, as the atoms table holds them. */
export interface SealedColumns {
  name: SqlValue;
  type: SqlValue;
  code: SqlValue;
  description: SqlValue;
  inputs: SqlValue;
  outputs: SqlValue;
  version: SqlValue;
  created_at: SqlValue;
  updated_at: SqlValue;
  dependencies: readonly SqlValue[];
  /** JSON text, or null for none (schema 4). */
  examples: SqlValue;
}

/** The seal of a row, or null when this machine has no secret. */
export function seal(row: SealedColumns): string | null {
  return sealWith(sealKey(), row);
}

/**
 * Seals with the secret looked up once, for an open's rows: `matches` says whether `found` is
 * the seal of `row` made with this machine's secret. Finding the secret reads three environment
 * variables: once per row, 25 ms per 50,000 rows.
 */
export function sealer(): { seal(row: SealedColumns): string | null; matches(row: SealedColumns, found: SqlValue | undefined): boolean } {
  const key = sealKey();
  return {
    seal: (row) => sealWith(key, row),
    matches: (row, found) => {
      if (typeof found !== 'string' || !key) return false;
      return sealWith(key, row) === found;
    },
  };
}

function sealWith(key: KeyObject | null, row: SealedColumns): string | null {
  if (!key) return null;
  const deps = [...row.dependencies].sort();
  const text = JSON.stringify([
    'atomic-coding atom row',
    CHECK_VERSION,
    row.name,
    row.type,
    row.code,
    row.description,
    row.inputs,
    row.outputs,
    row.version,
    row.created_at,
    row.updated_at,
    deps,
    row.examples ?? null,
  ]);
  return createHmac('sha256', key).update(text).digest('base64');
}

/**
 * A seal of `parts` for `purpose` with this machine's secret, or null without one: proves that a
 * small file (the workspace lock) was written by a process of this user on this machine, not
 * committed to a repository.
 */
export function machineSeal(purpose: string, parts: readonly unknown[]): string | null {
  const key = sealKey();
  if (!key) return null;
  return createHmac('sha256', key).update(JSON.stringify([`atomic-coding ${purpose}`, ...parts])).digest('base64');
}

/**
 * An HMAC-SHA256 of `parts` for `purpose` with this machine's secret, or null without one: proves
 * that a larger file derived here (the full-text index's snapshot) was written by this user on
 * this machine, not committed to a repository or damaged since.
 */
export function machineMac(purpose: string, parts: readonly Uint8Array[]): Buffer | null {
  const key = sealKey();
  if (!key) return null;
  const mac = createHmac('sha256', key).update(`atomic-coding ${purpose}\0`);
  for (const part of parts) mac.update(part);
  return mac.digest();
}
