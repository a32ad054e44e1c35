/**
 * The vector index survives a process killed while saving it. vectra's own storage rewrites
 * its file in place and left it empty after such a kill; ours writes a temp file, fsyncs and
 * renames, so the index file is always a whole index (the previous save or the next).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BinaryIndexCodec } from '../../src/store/search/binaryCodec.js';
import { INDEX_FILE } from '../../src/store/search/vectorIndex.js';
import { tempDir } from '../support/tmp.js';

const ITEMS = 2000;

/** Fills an index with ITEMS vectors, then saves it again and again, printing each save. */
const CHILD = `
const { VectorIndex } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'store', 'search', 'vectorIndex.ts'))});
(async () => {
  const index = new VectorIndex(process.argv[1], { flushDelayMs: 60000 });
  await index.open();
  for (let i = 0; i < ${ITEMS}; i++) index.upsert('atom_' + i, Float32Array.from({ length: 512 }, (_, j) => Math.sin(i + j)), { type: 'util', model: 'm', textHash: String(i) });
  for (let round = 0; ; round++) {
    await index.flush();
    process.stdout.write('saved ' + round + '\\n');
    index.upsert('atom_' + (round % ${ITEMS}), Float32Array.from({ length: 512 }, (_, j) => Math.cos(round + j)), { type: 'util', model: 'm', textHash: 'r' + round });
  }
})();
`;

test('a kill during a save leaves a whole index file', async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const folder = join(tempDir(), 'vectors');
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', CHILD, folder], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errText = '';
    child.stderr.on('data', (d: Buffer) => (errText += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line === 'saved 1') void waitForWrite(folder).then(resolve);
      });
      void exited.then(() => reject(new Error(`the writer exited early:\n${errText}`)));
    });
    child.kill('SIGKILL');
    await exited;
    const index = new BinaryIndexCodec().deserializeIndex(readFileSync(join(folder, INDEX_FILE)));
    assert.equal(index.items.length, ITEMS, `attempt ${attempt}`);
  }
});

/**
 * Resolves while a save is being written: a temp file exists (our storage) or the index file is
 * much shorter than a whole index (storage that writes in place). Gives up looking after 5 s,
 * which then kills at an arbitrary moment instead.
 */
async function waitForWrite(folder: string): Promise<void> {
  const whole = statSync(join(folder, INDEX_FILE)).size;
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    const writing =
      readdirSync(folder).some((f) => f.endsWith('.tmp')) || statSync(join(folder, INDEX_FILE)).size < whole * 0.9;
    if (writing) return;
    await new Promise((r) => setImmediate(r));
  }
}
