/**
 * A cloned repository may commit `.atomic/` with links in it (`atoms.journal` -> `~/.bashrc`) or
 * as a link itself. Opening the folder must never write, truncate or create anything outside the
 * workspace through them; what was not trusted is rebuilt from `atoms/` and reported.
 */
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { formatStatus, workspaceStatus } from '../../src/mcp/tools/getStatus.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { VectorFile } from '../../src/store/vectors/vectorFile.js';
import { Journal } from '../../src/store/journal.js';
import { UnsafeFileError } from '../../src/util/safeFile.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { mathClamp } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

const SHELL_RC = '# the user\'s shell startup file\nexport PATH="$HOME/bin:$PATH"\n';
/** A comment in an atom is enough: the journal writes its code as a JSON string. */
const PLANTED = { ...mathClamp, code: mathClamp.code.replace('{\n', '{\n  // $(touch /tmp/pwned)\n') };

/** A workspace folder holding one atom file, and a home folder beside it with a shell startup file. */
function clone(): { dir: string; home: string; rc: string } {
  const root = tempDir('hostile-state-');
  const dir = join(root, 'repo');
  const home = join(root, 'home');
  mkdirSync(join(dir, 'atoms'), { recursive: true });
  mkdirSync(home);
  const rc = join(home, '.bashrc');
  writeFileSync(rc, SHELL_RC);
  return { dir, home, rc };
}

async function openAndWrite(dir: string): Promise<AtomWorkspace> {
  const ws = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
  await ws.upsert(PLANTED);
  return ws;
}

for (const file of ['atoms.journal', 'vectors.bin', 'text-tree', 'atoms.db', 'server.json', 'latest.js', 'latest.js.map', 'fulltext.bin', 'atoms.bin', 'vectors.idx']) {
  test(`a committed .atomic/${file} linking outside the folder is removed, never written through`, async () => {
    const { dir, rc } = clone();
    mkdirSync(join(dir, '.atomic'));
    symlinkSync(rc, join(dir, '.atomic', file));
    const ws = await openAndWrite(dir);
    try {
      const status = workspaceStatus(ws, 'test', 0);
      assert.ok(status.distrusted_at_open.some((line) => line.startsWith(`.atomic/${file} was a symbolic link`)), status.distrusted_at_open.join('\n'));
      assert.match(formatStatus(status), new RegExp(`Not trusted at open: \\.atomic/${file.replace('.', '\\.')} was a symbolic link`));
      assert.equal(ws.atoms.get('math_clamp')?.code, PLANTED.code, 'the write was taken');
    } finally {
      await ws.close();
    }
    assert.equal(readFileSync(rc, 'utf8'), SHELL_RC, 'the shell startup file is untouched');
    const now = join(dir, '.atomic', file);
    assert.ok(!existsSync(now) || !lstatSync(now).isSymbolicLink(), `${file} is gone or ours now`);
  });
}

test('a committed .atomic/fulltext.bin is not taken for the full-text index: only a snapshot sealed on this machine is', async () => {
  const { dir } = clone();
  const drafts = Array.from({ length: 1000 }, (_, i) => ({
    name: `part_${i}`,
    type: 'util' as const,
    code: `function part_${i}(x) {\n  return x + ${i};\n}\n`,
    description: i === 7 ? 'Polishes the brass lantern' : `Adds ${i} to a number`,
  }));
  const first = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
  await first.upsertMany(drafts);
  assert.equal((await first.search.search('brass lantern', { limit: 1, mode: 'lexical' })).hits[0]?.atom.name, 'part_7');
  await first.close();
  const file = join(dir, '.atomic', 'fulltext.bin');
  const ours = readFileSync(file);
  // Someone else's snapshot: well formed, but its seal cannot be this machine's (the committer
  // does not have its secret); here, ours with its seal changed.
  const theirs = Buffer.from(ours);
  theirs[theirs.length - 1]! ^= 0xff;
  writeFileSync(file, theirs);
  const lines: string[] = [];
  const log = { debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  const ws = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider(), log });
  try {
    assert.equal((await ws.search.search('brass lantern', { limit: 1, mode: 'lexical' })).hits[0]?.atom.name, 'part_7');
    assert.ok(lines.some((l) => /full-text snapshot was not used \(not sealed on this machine/.test(l)), lines.join('\n'));
  } finally {
    await ws.close();
  }
  // Closed, the workspace wrote its own again, and the next open takes it.
  assert.ok(!readFileSync(file).equals(theirs));
  lines.length = 0;
  const again = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider(), log });
  try {
    assert.equal((await again.search.search('brass lantern', { limit: 1, mode: 'lexical' })).hits[0]?.atom.name, 'part_7');
    assert.ok(lines.some((l) => /full-text index restored from its snapshot, 0 atoms indexed again/.test(l)), lines.join('\n'));
  } finally {
    await again.close();
  }
});

