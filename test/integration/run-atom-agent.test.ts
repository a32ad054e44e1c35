/**
 * run_atom as an agent building a game meets it (issue 14, item 6): an error's hint names the atom
 * it was thrown in, arguments are held to the declared input types, and atoms that draw, listen
 * or keep scores run against clearly labelled browser stubs. Through the in-process server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AtomStore } from '../../src/store/atomStore.js';
import { upsert } from '../support/storeWrites.js';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

let server: InProcessServer;

interface RunAnswer {
  text: string;
  isError: boolean;
  structured: {
    ok: boolean;
    value?: unknown;
    error?: { name: string; atom?: string; line?: number };
    stubs?: { used: string[]; canvas: { calls: number; methods: Record<string, number>; texts: string[] }; listeners: string[] };
    output_problems?: string[];
  };
}

async function run(name: string, args: unknown[] = [], extra: Record<string, unknown> = {}): Promise<RunAnswer> {
  const result = (await server.client.callTool({ name: 'run_atom', arguments: { name, args, ...extra } })) as unknown as {
    content: { text: string }[];
    structuredContent?: RunAnswer['structured'];
    isError?: boolean;
  };
  return { text: result.content[0]!.text, isError: result.isError === true, structured: result.structuredContent! };
}

const atoms: Record<string, unknown>[] = [
  {
    name: 'canvas_context',
    type: 'util',
    code: "function canvas_context() {\n  const canvas = document.getElementById('game');\n  return canvas.getContext('2d');\n}",
  },
  {
    name: 'draw_grid',
    type: 'feature',
    code: 'function draw_grid() {\n  const size = board_size();\n  return size;\n}',
    dependencies: ['board_size'],
  },
  {
    name: 'draw_hud',
    type: 'feature',
    code: "function draw_hud(score) {\n  const ctx = canvas_context();\n  ctx.fillText('Score: ' + score, 8, 16);\n  return score;\n}",
    inputs: [{ name: 'score', type: 'number' }],
    dependencies: ['canvas_context'],
  },
  {
    name: 'move_snake',
    type: 'feature',
    code: 'function move_snake(cells, dx, wrap) {\n  return cells.map((c) => c + dx);\n}',
    inputs: [
      { name: 'cells', type: 'number[]' },
      { name: 'dx', type: 'number' },
      { name: 'wrap', type: 'boolean', optional: true },
    ],
    outputs: [{ name: 'moved', type: 'number[]' }],
  },
  {
    name: 'draw_board',
    type: 'feature',
    code:
      'function draw_board(cells) {\n' +
      "  const ctx = document.getElementById('game').getContext('2d');\n" +
      "  ctx.fillStyle = '#111';\n  ctx.fillRect(0, 0, 400, 400);\n" +
      '  for (const c of cells) ctx.fillRect(c * 10, 0, 10, 10);\n' +
      "  ctx.fillText('Score: ' + cells.length, 8, 16);\n" +
      "  document.addEventListener('keydown', () => {});\n" +
      '  requestAnimationFrame(() => draw_board(cells));\n' +
      '  return ctx.measureText("ab").width > 0;\n}',
    inputs: [{ name: 'cells', type: 'number[]' }],
    outputs: [{ name: 'drawn', type: 'boolean' }],
  },
  {
    name: 'best_score',
    type: 'util',
    code:
      'function best_score(score) {\n' +
      "  const best = Number(localStorage.getItem('best') ?? 0);\n" +
      "  if (score > best) localStorage.setItem('best', score);\n" +
      "  return [typeof localStorage.getItem('best'), localStorage.getItem('best'), localStorage.getItem('none')];\n}",
    inputs: [{ name: 'score', type: 'number' }],
  },
];

// Honest run results: a state atom and its user, and atoms whose value does not match their outputs.
atoms.push(
  {
    name: 'game_state',
    type: 'core',
    code: 'function game_state(key, value) {\n  const store = game_state.store || (game_state.store = {});\n  if (value !== undefined) store[key] = value;\n  return store[key];\n}',
  },
  {
    name: 'add_score',
    type: 'feature',
    code: "function add_score(points) {\n  return game_state('score', (game_state('score') ?? 0) + points);\n}",
    inputs: [{ name: 'points', type: 'number' }],
    outputs: [{ name: 'score', type: 'number' }],
  },
  {
    name: 'level_name',
    type: 'util',
    code: "function level_name() {\n  return game_state('level') === 2 ? 'two' : 'one';\n}",
    outputs: [{ name: 'name', type: 'string' }],
  },
  {
    name: 'wrong_output',
    type: 'util',
    code: "function wrong_output() {\n  return '42';\n}",
    outputs: [{ name: 'answer', type: 'number' }],
  },
  {
    name: 'two_outputs',
    type: 'util',
    code: 'function two_outputs() {\n  return { x: 1, y: [true] };\n}',
    outputs: [{ name: 'x', type: 'number' }, { name: 'y', type: 'number[]' }, { name: 'z', type: 'string' }],
  },
);

/**
 * Atoms that call names no atom has: the tools refuse them (no unknown calls), but a database written
 * otherwise (an older version, another program) can hold them, so they are planted through the store.
 */
