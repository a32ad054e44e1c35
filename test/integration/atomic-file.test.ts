/**
 * util/atomicFile.ts: a file replaced atomically, through the thread pool or inline (InlineFile),
 * leaves the old or the new file and never a temp file, whatever its writer does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InlineFile, replaceFile, writeFileAtomic } from '../../src/util/atomicFile.js';

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const inline of [false, true]) {
  const how = inline ? 'inline' : 'through the thread pool';

  test(`${how}: the file is replaced whole, and what was written can be read back from the handle returned`, async (t) => {
    const dir = folder(t);
    const file = join(dir, 'latest.js');
    writeFileSync(file, 'old');
    const bytes = Buffer.from('new '.repeat(5_000));
    const handle = await replaceFile(
      file,
      async (out) => {
        // Written in two parts, the second first: positions are honoured.
        await out.write(bytes, 10_000, bytes.length - 10_000, 10_000);
        await out.write(bytes, 0, 10_000, 0);
      },
      0o644,
      { durable: false, inline },
    );
    try {
      assert.equal((await handle.stat()).size, bytes.length);
      const back = Buffer.alloc(8);
      assert.equal((await handle.read(back, 0, 8, 4)).bytesRead, 8);
      assert.equal(back.toString(), 'new new ');
    } finally {
      await handle.close();
    }
    assert.deepEqual(readFileSync(file), bytes);
    assert.deepEqual(readdirSync(dir), ['latest.js']);
  });

  test(`${how}: a writer that fails leaves the old file and no temp file`, async (t) => {
    const dir = folder(t);
    const file = join(dir, 'x.js');
    writeFileSync(file, 'old');
    await assert.rejects(
      replaceFile(file, async (out) => {
        await out.writeFile('half');
        throw new Error('disk full');
      }, 0o644, { durable: false, inline }),
      /disk full/,
    );
    assert.equal(readFileSync(file, 'utf8'), 'old');
    assert.deepEqual(readdirSync(dir), ['x.js']);
  });

  test(`${how}: a link at the target is replaced, never written through`, async (t) => {
    const dir = folder(t);
    const outside = join(dir, 'bashrc');
    writeFileSync(outside, 'export PATH=/usr/bin\n');
    const file = join(dir, 'x.js');
    symlinkSync(outside, file);
    await writeFileAtomic(file, 'function x() {}\n', 0o644, { durable: false, inline });
    assert.equal(readFileSync(outside, 'utf8'), 'export PATH=/usr/bin\n');
    assert.equal(readFileSync(file, 'utf8'), 'function x() {}\n');
  });

  test(`${how}: a durable write flushes and replaces (fsync through the pool either way)`, async (t) => {
    const dir = folder(t);
    const file = join(dir, 'atoms.db');
    await writeFileAtomic(file, 'snapshot', 0o644, { durable: true, inline });
    assert.equal(readFileSync(file, 'utf8'), 'snapshot');
    assert.deepEqual(readdirSync(dir), ['atoms.db']);
  });
}

test('InlineFile: a second close gets the first close, and a call after it fails as a closed descriptor does', async (t) => {
  const dir = folder(t);
  const file = await InlineFile.open(join(dir, 'f'), constants.O_CREAT | constants.O_RDWR, 0o644);
  await file.writeFile('abc');
  await Promise.all([file.close(), file.close()]);
  await assert.rejects(file.write(Buffer.from('d'), 0, 1, 3), { code: 'EBADF' });
});