test('a dangling .atomic/.gitignore link does not create its target', async () => {
  const { dir, home } = clone();
  mkdirSync(join(dir, '.atomic'));
  const target = join(home, '.profile');
  symlinkSync(target, join(dir, '.atomic', '.gitignore'));
  const ws = await openAndWrite(dir);
  await ws.close();
  assert.equal(existsSync(target), false);
  assert.ok(lstatSync(join(dir, '.atomic', '.gitignore')).isFile());
});

test('a committed .atomic that is a link is replaced by a folder of ours: nothing lands in its target', async () => {
  const { dir, home } = clone();
  const elsewhere = join(home, 'elsewhere');
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, join(dir, '.atomic'));
  // The atom files are what the team reviews: the store is rebuilt from them.
  writeFileSync(join(dir, 'atoms', 'math_clamp.js'), readFileSync(join(await writeOne(), 'atoms', 'math_clamp.js')));
  const ws = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
  try {
    assert.ok(ws.atoms.has('math_clamp'), 'rebuilt from atoms/');
    assert.match(ws.atoms.distrusted.join('\n'), /^\.atomic was a symbolic link; removed/);
    await ws.upsert(PLANTED);
  } finally {
    await ws.close();
  }
  assert.deepEqual(readdirSync(elsewhere), [], 'no database, lock or server.json outside the workspace');
  assert.ok(lstatSync(join(dir, '.atomic')).isDirectory());
});

/** A workspace this program wrote, with math_clamp in it: where a valid atom file comes from. */
async function writeOne(): Promise<string> {
  const dir = tempDir('hostile-source-');
  const ws = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
  await ws.upsert(mathClamp);
  await ws.close();
  return dir;
}

test('a FIFO or a directory in place of a store file neither hangs the open nor is followed', async () => {
  const { dir } = clone();
  mkdirSync(join(dir, '.atomic', 'atoms.db'), { recursive: true });
  writeFileSync(join(dir, '.atomic', 'atoms.db', 'keep'), 'x');
  execFileSync('mkfifo', [join(dir, '.atomic', 'atoms.journal')]);
  const ws = await openAndWrite(dir);
  try {
    assert.match(ws.atoms.distrusted.join('\n'), /\.atomic\/atoms\.db was a directory; moved aside to atoms\.db\.untrusted-1/);
    assert.match(ws.atoms.distrusted.join('\n'), /\.atomic\/atoms\.journal was a FIFO; removed/);
  } finally {
    await ws.close();
  }
  assert.equal(readFileSync(join(dir, '.atomic', 'atoms.db.untrusted-1', 'keep'), 'utf8'), 'x', 'moved aside, not deleted');
});

test('the journal and the vector file refuse a link swapped in after the open looked', async () => {
  const { dir, rc } = clone();
  mkdirSync(join(dir, '.atomic'));
  const journalFile = join(dir, '.atomic', 'atoms.journal');
  symlinkSync(rc, journalFile);
  const journal = new Journal(journalFile);
  await assert.rejects(journal.open(0, 10), UnsafeFileError);
  const vectors = new VectorFile(join(dir, '.atomic', 'vectors.bin'));
  symlinkSync(rc, join(dir, '.atomic', 'vectors.bin'));
  assert.throws(() => vectors.reset([]), UnsafeFileError);
  assert.equal(readFileSync(rc, 'utf8'), SHELL_RC);
});

test('a committed lock naming a live process of this host does not lock the folder', async () => {
  const { dir } = clone();
  mkdirSync(join(dir, '.atomic'));
  // pid 1 always runs; the host name is this machine's, as a repository made on it would hold.
  writeFileSync(join(dir, '.atomic', 'lock'), JSON.stringify({ pid: 1, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
  const ws = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
  await ws.close();
});