const planted = [
  { name: 'board_size', type: 'util', code: 'function board_size() {\n  const cells = 20;\n  return cells * cell_pixels();\n}' },
  { name: 'draw_tiles', type: 'feature', code: 'function draw_tiles() {\n  return draw_boardd([1]);\n}' },
];

before(async () => {
  const folder = tempDir();
  const store = await AtomStore.open(folder);
  for (const atom of planted) await upsert(store, atom as never);
  await store.close();
  server = await openInProcess({ embeddings: wordsOnly, folder });
  const seeded = await server.call('upsert_atoms', { atoms });
  assert.equal(seeded.isError, false, seeded.text);
});

after(() => server?.close());

test('the hint about an undefined name blames the atom it was thrown in, not the entry', async () => {
  const r = await run('draw_grid');
  assert.equal(r.structured.ok, false, r.text);
  assert.deepEqual({ atom: r.structured.error!.atom, line: r.structured.error!.line }, { atom: 'board_size', line: 3 });
  assert.match(r.text, /^draw_grid threw ReferenceError in board_size at line 3: 'cell_pixels' is not defined/);
  assert.match(r.text, /\nIf cell_pixels is an atom, list it in dependencies of the atom that calls it \(board_size declares \[\]\)\./);
  assert.doesNotMatch(r.text, /draw_grid declares/);
});

test('an undefined name near an atom\'s gets "did you mean" that atom instead of "list it in dependencies"', async () => {
  const r = await run('draw_tiles');
  assert.match(r.text, /^draw_tiles threw ReferenceError in draw_tiles at line 2: 'draw_boardd' is not defined/);
  assert.match(r.text, /\ndraw_boardd is no atom: did you mean draw_board\? Fix the call in draw_tiles\./);
  assert.doesNotMatch(r.text, /list it in dependencies/);
});

test('a browser global the sandbox lacks gets a hint that says so, naming the atom that used it', async () => {
  const upsert = await server.call('upsert_atoms', {
    atoms: [{ name: 'tick_later', type: 'util', code: 'function tick_later() {\n  return setTimeout(() => 1, 10);\n}' }],
  });
  assert.equal(upsert.isError, false, upsert.text);
  const r = await run('tick_later');
  assert.match(r.text, /^tick_later threw ReferenceError in tick_later at line 2/);
  assert.match(r.text, /\nsetTimeout does not exist in the sandbox .*pass what tick_later needs from it as an argument/);
  assert.doesNotMatch(r.text, /If setTimeout is an atom/);
});

