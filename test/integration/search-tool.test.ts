/**
 * semantic_search as an agent uses it: the shipped server (dist/cli.js, with the model and the
 * worker loaded from dist/) over stdio, on the real store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AtomStore } from '../../src/store/atomStore.js';
import { call, connectStdio, rawStdioSession } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { counterAtoms, GAME_ATOMS } from '../fixtures/game-atoms.js';
import { upsertMany } from '../support/storeWrites.js';

/** The atoms in dependency order, so each upsert finds its dependencies. */
function inDependencyOrder() {
  const done = new Set<string>();
  const out: typeof GAME_ATOMS = [];
  while (out.length < GAME_ATOMS.length) {
    for (const atom of GAME_ATOMS) {
      if (!done.has(atom.name) && (atom.dependencies ?? []).every((d) => done.has(d))) {
        out.push(atom);
        done.add(atom.name);
      }
    }
  }
  return out;
}

test('semantic_search answers in the contract format, by meaning and by name, and survives losing its index', async () => {
  const workspace = tempDir();
  const first = await connectStdio(workspace);
  let client = first.client;
  try {
    assert.match((await call(client, 'semantic_search', { query: 'jump' })).text, /^No atoms found matching: "jump"$/);
    for (const atom of inDependencyOrder()) {
      const result = await call(client, 'upsert_atom', { ...atom });
      assert.equal(result.isError, false, result.text);
    }

    const jump = await call(client, 'semantic_search', { query: 'make the character go up' });
    assert.equal(jump.isError, false, jump.text);
    assert.match(jump.text, /^\/\/ player_jump \(feature\) \[similarity: \d\.\d{3}\]\n\/\/ Applies upward force when entity is grounded\n\/\/ Signature: \(velocity_y: number, is_grounded: boolean\) => number\n\/\/ Depends on: \[physics_config\]\nfunction player_jump\(/m);
    assert.ok((jump.text.match(/^\/\/ \w+ \((core|feature|util)\) \[similarity: /gm) ?? []).length <= 5, 'default limit 5');

    const clamp = await call(client, 'semantic_search', { query: 'math_clamp', limit: 3 });
    assert.match(clamp.text, /^\/\/ math_clamp \(util\) \[similarity: \d\.\d{3}\]/);
    assert.ok((clamp.text.match(/\[similarity: /g) ?? []).length <= 3);

    const cores = await call(client, 'semantic_search', { query: 'velocity', type_filter: 'core', limit: 20 });
    const types = [...cores.text.matchAll(/^\/\/ \w+ \((\w+)\) \[similarity: /gm)].map((m) => m[1]);
    assert.ok(types.length > 0 && types.every((t) => t === 'core'), cores.text);

    for (const limit of [0, 21, 2.5]) {
      const bad = await call(client, 'semantic_search', { query: 'jump', limit });
      assert.equal(bad.isError, true, `limit ${limit}`);
      assert.match(bad.text, /^Error: /);
    }
    assert.equal((await call(client, 'semantic_search', { query: '' })).isError, true);

    // Read your writes through the tool: a new atom is found right after its upsert.
    const slide = {
      name: 'wall_slide',
      type: 'feature',
      description: 'Slows the fall while the player presses against a wall',
      inputs: [{ name: 'velocity_y', type: 'number' }],
      outputs: [{ name: 'velocity_y', type: 'number' }],
      code: 'function wall_slide(velocity_y) {\n  return Math.min(velocity_y, 120);\n}',
    };
    assert.equal((await call(client, 'upsert_atom', slide)).isError, false);
    assert.match((await call(client, 'semantic_search', { query: 'wall_slide' })).text, /^\/\/ wall_slide \(feature\) \[similarity: \d\.\d{3}\]/);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(first.stderr(), /embeddings unavailable/);

  // The vectors live in the database only: a new server finds them there without a file of its own.
  assert.ok(!existsSync(join(workspace, '.atomic', 'vectors')));
  client = (await connectStdio(workspace)).client;
  try {
    const again = await call(client, 'semantic_search', { query: 'make the character go up' });
    assert.match(again.text, /^\/\/ player_jump \(feature\) \[similarity: \d\.\d{3}\]/m);
  } finally {
    await client.close();
  }
});

/** Writes atoms with the store alone (no search index), as a process that closed before embedding them would leave them. */
async function atomsWithoutEmbeddings(workspace: string, drafts: typeof GAME_ATOMS): Promise<void> {
  const store = await AtomStore.open(workspace);
  try {
    await upsertMany(store, drafts);
  } finally {
    await store.close();
  }
}

test('the first search of a session ranks atoms left without embeddings by meaning, or says how many it could not', async () => {
  const small = tempDir();
  await atomsWithoutEmbeddings(small, inDependencyOrder().slice(0, 12));
  let { client } = await connectStdio(small);
  try {
    const text = (await call(client, 'semantic_search', { query: 'keep a value between bounds' })).text;
    assert.match(text, /^\/\/ math_clamp \(util\) \[similarity: \d\.\d{3}\]/, 'a small backlog is embedded before the answer');
    assert.doesNotMatch(text, /n\/a|no embedding yet/);
  } finally {
    await client.close();
  }

  const large = tempDir();
  const many = counterAtoms(60);
  await atomsWithoutEmbeddings(large, [...inDependencyOrder(), ...many]);
  ({ client } = await connectStdio(large));
  try {
    const text = (await call(client, 'semantic_search', { query: 'keep a value between bounds' })).text;
    const note = /^\/\/ (\d+) of (\d+) atoms have no embedding yet \(being computed in the background\): only their words could rank them, so some may rank low or be missing\. get_status shows the progress\.\n\n\/\/ \w+ \(/.exec(text);
    assert.ok(note, text.slice(0, 300));
    assert.equal(Number(note[2]), GAME_ATOMS.length + many.length);
    assert.ok(Number(note[1]) > 0);
  } finally {
    await client.close();
  }
});

test('loading and running the model writes nothing to stdout (the stdio protocol channel)', async () => {
  const { lines, out } = await rawStdioSession(
    tempDir(),
    [
      { method: 'tools/call', params: { name: 'upsert_atom', arguments: { ...GAME_ATOMS.find((a) => a.name === 'math_clamp') } } },
      { method: 'tools/call', params: { name: 'semantic_search', arguments: { query: 'keep a value between bounds' } } },
    ],
    60_000,
  );
  assert.ok(lines.some((l) => l.includes('"id":3') && l.includes('math_clamp (util) [similarity: ')), out);
  for (const line of lines) assert.equal(JSON.parse(line).jsonrpc, '2.0', `not a protocol message: ${line}`);
});
