/**
 * Issue 12, findings 1 and 2: the bundle path comes from the workspace's settings (that is, from
 * whoever wrote the repository), and an agent can call any tool. The bundle is only ever written
 * inside the workspace folder (links resolved), never over a file that is not a bundle, and
 * `atoms://bundle` only ever hands out a bundle. Through the real MCP server, in process
 * (test/support/inProcess.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mathClamp, physicsConfig, playerJump } from '../support/atoms.js';
import { resourceText as textOf } from '../support/client.js';
import { openInProcess, wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

/** A server on `folder` with this bundle path (words only: these tests never need the model). */
const open = (folder: string, bundlePath?: string) => openInProcess({ folder, bundlePath, embeddings: wordsOnly, clientName: 'bundle-path-test' });

const SECRET = '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n-----END OPENSSH PRIVATE KEY-----\n';
const REFUSED_OUTSIDE = /build refused, nothing was written: The bundle path \(setting atomicCoding\.bundle\.outputPath\) ".*" is outside the workspace folder .*Use a path inside the workspace folder/;

/** A workspace folder `ws` beside a folder `outside`, both under one temp folder. */
function layout() {
  const parent = realpathSync(tempDir('bundle-path-'));
  const folder = join(parent, 'ws');
  const outside = join(parent, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
  return { parent, folder, outside };
}

/** A workspace that already has atoms (built with the default path), so opening it builds. */
async function seeded(folder: string): Promise<void> {
  const server = await open(folder);
  for (const d of [physicsConfig, playerJump]) await server.workspace.upsert(d);
  await server.close();
}

test('a bundle path of ../outside.js or ../.bashrc writes nothing outside the folder; the build and upsert_atom say why', async () => {
  const { folder, outside, parent } = layout();
  await seeded(folder);
  const bashrc = join(parent, '.bashrc');
  writeFileSync(bashrc, 'export PATH=$HOME/bin:$PATH\n');
  for (const bundlePath of ['../outside.js', '../.bashrc']) {
    const server = await open(folder, bundlePath);
    const { workspace: ws, client } = server;
    try {
      assert.match(ws.atoms.lastBuild()?.error_message ?? '', REFUSED_OUTSIDE, 'opening builds, and the build is refused');
      const upsert = await server.call('upsert_atom', { ...mathClamp, description: `clamp (${bundlePath})` });
      assert.equal(upsert.isError, false, 'the atom itself is saved');
      assert.match(upsert.text, /Rebuild triggered, but it failed: build refused, nothing was written: The bundle path .* is outside the workspace folder/);
      await assert.rejects(client.readResource({ uri: 'atoms://bundle' }), /is outside the workspace folder/);
    } finally {
      await server.close();
    }
  }
  assert.equal(existsSync(join(parent, 'outside.js')), false, 'nothing written at ../outside.js');
  assert.equal(readFileSync(bashrc, 'utf8'), 'export PATH=$HOME/bin:$PATH\n', '../.bashrc untouched');
  assert.deepEqual(readdirSync(parent).sort(), ['.bashrc', 'outside', 'ws'], 'no temp file left beside either');
  assert.deepEqual(readdirSync(outside), []);
});

test('a linked folder, a link at the bundle itself, or a cloned .atomic/latest.js link cannot lead the bundle outside', async () => {
  const { folder, outside } = layout();
  await seeded(folder);
  const key = join(outside, 'id_rsa');
  writeFileSync(key, SECRET);
  symlinkSync(outside, join(folder, 'web')); // a linked parent folder
  symlinkSync(key, join(folder, 'game.js')); // a link at the target itself
  for (const bundlePath of ['web/latest.js', 'web/new/deeper/latest.js', 'game.js']) {
    const server = await open(folder, bundlePath);
    const { workspace: ws, client } = server;
    try {
      assert.match(ws.atoms.lastBuild()?.error_message ?? '', /build refused, nothing was written: .* is outside the workspace folder .*through a symbolic link/);
      const upsert = await server.call('upsert_atom', { ...mathClamp, description: `clamp (${bundlePath})` });
      assert.match(upsert.text, /build refused, nothing was written/);
      const read = await client.readResource({ uri: 'atoms://bundle' }).then(textOf, (err: Error) => err.message);
      assert.doesNotMatch(read, /PRIVATE KEY/, `${bundlePath}: atoms://bundle never hands out the linked file`);
    } finally {
      await server.close();
    }
  }
  // The default path too: a repository can commit .atomic/latest.js as a link.
  const latest = join(folder, '.atomic', 'latest.js');
  rmSync(latest);
  symlinkSync(key, latest);
  const server = await open(folder);
  const { client } = server;
  try {
    await server.call('upsert_atom', { ...mathClamp, description: 'clamp (default path)' });
    const read = await client.readResource({ uri: 'atoms://bundle' }).then(textOf, (err: Error) => err.message);
    assert.doesNotMatch(read, /PRIVATE KEY/);
    // The open removed the link (.atomic/ is this machine's cache: stateFolder.ts) and wrote the bundle in its place.
    assert.match(read, /function math_clamp/);
    assert.match((await server.call('get_status', {})).text, /Not trusted at open: \.atomic\/latest\.js was a symbolic link; removed/);
  } finally {
    await server.close();
  }
  assert.equal(readFileSync(key, 'utf8'), SECRET, 'the key behind the links is untouched');
  assert.deepEqual(readdirSync(outside), ['id_rsa'], 'nothing else was written outside');
});

test('an output path at an existing file that is not a bundle: atoms://bundle never returns it and upserts never replace it', async () => {
  const { folder, outside } = layout();
  const inside = join(folder, 'keys', 'id_rsa');
  mkdirSync(join(folder, 'keys'));
  writeFileSync(inside, SECRET);
  const outsideKey = join(outside, 'id_rsa');
  writeFileSync(outsideKey, SECRET);
  // Nothing built yet, at the default path: a plain answer, not a file.
  const freshServer = await open(folder);
  const { client: freshClient } = freshServer;
  try {
    await assert.rejects(freshClient.readResource({ uri: 'atoms://bundle' }), /No bundle yet: create an atom with upsert_atom/);
  } finally {
    await freshServer.close();
  }
  for (const [bundlePath, why] of [
    [outsideKey, /is outside the workspace folder/],
    ['keys/id_rsa', /keys\/id_rsa is not a bundle \(it does not start with "\/\/ === Atomic Coding Bundle ==="\).*Move that file away, or set atomicCoding\.bundle\.outputPath/],
  ] as const) {
    // An empty store: nothing built yet, and the agent asks for the bundle first.
    const server = await open(folder, bundlePath);
    const { client } = server;
    try {
      const before = await client.readResource({ uri: 'atoms://bundle' }).then(textOf, (err: Error) => err.message);
      assert.doesNotMatch(before, /PRIVATE KEY/, `${bundlePath}: not returned while the store is empty`);
      assert.match(before, why);
      const upsert = await server.call('upsert_atom', { ...physicsConfig });
      assert.equal(upsert.isError, false);
      assert.match(upsert.text, /Rebuild triggered, but it failed: build refused, nothing was written: /);
      assert.match(upsert.text, why);
      const after = await client.readResource({ uri: 'atoms://bundle' }).then(textOf, (err: Error) => err.message);
      assert.doesNotMatch(after, /PRIVATE KEY/, `${bundlePath}: not returned after an upsert`);
    } finally {
      await server.close();
    }
  }
  assert.equal(readFileSync(inside, 'utf8'), SECRET, 'the file inside the folder is not replaced');
  assert.equal(readFileSync(outsideKey, 'utf8'), SECRET, 'the file outside is not replaced');
});

test('a bundle path inside the folder works and replaces its own bundle; moved outside, it stops writing; moved back, it writes again', async () => {
  const { folder, parent } = layout();
  mkdirSync(join(folder, 'site'));
  writeFileSync(join(folder, 'site', 'game.js'), '// === Atomic Coding Bundle ===\n// an old bundle\n');
  const server = await open(folder, 'site/game.js');
  const { workspace: ws, client } = server;
  try {
    const first = (await server.call('upsert_atom', { ...physicsConfig })).text.split('\n');
    assert.match(first[0]!, /Rebuild triggered\.$/);
    // The session's first write says where the bundle goes, with its real path; get_status says it too.
    assert.equal(first[1], `Bundle: ${join(realpathSync(folder), 'site', 'game.js')} (rewritten after every change).`);
    assert.ok((await server.call('get_status', {})).text.split('\n').includes(first[1]!));
    assert.doesNotMatch((await server.call('upsert_atom', { ...physicsConfig })).text, /Bundle:/, 'only the first write says it');
    const bundle = textOf(await client.readResource({ uri: 'atoms://bundle' }));
    assert.match(bundle, /^\/\/ === Atomic Coding Bundle ===\n/);
    assert.match(bundle, /function physics_config/);
    assert.equal(readFileSync(join(folder, 'site', 'game.js'), 'utf8'), bundle);

    ws.builder.setOutputPath(join(parent, 'moved.js'));
    const refused = await server.call('upsert_atom', { ...mathClamp });
    assert.match(refused.text, REFUSED_OUTSIDE);
    assert.equal(existsSync(join(parent, 'moved.js')), false);

    ws.builder.setOutputPath(join(folder, 'site', 'game.js'));
    assert.match((await server.call('upsert_atom', { ...playerJump })).text, /Rebuild triggered\.$/);
    assert.match(readFileSync(join(folder, 'site', 'game.js'), 'utf8'), /function math_clamp[\s\S]*function player_jump/);
  } finally {
    await server.close();
  }
});
