import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AtomError } from '../../src/atoms/errors.js';
import { draftOf, summarizeHistory, versionToRestore } from '../../src/atoms/history.js';
import type { AtomVersion } from '../../src/atoms/model.js';

function v(version: number, code: string, extra: Partial<AtomVersion> = {}): AtomVersion {
  return {
    name: 'f',
    type: 'util',
    code,
    inputs: [],
    outputs: [],
    dependencies: [],
    description: null,
    version,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: `2026-01-0${version}T00:00:00.000Z`,
    deleted: false,
    ...extra,
  };
}

// Newest first, as the store returns it: created, changed, deleted, re-created as v1, changed deps.
const a = 'function f() { return 1; }';
const b = 'function f() { return 2; }';
const history = [
  v(5, a, { dependencies: ['g'], description: 'now with g' }),
  v(4, a),
  v(3, b, { deleted: true }),
  v(2, b),
  v(1, a),
];

test('each version says what changed from the one before, and which older version it equals', () => {
  assert.deepEqual(
    summarizeHistory(history).map((s) => [s.version, s.change, s.fields.join(','), s.sameAs ?? '-', s.bytes]),
    [
      [5, 'changed', 'dependencies,description', '-', 26],
      [4, 're-created', '', 1, 26],
      [3, 'deleted', '', '-', 26],
      [2, 'changed', 'code', '-', 26],
      [1, 'created', '', '-', 26],
    ],
  );
});

test('the version to restore: explicit, the last live one of a deleted atom, never a deletion marker', () => {
  assert.equal(versionToRestore(history, 'f', true, 2).version, 2);
  assert.equal(versionToRestore(history, 'f', true, 3).version, 2, 'a deletion marker stands for the version it deleted');
  const deleted = [v(3, b, { deleted: true }), v(2, b), v(1, a)];
  assert.equal(versionToRestore(deleted, 'f', false).version, 2);
  assert.throws(() => versionToRestore(history, 'f', true), /restoring "f" needs a version: it exists \(v5\)/);
  assert.throws(() => versionToRestore(history, 'f', true, 9), /f has no version 9; it has v5, v4, v3, v2, v1/);
  assert.throws(() => versionToRestore([], 'ghost', false), (e: unknown) => e instanceof AtomError && e.code === 'not_found');
});

test('a restore saves the version content as a draft', () => {
  assert.deepEqual(draftOf(history[0]!), {
    name: 'f',
    type: 'util',
    code: a,
    inputs: [],
    outputs: [],
    dependencies: ['g'],
    description: 'now with g',
  });
  assert.equal(draftOf(history[1]!).description, undefined);
});
