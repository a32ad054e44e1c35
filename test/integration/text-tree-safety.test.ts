/**
 * A cloned repository is hostile input: what its atoms folder holds is read only when it is a plain
 * file of a bounded size with one name, the folder is written only while it is the real folder it
 * was at open, and names from it cannot forge log lines. Each case here is a finding of a security
 * review: a link to /dev/zero, a FIFO, a large sparse file, a link or a hard link to a file outside
 * the folder, the folder swapped for a link while the server runs, a records file planted as a
 * link, a file name with a line break.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { numberUtil as util } from '../support/atoms.js';
import { workspaceStatus } from '../../src/mcp/tools/getStatus.js';
import { AtomWorkspace, type WorkspaceOptions } from '../../src/workspace.js';
import { stderrLogger, type Logger } from '../../src/util/log.js';
import { outputLogger } from '../../src/views/outputLog.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

const options: WorkspaceOptions = { embeddings: wordsOnly };
const posix = process.platform !== 'win32';

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

interface Opened {
  atoms: string[];
  problems: { file: string; reason: string }[];
}

/**
 * Opens `dir` in a child process (test/support/textTreeOpen.ts) whose memory is watched (it exits
 * with code 3 past 512 MiB) and whose time is bounded by `timeoutMs` (killed, then reported as such):
 * a read without bounds can neither take the machine's memory nor hang the test run.
 */
