/**
 * The kept atoms' file (store/atoms/keptAtoms.ts): read back, it is the atoms it was written
 * from, field for field; a file sealed elsewhere, damaged, cut short or of another version is
 * refused with its reason, never thrown on and never half read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Atom } from '../../src/atoms/model.js';
import { encodeKeptAtoms, HEAD_BYTES, readKeptAtoms } from '../../src/store/atoms/keptAtoms.js';
import { sealWith } from '../support/snapshotSeal.js';

const SEAL = sealWith('this machine');
const KEY = { snapshot: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=', seq: 42 };

const ATOMS: Atom[] = [
  {
    name: 'math_clamp',
    type: 'util',
    code: 'function math_clamp(value, min, max) {\n  return Math.min(Math.max(value, min), max);\n}',
    description: 'Clamp a number between min and max',
    inputs: [
      { name: 'value', type: 'number', description: 'the number' },
      { name: 'min', type: 'number', optional: true },
      { name: 'max', type: 'number' },
    ],
    outputs: [{ name: 'clamped', type: 'number' }],
    dependencies: [],
    version: 3,
    created_at: '2026-11-28T10:00:00.000Z',
    updated_at: '2026-11-28T10:05:00.000Z',
    examples: [{ args: [5, 0, 3], returns: 3 }, { args: ['x', 0, 1], throws: 'TypeError' }],
  },
  {
    // Non-ASCII code and description: lengths are UTF-8 bytes, not characters.
    name: 'greet_player',
    type: 'feature',
    code: "function greet_player(name) {\n  return `¡Hola, ${name}! 🎮 — ${math_clamp(1, 0, 2)}`;\n}",
    description: null,
    inputs: [{ name: 'name', type: 'string' }],
    outputs: [{ name: 'greeting', type: 'string' }],
    dependencies: ['math_clamp'],
    version: 1,
    created_at: '2026-11-28T10:01:00.000Z',
    updated_at: '2026-11-28T10:01:00.000Z',
  },
  {
    name: 'no_ports',
    type: 'core',
    code: 'function no_ports() {}',
    description: '',
    inputs: [],
    outputs: [],
    dependencies: [],
    version: 1,
    created_at: '2026-11-28T10:02:00.000Z',
    updated_at: '2026-11-28T10:02:00.000Z',
  },
];

async function encoded(atoms: readonly Atom[] = ATOMS, seal = SEAL): Promise<Buffer> {
  const bytes = await encodeKeptAtoms(atoms, KEY, seal);
  assert.ok(bytes);
  return bytes;
}

/** The file as the store reads it: its first HEAD_BYTES, then all of it when the key is wanted. */
function read(bytes: Buffer, seal = SEAL) {
  return readKeptAtoms(bytes.subarray(0, HEAD_BYTES), () => bytes, seal);
}

function atomsOf(bytes: Buffer, seal = SEAL): Map<string, Atom> | string {
  const file = read(bytes, seal);
  return typeof file === 'string' ? file : file.atoms();
}

test('kept atoms read back are the atoms written, field for field, with their key', async () => {
  const bytes = await encoded();
  const file = read(bytes);
  assert.ok(typeof file !== 'string', String(file));
  assert.deepEqual(file.key, KEY);
  const atoms = file.atoms();
  assert.ok(atoms instanceof Map, String(atoms));
  assert.deepEqual([...atoms.values()], ATOMS);
  assert.deepEqual([...atoms.keys()], ATOMS.map((a) => a.name));
});

test('an atom with no examples reads back without the field, as a database row does', async () => {
  const withEmpty: Atom = { ...ATOMS[2]!, examples: [] };
  const atoms = atomsOf(await encoded([withEmpty]));
  assert.ok(atoms instanceof Map);
  assert.equal('examples' in atoms.get('no_ports')!, false);
});

test('an empty workspace is kept too', async () => {
  const atoms = atomsOf(await encoded([]));
  assert.ok(atoms instanceof Map);
  assert.equal(atoms.size, 0);
});

test('nothing is written without a secret', async () => {
  assert.equal(await encodeKeptAtoms(ATOMS, KEY, () => null), undefined);
});

test('a file sealed on another machine is refused: its key may be read, its atoms are not', async () => {
  const theirs = await encoded(ATOMS, sealWith('another machine'));
  const file = read(theirs);
  assert.ok(typeof file !== 'string');
  assert.match(String(file.atoms()), /not sealed on this machine/);
});

test('a damaged file is refused wherever the damage is', async () => {
  const bytes = await encoded();
  for (const at of [20, Math.floor(bytes.length / 2), bytes.length - 40, bytes.length - 1]) {
    const damaged = Buffer.from(bytes);
    damaged[at]! ^= 0x20;
    const result = atomsOf(damaged);
    assert.equal(typeof result, 'string', `a byte changed at ${at} of ${bytes.length}`);
  }
});

test('a file cut short, or not one at all, is refused with a reason and never throws', async () => {
  const bytes = await encoded();
  for (const length of [0, 7, 12, 40, Math.floor(bytes.length / 2), bytes.length - 1]) {
    assert.equal(typeof atomsOf(bytes.subarray(0, length)), 'string', `cut at ${length}`);
  }
  assert.match(String(atomsOf(Buffer.from('SQLite format 3\0 and more bytes than a header needs, and then some'))), /not a file of kept atoms/);
});

test('a file replaced between its header and the rest is refused', async () => {
  const first = await encoded();
  const other = await encodeKeptAtoms(ATOMS.slice(1), { ...KEY, seq: 43 }, SEAL);
  const file = readKeptAtoms(first.subarray(0, HEAD_BYTES), () => other!, SEAL);
  assert.ok(typeof file !== 'string');
  assert.equal(file.atoms(), 'changed while it was read');
});

test('a file of another version or other checks is refused before its atoms are read', async () => {
  const bytes = await encoded();
  const length = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString('utf8', 12, 12 + length)) as Record<string, unknown>;
  for (const change of [{ product: '0.0.1' }, { check: 1 }, { format: 2 }]) {
    const text = Buffer.from(JSON.stringify({ ...header, ...change }));
    const head = Buffer.alloc(4);
    head.writeUInt32LE(text.length);
    const body = Buffer.concat([bytes.subarray(0, 8), head, text, bytes.subarray(12 + length, bytes.length - 32)]);
    // Sealed as this machine would: only the header's own checks stand in the way.
    const resealed = Buffer.concat([body, SEAL([body])!]);
    assert.match(String(atomsOf(resealed)), /another version/, JSON.stringify(change));
  }
});
