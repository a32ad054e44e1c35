/**
 * The sandbox's pure parts, no worker: joining atoms into one program and mapping its lines and
 * stacks back to atoms, and checking a run request. (Running atoms: test/integration/sandbox.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AtomError } from '../../src/atoms/errors.js';
import { checkRequest } from '../../src/sandbox/sandbox.js';
import { joinAtoms, locate, mapStack } from '../../src/sandbox/program.js';
import type { SourceAtom } from '../../src/sandbox/types.js';

const MiB = 1024 * 1024;

function atom(name: string, body: string, params = ''): SourceAtom {
  return { name, code: `function ${name}(${params}) {\n${body}\n}` };
}

describe('program source and line mapping', () => {
  const program = joinAtoms([
    { name: 'a', code: 'function a() {\n  return 1;\n}' },
    { name: 'b', code: 'function b() { return a(); }' },
    { name: 'c', code: 'function c() {\n  null.x;\n}' },
  ]);

  test('maps a program line to the atom and its own line', () => {
    assert.deepEqual(locate(program, 1), { atom: 'a', line: 1 });
    assert.deepEqual(locate(program, 3), { atom: 'a', line: 3 });
    assert.deepEqual(locate(program, 4), { atom: 'b', line: 1 });
    assert.deepEqual(locate(program, 6), { atom: 'c', line: 2 });
    assert.equal(locate(program, 8), null);
  });

  test('rewrites every frame of a stack and finds where the error is', () => {
    const mapped = mapStack(program, '    at c (atoms.js:6:7)\n    at b (atoms.js:4:22)\n    at <native>\n');
    assert.deepEqual(mapped.at, { atom: 'c', line: 2 });
    assert.deepEqual(mapped.frames, ['at c (c:2:7)', 'at b (b:1:22)', 'at <native>']);
  });
});

describe('request checks', () => {
  const ok = { atoms: [atom('f', 'return 1;')], entry: 'f', args: [] };

  test('fills in the default limits', () => {
    const settled = checkRequest(ok);
    assert.equal(settled.timeoutMs, 2000);
    assert.equal(settled.memoryBytes, 64 * MiB);
  });

  test('refuses what cannot run, saying what to fix', () => {
    const cases: [object, RegExp][] = [
      [{ ...ok, entry: 'g' }, /entry atom "g" is not among the atoms/],
      [{ ...ok, args: 'x' }, /args must be an array/],
      [{ ...ok, args: [10n] }, /args must be plain JSON values/],
      [{ ...ok, timeoutMs: 0 }, /timeout must be between 10 and 30000 ms/],
      [{ ...ok, memoryBytes: MiB }, /memory limit must be between 24 and 512 MiB/],
      [{ ...ok, atoms: [] }, /atoms must list at least the entry atom/],
    ];
    for (const [request, message] of cases) {
      assert.throws(() => checkRequest(request as never), (e: unknown) => e instanceof AtomError && message.test(e.message));
    }
  });
});