test('arguments that do not match the declared input types are refused, saying which and what was expected', async () => {
  const wrongType = await run('move_snake', ['x', 1]);
  assert.equal(wrongType.isError, true, wrongType.text);
  assert.match(
    wrongType.text,
    /^Error: invalid arguments for run_atom: args\[0\] \(cells\) must be a number\[\], got "x" \(a string\)\. move_snake takes \(cells: number\[\], dx: number, wrap: boolean\?\) => number\[\]: pass args of those types in that order, or check_args: false to run it anyway$/,
  );
  const element = await run('move_snake', [[1, '2'], 1]);
  assert.match(element.text, /args\[0\] \(cells\) must be a number\[\], got \[1,"2"\] \(an array\) \(element 1 is a string\)/);
  const missing = await run('move_snake', [[1]]);
  assert.match(missing.text, /^Error: invalid arguments for run_atom: args\[1\] \(dx\) is missing: expected a number\./);
  const tooMany = await run('move_snake', [[1], 1, true, 4]);
  assert.match(tooMany.text, /4 arguments given, but it takes at most 3/);
  const several = await run('move_snake', [5, 'a']);
  assert.match(several.text, /args\[0\] \(cells\) must be a number\[\], got 5 \(a number\); args\[1\] \(dx\) must be a number, got "a" \(a string\)/);
});

test('matching arguments run, an optional input may be omitted or null, and check_args: false runs anyway', async () => {
  assert.deepEqual((await run('move_snake', [[1, 2], 1])).structured.value, [2, 3]);
  assert.deepEqual((await run('move_snake', [[1, 2], 1, null])).structured.value, [2, 3]);
  assert.deepEqual((await run('move_snake', [[1, 2], 1, true])).structured.value, [2, 3]);
  const forced = await run('move_snake', ['x', 1], { check_args: false });
  assert.equal(forced.isError, true, 'a run that throws is an error result');
  assert.equal(forced.structured.ok, false, 'a string has no map(): the run itself reports it');
  assert.match(forced.text, /^move_snake threw TypeError in move_snake at line 2/);
});

test('a drawing atom runs against stubs, and the answer lists them as stubs with the drawing calls', async () => {
  const r = await run('draw_board', [[1, 2, 3]]);
  assert.equal(r.structured.ok, true, r.text);
  assert.equal(r.structured.value, true);
  assert.deepEqual(r.structured.stubs!.used, ['document', 'canvas 2D', 'requestAnimationFrame']);
  assert.deepEqual(r.structured.stubs!.canvas.methods, { fillRect: 4, fillText: 1, measureText: 1 });
  assert.deepEqual(r.structured.stubs!.canvas.texts, ['Score: 3']);
  assert.deepEqual(r.structured.stubs!.listeners, ['document keydown']);
  const lines = r.text.split('\n');
  assert.match(lines[0]!, /^draw_board returned true in [\d.]+ ms \(1 atom loaded\)\.$/);
  assert.equal(
    lines[1],
    'Stubs used (not a real DOM: nothing is drawn, no event fires): document, canvas 2D (6 calls: fillRect ×4, fillText ×1 "Score: 3", measureText ×1), ' +
      'requestAnimationFrame ×1 (callbacks not run); listeners added (never fired): document keydown.',
  );
});

test('an atom whose dependency gets its canvas from document runs, with the text it drew in the answer', async () => {
  const r = await run('draw_hud', [3]);
  assert.equal(r.structured.ok, true, r.text);
  assert.equal(r.structured.value, 3);
  assert.match(r.text, /\nStubs used \(not a real DOM: nothing is drawn, no event fires\): document, canvas 2D \(1 call: fillText ×1 "Score: 3"\)\.$/);
});

