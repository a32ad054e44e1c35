import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateDraft } from '../../src/atoms/validate.js';
import { AtomError } from '../../src/atoms/errors.js';
import type { AtomDraft } from '../../src/atoms/model.js';
import { mathClamp } from '../support/atoms.js';

const base: AtomDraft = mathClamp;

function refusal(draft: Partial<AtomDraft>): string {
  try {
    validateDraft({ ...base, ...draft } as AtomDraft);
  } catch (err) {
    assert.ok(err instanceof AtomError, `expected an AtomError, got ${err}`);
    return err.message;
  }
  assert.fail('expected the draft to be refused');
}

test('a valid draft is normalized: defaults, sorted unique dependencies, trimmed description', () => {
  const d = validateDraft({ ...base, dependencies: ['b_x', 'a_x', 'b_x'], description: '  Clamp  ', inputs: undefined });
  assert.deepEqual(d.dependencies, ['a_x', 'b_x']);
  assert.deepEqual(d.inputs, []);
  assert.equal(d.description, 'Clamp');
});

test('names must be snake_case starting with a letter', () => {
  for (const name of ['MathClamp', '1abc', '_x', 'a-b', '../x', '__proto__', '', 'a b']) {
    assert.match(refusal({ name, code: 'function x() {}' }), /name|required/, name);
  }
});

test('type must be core, feature or util', () => {
  assert.match(refusal({ type: 'helper' as never }), /type "helper" is not one of core, feature, util/);
});

test('code size counts UTF-8 bytes, not characters, with the contract text', () => {
  const pad = '\u00e9'.repeat(1100); // 1,100 characters, 2,200 bytes
  const code = `function math_clamp() { return "${pad}"; }`;
  const bytes = Buffer.byteLength(code);
  assert.ok(code.length < 2048 && bytes > 2048);
  assert.match(refusal({ code }), new RegExp(`^code is ${bytes} bytes \\(limit: 2048\\)`));
});

test('exactly 2,048 bytes is accepted, 2,049 refused', () => {
  const head = 'function math_clamp() { return "';
  const tail = '"; }';
  const fill = (n: number) => head + 'x'.repeat(n - head.length - tail.length) + tail;
  assert.doesNotThrow(() => validateDraft({ ...base, code: fill(2048) }));
  assert.match(refusal({ code: fill(2049) }), /^code is 2049 bytes \(limit: 2048\)/);
});

test('an invalid port type names the port and lists the allowed types', () => {
  const msg = refusal({ inputs: [{ name: 'pos', type: 'Vector3' as never }] });
  assert.match(msg, /chk_inputs_valid/);
  assert.match(msg, /input "pos" has type "Vector3"/);
  assert.match(msg, /number, string, boolean, number\[\], string\[\], boolean\[\], void/);
  assert.match(refusal({ outputs: [{ name: 'r', type: 'object' as never }] }), /output "r" has type "object"/);
});

test('duplicate port names and non-identifier port names are refused', () => {
  assert.match(refusal({ inputs: [{ name: 'a', type: 'number' }, { name: 'a', type: 'string' }] }), /declared twice/);
  assert.match(refusal({ inputs: [{ name: 'a b', type: 'number' }] }), /identifier/);
});

test('a dependency on itself is refused naming the cycle', () => {
  assert.match(refusal({ dependencies: ['math_clamp'] }), /math_clamp -> math_clamp/);
});

test('code that does not parse is refused with line and column', () => {
  const msg = refusal({ code: 'function math_clamp(a) {\n  return a +;\n}' });
  assert.match(msg, /does not parse as JavaScript at line 2, column \d+/);
});

test('code must be one function declaration named like the atom; comments are fine', () => {
  assert.doesNotThrow(() =>
    validateDraft({ ...base, code: '// Clamp it.\n/** doc */\nfunction math_clamp(v) { return v; }\n// end' }),
  );
  assert.match(refusal({ code: 'function other(v) { return v; }' }), /named "other" but the atom is "math_clamp"/);
  assert.match(refusal({ code: 'const math_clamp = (v) => v;' }), /one top-level function declaration/);
  assert.match(refusal({ code: 'let x = 1;\nfunction math_clamp(v) { return v; }' }), /variable declaration/);
  assert.match(refusal({ code: 'function math_clamp(v) { return v; }\nwindow.leak = 1;' }), /outside it/);
  assert.match(refusal({ code: '   ' }), /code is empty/);
});

test('async and generator functions are function declarations too', () => {
  assert.doesNotThrow(() => validateDraft({ ...base, code: 'async function math_clamp(v) { return v; }' }));
});
