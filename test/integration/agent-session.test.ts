/**
 * An agent's first session, scripted: from an empty workspace, only through the MCP tools over HTTP (the
 * real server, dist/cli.js), build a small snake game the way an agent does, honest mistakes included
 * (an undeclared call, a callee written after its caller, code that does not parse, a wrong-typed run,
 * a delete of something still called, a rename, an undo), reading each answer as an agent would. Then
 * the bundle the server built runs in Chromium on a page with a canvas, and the canvas must show the
 * board, the snake and the food: working software on the first try, with nothing silently broken.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext } from 'playwright-core';
import { call, connectHttp, resourceText, startServer, type RunningServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');
let server: RunningServer;
let client: Client;

before(async () => {
  server = await startServer(tempDir('agent-session-'));
  client = await connectHttp(server.url, server.token, 'scripted-agent');
});

after(async () => {
  await client?.close().catch(() => {});
  await server?.stop();
});

const ok = async (tool: string, args: Record<string, unknown>) => {
  const r = await call(client, tool, args);
  assert.ok(!r.isError, `${tool} ${JSON.stringify(args).slice(0, 80)} was refused: ${r.text}`);
  return r.text;
};
const refused = async (tool: string, args: Record<string, unknown>) => {
  const r = await call(client, tool, args);
  assert.equal(r.isError, true, `${tool} should be refused: ${r.text}`);
  assert.match(r.text, /^Error: /);
  return r.text;
};
const num = (name: string, description?: string) => ({ name, type: 'number', ...(description ? { description } : {}) });

test('an agent builds a snake game from nothing, its mistakes caught and said, and the bundle draws it', async () => {
  assert.equal(await ok('get_code_structure', {}), '[]');

  // State has a home: one core atom, as the instructions say. Being the only core atom, it would boot: said.
  const state = await ok('upsert_atom', {
    name: 'game_state',
    type: 'core',
    description: 'Named numbers shared by every atom',
    inputs: [{ name: 'key', type: 'string' }, { ...num('value'), optional: true }],
    outputs: [num('current')],
    code: 'function game_state(key, value) {\n  const store = game_state.store || (game_state.store = {});\n  if (value !== undefined) store[key] = value;\n  return store[key] === undefined ? 0 : store[key];\n}',
  });
  assert.match(state, /^Boot: game_state \(was none\)$/m);
  await ok('upsert_atom', {
    name: 'board_config',
    type: 'util',
    description: 'Cell size and board size in cells',
    outputs: [num('cell'), num('cells')],
    code: 'function board_config() {\n  return { cell: 20, cells: 10 };\n}',
  });

  // A mistake: code that does not parse is refused with its line, and nothing is saved.
  const broken = await refused('upsert_atom', { name: 'snake_step', type: 'util', code: 'function snake_step(x, dx, cells) {\n  return (x + dx + cells) % cells\n  }}' });
  assert.match(broken, /line 3/);
  // Fixed, and tried in the sandbox; a wrong-typed argument is refused with what was expected.
  await ok('upsert_atom', {
    name: 'snake_step',
    type: 'util',
    description: 'Moves one coordinate by dx, wrapping around the board',
    inputs: [num('x'), num('dx'), num('cells')],
    outputs: [num('next')],
    code: 'function snake_step(x, dx, cells) {\n  return (x + dx + cells) % cells;\n}',
  });
  assert.match(await refused('run_atom', { name: 'snake_step', args: ['x', 1, 10] }), /args\[0\] \(x\) must be a number/);
  assert.match(await ok('run_atom', { name: 'snake_step', args: [9, 1, 10] }), /0/);

  // An honest slip: draw_cell calls board_config without declaring it. The dependency is added, and said.
  const drawCell = await ok('upsert_atom', {
    name: 'draw_cell',
    type: 'feature',
    description: 'Fills one board cell with a colour',
    inputs: [num('x'), num('y'), { name: 'colour', type: 'string' }],
    outputs: [{ name: 'done', type: 'void' }],
    code: "function draw_cell(x, y, colour) {\n  const c = board_config().cell;\n  const ctx = document.getElementById('game').getContext('2d');\n  ctx.fillStyle = colour;\n  ctx.fillRect(x * c, y * c, c, c);\n}",
  });
  assert.match(drawCell, /^Dependencies added \(called in the code\): board_config$/m);

  // A typo: draw_food calls draw_cel, which is no atom. Refused on the write, not at run time, with the
  // atom it was probably meant to be; food_colour does not exist yet either, and is said too.
  const drawFood = {
    name: 'draw_food',
    type: 'feature',
    description: 'Draws the food',
    inputs: [num('x'), num('y')],
    outputs: [{ name: 'done', type: 'void' }],
    dependencies: ['draw_cell'],
    code: 'function draw_food(x, y) {\n  draw_cel(x, y, food_colour());\n}',
  };
  const typo = await refused('upsert_atom', drawFood);
  assert.match(typo, /draw_food uses names that are no atom.*: draw_cel \(did you mean draw_cell\?\); food_colour\./);
  // Fixed, and written together with the food_colour it calls: the call is its dependency.
  const withColour = await ok('upsert_atoms', {
    atoms: [
      { ...drawFood, code: 'function draw_food(x, y) {\n  draw_cell(x, y, food_colour());\n}' },
      { name: 'food_colour', type: 'util', outputs: [{ name: 'css', type: 'string' }], code: "function food_colour() {\n  return 'rgb(255, 0, 0)';\n}" },
    ],
  });
  assert.match(withColour, /Dependencies added \(called in the code\): food_colour/);
  assert.match(await ok('read_atoms', { names: ['draw_food'] }), /food_colour/);

  // The entry atom: named main, it takes the boot from game_state, and the answer says so.
  const main = await ok('upsert_atom', {
    name: 'main',
    type: 'core',
    description: 'Draws the board, the snake and the food once',
    outputs: [{ name: 'done', type: 'void' }],
    dependencies: ['board_config', 'draw_cell', 'draw_food', 'game_state', 'snake_step'],
    code: [
      'function main() {',
      '  const n = board_config().cells;',
      "  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) draw_cell(x, y, 'rgb(0, 0, 80)');",
      "  game_state('head_x', snake_step(2, 1, n));",
      "  draw_cell(game_state('head_x'), 4, 'rgb(0, 255, 0)');",
      '  draw_food(7, 7);',
      '}',
    ].join('\n'),
  });
  assert.match(main, /^Boot: main \(was game_state\)$/m);
  assert.match(await ok('get_status', {}), /Boot atom: main/);

  // Rename a helper: its callers' code and dependencies follow in one change.
  const renamed = await ok('rename_atom', { name: 'draw_cell', new_name: 'paint_cell' });
  assert.match(renamed, /^Atom "draw_cell" renamed to "paint_cell"/);
  assert.match(renamed, /draw_food/);
  assert.match(renamed, /main/);
  const after = await ok('read_atoms', { names: ['main', 'draw_food'] });
  assert.doesNotMatch(after, /draw_cell/);

  // Deleting what code still calls is refused, naming the callers; deleting an unused atom works, and undo brings it back.
  assert.match(await refused('delete_atom', { name: 'food_colour' }), /Cannot delete "food_colour": used by \[draw_food\]/);
  await ok('upsert_atom', { name: 'debug_note', type: 'util', code: "function debug_note() {\n  return 'unused';\n}" });
  await ok('delete_atom', { name: 'debug_note' });
  assert.match(await ok('atom_history', { operation: 'restore', name: 'debug_note' }), /debug_note/);
  assert.match(await ok('read_atoms', { names: ['debug_note'] }), /function debug_note/);

  // An update that drops fields is told what it removed.
  const dropped = await ok('upsert_atom', { name: 'board_config', type: 'util', code: 'function board_config() {\n  return { cell: 20, cells: 10 };\n}' });
  assert.match(dropped, /^Removed: description, outputs \[cell, cells\]$/m);

  const status = await ok('get_status', {});
  assert.match(status, /Last build: success/);

  // The bundle, as the server built it, runs in a real browser and draws the game.
  const bundle = resourceText(await client.readResource({ uri: 'atoms://bundle' }));
  assert.match(bundle, /paint_cell\(/);
  const lib = (await import(join(root, 'scripts', 'e2e', 'lib.mjs'))) as { launchBrowser(runDir: string, viewport?: object): Promise<BrowserContext> };
  const browser = await lib.launchBrowser(tempDir('agent-session-browser-'), { width: 400, height: 300 });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/*', (route) => route.abort());
    await page.setContent('<!doctype html><html><body style="margin:0"><canvas id="game" width="200" height="200"></canvas></body></html>');
    await page.addScriptTag({ content: bundle });
    const pixel = (x: number, y: number) =>
      page.evaluate(([px, py]) => Array.from((document.getElementById('game') as HTMLCanvasElement).getContext('2d')!.getImageData(px!, py!, 1, 1).data.slice(0, 3)), [x, y]);
    assert.deepEqual(errors, [], 'the bundle ran without an error');
    assert.deepEqual(await pixel(5, 5), [0, 0, 80], 'the board is drawn');
    assert.deepEqual(await pixel(3 * 20 + 10, 4 * 20 + 10), [0, 255, 0], 'the snake head is where snake_step put it');
    assert.deepEqual(await pixel(7 * 20 + 10, 7 * 20 + 10), [255, 0, 0], 'the food is drawn in food_colour');
    const shots = join(root, '.e2e', 'screenshots', 'agent-session');
    mkdirSync(shots, { recursive: true });
    await page.locator('#game').screenshot({ path: join(shots, 'snake.png') });
  } finally {
    await browser.close();
  }
});
