import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import { analyzeDocument, callContext, callProblems, nameAt, wordAt } from '../../src/atoms/callSites.js';
import type { Atom, Port } from '../../src/atoms/model.js';

const n = (name: string, optional = false): Port => ({ name, type: 'number', ...(optional ? { optional } : {}) });
const atoms = new Map<string, Pick<Atom, 'inputs' | 'outputs' | 'code'>>([
  ['math_clamp', { inputs: [n('value'), n('min'), n('max')], outputs: [n('result')], code: 'function math_clamp(value, min, max) {}' }],
  ['label_of', { inputs: [{ name: 'text', type: 'string' }, n('size', true)], outputs: [{ name: 'label', type: 'string' }], code: 'function label_of(text, size) {}' }],
  ['physics_config', { inputs: [], outputs: [n('gravity'), n('jump_force')], code: 'function physics_config() {}' }],
]);
const lookup = (name: string) => atoms.get(name);
const outputsOf = (name: string) => atoms.get(name)?.outputs;

function doc(code: string, inputs: Port[] = []): string {
  return formatAtomDocument({ type: 'util', code, inputs, outputs: [], dependencies: [], description: 'Test atom' });
}

test('calls carry document positions: the header is counted', () => {
  const text = doc('function player_jump(v) {\n  return math_clamp(v, 0, 1);\n}\n', [n('v')]);
  const a = analyzeDocument(text, [n('v')], outputsOf);
  assert.equal(a.error, undefined);
  assert.equal(a.own?.name, 'player_jump');
  assert.equal(text.slice(a.own!.start, a.own!.end), 'player_jump');
  assert.equal(a.calls.length, 1);
  const call = a.calls[0]!;
  assert.equal(text.slice(call.id.start, call.id.end), 'math_clamp');
  assert.equal(text.slice(call.call.start, call.call.end), 'math_clamp(v, 0, 1)');
  assert.deepEqual(call.args.map((x) => x.type), ['number', 'number', 'number']);
  assert.deepEqual(callProblems(a, lookup), []);
  assert.equal(nameAt(a, call.id.start + 2)?.name, 'math_clamp');
  assert.equal(nameAt(a, a.own!.start)?.own, true);
});

test('arity: too few and too many arguments, optional ports counted', () => {
  const a = analyzeDocument(doc('function f() {\n  math_clamp(1, 2);\n  label_of("a");\n  label_of("a", 2, 3);\n  physics_config(1);\n}\n'), [], outputsOf);
  const p = callProblems(a, lookup);
  assert.deepEqual(p.map((x) => [x.kind, x.callee]), [['arity', 'math_clamp'], ['arity', 'label_of'], ['arity', 'physics_config']]);
  assert.match(p[0]!.message, /math_clamp takes 3 arguments, got 2/);
  assert.match(p[1]!.message, /label_of takes 1 to 2 arguments, got 3/);
});

test('types: literals, declared parameters and other atoms\' results', () => {
  const text = doc('function f(name, count) {\n  math_clamp("x", count, name);\n  label_of(physics_config(), [1, 2]);\n  label_of(math_clamp(1, 2, 3));\n  math_clamp(unknownThing, -1, true);\n}\n', [{ name: 'name', type: 'string' }, n('count')]);
  const a = analyzeDocument(text, [{ name: 'name', type: 'string' }, n('count')], outputsOf);
  const p = callProblems(a, lookup).filter((x) => x.kind === 'type');
  assert.deepEqual(p.map((x) => text.slice(x.start, x.end)), ['"x"', 'name', 'physics_config()', '[1, 2]', 'math_clamp(1, 2, 3)', 'true']);
  assert.match(p[1]!.message, /math_clamp's max is a number, but this is parameter name \(string\)/);
});

test('a parameter assigned or shadowed inside has no known type', () => {
  const a = analyzeDocument(doc('function f(name) {\n  name = 3;\n  math_clamp(name, 1, 2);\n}\n'), [{ name: 'name', type: 'string' }], outputsOf);
  assert.deepEqual(callProblems(a, lookup), []);
});

test('unknown names: the server\'s rule (no atom, local, parameter or page global; typeof alone is fine), with the nearest atoms', () => {
  const text = doc('function f(make_it) {\n  const local_fn = () => 1;\n  local_fn(); make_it(); Math.max(1); parseInt("1"); document.title;\n  if (typeof maybeGlobal === "undefined") not_an_atom(1);\n  return mathclamp + math_clampp(1, 2, 3);\n}\n');
  const a = analyzeDocument(text, [], outputsOf);
  const p = callProblems(a, lookup, () => ['math_clamp', 'label_of', 'physics_config']);
  assert.deepEqual(p.map((x) => [x.kind, x.callee, text.slice(x.start, x.end)]), [
    ['unknown', 'not_an_atom', 'not_an_atom'],
    ['unknown', 'mathclamp', 'mathclamp'],
    ['unknown', 'math_clampp', 'math_clampp'],
  ]);
  assert.match(p[1]!.message, /Did you mean math_clamp\?/);
  assert.match(p[0]!.message, /no global of the preview page: a save is refused/);
});

test('a document that does not parse has no calls, and says why', () => {
  const a = analyzeDocument(doc('function f( {\n'));
  assert.ok(a.error);
  assert.deepEqual(a.calls, []);
});

test('while typing: the call and the argument the cursor is in, and the word before it', () => {
  const text = doc('function f() {\n  return math_clamp(1, "a,b", [1, 2], ');
  assert.deepEqual(callContext(text, text.length), { name: 'math_clamp', argument: 3, open: text.indexOf('math_clamp(') + 10 });
  const inner = doc('function f() {\n  label_of(math_clamp(');
  assert.equal(callContext(inner, inner.length)?.name, 'math_clamp');
  const t2 = doc('function f() {\n  return math_cl');
  assert.equal(wordAt(t2, t2.length)?.word, 'math_cl');
  assert.equal(callContext(doc('function f() {\n  x = 1;'), 100), undefined);
});
