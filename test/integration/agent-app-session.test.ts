/**
 * An agent builds an app, not a game: records, a DOM built from atoms, events, persistence across a
 * reload, following the instructions' patterns (records in the state atom by id, one accessor per field
 * used, a list atom; the DOM built by atoms; events wired once in main with one delegated listener,
 * since atoms are not globals). Through the real server's tools only, reading each answer as an agent
 * would: a state atom that would boot is said before main exists, an update that changes a port names
 * its callers, a declared output the code visibly does not return is warned about, and search answers
 * can leave the code out. Then the bundle runs in Chromium: cards are added by clicks, removed, and
 * survive a reload.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext } from 'playwright-core';
import { call, connectHttp, resourceText, startServer, type RunningServer } from '../support/server.js';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');
let server: RunningServer;
let client: Client;
let calls = 0;

before(async () => {
  server = await startServer(tempDir('agent-app-'));
  client = await connectHttp(server.url, server.token, 'scripted-app-agent');
});

after(async () => {
  await client?.close().catch(() => {});
  await server?.stop();
});

const ok = async (tool: string, args: Record<string, unknown>) => {
  calls++;
  const r = await call(client, tool, args);
  assert.ok(!r.isError, `${tool} ${JSON.stringify(args).slice(0, 80)} was refused: ${r.text}`);
  return r.text;
};
const str = (name: string, optional = false) => ({ name, type: 'string', ...(optional ? { optional: true } : {}) });

test('an agent builds a card board app: records, DOM events, a reload, its traps said on the way', async () => {
  // The records pattern: the state atom keeps every value by key; a record's fields are card:<id>:<field>.
  const appState = {
    name: 'app_state',
    type: 'util',
    description: 'Every value of the app by key; records as <kind>:<id>:<field>; the list of card ids under "cards"',
    inputs: [str('key'), str('value', true)],
    outputs: [str('current')],
    code: 'function app_state(key, value) {\n  const store = app_state.store || (app_state.store = {});\n  if (value !== undefined) store[key] = value;\n  return store[key] === undefined ? \'\' : store[key];\n}',
  };
  // Made core before main exists, it would be booted with no key: said before it happens.
  const state = await ok('upsert_atom', { ...appState, type: 'core' });
  assert.match(state, /^Warning: latest\.js boots app_state, which takes key: string: it is called with none when the page loads\./m);
  assert.doesNotMatch(await ok('upsert_atom', appState), /Warning: latest\.js boots/);

  await ok('upsert_atoms', {
    atoms: [
      {
        name: 'card_ids',
        type: 'util',
        description: 'The ids of the cards, in order',
        outputs: [{ name: 'ids', type: 'string[]' }],
        code: "function card_ids() {\n  const text = app_state('cards');\n  return text ? text.split(',') : [];\n}",
      },
      {
        name: 'card_title',
        type: 'util',
        description: "A card's title",
        inputs: [str('id')],
        outputs: [str('title')],
        code: "function card_title(id) {\n  return app_state('card:' + id + ':title');\n}",
      },
      {
        name: 'save_cards',
        type: 'util',
        description: 'Keeps the app state in localStorage, so a reload finds it',
        code: "function save_cards() {\n  localStorage.setItem('card_board', JSON.stringify(app_state.store || {}));\n}",
      },
      {
        name: 'load_cards',
        type: 'util',
        description: 'Reads the app state back from localStorage',
        code: "function load_cards() {\n  const saved = JSON.parse(localStorage.getItem('card_board') || '{}');\n  for (const key of Object.keys(saved)) app_state(key, saved[key]);\n}",
      },
      {
        name: 'add_card',
        type: 'feature',
        description: 'Adds a card with a title; returns its id',
        inputs: [str('title')],
        outputs: [str('id')],
        code: "function add_card(title) {\n  const next = Number(app_state('next_id') || '1');\n  const id = 'c' + next;\n  app_state('next_id', String(next + 1));\n  app_state('card:' + id + ':title', title);\n  app_state('cards', card_ids().concat(id).join(','));\n  save_cards();\n  return id;\n}",
      },
      {
        name: 'remove_card',
        type: 'feature',
        description: 'Removes a card by id',
        inputs: [str('id')],
        code: "function remove_card(id) {\n  app_state('cards', card_ids().filter((c) => c !== id).join(','));\n  save_cards();\n}",
      },
      {
        name: 'render_cards',
        type: 'feature',
        description: 'Builds the list of cards in #cards, each with a remove button carrying data-action and data-id',
        code: "function render_cards() {\n  const list = document.getElementById('cards');\n  list.textContent = '';\n  for (const id of card_ids()) {\n    const li = document.createElement('li');\n    li.textContent = card_title(id) + ' ';\n    const button = document.createElement('button');\n    button.textContent = 'x';\n    button.dataset.action = 'remove';\n    button.dataset.id = id;\n    li.appendChild(button);\n    list.appendChild(li);\n  }\n}",
      },
    ],
  });

  // The DOM pattern: main builds the page and wires every event once, with one delegated listener.
  const main = await ok('upsert_atom', {
    name: 'main',
    type: 'core',
    description: 'Starts the card board: loads the saved cards, builds the page, wires its events',
    code:
      "function main() {\n  load_cards();\n  const app = document.getElementById('app');\n  app.innerHTML = '<input id=\"title\"><button data-action=\"add\">Add</button><ul id=\"cards\"></ul>';\n" +
      "  app.addEventListener('click', (event) => {\n    const target = event.target.closest('[data-action]');\n    if (!target) return;\n" +
      "    if (target.dataset.action === 'add') add_card(document.getElementById('title').value);\n    if (target.dataset.action === 'remove') remove_card(target.dataset.id);\n    render_cards();\n  });\n  render_cards();\n}",
  });
  assert.match(main, /^Boot: main \(was none\)$/m);

  // A scenario that proves the records: never bundled, run after every change that reaches it.
  const scenario = await ok('upsert_atom', {
    name: 'test_cards',
    type: 'test',
    code: "function test_cards() {\n  const id = add_card('Write tests');\n  assert(card_title(id) === 'Write tests', 'title kept');\n  assert(card_ids().indexOf(id) >= 0, 'listed');\n  remove_card(id);\n  assert(card_ids().indexOf(id) < 0, 'removed');\n}",
  });
  assert.match(scenario, /^Tests: 1 passed\.$/m);

  // A port change that breaks callers names them; a declared output the code does not return is said.
  const retyped = await ok('upsert_atom', {
    name: 'card_title',
    type: 'util',
    description: "A card's title",
    inputs: [{ name: 'id', type: 'number' }],
    outputs: [str('title')],
    code: "function card_title(id) {\n  return app_state('card:' + id + ':title');\n}",
  });
  assert.match(retyped, /^Callers to update \(input id: string -> number\): render_cards, test_cards\. /m);
  const wrongReturn = await ok('upsert_atom', {
    name: 'card_title',
    type: 'util',
    description: "A card's title",
    inputs: [str('id')],
    outputs: [{ name: 'title', type: 'number' }],
    code: "function card_title(id) {\n  return 'Card ' + app_state('card:' + id + ':title');\n}",
  });
  assert.match(wrongReturn, /^Warning: it declares output title: number, but line 2 returns a string/m);
  await ok('upsert_atom', {
    name: 'card_title',
    type: 'util',
    description: "A card's title",
    inputs: [str('id')],
    outputs: [str('title')],
    code: "function card_title(id) {\n  return app_state('card:' + id + ':title');\n}",
  });

  // A search that only picks what to read leaves the code out.
  const full = await ok('semantic_search', { query: 'add a card', limit: 5 });
  const summary = await ok('semantic_search', { query: 'add a card', limit: 5, detail: 'summary' });
  assert.match(summary, /add_card \(feature\)/);
  assert.doesNotMatch(summary, /function add_card/);
  assert.ok(summary.length * 2 < full.length, `summary ${summary.length} bytes, full ${full.length}`);

  const bundle = resourceText(await client.readResource({ uri: 'atoms://bundle' }));
  assert.doesNotMatch(bundle, /test_cards/);

  // The bundle in a real browser, on a page of its own origin (localStorage needs one).
  const page = '<!doctype html><html><body><div id="app"></div><script src="latest.js"></script></body></html>';
  const http: Server = createServer((req, res) => {
    res.setHeader('Content-Type', req.url === '/latest.js' ? 'text/javascript' : 'text/html');
    res.end(req.url === '/latest.js' ? bundle : page);
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/`;
  const lib = (await import(join(root, 'scripts', 'e2e', 'lib.mjs'))) as { launchBrowser(runDir: string, viewport?: object): Promise<BrowserContext> };
  // The page's server is closed however this ends: a browser that fails to start left it listening, and
  // the test file never exited.
  let browser: BrowserContext | undefined;
  try {
    browser = await lib.launchBrowser(tempDir('agent-app-browser-'), { width: 400, height: 300 });
    const tab = browser.pages()[0] ?? (await browser.newPage());
    const errors: string[] = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    await tab.goto(url);
    await tab.fill('#title', 'Buy milk');
    await tab.click('[data-action="add"]');
    await tab.fill('#title', 'Call Ada');
    await tab.click('[data-action="add"]');
    assert.deepEqual(await tab.locator('#cards li').allTextContents(), ['Buy milk x', 'Call Ada x']);
    await tab.click('[data-action="remove"][data-id="c1"]');
    assert.deepEqual(await tab.locator('#cards li').allTextContents(), ['Call Ada x']);
    await tab.reload();
    assert.deepEqual(await tab.locator('#cards li').allTextContents(), ['Call Ada x'], 'the cards survive a reload');
    assert.deepEqual(errors, []);
  } finally {
    await browser?.close();
    http.close();
  }
  process.stderr.write(`agent-app-session: 10 atoms (9 of the app, 1 test) in ${calls} tool calls\n`);
});
