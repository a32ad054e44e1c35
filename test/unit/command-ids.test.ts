import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ALL_COMMANDS, commandName, Commands, FOLDER_COMMANDS } from '../../src/views/commandIds.js';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[] };
};
const contributed = manifest.contributes.commands.map((c) => c.command);

describe('command ids: one typed home, the same set as package.json', () => {
  it('lists exactly the commands package.json contributes', () => {
    assert.deepEqual([...ALL_COMMANDS].sort(), [...contributed].sort());
    assert.equal(new Set(contributed).size, contributed.length, 'package.json contributes no command twice');
  });

  it('spells each id as atomicCoding.<its key>', () => {
    for (const [key, id] of Object.entries(Commands)) {
      assert.equal(id, `atomicCoding.${key}`);
      assert.equal(commandName(id), key);
    }
  });

  it('answers "open a folder first" for every command but Show Output, without a hand-kept list', () => {
    assert.deepEqual(
      ALL_COMMANDS.filter((id) => !FOLDER_COMMANDS.includes(id)),
      [Commands.showOutput],
    );
  });
});
