/**
 * Names in latest.js: whatever an atom's name holds (the store refuses such names, this is the
 * second line of defence), it stays inside its comment and is never called as code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { commentText, createBundle } from '../../src/bundle/bundler.js';
import type { Atom, AtomType } from '../../src/atoms/model.js';

/** An atom as a crafted database could hold it: no validation on the way. */
function raw(name: string, type: AtomType = 'util', code = 'function helper() { return 1; }'): Atom {
  return { name, type, code, inputs: [], outputs: [], dependencies: [], description: null, version: 1, created_at: 't', updated_at: 't' };
}

/** Runs the bundle with an INJECTED() that counts its calls. */
function injectedCalls(code: string): number {
  let calls = 0;
  const sandbox: Record<string, unknown> = { INJECTED: () => ++calls > 0 };
  sandbox.globalThis = sandbox;
  runInNewContext(code, sandbox);
  return calls;
}

/** Lines as JavaScript sees them: \r, U+2028 and U+2029 end a line too. */
function jsLines(code: string): string[] {
  return code.split(/\r\n|[\n\r\u2028\u2029]/);
}

for (const [label, br] of [['\\n', '\n'], ['\\r', '\r'], ['U+2028', '\u2028'], ['U+2029', '\u2029']] as const) {
  test(`a name with a ${label} cannot put a line of its own into the Order header or an atom marker`, () => {
    const { code } = createBundle([raw(`x${br}INJECTED();//`), raw('helper')]);
    assert.deepEqual(jsLines(code).filter((l) => l.trimStart().startsWith('INJECTED')), []);
    assert.equal(injectedCalls(code), 0, 'the bundle runs without calling anything named by an atom name');
    const lines = code.split('\n');
    assert.ok(lines.some((l) => l.startsWith('// Order: ') && l.includes('INJECTED')), 'the name is still shown, escaped, in the header');
  });
}

test('an entry point whose name is not a JavaScript identifier is not called from the Boot line', () => {
  // As code, `if (typeof NAME === 'function') NAME();` would call INJECTED().
  const name = 'globalThis.x || INJECTED() || globalThis.x';
  const { code, entry } = createBundle([raw(name, 'core')]);
  assert.equal(entry, name);
  assert.equal(injectedCalls(code), 0);
  assert.match(code, /\/\/ Boot\n {2}\/\/ the entry point .* is not a JavaScript name: nothing started\n\}\)\(\);\n$/);
});

test('commentText escapes line terminators and control characters, breaks up */, and leaves ordinary names alone', () => {
  assert.equal(commentText('player_jump'), 'player_jump');
  assert.equal(commentText('a\nb\rc\u2028d\u2029e\u0000f'), 'a\\u000ab\\u000dc\\u2028d\\u2029e\\u0000f');
  assert.equal(commentText('a */ b'), 'a *\\/ b');
});