test('localStorage round-trips within a run, as strings, and starts empty in the next', async () => {
  const first = await run('best_score', [42]);
  assert.deepEqual(first.structured.value, ['string', '42', null], first.text);
  assert.match(first.text, /\nStubs used \(not a real DOM[^\n]*: localStorage \(in memory, 1 key at the end\)\.$/);
  const second = await run('best_score', [7]);
  assert.deepEqual(second.structured.value, ['string', '7', null], 'nothing is kept between runs');
});

test('stubs are there only for code that names a browser global, and only then is there a stubs line', async () => {
  const r = await run('move_snake', [[1], 1]);
  assert.equal(r.structured.stubs, undefined);
  assert.doesNotMatch(r.text, /Stubs/);
  const globals = await server.call('upsert_atoms', {
    atoms: [{ name: 'list_globals', type: 'util', code: "function list_globals() {\n  return ['document', 'localStorage', 'performance'].filter((n) => n in globalThis);\n}" }],
  });
  assert.equal(globals.isError, false, globals.text);
  // Its code names them (in strings only), so the stubs are there; a pure atom's global object: sandbox.test.ts.
  assert.deepEqual((await run('list_globals')).structured.value, ['document', 'localStorage', 'performance']);
});

test('the stubs are sandbox code: nothing of the host is reachable through them, and what they saw is reported after an error too', async () => {
  const upsert = await server.call('upsert_atoms', {
    atoms: [
      {
        name: 'stub_escape',
        type: 'util',
        code:
          'function stub_escape() {\n' +
          "  document.getElementById('game').getContext('2d').fillRect(0, 0, 1, 1);\n" +
          "  return document.getElementById.constructor('return process')().pid;\n}",
      },
    ],
  });
  assert.equal(upsert.isError, false, upsert.text);
  const r = await run('stub_escape');
  assert.equal(r.structured.ok, false, r.text);
  assert.match(r.text, /^stub_escape threw ReferenceError in stub_escape at line 3: 'process' is not defined/);
  assert.deepEqual(r.structured.stubs!.canvas.methods, { fillRect: 1 });
});

test('an idle sandbox worker does not keep the process alive', async () => {
  // The process would otherwise wait out the worker's idle time (set far beyond the bound here).
  const script =
    `const { AtomSandbox } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'sandbox', 'sandbox.ts'))});\n` +
    'new AtomSandbox({ idleMs: 600_000 })\n' +
    "  .run({ atoms: [{ name: 'f', code: 'function f() { return performance.now() >= 0; }' }], entry: 'f', args: [] })\n" +
    '  .then((outcome) => console.log(JSON.stringify(outcome.value)));\n';
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (child.exitCode ?? -1) : 0, stdout, stderr }),
    );
  });
  assert.equal(result.code, 0, `the process did not end by itself: ${result.stderr}`);
  assert.equal(result.stdout.trim(), 'true');
});

test('a run that throws or times out is an error result, with the same text as before', async () => {
  const thrown = await run('draw_grid');
  assert.equal(thrown.isError, true, thrown.text);
  assert.match(thrown.text, /^draw_grid threw ReferenceError in board_size at line 3/);
  assert.equal(thrown.structured.ok, false, 'the structured result is still there');
  const fine = await run('add_score', [1]);
  assert.equal(fine.isError, false, fine.text);
});

test('a run may start from a given state: the values go into the state atom\'s store first', async () => {
  const fresh = await run('add_score', [5]);
  assert.equal(fresh.structured.value, 5, fresh.text);
  const from = await run('add_score', [5], { state: { game_state: { score: 10, lives: 3 } } });
  assert.equal(from.structured.value, 15, from.text);
  assert.equal(from.isError, false);
  assert.match(from.text, /^add_score returned 15 in [\d.]+ ms \(2 atoms loaded\)\.$/m);
  // A state atom is loaded even when the entry does not reach it by a declared dependency of its own.
  assert.equal((await run('level_name', [], { state: { game_state: { level: 2 } } })).structured.value, 'two');
  const unknown = await run('add_score', [1], { state: { no_such_atom: { a: 1 } } });
  assert.equal(unknown.isError, true);
  assert.match(unknown.text, /^Error: state names atoms that do not exist: no_such_atom/);
  const notObject = await run('add_score', [1], { state: { game_state: 3 } });
  assert.match(notObject.text, /^Error: state\.game_state must be an object/);
});

test('a value that does not match the declared outputs is reported, in the text and the structured result', async () => {
  const one = await run('wrong_output');
  assert.equal(one.isError, false, 'the run itself worked');
  assert.match(one.text, /^wrong_output returned "42" in [\d.]+ ms \(1 atom loaded\)\.\nWarning: the value does not match the declared outputs number: the output answer must be a number, got "42" \(a string\)$/m);
  const several = await run('two_outputs');
  assert.match(several.text, /\nWarning: the value does not match the declared outputs \{ x: number, y: number\[\], z: string \}: y must be a number\[\], got \[true\] \(an array\) \(element 0 is a boolean\); the key z is missing: expected a string$/m);
  assert.equal(several.structured.output_problems?.length, 2);
  const matching = await run('add_score', [1]);
  assert.doesNotMatch(matching.text, /Warning/);
});
