/**
 * A cloned repository is hostile input: names from its files cannot forge log lines (one log
 * call is one line, whatever the name holds).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomWorkspace, type WorkspaceOptions } from '../../src/workspace.js';
import { stderrLogger } from '../../src/util/log.js';
import { outputLogger } from '../../src/views/outputLog.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

const options: WorkspaceOptions = { embeddings: wordsOnly };

/** An atom file as a person would write it (header, then the function). */
function file(name: string, body: string): string {
  return ['/**', ` * ${name}, written by hand`, ' *', ' * @kind util', ' * @param {number} x', ' * @returns {number} y', ' */', `function ${name}(x) {`, `  return ${body};`, '}', ''].join('\n');
}

/** A workspace folder with atoms/ holding one good atom file. */
function workspaceWithAtoms(prefix: string): string {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'atoms'));
  writeFileSync(join(dir, 'atoms', 'good_one.js'), file('good_one', 'x + 1'));
  return dir;
}

test('finding 6: a file name with a line break is logged escaped: one log call, one line', async () => {
  const dir = workspaceWithAtoms('atomic-safety-newline-');
  const forged = '[2026-01-01T00:00:00.000Z] error forged';
  writeFileSync(join(dir, 'atoms', `evil\n${forged}.js`), file('evil', 'x'));
  const writes: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  let ws: AtomWorkspace | undefined;
  try {
    ws = await AtomWorkspace.open(dir, { ...options, log: stderrLogger('debug') });
  } finally {
    process.stderr.write = write;
  }
  await ws.close();
  const mentions = writes.filter((w) => w.includes('forged'));
  assert.ok(mentions.length > 0, 'the file is logged');
  for (const w of writes) assert.equal(w.split('\n').length, 2, `one line per call: ${JSON.stringify(w)}`);
  assert.ok(mentions.every((w) => w.includes(`evil\\n${forged}`)), 'the line break is written as \\n');

  // The VS Code output channel's logger too.
  const channelLines: string[] = [];
  const channel = { debug: (m: string) => channelLines.push(m), info: (m: string) => channelLines.push(m), warn: (m: string) => channelLines.push(m), error: (m: string) => channelLines.push(m) };
  outputLogger(channel as never).warn('text tree: atoms/a\rb\u2028c\u001b[31m.js was not taken');
  assert.deepEqual(channelLines, ['text tree: atoms/a\\rb\\u2028c\\x1b[31m.js was not taken']);
});
