/**
 * The text tree's decision for one atom (textTree/fileDecision.ts): given the file, the record of
 * what was last written or imported, and the store's atom, which side is newer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Atom } from '../../src/atoms/model.js';
import { decideFile, needsReading, type FileFacts } from '../../src/textTree/fileDecision.js';
import { atomFileText, hashText } from '../../src/textTree/format.js';
import type { TextRecord } from '../../src/textTree/records.js';

function atom(code = 'function f(a) {\n  return a + 1;\n}', extra: Partial<Atom> = {}): Atom {
  return {
    name: 'f',
    type: 'util',
    code,
    inputs: [{ name: 'a', type: 'number' }],
    outputs: [{ name: 'b', type: 'number' }],
    dependencies: [],
    description: 'Adds one',
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** The record of a file this tree wrote for `a`. */
function written(a: Atom, stat?: string): TextRecord {
  const hash = hashText(atomFileText(a));
  return stat ? { file: hash, atom: hash, stat } : { file: hash, atom: hash };
}

function facts(extra: Partial<FileFacts>): FileFacts {
  return { name: 'f', file: 'atoms/f.js', cause: 'file', stat: undefined, bytes: undefined, record: undefined, atom: undefined, ...extra };
}

const STAT = '120:1000:7';
const stored = atom();
const edited = atom('function f(a) {\n  return a + 2;\n}');

test('a file whose stat is as recorded is not read; a new stat, no stat or a bad name is', () => {
  assert.equal(needsReading('f', written(stored, STAT), STAT), false);
  assert.equal(needsReading('f', written(stored, STAT), '121:1000:7'), true);
  assert.equal(needsReading('f', written(stored, STAT), undefined), true);
  assert.equal(needsReading('f', undefined, STAT), true);
  assert.equal(needsReading('Bad-Name', { file: 'x', atom: 'y', stat: STAT }, STAT), true);
});

test('file and atom as recorded: nothing to do', () => {
  assert.deepEqual(decideFile(facts({ stat: STAT, record: written(stored, STAT), atom: stored })), { kind: 'none', record: undefined });
  const bytes = Buffer.from(atomFileText(stored));
  assert.deepEqual(decideFile(facts({ bytes, record: written(stored), atom: stored })), { kind: 'none', record: undefined });
});

test('the file as recorded, the atom changed in the store: the file is written', () => {
  assert.deepEqual(decideFile(facts({ stat: STAT, record: written(stored, STAT), atom: edited })), { kind: 'write', clear: false, record: undefined });
  // Read (no settled stat recorded): the stat is recorded as it is now.
  const bytes = Buffer.from(atomFileText(stored));
  const d = decideFile(facts({ bytes, stat: STAT, record: written(stored), atom: edited }));
  assert.deepEqual(d, { kind: 'write', clear: false, record: { ...written(stored), stat: STAT } });
});

test('the file as recorded, the atom deleted in the store: the file is removed', () => {
  assert.deepEqual(decideFile(facts({ stat: STAT, record: written(stored, STAT) })), { kind: 'unlink', record: undefined });
});

test('no file: a recorded one was removed outside (delete), gone on both sides (forget), or never written (write)', () => {
  assert.deepEqual(decideFile(facts({ record: written(stored), atom: stored })), { kind: 'delete' });
  assert.deepEqual(decideFile(facts({ record: written(stored) })), { kind: 'forget' });
  assert.deepEqual(decideFile(facts({ atom: stored })), { kind: 'write', clear: true });
  assert.deepEqual(decideFile(facts({})), { kind: 'none' });
});

test('a file someone else wrote is imported; through a store round over a recorded file, with a warning', () => {
  const bytes = Buffer.from(atomFileText(edited));
  const d = decideFile(facts({ bytes, stat: STAT, record: written(stored), atom: stored }));
  assert.equal(d.kind, 'import');
  assert.ok(d.kind === 'import');
  assert.equal(d.hash, hashText(bytes));
  assert.equal(d.draft.code, edited.code);
  assert.equal(d.warning, undefined);
  const raced = decideFile(facts({ cause: 'store', bytes, record: written(stored), atom: stored }));
  assert.ok(raced.kind === 'import' && raced.warning?.includes('atoms/f.js was changed on disk before f was saved through the server'));
  // A new file (no record, no atom): imported, no warning even in a store round.
  const fresh = decideFile(facts({ cause: 'store', bytes }));
  assert.ok(fresh.kind === 'import' && fresh.warning === undefined);
});

test('the same atom in other bytes (a clone, another formatting) is recorded, not rewritten', () => {
  const bytes = Buffer.from(atomFileText(stored).replace('@param {number} a', '@param {number}  a'));
  assert.deepEqual(decideFile(facts({ bytes, stat: STAT, atom: stored })), {
    kind: 'none',
    record: { file: hashText(bytes), atom: hashText(atomFileText(stored)), stat: STAT },
  });
});

test('a file that is not an atom is reported, saying what stays', () => {
  const conflict = Buffer.from(`${atomFileText(stored)}\n<<<<<<< HEAD\n`);
  const d = decideFile(facts({ bytes: conflict, atom: stored }));
  assert.ok(d.kind === 'problem');
  assert.match(d.reason, /merge conflict markers .* \(the last good version of f stays in the store and the bundle\)$/);
  const none = decideFile(facts({ bytes: Buffer.from('function f() {}') }));
  assert.ok(none.kind === 'problem');
  assert.match(none.reason, /no atom header.*\(f is not created until the file is fixed\)$/);
});

test('a file whose name is not an atom name is reported while it exists', () => {
  const d = decideFile(facts({ name: 'Bad-Name', file: 'atoms/Bad-Name.js', bytes: Buffer.from('x') }));
  assert.ok(d.kind === 'problem' && /is not an atom name/.test(d.reason));
  assert.deepEqual(decideFile(facts({ name: 'Bad-Name', file: 'atoms/Bad-Name.js' })), { kind: 'none' });
});
