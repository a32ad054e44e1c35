/**
 * Room after the snapshot (database.ts): sql.js's in-memory file is read with zeroed pages after
 * the database, so that the first pages SQLite adds do not reallocate and copy the whole file;
 * what is left of the room becomes free pages before a close or an export, which would cut the
 * file back (and copy it) otherwise. The database reads and writes as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSnapshot, StoreDatabase } from '../../src/store/database.js';
import { tempDir } from '../support/tmp.js';

/** A snapshot of `rows` rows of about 2 KB each, and its page size. */
async function snapshot(rows: number): Promise<{ file: string; pageSize: number }> {
  const { database } = await StoreDatabase.open(undefined, 'room.db');
  database.transaction(() => {
    for (let i = 0; i < rows; i++) database.setMetaValue(`row ${i}`, 'x'.repeat(2000));
  });
  const file = join(tempDir(), 'atoms.db');
  writeFileSync(file, database.export());
  database.close();
  return { file, pageSize: readFileSync(file).readUInt16BE(16) || 65536 };
}

const header = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, 100);

test('a snapshot is read with room after it, and the room left becomes free pages the next snapshot keeps', async () => {
  const { file, pageSize } = await snapshot(2000);
  const size = readFileSync(file).length;
  const { bytes } = readSnapshot(file)!;
  const room = (bytes.length - size) / pageSize;
  assert.ok(room >= 8, `${room} pages of room for a ${size}-byte snapshot`);
  assert.deepEqual(Buffer.from(bytes.subarray(0, size)), readFileSync(file), 'the snapshot itself, unchanged');
  assert.ok(bytes.subarray(size).every((b) => b === 0));

  const { database } = await StoreDatabase.open(bytes, file);
  try {
    database.transaction(() => database.setMetaValue('written', 'y'.repeat(3 * pageSize)));
    const exported = database.export();
    assert.equal(exported.length, bytes.length, 'nothing cut back: the room is pages of the database now');
    const free = header(exported).readUInt32BE(36);
    assert.ok(free >= room - 5 && free < room, `${free} free pages after a write of 3 pages into ${room}`);
    assert.equal(database.rows('PRAGMA integrity_check')[0]?.[0], 'ok');
    assert.equal(database.rows("SELECT count(*) FROM meta WHERE key LIKE '~room%'")[0]?.[0], 0);
    assert.equal(database.metaValue('row 1999'), 'x'.repeat(2000));
    assert.equal(database.metaValue('written'), 'y'.repeat(3 * pageSize));
    writeFileSync(file, exported);
  } finally {
    database.close();
  }
  // The next open counts the free pages: it adds room for about what was used since.
  const again = (readSnapshot(file)!.bytes.length - readFileSync(file).length) / pageSize;
  assert.ok(again >= 3 && again < room / 2, `${again} pages of room the second time, ${room} the first`);
});

test('a file that is no database is read as it is, and a small database gets no room', async () => {
  const dir = tempDir();
  const junk = join(dir, 'junk.db');
  writeFileSync(junk, 'not a database at all');
  assert.equal(Buffer.from(readSnapshot(junk)!.bytes).toString(), 'not a database at all');
  assert.equal(readSnapshot(join(dir, 'missing.db')), undefined);
  const { file } = await snapshot(1);
  assert.equal(readSnapshot(file)!.bytes.length, readFileSync(file).length);
});

// sql.js makes a file's contents from what it is given with `slice`, a copy for a Uint8Array and a view
// for a Buffer: readSnapshot's Buffer becomes the in-memory file itself, and an open holds the snapshot
// once (22 MB at 10,000 atoms, 154 MB at 50,000), not twice.
test('the snapshot read is the database file itself: sql.js makes no copy of it', async () => {
  const { file } = await snapshot(500);
  const read = readSnapshot(file)!;
  const { database } = await StoreDatabase.open(read.bytes, file);
  try {
    const written = 'z'.repeat(1000); // within one page
    database.transaction(() => database.setMetaValue('written', written));
    assert.ok(Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.length).includes(written), 'the write landed in the bytes read');
    assert.equal(database.metaValue('written'), written);
    assert.equal(database.metaValue('row 499'), 'x'.repeat(2000));
    assert.equal(database.rows('PRAGMA integrity_check')[0]?.[0], 'ok');
  } finally {
    database.close();
  }
});
