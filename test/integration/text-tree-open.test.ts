/**
 * The text tree off the path to the first answer (issue 15): a workspace opened from this
 * machine's `.atomic/` after a clean close answers reads at once while its files are compared in
 * the background; a write waits for that comparison, so a file changed while nothing watched is
 * neither overwritten nor taken over the write; and a file whose size and mtime are as recorded
 * is not read at all. A crash (no clean close) is still reconciled before the open resolves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs, { promises as fsp, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { numberUtil as util } from '../support/atoms.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { AtomWorkspace, type WorkspaceOptions } from '../../src/workspace.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

const options: WorkspaceOptions = { embeddings: wordsOnly };


/** The atom's file with its body changed, as an editor or a git checkout would leave it. */
function edit(dir: string, name: string, from: string, to: string): void {
  const path = join(dir, 'atoms', `${name}.js`);
  writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));
}

/** Every atom file's mtime an hour back, so the records may vouch for them by their stat. */
function age(dir: string): void {
  const past = new Date(Date.now() - 3600_000);
  for (const f of readdirSync(join(dir, 'atoms'))) utimesSync(join(dir, 'atoms', f), past, past);
}

/**
 * A workspace closed cleanly with `changed` (x + 1) and `kept` (x * 2), whose `changed` file is then
 * edited to `x + <to>` while nothing watched, opened again with its background comparison held
 * until `release` is called.
 */
async function reopenedWithHeldReconcile(prefix: string, changed: string, kept: string, to: number) {
  const dir = tempDir(prefix);
  const first = await AtomWorkspace.open(dir, options);
  await first.upsertMany([util(changed, 'x + 1'), util(kept, 'x * 2')]);
  await first.close();
  edit(dir, changed, 'x + 1', `x + ${to}`);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { beforeReconcile: () => held } });
  return { dir, ws, release };
}

