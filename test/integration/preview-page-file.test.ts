/**
 * The preview against a repository's own files (issue 12): the page must lie inside the workspace
 * folder (links resolved). The frame's policies are tested in test/unit/preview-csp.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPageFile } from '../../src/preview/pageFile.js';
import { tempDir } from '../support/tmp.js';

/** A workspace folder with a secret file beside it, outside. */
function layout() {
  const parent = realpathSync(tempDir('preview-page-'));
  const folder = join(parent, 'ws');
  const outside = join(parent, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
  const secret = join(outside, 'id_rsa');
  writeFileSync(secret, 'PRIVATE KEY');
  return { folder, outside, secret };
}

test('a preview page outside the workspace folder is refused with a message saying what to do, and is not read', async () => {
  const { folder, outside, secret } = layout();
  mkdirSync(join(folder, 'pages'));
  symlinkSync(outside, join(folder, 'pages', 'out'));
  for (const setting of [secret, '../outside/id_rsa', 'pages/out/id_rsa']) {
    const page = await readPageFile(folder, setting);
    assert.equal(page.kind, 'refused', setting);
    if (page.kind !== 'refused') continue;
    assert.match(page.message, /^The preview page \(atomicCoding\.preview\.page\) ".*" is outside the workspace folder/);
    assert.match(page.message, /Change the setting atomicCoding\.preview\.page/);
    assert.doesNotMatch(JSON.stringify(page), /PRIVATE KEY/);
  }
  // The default page, preview.html, linked out of the folder.
  symlinkSync(secret, join(folder, 'preview.html'));
  const linked = await readPageFile(folder, '');
  assert.equal(linked.kind, 'refused');
  assert.match(linked.kind === 'refused' ? linked.message : '', /^The preview page preview\.html "preview\.html" is outside the workspace folder .* through a symbolic link/);
});

test('a preview page inside the folder is read, by a relative or an absolute path; no preview.html means the built-in page', async () => {
  const { folder } = layout();
  assert.deepEqual(await readPageFile(folder, ''), { kind: 'builtin' });
  mkdirSync(join(folder, 'pages'));
  writeFileSync(join(folder, 'pages', 'game.html'), '<p>game</p>');
  assert.deepEqual(await readPageFile(folder, 'pages/game.html'), { kind: 'page', html: '<p>game</p>' });
  assert.deepEqual(await readPageFile(folder, join(folder, 'pages', 'game.html')), { kind: 'page', html: '<p>game</p>' });
  writeFileSync(join(folder, 'preview.html'), '<p>default</p>');
  assert.deepEqual(await readPageFile(folder, ''), { kind: 'page', html: '<p>default</p>' });
  const missing = await readPageFile(folder, 'pages/none.html');
  assert.equal(missing.kind, 'builtin');
  assert.match(missing.kind === 'builtin' ? (missing.warning ?? '') : '', /could not read the page .*none\.html \(ENOENT\); using the built-in page/);
});
