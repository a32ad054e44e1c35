/**
 * A process killed while replacing a file leaves its temp file beside it (util/atomicFile.ts).
 * The next writer of the workspace removes those of processes that no longer run, in .atomic/
 * and in the atoms folder (where git would show them), and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomWorkspace } from '../../src/workspace.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

test('temp files of a killed writer are removed at open; a live process\'s and other files are kept', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.atomic'));
  mkdirSync(join(dir, 'atoms'));
  // A pid that ran and exited: nothing runs under it now.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const stale = [join(dir, '.atomic', `.text-tree.${dead}.0a1b2c3d.tmp`), join(dir, 'atoms', `.math_clamp.js.${dead}.deadbeef.tmp`)];
  const kept = [
    join(dir, '.atomic', `.latest.js.${process.ppid}.01234567.tmp`), // a live process: maybe writing right now
    join(dir, 'atoms', 'notes.tmp'), // not ours by its name
  ];
  for (const f of [...stale, ...kept]) writeFileSync(f, '');
  const workspace = await AtomWorkspace.open(dir, { embeddings: wordsOnly });
  try {
    for (const f of stale) assert.equal(existsSync(f), false, f);
    for (const f of kept) assert.equal(existsSync(f), true, f);
  } finally {
    await workspace.close();
  }
});

test('a bundle path outside .atomic/: the first build removes that bundle\'s stale temp files there, and nothing else', async () => {
  const dir = tempDir();
  const out = join(dir, 'public');
  mkdirSync(out);
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  // A killed build leaves its temp file, or the old bundle it kept to free after the answer.
  const stale = join(out, `.game.js.${dead}.0badf00d.tmp`);
  const kept = [
    join(out, `.styles.css.${dead}.0badf00d.tmp`), // another file's, in a folder that is not ours
    join(out, `.game.js.${process.ppid}.01234567.tmp`), // a live process's
  ];
  for (const f of [stale, ...kept]) writeFileSync(f, '');
  const workspace = await AtomWorkspace.open(dir, { embeddings: wordsOnly, bundlePath: 'public/game.js' });
  try {
    await workspace.upsert({ name: 'main', type: 'core', code: 'function main() {}' });
    await workspace.builder.idle();
    assert.equal(existsSync(stale), false);
    for (const f of kept) assert.equal(existsSync(f), true, f);
    assert.ok(workspace.builder.hasWholeBundle());
  } finally {
    await workspace.close();
  }
});
