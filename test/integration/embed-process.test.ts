/**
 * The embedding model runs in a child process of its own (src/search/embeddings/useLite.ts):
 * started on demand, ended when idle, restarted by the next request, gone with its parent.
 * These start the real model (a few seconds each time it loads).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { getPriority } from 'node:os';
import { MODEL_PRIORITY, startModelProcessEarly } from '../../src/search/embeddings/modelProcess.js';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { tempDir } from '../support/tmp.js';
import { compileCacheDir } from '../../src/util/compileCache.js';

const providers: UseLiteProvider[] = [];
after(async () => {
  await Promise.all(providers.map((p) => p.dispose()));
});

function provider(idleMs?: number): UseLiteProvider {
  const p = new UseLiteProvider(idleMs === undefined ? {} : { idleMs });
  providers.push(p);
  return p;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until `pid` no longer exists; false if it still does after `limitMs`. */
async function gone(pid: number, limitMs = 15_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

test('embeds in a separate process, whose memory is reported apart', async () => {
  const p = provider();
  assert.deepEqual(p.memory(), { running: false }, 'nothing runs before the first request');
  const [v] = await p.embed(['move the player left']);
  assert.equal(v!.length, 512);
  assert.ok(v!.some((x) => x !== 0));
  const pid = p.pid;
  assert.ok(pid && pid !== process.pid, 'the model runs in a child process');
  const memory = p.memory();
  assert.equal(memory.running, true);
  assert.equal(memory.pid, pid);
  assert.ok((memory.rssBytes ?? 0) > 50 * 2 ** 20, `the child holds the model (${memory.rssBytes} bytes)`);
  // Started with a small young generation (util/nodeFlags.ts), inside VS Code too: it is ours.
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  assert.ok(argv.includes('--max-semi-space-size=8'), argv.join(' '));
  // And with Node's compile cache in this user's cache folder (util/compileCache.ts).
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  assert.ok(environ.includes(`NODE_COMPILE_CACHE=${compileCacheDir()}`), environ.filter((e) => e.startsWith('NODE_')).join(' '));
  // And glibc's malloc asks for huge pages for the weights' copies (HUGE_PAGES_ENV).
  assert.ok(environ.includes('GLIBC_TUNABLES=glibc.malloc.hugetlb=1'), environ.join(' '));
  // Below normal priority once it has answered (at least as low as MODEL_PRIORITY: a parent already lower keeps its own).
  assert.ok(getPriority(pid) >= MODEL_PRIORITY, `the model's priority is ${getPriority(pid)}, the test's ${getPriority()}`);
  // Every thread of it, not only the main one: on Linux a priority is a thread's, and onnxruntime's
  // threads (which share a run's products) started with the process.
  const threads = readdirSync(`/proc/${pid}/task`).map(Number);
  assert.ok(threads.length > 1, 'the model process has threads besides its main one');
  for (const id of threads) assert.ok(getPriority(id) >= MODEL_PRIORITY, `thread ${id}: priority ${getPriority(id)}`);
  assert.equal(memory.runtime, 'onnxruntime');
});

test('an idle process is ended and the next request starts another', async () => {
  const p = provider(300);
  await p.embed(['spawn an enemy']);
  const first = p.pid!;
  assert.ok(await gone(first), 'the idle process ended');
  assert.equal(p.memory().running, false);
  const [v] = await p.embed(['spawn an enemy']);
  assert.equal(v!.length, 512);
  assert.ok(p.pid && p.pid !== first, 'a fresh process answered');
});

test('warm() starts the model process ahead of a search; it answers from it, and it ends when idle like any other', async () => {
  const p = provider(1500);
  assert.equal(p.pid, undefined);
  p.warm();
  const warmed = p.pid!;
  assert.ok(warmed && alive(warmed), 'warm() started the model process');
  // Its cold start keeps the caller's priority (someone waits for it); it is lowered once it has answered.
  assert.equal(getPriority(warmed), getPriority(), 'at the priority of the process that started it');
  p.warm();
  assert.equal(p.pid, warmed, 'a second warm() starts no other process');
  const [v] = await p.embed(['spawn an enemy']);
  assert.equal(v!.length, 512);
  assert.equal(p.pid, warmed, 'the search was answered by the warmed process');
  assert.ok(await gone(warmed), 'the warmed process ended once idle');
  await p.dispose();
  p.warm();
  assert.equal(p.pid, undefined, 'a disposed provider starts nothing');
});

test('the process started early (dist/cli.js) answers the first request of the provider; one started for another configuration is ended', async () => {
  const early = startModelProcessEarly();
  assert.equal(startModelProcessEarly(), early, 'started once');
  const p = provider();
  const [v] = await p.embed(['spawn an enemy']);
  assert.equal(v!.length, 512);
  assert.equal(p.pid, early.pid, 'the provider took the process started early');
  assert.ok(getPriority(early.pid!) >= MODEL_PRIORITY, 'lowered once it answered, as one of its own');

  const unused = startModelProcessEarly();
  assert.notEqual(unused.pid, early.pid);
  const other = new UseLiteProvider({ textsPerCall: 3 });
  providers.push(other);
  await other.embed(['spawn an enemy']);
  assert.notEqual(other.pid, unused.pid, 'a provider of another configuration starts its own');
  assert.ok(await gone(unused.pid!), 'and the one started early for the default is ended');
  const third = provider();
  await third.embed(['spawn an enemy']);
  assert.notEqual(third.pid, unused.pid, 'taken once: a later provider starts its own');
});

test('a warmed process that is never asked anything ends when idle', async () => {
  const p = provider(300);
  p.warm();
  const pid = p.pid!;
  assert.ok(await gone(pid), 'the unused warmed process ended');
  assert.equal(p.memory().running, false);
});

test('a process killed mid-request rejects that request clearly, and the next one works', async () => {
  const p = provider();
  const doomed = p.embed(['one text', 'another text', 'a third text']);
  const pid = p.pid!;
  process.kill(pid, 'SIGKILL');
  await assert.rejects(doomed, /the embedding process stopped \(it was ended by SIGKILL\).*next search starts it again/);
  const [v] = await p.embed(['after the crash']);
  assert.equal(v!.length, 512);
  assert.notEqual(p.pid, pid);
});

test('no orphan: the model process ends when its parent is killed', async () => {
  const dir = tempDir('atomic-embed-parent-');
  const script = join(dir, 'parent.ts');
  const module = join(__dirname, '..', '..', 'src', 'search', 'embeddings', 'useLite.ts');
  writeFileSync(
    script,
    `const { UseLiteProvider } = require(${JSON.stringify(module)});
const p = new UseLiteProvider();
p.embed(['hello']).then(() => { console.log('child ' + p.pid); setInterval(() => {}, 1000); });
`,
  );
  const parent = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: join(__dirname, '..', '..') });
  const exited = new Promise((resolve) => parent.once('exit', resolve));
  const childPid = await new Promise<number>((resolve, reject) => {
    createInterface({ input: parent.stdout! }).on('line', (line) => {
      const m = /^child (\S+)$/.exec(line);
      if (!m) return;
      if (/^\d+$/.test(m[1]!)) resolve(Number(m[1]));
      else {
        parent.kill('SIGKILL');
        reject(new Error(`the provider names no child process (${m[1]})`));
      }
    });
    void exited.then(() => reject(new Error('the parent exited before embedding')));
  });
  assert.ok(alive(childPid));
  parent.kill('SIGKILL');
  await exited;
  assert.ok(await gone(childPid), `the model process ${childPid} outlived its killed parent`);
});

