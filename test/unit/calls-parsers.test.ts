/**
 * An atom's names come from meriyah's tree, and from acorn's where meriyah refuses the code
 * (calls.ts, codeTree). Both are ESTree with offsets; this holds the names read from either tree
 * equal, on every atom the tests and the benches know and on the syntax an atom may hold; a syntax
 * error to acorn's (its message and position, as before meriyah); and, over thousands of damaged
 * codes, what meriyah takes and acorn refuses to what V8 (the engine the page runs on) takes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'acorn';
import { parseScript } from 'meriyah';
import vm from 'node:vm';
import { codeNames, codeTree, namesOf, type Node } from '../../src/atoms/calls.js';
import { parseAtomDocument } from '../../src/atoms/atomDocument.js';
import { generateAtoms } from '../bench/generate.js';
import { GAME_ATOMS } from '../fixtures/game-atoms.js';
import { APP_ATOMS } from '../fixtures/search-app-atoms.js';
import { TEXT_ATOMS } from '../fixtures/search-text-atoms.js';

const acornNames = (code: string) => namesOf(parse(code, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as Node, code);
const MERIYAH = { ranges: true, lexical: true } as const;
const meriyahNames = (code: string) => namesOf(parseScript(code, MERIYAH) as unknown as Node, code);

/** Syntax an atom may hold, each where the names could differ between two trees. */
const TRICKY = [
  'function t(a, { b, c: [d, ...e] = [] }, ...f) { return a + b + d + e.length + f.length; }',
  'function t(o) { return o?.a?.[k] ?? o?.b(c); }',
  'function t(x) { const { [key]: v, ...rest } = x; return { v, rest, key, [other]: 1, method() { return inner; }, get g() { return 1; } }; }',
  'function t() { class A extends Base { #p = q; static s = r; static { init(); } m(a) { return this.#p + a; } get [dyn]() { return 2; } } return new A(); }',
  'function t(n) { outer: for (let i = 0; i < n; i++) { for (const j of list) { if (j) continue outer; else break outer; } } return `${n} items: ${fmt(n)}`; }',
  'function t(s) { try { return JSON.parse(s); } catch (err) { return err.message; } finally { cleanup(); } }',
  'function t() { return typeof window !== "undefined" && typeof maybe_atom === "function" ? maybe_atom() : null; }',
  'async function t(url) { for await (const chunk of stream(url)) { await handle(chunk); } return /a+b?/gi.test(url) ? 1n : 0; }',
  'function* t(n) { yield* other(n); const f = (a, b = dflt) => a ** b; return f; }',
  'function t() { return new.target ? "new" : [1, , 3].map(function inner(x) { return x * 2; }); }',
  'function t(a) { switch (a) { case one: return "one"; default: { let z = a; return -z; } } }',
  'function t(x) { return !x; }',
  'function t() { return; }',
  'function t(x) { if (x) return "a" + x; return x - 1; }',
  'var t = function () { return helper(); };',
  'function t() {}\nfunction u() { return t(); }',
];

/** Every atom code the repository holds: the fixtures, the example, and generated atoms as the benches make them. */
function corpus(): string[] {
  const example = join(__dirname, '..', '..', 'examples', 'jumping-cube', 'atoms');
  const files = readdirSync(example).filter((f) => f.endsWith('.js'));
  const exampleCodes = files.map((f) => parseAtomDocument(f.slice(0, -3), readFileSync(join(example, f), 'utf8')).draft.code).filter((c): c is string => typeof c === 'string');
  return [...GAME_ATOMS, ...APP_ATOMS, ...TEXT_ATOMS].map((a) => a.code).concat(exampleCodes, generateAtoms(3000).atoms.map((a) => a.code), TRICKY);
}

test("the names read from meriyah's tree are those read from acorn's, on every atom code the repository holds", () => {
  const codes = corpus();
  assert.ok(codes.length > 3000);
  for (const code of codes) assert.deepEqual(meriyahNames(code), acornNames(code), code);
});

test("a code that does not parse gives acorn's error, as before meriyah", () => {
  for (const code of ['function t( { return 1; }', 'function t() { return 1 +; }', 'function t() { let a = 1; let a = 2; }', 'function t() {']) {
    assert.throws(() => codeNames(code), (err: Error & { pos?: number }) => {
      let expected: (Error & { pos?: number }) | undefined;
      try {
        parse(code, { ecmaVersion: 'latest', sourceType: 'script' });
      } catch (e) {
        expected = e as Error & { pos?: number };
      }
      assert.ok(expected, `acorn refuses ${code}`);
      assert.equal(err.message, expected.message);
      assert.equal(err.pos, expected.pos);
      return true;
    });
  }
});

test('code meriyah refuses and acorn takes is taken (acorn decides)', () => {
  // An HTML-like comment and a function declared as an if's body: the web's leftovers (Annex B),
  // which a script may hold; acorn takes them, meriyah without its web compatibility does not.
  const code = 'function t(s) {\n  if (s) function inner() {}\n  return s;\n}\n<!-- a comment in the old style';
  let meriyahRefuses = false;
  try {
    parseScript(code, MERIYAH);
  } catch {
    meriyahRefuses = true;
  }
  assert.ok(meriyahRefuses, 'meriyah refuses this code (else the test proves nothing)');
  assert.equal((codeTree(code).body as Node[]).length, 1);
  assert.deepEqual(codeNames(code).params, ['s']);
  assert.deepEqual(codeNames(code).free, []);
});

test('over damaged codes, meriyah refuses what acorn refuses, unless V8 takes it too', () => {
  const codes = [...GAME_ATOMS.map((a) => a.code), ...generateAtoms(300).atoms.map((a) => a.code)];
  const inserts = ['let ', 'const ', ';', '}', '{', '(', ')', 'return ', 'break;', 'continue;', 'yield ', 'await ', '"use strict";', 'x:', 'new.target', 'super.x', 'eval = 1;', '08', 'let let', 'class ', '#p', '=>', '??', '?.', '**', 'delete x;', 'with(o){}'];
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0), seed % n);
  const takes = (parseIt: () => unknown) => {
    try {
      parseIt();
      return true;
    } catch {
      return false;
    }
  };
  let refusedByBoth = 0;
  for (let i = 0; i < 10_000; i++) {
    const code = codes[random(codes.length)]!;
    const at = random(code.length);
    const damaged = random(3) === 0 ? code.slice(0, at) + code.slice(at + 1 + random(3)) : code.slice(0, at) + inserts[random(inserts.length)] + code.slice(at);
    const byAcorn = takes(() => parse(damaged, { ecmaVersion: 'latest', sourceType: 'script' }));
    const byMeriyah = takes(() => parseScript(damaged, MERIYAH));
    if (!byAcorn && !byMeriyah) refusedByBoth++;
    // Compiled, not run: V8's own parser on the code as a script.
    if (byMeriyah && !byAcorn) assert.ok(takes(() => new vm.Script(damaged)), `meriyah takes what acorn and V8 refuse: ${JSON.stringify(damaged.slice(Math.max(0, at - 60), at + 60))}`);
    if (byAcorn && byMeriyah) assert.deepEqual(meriyahNames(damaged), acornNames(damaged), damaged);
  }
  assert.ok(refusedByBoth > 3000, `most damaged codes are refused (${refusedByBoth})`);
});
