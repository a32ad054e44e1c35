import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseFolder } from '../../src/views/folder.js';

const folders = [
  { name: 'web', fsPath: '/w/web' },
  { name: 'game', fsPath: '/w/game' },
  { name: 'tools', fsPath: '/w/tools' },
];

describe('multi-root: which folder holds the atoms', () => {
  it('takes the folder the setting names, by name or by path', () => {
    assert.deepEqual(chooseFolder(folders, 'tools', () => true), { folder: folders[2], reason: 'setting' });
    assert.deepEqual(chooseFolder(folders, '/w/game', () => false), { folder: folders[1], reason: 'setting' });
  });

  it('else the first folder that already has a store', () => {
    assert.deepEqual(chooseFolder(folders, '', (p) => p !== '/w/web'), { folder: folders[1], reason: 'store' });
    assert.deepEqual(chooseFolder(folders, 'nonexistent', (p) => p === '/w/tools'), { folder: folders[2], reason: 'store' });
  });

  it('else the first folder, and nothing without folders', () => {
    assert.deepEqual(chooseFolder(folders, '', () => false), { folder: folders[0], reason: 'first' });
    assert.equal(chooseFolder([], 'web', () => true), undefined);
  });
});