test('an open from .atomic/ answers reads before the reconcile; a write waits for it and lands after the file changed outside', async () => {
  const { dir, ws, release } = await reopenedWithHeldReconcile('atomic-texttree-open-', 'edited_outside', 'left_alone', 100);
  try {
    // The open resolved while the reconcile is held: reads answer from the store as it was.
    assert.match(ws.atoms.get('edited_outside')!.code, /x \+ 1\b/, 'read before the reconcile: the store as it was');
    let written = false;
    const write = ws.upsert(util('edited_outside', 'x + 2')).then(() => (written = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(written, false, 'the write waits for the reconcile');
    release();
    await write;
    assert.deepEqual(
      ws.atoms.history('edited_outside').map((v) => /x \+ \d+/.exec(v.code)![0]),
      ['x + 2', 'x + 100', 'x + 1'],
      "the file's change is taken first, the write after it",
    );
    assert.match(readFileSync(join(dir, 'atoms', 'edited_outside.js'), 'utf8'), /return x \+ 2;/);
  } finally {
    release();
    await ws.close();
  }
});

test('an open where nothing changed reads no atom file; a file changed since is read and taken', async () => {
  const dir = tempDir('atomic-texttree-stat-');
  const first = await AtomWorkspace.open(dir, options);
  await first.upsertMany([util('stat_one', 'x + 1'), util('stat_two', 'x + 2'), util('stat_three', 'x + 3')]);
  await first.close();
  age(dir);
  const second = await AtomWorkspace.open(dir, options); // reads each file once, records its stat
  await second.textTree!.reconciled();
  await second.close();

  // An atom file is read through an open of its own (util/safeFile.ts), through the thread pool or,
  // in a round of a few files, inline: count the opens of atom files, both kinds.
  const reads: string[] = [];
  const note = (path: unknown) => {
    if (String(path).includes(join(dir, 'atoms')) && String(path).endsWith('.js')) reads.push(String(path));
  };
  const open = fsp.open;
  const openSync = fs.openSync;
  fsp.open = ((path: Parameters<typeof open>[0], ...rest: unknown[]) => {
    note(path);
    return (open as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof open;
  fs.openSync = ((path: Parameters<typeof openSync>[0], ...rest: unknown[]) => {
    note(path);
    return (openSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof openSync;
  syncBuiltinESMExports(); // the modules' `import { openSync }` see the counting one
  try {
    const third = await AtomWorkspace.open(dir, options);
    await third.textTree!.reconciled();
    await third.close();
    assert.equal(reads.join(', '), '', 'no atom file read: size and mtime are as recorded');

    edit(dir, 'stat_two', 'x + 2', 'x + 22');
    const fourth = await AtomWorkspace.open(dir, options);
    try {
      await fourth.textTree!.reconciled();
      assert.deepEqual(reads.map((p) => p.slice(p.lastIndexOf('/') + 1)), ['stat_two.js'], 'only the changed file is read');
      assert.match(fourth.atoms.get('stat_two')!.code, /x \+ 22/);
    } finally {
      await fourth.close();
    }
  } finally {
    fsp.open = open;
    fs.openSync = openSync;
    syncBuiltinESMExports();
  }
});

test('an open after a crash (no clean close of the text tree) reconciles before it resolves', async () => {
  const dir = tempDir('atomic-texttree-crash-');
  const first = await AtomWorkspace.open(dir, options);
  await first.upsert(util('after_crash', 'x + 1'));
  await first.close();
  // As a killed process leaves it: the records without their closing line.
  const records = join(dir, '.atomic', 'text-tree');
  const closed = readFileSync(records, 'utf8');
  assert.match(closed, /\n#closed\n$/, 'a clean close ends the records with #closed');
  writeFileSync(records, closed.replace(/#closed\n$/, ''));
  edit(dir, 'after_crash', 'x + 1', 'x + 7');
  const ws = await AtomWorkspace.open(dir, options);
  try {
    assert.match(ws.atoms.get('after_crash')!.code, /x \+ 7/, 'the file was taken before the open resolved');
  } finally {
    await ws.close();
  }
});

test('a close during the background comparison cuts it short, still cleanly; the next open compares again and takes the file', async () => {
  const { dir, ws, release } = await reopenedWithHeldReconcile('atomic-texttree-close-', 'changed_offline', 'kept_as_is', 7);
  const closing = ws.close(); // before the comparison has looked at any file
  release();
  await closing;
  // The close did not wait to compare the files: the store is as it was...
  const store = await AtomStore.open(dir);
  assert.match(store.get('changed_offline')!.code, /x \+ 1\b/, 'not compared by the session that closed');
  await store.close();

  // ...and the next open compares them (the close was clean: in the background).
  const again = await AtomWorkspace.open(dir, options);
  try {
    await again.textTree!.reconciled();
    assert.match(again.atoms.get('changed_offline')!.code, /x \+ 7/, 'the next open took the file');
    assert.equal(again.atoms.history('changed_offline').length, 2, 'taken once, by the open that compared it');
  } finally {
    await again.close();
  }
});

test("after a clean close the files are compared once search has loaded: a start's first search has the event loop first", async () => {
  const dir = tempDir('atomic-texttree-after-search-');
  const first = await AtomWorkspace.open(dir, options);
  await first.upsertMany([util('compared_later', 'x + 1'), util('compared_too', 'x * 2')]);
  await first.close();
  let opened!: (ws: AtomWorkspace) => void;
  const workspace = new Promise<AtomWorkspace>((resolve) => (opened = resolve));
  let searchWhenCompared: string | undefined;
  const ws = await AtomWorkspace.open(dir, {
    ...options,
    textTree: {
      beforeReconcile: async () => {
        // Right before the comparison: has search loaded (settled within a turn), or is it still loading?
        const search = (await workspace).search;
        searchWhenCompared = await Promise.race([search.loaded().then(() => 'loaded'), new Promise<string>((resolve) => setImmediate(() => resolve('still loading')))]);
      },
    },
  });
  opened(ws);
  try {
    await ws.textTree!.reconciled();
    assert.equal(searchWhenCompared, 'loaded');
  } finally {
    await ws.close();
  }
});
