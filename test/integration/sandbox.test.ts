/**
 * run_atom's sandbox running atoms in its worker thread: values, console, errors located in their
 * atom, escape attempts, limits, and the worker's lifetime. (The program source and request checks,
 * which need no worker: test/unit/sandbox-program.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { AtomSandbox } from '../../src/sandbox/sandbox.js';
import type { RunOutcome, SourceAtom } from '../../src/sandbox/types.js';

const sandbox = new AtomSandbox();
after(() => sandbox.dispose());

const MiB = 1024 * 1024;

function atom(name: string, body: string, params = ''): SourceAtom {
  return { name, code: `function ${name}(${params}) {\n${body}\n}` };
}

function run(atoms: SourceAtom[], args: unknown[] = [], limits: { timeoutMs?: number; memoryBytes?: number } = {}): Promise<RunOutcome> {
  return sandbox.run({ atoms, entry: atoms[atoms.length - 1]!.name, args, ...limits });
}

async function value(atoms: SourceAtom[], args: unknown[] = []): Promise<unknown> {
  const outcome = await run(atoms, args);
  assert.ok(outcome.ok, `expected success, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}

async function failure(atoms: SourceAtom[], args: unknown[] = [], limits = {}) {
  const outcome = await run(atoms, args, limits);
  assert.ok(!outcome.ok, `expected an error, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('worker lifetime', () => {
  test('an idle worker is stopped, and the next run starts a new one', async () => {
    const short = new AtomSandbox({ idleMs: 50 });
    try {
      const first = await short.run({ atoms: [atom('f', 'return 1;')], entry: 'f', args: [] });
      assert.ok(first.ok);
      assert.equal(short.hasWorker, true);
      const deadline = Date.now() + 5000;
      while (short.hasWorker && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(short.hasWorker, false, 'stopped after being idle');
      const second = await short.run({ atoms: [atom('f', 'return 2;')], entry: 'f', args: [] });
      assert.deepEqual(second.ok && second.value, 2);
    } finally {
      await short.dispose();
    }
  });
});

describe('request checks', () => {
  const ok = { atoms: [atom('f', 'return 1;')], entry: 'f', args: [] };

  test('a refused request never reaches the worker', async () => {
    await assert.rejects(sandbox.run({ ...ok, entry: 'nope' }), /not among the atoms/);
  });
});

describe('running atoms', () => {
  test('calls the entry with its dependencies and returns the value, logs and time', async () => {
    const outcome = await run(
      [atom('add', 'console.log("adding", a, b, { x: [1] }, null, true);\nreturn a + b;', 'a, b'), atom('twice', 'return add(n, n);', 'n')],
      [21],
    );
    assert.ok(outcome.ok);
    assert.equal(outcome.value, 42);
    assert.deepEqual(outcome.logs, [{ level: 'log', text: 'adding 21 21 {"x":[1]} null true' }]);
    assert.ok(outcome.ms >= 0);
  });

  test('every console level is captured, errors as name and message', async () => {
    const outcome = await run([
      atom('f', 'console.info("i"); console.warn("w"); console.error(new TypeError("bad")); console.debug([1, "a"]);'),
    ]);
    assert.deepEqual(outcome.logs, [
      { level: 'info', text: 'i' },
      { level: 'warn', text: 'w' },
      { level: 'error', text: 'TypeError: bad' },
      { level: 'debug', text: '[1,"a"]' },
    ]);
  });

  test('values cross as JSON: objects, arrays, and undefined for void atoms', async () => {
    assert.deepEqual(await value([atom('f', 'return { x: n * 2, list: [s, !b] };', 'n, s, b')], [4, 'k', false]), {
      x: 8,
      list: ['k', true],
    });
    assert.equal(await value([atom('f', 'let x = 1;')]), undefined);
  });

  test('arguments are copies: changing them inside does not touch the caller', async () => {
    const arg = { list: [1, 2] };
    assert.deepEqual(await value([atom('f', 'o.list.push(3); return o.list;', 'o')], [arg]), [1, 2, 3]);
    assert.deepEqual(arg, { list: [1, 2] });
  });

  test('async atoms are awaited', async () => {
    assert.equal(await value([{ name: 'f', code: 'async function f(n) {\n  const v = await Promise.resolve(n);\n  return v + 1;\n}' }], [1]), 2);
  });

  test('a promise that can never settle is reported, not waited on', async () => {
    const { error } = await failure([atom('f', 'return new Promise(() => {});')]);
    assert.match(error.message, /promise that never settled/);
  });

  test('an error names the atom it was thrown in and the line inside that atom', async () => {
    const helper = { name: 'helper', code: 'function helper(v) {\n  const o = null;\n  return o.x + v;\n}' };
    const { error } = await failure([helper, atom('main_atom', 'return helper(1);')]);
    assert.equal(error.name, 'TypeError');
    assert.equal(error.atom, 'helper');
    assert.equal(error.line, 3);
    assert.match(error.stack?.[0] ?? '', /at helper \(helper:3:/);
    assert.match(error.stack?.[1] ?? '', /at main_atom \(main_atom:2:/);
  });

  test('a thrown error keeps its own name and message', async () => {
    const { error } = await failure([atom('f', 'if (n < 0) throw new RangeError("n must not be negative");\nreturn n;', 'n')], [-1]);
    assert.deepEqual({ name: error.name, message: error.message, atom: error.atom, line: error.line }, {
      name: 'RangeError',
      message: 'n must not be negative',
      atom: 'f',
      line: 2,
    });
  });

  test('a syntax error is located in its atom', async () => {
    const { error } = await failure([atom('ok_one', 'return 1;'), { name: 'broken', code: 'function broken() {\n  return 1 +;\n}' }]);
    assert.equal(error.name, 'SyntaxError');
    assert.equal(error.atom, 'broken');
    assert.equal(error.line, 2);
  });

  test('throwing something that is not an Error is reported as such', async () => {
    const { error } = await failure([atom('f', 'throw "boom";')]);
    assert.equal(error.message, 'the atom threw "boom", not an Error');
  });

  test('each run starts from a fresh engine: globals do not leak between runs', async () => {
    await value([atom('f', 'globalThis.leaked = 1; Object.prototype.sticky = 2; return 0;')]);
    assert.deepEqual(await value([atom('g', 'return [typeof globalThis.leaked, typeof ({}).sticky];')]), ['undefined', 'undefined']);
  });

  test('console output is capped', async () => {
    const outcome = await run([atom('f', 'for (let i = 0; i < 250; i++) console.log(i); return 1;')]);
    assert.equal(outcome.logs.length, 201);
    assert.equal(outcome.logs[199]!.text, '199');
    assert.match(outcome.logs[200]!.text, /50 more console lines not shown/);
  });
});

describe('escape attempts', () => {
  test('no process, require, module or host globals exist inside', async () => {
    const names = ['process', 'require', 'module', 'exports', 'Buffer', 'global', 'setTimeout', 'fetch', 'WebAssembly', '__dirname'];
    const types = await value([atom('f', `return [${names.map((n) => `typeof ${n}`).join(', ')}];`)]);
    assert.deepEqual(types, names.map(() => 'undefined'));
  });

  test('reading process fails inside the sandbox', async () => {
    const { error } = await failure([atom('f', 'return process.env;')]);
    assert.equal(error.name, 'ReferenceError');
    assert.match(error.message, /process/);
  });

  test('the Function constructor reaches only the sandbox', async () => {
    const viaConstructor = await failure([atom('f', "return globalThis.constructor.constructor('return process')();")]);
    assert.equal(viaConstructor.error.name, 'ReferenceError');
    const viaFunction = await failure([atom('f', "return Function('return this')().process.env;")]);
    assert.equal(viaFunction.error.name, 'TypeError');
    const viaPrototype = await failure([atom('f', "return (() => {}).constructor('return require')()('fs');")]);
    assert.equal(viaPrototype.error.name, 'ReferenceError');
  });

  test('the global object holds only the language and console', async () => {
    const keys = (await value([atom('f', "return Object.getOwnPropertyNames(Function('return this')());")])) as string[];
    const unexpected = keys.filter((k) => !/^[A-Z]/.test(k) && !['globalThis', 'console', 'f'].includes(k));
    const standardLower = ['parseInt', 'parseFloat', 'isNaN', 'isFinite', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'eval', 'undefined'];
    assert.deepEqual(unexpected.filter((k) => !standardLower.includes(k)), []);
  });

  test('console is the only bridge, and its functions leak nothing', async () => {
    const result = await value([
      atom('f', 'const l = console.log; return [typeof l.constructor("return this")().process, Object.keys(console).sort().join()];'),
    ]);
    assert.deepEqual(result, ['undefined', 'debug,error,info,log,warn']);
  });

  test('prototype pollution inside does not reach the host', async () => {
    const outcome = await run([
      atom(
        'f',
        'Object.prototype.polluted = 1; Array.prototype.evil = () => 1; JSON.parse = () => ({ hacked: true });\n' +
          'console.log({});\nreturn JSON.parse(\'{"__proto__": {"polluted": 2}}\');',
      ),
    ]);
    assert.ok(outcome.ok);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(([] as unknown as Record<string, unknown>).evil, undefined);
    assert.equal(Object.getPrototypeOf(outcome.value), Object.prototype);
    assert.equal((outcome.value as Record<string, unknown>).polluted, undefined);
  });

  test('import() cannot load anything', async () => {
    const { error } = await failure([atom('f', "return import('fs');")]);
    assert.match(error.message, /could not load module 'fs'/);
    const caught = await value([{ name: 'g', code: "async function g() {\n  try { await import('node:child_process'); return 'loaded'; } catch (e) { return e.name; }\n}" }]);
    assert.notEqual(caught, 'loaded');
  });

  test('an endless loop ends with a clear timeout error naming the atom', async () => {
    const { error } = await failure([atom('spin', 'while (true) {}')], [], { timeoutMs: 100 });
    assert.equal(error.name, 'TimeoutError');
    assert.match(error.message, /longer than 100 ms.*endless loop/);
    assert.equal(error.atom, 'spin');
  });

  test('catching the timeout does not keep the loop alive', async () => {
    const { error } = await failure([atom('spin', 'for (;;) { try { while (true) {} } catch (e) {} }')], [], { timeoutMs: 100 });
    assert.equal(error.name, 'TimeoutError');
  });

  test('a long built-in call that ignores the deadline gets its worker terminated, and the next run works', async () => {
    // join() over 2^40 holes is one native call that never checks QuickJS's interrupt handler and allocates
    // nothing (every part is empty), so only the host's hard deadline can end it: no memory limit can win a race.
    // The deadline leaves room to reach the call on a loaded machine (at 10 ms, setting up the run could
    // outlast it, and QuickJS's own interrupt then stopped the run before join began).
    const { error } = await failure([atom('join_holes', 'return Array.prototype.join.call({ length: 2 ** 40 }, "").length;')], [], {
      timeoutMs: 250,
      memoryBytes: 24 * MiB,
    });
    assert.equal(error.name, 'TimeoutError');
    assert.match(error.message, /sandbox was terminated/);
    assert.equal(await value([atom('g', 'return 5;')]), 5);
  });

  test('huge allocations hit the memory limit, and the next run works', async () => {
    for (const body of ['const a = []; while (true) a.push(new Uint8Array(1 << 20));', 'const a = []; while (true) a.push([1, 2, 3]);']) {
      const { error } = await failure([atom('hog', body)], [], { memoryBytes: 32 * MiB, timeoutMs: 10_000 });
      assert.equal(error.name, 'MemoryError', JSON.stringify(error));
      assert.match(error.message, /more than 32 MiB/);
    }
    assert.equal(await value([atom('g', 'return 6;')]), 6);
  });

  test('deep recursion hits the stack limit cleanly', async () => {
    const { error } = await failure([atom('dive', 'return dive(n + 1) + 1;', 'n')], [0]);
    assert.equal(error.name, 'StackOverflowError');
    assert.equal(error.atom, 'dive');
    assert.equal(await value([atom('g', 'return 7;')]), 7);
  });
});
