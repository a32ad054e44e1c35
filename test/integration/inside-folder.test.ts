import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveInsideFolder } from '../../src/util/insideFolder.js';
import { tempDir } from '../support/tmp.js';

const WHAT = 'The bundle path (atomicCoding.bundle.outputPath)';

/** A workspace folder inside a parent, so "outside" has somewhere to be. */
function layout() {
  const parent = realpathSync(tempDir('inside-folder-'));
  const folder = join(parent, 'ws');
  const outside = join(parent, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
  return { parent, folder, outside };
}

test('resolveInsideFolder: relative and absolute paths inside the folder, existing or not, resolve to their real place', () => {
  const { folder } = layout();
  assert.equal(resolveInsideFolder(folder, '.atomic/latest.js', WHAT), join(folder, '.atomic', 'latest.js'));
  assert.equal(resolveInsideFolder(folder, 'a/b/../c.js', WHAT), join(folder, 'a', 'c.js'));
  assert.equal(resolveInsideFolder(folder, join(folder, 'out', 'x.js'), WHAT), join(folder, 'out', 'x.js'));
  assert.equal(resolveInsideFolder(folder, '', WHAT), folder);
  mkdirSync(join(folder, 'real'));
  symlinkSync(join(folder, 'real'), join(folder, 'alias'));
  assert.equal(resolveInsideFolder(folder, 'alias/x.js', WHAT), join(folder, 'real', 'x.js'), 'a link that stays inside is fine');
});

test('resolveInsideFolder: a folder reached through a link is judged by its real path', () => {
  const { parent, folder } = layout();
  const link = join(parent, 'ws-link');
  symlinkSync(folder, link);
  assert.equal(resolveInsideFolder(link, 'x.js', WHAT), join(folder, 'x.js'));
});

test('resolveInsideFolder: "..", absolute paths elsewhere and sibling folders with a common prefix are refused', () => {
  const { parent, folder } = layout();
  for (const path of ['../outside.js', '../../.bashrc', join(parent, 'outside', 'x.js'), '/etc/passwd', '../ws-evil/x.js', '..']) {
    assert.throws(
      () => resolveInsideFolder(folder, path, WHAT),
      (err: Error) => {
        assert.match(err.message, /^The bundle path \(atomicCoding\.bundle\.outputPath\) ".*" is outside the workspace folder /);
        assert.match(err.message, /Use a path inside the workspace folder/);
        return true;
      },
      path,
    );
  }
});

test('resolveInsideFolder: a linked parent folder, a link at the file itself, or a dangling link out are refused', () => {
  const { folder, outside } = layout();
  symlinkSync(outside, join(folder, 'dir-link'));
  assert.throws(() => resolveInsideFolder(folder, 'dir-link/latest.js', WHAT), /outside the workspace folder .*through a symbolic link/);
  assert.throws(() => resolveInsideFolder(folder, 'dir-link/new/deeper/latest.js', WHAT), /outside the workspace folder/);

  const secret = join(outside, 'id_rsa');
  writeFileSync(secret, 'secret');
  symlinkSync(secret, join(folder, 'file-link.js'));
  assert.throws(() => resolveInsideFolder(folder, 'file-link.js', WHAT), new RegExp(`leads to ${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} through a symbolic link`));

  symlinkSync(join(outside, 'not-yet.js'), join(folder, 'dangling.js'));
  assert.throws(() => resolveInsideFolder(folder, 'dangling.js', WHAT), /a symbolic link that points nowhere .*remove the link or use another path/);
});

test('resolveInsideFolder: a path with a NUL byte is refused with a clear message', () => {
  const { folder } = layout();
  assert.throws(() => resolveInsideFolder(folder, 'a\0b', WHAT), /is not a valid path: use a path inside the workspace folder/);
});