test('the model runs as sped up (128 pieces sent, like lengths together, fast products) give each text its own vector, as the plain runs do', async () => {
  const long = (topic: string) => `${topic}_step(x: number) => number: ${topic} one step.\n${Array.from({ length: 80 }, (_, i) => `const ${topic}_${i} = x * ${i};`).join('\n')}`;
  // Lengths out of order, so the fast runs reorder them; two long texts that differ only after 128 pieces.
  const texts = ['clamp a value', long('gravity'), 'move the player left', long('friction'), `${long('gravity')}\n// a tail the model never reads`, 'score'];
  const plain = new UseLiteProvider({ plainRuns: true, processes: 1 });
  providers.push(plain);
  const [expected, got] = await Promise.all([plain.embed(texts), provider().embed(texts)]);
  const cosine = (a: Float32Array, b: Float32Array) => {
    let dot = 0, aa = 0, bb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      aa += a[i]! ** 2;
      bb += b[i]! ** 2;
    }
    return dot / Math.sqrt(aa * bb);
  };
  // Texts 1 and 4 are read as the same text; every other pair differs.
  const sameText = (i: number, j: number) => i === j || (i + j === 5 && i * j === 4);
  texts.forEach((_, i) => {
    assert.ok(cosine(got[i]!, expected[i]!) > 0.999999, `text ${i}: ${cosine(got[i]!, expected[i]!)}`);
    for (let j = 0; j < texts.length; j++) if (!sameText(i, j)) assert.ok(cosine(got[i]!, expected[j]!) < 0.9999, `text ${i} got text ${j}'s vector`);
  });
  // The model reads the first 128 pieces: a tail past them changes nothing, in both runs.
  assert.deepEqual([...got[4]!], [...got[1]!]);
  assert.deepEqual([...expected[4]!], [...expected[1]!]);
});
