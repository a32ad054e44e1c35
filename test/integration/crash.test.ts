import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { AtomStore } from '../../src/store/atomStore.js';
import { nodeScript } from '../support/script.js';
import { tempDir } from '../support/tmp.js';

const ROUNDS = 8;

/** Runs the writer until it has acknowledged `minAcks` writes, then kills it after a random delay. */
function runAndKill(dir: string, start: number, minAcks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nodeScript(join(__dirname, '..', 'support', 'writer.ts')), dir, String(start)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: number[] = [];
    let err = '';
    let buffer = '';
    let armed = false;
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
      if (!armed && acked.length >= minAcks) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 150));
      }
    });
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited on its own (${code}): ${err}`));
    });
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  });
}

test(`a writer killed at random moments ${ROUNDS} times loses no acknowledged write`, async () => {
  const dir = tempDir();
  let next = 0;
  let totalAcked = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const acked = await runAndKill(dir, next, 3 + Math.floor(Math.random() * 10));
    totalAcked += acked.length;
    const store = await AtomStore.open(dir); // the dead writer's lock is stale and taken over
    try {
      for (const i of acked) {
        const atom = store.get(`atom_${i}`);
        assert.ok(atom, `round ${round}: acknowledged atom_${i} is present`);
        assert.match(atom.code, new RegExp(`return ${i} \\+`));
      }
      const counter = store.history('counter').map((v) => v.version).reverse();
      assert.deepEqual(counter, counter.map((_, k) => k + 1), 'versions are consecutive, none skipped or duplicated');
      const last = acked[acked.length - 1]!;
      assert.ok(Number(/return (\d+)/.exec(store.get('counter')!.code)![1]) >= last);
      next = Math.max(...store.all().filter((a) => a.name.startsWith('atom_')).map((a) => Number(a.name.slice(5)))) + 1;
    } finally {
      await store.close();
    }
  }
  process.stderr.write(`crash test: ${ROUNDS} kills survived, ${totalAcked} acknowledged writes, 0 lost\n`);
});
