/**
 * The atom model: the vocabulary every other part of Atomic Coding speaks.
 * Pure data and constants; no I/O.
 */

/**
 * core: entry points; feature: mechanics; util: helpers; test: scenarios that call other atoms and
 * throw when something is wrong. Test atoms are run by the checks (verify/), never bundled, never
 * booted, and do not count as callers when an atom is deleted or reported unused.
 */
export const ATOM_TYPES = ['core', 'feature', 'util', 'test'] as const;
export type AtomType = (typeof ATOM_TYPES)[number];

/** The types that are part of the program (latest.js): every type but test. */
export function isProgramAtom(atom: { type: AtomType }): boolean {
  return atom.type !== 'test';
}

/** The seven port types of the contract: JS primitives and arrays of them. */
export const PORT_TYPES = ['number', 'string', 'boolean', 'number[]', 'string[]', 'boolean[]', 'void'] as const;
export type PortType = (typeof PORT_TYPES)[number];

export const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Longest accepted atom name; long enough for any sensible snake_case name, short enough for file names. */
export const MAX_NAME_LENGTH = 128;
/** The contract's size limit, in bytes of UTF-8. */
export const MAX_CODE_BYTES = 2048;
export const MAX_DESCRIPTION_LENGTH = 4096;
export const MAX_PORTS = 32;
export const MAX_DEPENDENCIES = 64;

export interface Port {
  name: string;
  type: PortType;
  description?: string;
  optional?: boolean;
}

/**
 * One call of an atom and what it must give: `returns` (compared as JSON: numbers, strings, booleans,
 * arrays, objects of the outputs), or `throws` (a text the error's message contains). Checked against
 * the atom's ports when written (examples.ts), run after every change that reaches the atom.
 */
export interface AtomExample {
  args: unknown[];
  returns?: unknown;
  throws?: string;
}

/** What a caller supplies to create or update an atom (the upsert_atom arguments). */
export interface AtomDraft {
  name: string;
  type: AtomType;
  code: string;
  inputs?: Port[];
  outputs?: Port[];
  dependencies?: string[];
  description?: string;
  examples?: AtomExample[];
}

/** An atom as stored. */
export interface Atom {
  name: string;
  type: AtomType;
  code: string;
  inputs: Port[];
  outputs: Port[];
  /** Sorted by name, no duplicates. */
  dependencies: string[];
  description: string | null;
  /** Absent or empty: none. */
  examples?: AtomExample[];
  version: number;
  created_at: string;
  updated_at: string;
}

/** One entry of an atom's history: the atom as it was at that version. */
export interface AtomVersion extends Atom {
  /** True for the tombstone written when the atom was deleted. */
  deleted: boolean;
}

export function isAtomType(value: unknown): value is AtomType {
  return typeof value === 'string' && (ATOM_TYPES as readonly string[]).includes(value);
}

export function isPortType(value: unknown): value is PortType {
  return typeof value === 'string' && (PORT_TYPES as readonly string[]).includes(value);
}

/** The code's length in UTF-8 bytes, as Buffer.byteLength counts it (a lone surrogate: 3), in plain JavaScript: the pages use the domain too. */
export function codeBytes(code: string): number {
  let bytes = code.length;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (code.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 4 bytes for its 2 units
      i++;
    }
    else bytes += 2;
  }
  return bytes;
}
