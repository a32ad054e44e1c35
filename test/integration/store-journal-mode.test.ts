/**
 * sql.js keeps SQLite's rollback journal in memory (database.ts): as a file in sql.js's in-memory
 * file system it was created, grown and deleted by every transaction. The store's own journal is
 * what makes a write durable; a transaction that fails still rolls back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreDatabase } from '../../src/store/database.js';

test('the rollback journal stays in memory, after an export too, and a failed transaction still rolls back', async () => {
  const { database } = await StoreDatabase.open(undefined, 'test.db');
  try {
    const mode = () => database.rows('PRAGMA journal_mode')[0]?.[0];
    assert.equal(mode(), 'memory');
    database.setMetaValue('k', 'before');
    database.export(); // sql.js closes and reopens the database to export it
    assert.equal(mode(), 'memory', 'kept after an export');
    assert.throws(() =>
      database.transaction(() => {
        database.setMetaValue('k', 'inside');
        throw new Error('the work failed');
      }),
    );
    assert.equal(database.metaValue('k'), 'before', 'rolled back');
  } finally {
    database.close();
  }
});