async function openInChild(dir: string, timeoutMs = 60_000): Promise<Opened> {
  const script = join(__dirname, '..', 'support', 'textTreeOpen.ts');
  const child = spawn(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', script, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.equal(killed, false, `the open did not finish within ${timeoutMs} ms (it hangs): ${stderr}`);
  assert.notEqual(code, 3, `the open read without bounds: its memory passed 512 MiB (${stdout.trim()})`);
  assert.equal(code, 0, `the open failed: ${stderr}`);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Opened;
}

function reasonOf(opened: { problems: { file: string; reason: string }[] }, file: string): string {
  const problem = opened.problems.find((p) => p.file === file);
  assert.ok(problem, `${file} is reported as not taken (problems: ${JSON.stringify(opened.problems)})`);
  return problem.reason;
}

test('finding 3: an atom file linked to /dev/zero is not read; the workspace opens and reports it', { skip: !posix || !existsSync('/dev/zero') }, async () => {
  const dir = workspaceWithAtoms('atomic-safety-zero-');
  symlinkSync('/dev/zero', join(dir, 'atoms', 'zero.js'));
  const opened = await openInChild(dir);
  assert.deepEqual(opened.atoms, ['good_one']);
  assert.match(reasonOf(opened, 'atoms/zero.js'), /symbolic link/);
});

test('finding 3: a FIFO in the atoms folder does not hang the open; it is reported', { skip: !posix }, async () => {
  const dir = workspaceWithAtoms('atomic-safety-fifo-');
  execFileSync('mkfifo', [join(dir, 'atoms', 'pipe.js')]);
  const opened = await openInChild(dir);
  assert.deepEqual(opened.atoms, ['good_one']);
  assert.match(reasonOf(opened, 'atoms/pipe.js'), /FIFO/);
});

test('finding 3: a 600 MB sparse atom file is not read; it is reported as too large', async () => {
  const dir = workspaceWithAtoms('atomic-safety-sparse-');
  const big = join(dir, 'atoms', 'huge.js');
  writeFileSync(big, file('huge', 'x'));
  truncateSync(big, 600 * 1024 * 1024); // sparse: no disk used
  const opened = await openInChild(dir);
  assert.deepEqual(opened.atoms, ['good_one']);
  assert.match(reasonOf(opened, 'atoms/huge.js'), /629145600 bytes.*at most 65536/);
});

test('finding 4: a link or a hard link in atoms/ to a file outside the folder is not imported; both are reported', { skip: !posix }, async () => {
  const dir = workspaceWithAtoms('atomic-safety-links-');
  const outside = tempDir('atomic-safety-outside-');
  writeFileSync(join(outside, 'hard_stolen.js'), file('hard_stolen', 'x * 1000'));
  writeFileSync(join(outside, 'soft_stolen.js'), file('soft_stolen', 'x * 2000'));
  linkSync(join(outside, 'hard_stolen.js'), join(dir, 'atoms', 'hard_stolen.js'));
  symlinkSync(join(outside, 'soft_stolen.js'), join(dir, 'atoms', 'soft_stolen.js'));
  const ws = await AtomWorkspace.open(dir, options);
  try {
    assert.deepEqual(ws.atoms.all().map((a) => a.name), ['good_one'], 'neither linked file is taken');
    const status = workspaceStatus(ws, 'test', 0).text_tree!;
    assert.match(reasonOf(status, 'atoms/hard_stolen.js'), /hard link/);
    assert.match(reasonOf(status, 'atoms/soft_stolen.js'), /symbolic link/);
    // A link added while the workspace is open is refused too.
    writeFileSync(join(outside, 'late_stolen.js'), file('late_stolen', 'x * 3000'));
    linkSync(join(outside, 'late_stolen.js'), join(dir, 'atoms', 'late_stolen.js'));
    const deadline = Date.now() + 10_000;
    while (!ws.textTree!.problems().some((p) => p.file === 'atoms/late_stolen.js') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.match(reasonOf({ problems: ws.textTree!.problems() }, 'atoms/late_stolen.js'), /hard link/);
    assert.equal(ws.atoms.has('late_stolen'), false);
  } finally {
    await ws.close();
  }
  assert.match(readFileSync(join(outside, 'hard_stolen.js'), 'utf8'), /x \* 1000/, 'the outside file is untouched');
});

test('finding 5: atoms/ swapped for a link while the server runs: nothing is written through it, and it is logged and reported', { skip: !posix }, async () => {
  const dir = tempDir('atomic-safety-swap-');
  const outside = tempDir('atomic-safety-swap-outside-');
  const lines: string[] = [];
  const log: Logger = { debug: () => {}, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  const ws = await AtomWorkspace.open(dir, { ...options, log, textTree: { settleMs: 50 } });
  try {
    await ws.upsert(util('before_swap', 'x + 1'));
    assert.ok(existsSync(join(dir, 'atoms', 'before_swap.js')));
    renameSync(join(dir, 'atoms'), join(dir, 'atoms-moved'));
    symlinkSync(outside, join(dir, 'atoms'));
    await ws.upsert(util('after_swap', 'x + 2'));
    await ws.textTree!.written();
    assert.deepEqual(readdirSync(outside), [], 'nothing written into the linked folder');
    assert.ok(ws.atoms.has('after_swap'), 'the store still takes the write');
    const reason = reasonOf(workspaceStatus(ws, 'test', 0).text_tree!, 'atoms/');
    assert.match(reason, /symbolic link/);
    assert.ok(lines.some((l) => /atoms\/ .*symbolic link/.test(l)), `logged: ${lines.join('\n')}`);
  } finally {
    await ws.close();
  }
  assert.deepEqual(readdirSync(outside), [], 'nor at close');
});

test('finding 5: an atoms/ that is a symbolic link out of the workspace at open is not followed: the open says so', { skip: !posix }, async () => {
  const dir = tempDir('atomic-safety-linked-');
  const outside = tempDir('atomic-safety-linked-outside-');
  writeFileSync(join(outside, 'secret.js'), file('secret', 'x'));
  symlinkSync(outside, join(dir, 'atoms'));
  await assert.rejects(AtomWorkspace.open(dir, options), /atoms folder .* is outside the workspace folder .*symbolic link/);
  assert.deepEqual(readdirSync(outside), ['secret.js']);
});

test('records: a .atomic/text-tree planted as a link is not written through', { skip: !posix }, async () => {
  const dir = workspaceWithAtoms('atomic-safety-records-'); // a clone: its file is imported, and recorded, before the records are rewritten
  const outside = tempDir('atomic-safety-records-outside-');
  const victim = join(outside, 'victim.txt');
  writeFileSync(victim, 'keep me\n');
  mkdirSync(join(dir, '.atomic'));
  symlinkSync(victim, join(dir, '.atomic', 'text-tree'));
  const ws = await AtomWorkspace.open(dir, options);
  try {
    await ws.upsert(util('recorded', 'x'));
    await ws.textTree!.written();
  } finally {
    await ws.close();
  }
  assert.equal(readFileSync(victim, 'utf8'), 'keep me\n');
});

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
  outputLogger({ appendLine: (line: string) => channelLines.push(line) }, () => false).warn('text tree: atoms/a\rb\u2028c\u001b[31m.js was not taken');
  assert.equal(channelLines.length, 1);
  assert.match(channelLines[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[warning\] text tree: atoms\/a\\rb\\u2028c\\x1b\[31m\.js was not taken$/);
});

test('finding 5, what stays: atoms/ removed and made again as a real folder (a checkout) is taken as the folder', async () => {
  const dir = tempDir('atomic-safety-recreated-');
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 50 } });
  try {
    await ws.upsert(util('kept_atom', 'x + 1'));
    const kept = readFileSync(join(dir, 'atoms', 'kept_atom.js'), 'utf8');
    // The new folder made while the old one still exists (a new inode: a removed folder's may be reused at once).
    renameSync(join(dir, 'atoms'), join(dir, 'atoms-old'));
    mkdirSync(join(dir, 'atoms'));
    writeFileSync(join(dir, 'atoms', 'kept_atom.js'), kept);
    writeFileSync(join(dir, 'atoms', 'checked_out.js'), file('checked_out', 'x + 5'));
    rmSync(join(dir, 'atoms-old'), { recursive: true });
    const deadline = Date.now() + 10_000;
    while (!ws.atoms.has('checked_out') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.ok(ws.atoms.has('checked_out'), 'the new folder is read');
    await ws.upsert(util('written_after', 'x + 6'));
    assert.ok(existsSync(join(dir, 'atoms', 'written_after.js')), 'and written');
    assert.deepEqual(ws.textTree!.problems(), []);
  } finally {
    await ws.close();
  }
});
