/**
 * Atoms live in git as text (issue 18): the workspace mirrors its atoms to `atoms/<name>.js` and
 * takes files changed by anyone else, with real git in temp repositories: files appear for atoms
 * created through MCP, an edited file reaches the store and the bundle, a merge of two branches, a
 * conflict left in a file, a checkout that adds, changes and removes atoms together, a clone that
 * opens from text alone, and a process killed between the store's commit and the file's write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { numberUtil as util } from '../support/atoms.js';
import { formatStatus, workspaceStatus } from '../../src/mcp/tools/getStatus.js';
import { AtomWorkspace, type WorkspaceOptions } from '../../src/workspace.js';
import { openInProcess, wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';
import { CLI } from '../support/server.js';
import { nodeScript } from '../support/script.js';

const options: WorkspaceOptions = { embeddings: wordsOnly };

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
  });
}

/** A git repository with the project's usual root .gitignore (none: .atomic/ ignores itself). */
function repo(): string {
  const dir = tempDir('atomic-texttree-');
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

/** Waits (bounded) until `check` holds: file events reach the store a moment after they happen. */
async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}


/** An atom file as a person would write it (header, then the function). */
function file(name: string, body: string, requires: string[] = []): string {
  return ['/**', ` * ${name}, written by hand`, ' *', ' * @kind util', ' * @param {number} x', ' * @returns {number} y', ...requires.map((r) => ` * @requires ${r}`), ' */', `function ${name}(x) {`, `  return ${body};`, '}', ''].join('\n');
}

const read = (dir: string, name: string) => readFileSync(join(dir, 'atoms', `${name}.js`), 'utf8');
const bundle = (ws: AtomWorkspace) => readFileSync(ws.builder.outputPath!, 'utf8');

test('atoms created through MCP appear as files in atoms/, in the editor format, and .atomic/ stays out of git', async () => {
  const dir = repo();
  const server = await openInProcess({ ...options, folder: dir });
  try {
    const created = await server.call('upsert_atom', { ...util('base_value', 'x * 2'), description: 'Doubles x' });
    assert.equal(created.isError, false, created.text);
    const batch = await server.call('upsert_atoms', { atoms: [util('plus_one', 'base_value(x) + 1', ['base_value']), util('plus_two', 'base_value(x) + 2', ['base_value'])] });
    assert.equal(batch.isError, false, batch.text);
    assert.deepEqual(readdirSync(join(dir, 'atoms')).sort(), ['base_value.js', 'plus_one.js', 'plus_two.js']);
    assert.match(read(dir, 'plus_one'), /^\/\*\*\n \* plus_one for the text tree test\n \*\n \* @kind util\n \* @param \{number\} x\n \* @returns \{number\} y\n \* @requires base_value\n \*\/\nfunction plus_one\(x\) \{/);
    // Nothing volatile: the same atom saved again gives the same bytes.
    const before = read(dir, 'base_value');
    assert.doesNotMatch(before, /version|20\d\d-/);
    git(dir, 'add', '-A');
    const tracked = git(dir, 'diff', '--cached', '--name-only').trim().split('\n').sort();
    assert.deepEqual(tracked, ['atoms/base_value.js', 'atoms/plus_one.js', 'atoms/plus_two.js'], '.atomic/ ignores all of itself');
    git(dir, 'commit', '-qm', 'atoms');
    // A change is a small diff; a delete removes the file.
    await server.call('upsert_atom', { ...util('base_value', 'x * 3'), description: 'Doubles x' });
    const diff = git(dir, 'diff', '--unified=0', '--', 'atoms/');
    assert.deepEqual(diff.split('\n').filter((l) => /^[-+][^-+]/.test(l)), ['-  return x * 2;', '+  return x * 3;']);
    const deleted = await server.call('delete_atom', { name: 'plus_two' });
    assert.equal(deleted.isError, false, deleted.text);
    assert.equal(existsSync(join(dir, 'atoms', 'plus_two.js')), false);
    const status = await server.call('get_status');
    assert.match(status.text, /^Text tree: atoms\/ \(2 files\); problems: none\.$/m);
  } finally {
    await server.close();
  }
});

test('a file edited outside reaches the store and the bundle; a file formatted differently is never rewritten', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 50 } });
  try {
    await ws.upsertMany([util('speed', 'x * 4'), util('boost', 'speed(x) + 1', ['speed'])]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'atoms');
    const changes: string[] = [];
    ws.onDidChange((c) => changes.push(c.kind === 'reload' ? 'reload' : `${c.kind} ${c.atom.name}`));
    // Hand-written: `@return`, no description, the function on one line: taken as it is.
    const handWritten = '/**\n * @kind util\n * @param {number} x\n * @return {number} y\n */\nfunction speed(x) { return x * 5; }\n';
    writeFileSync(join(dir, 'atoms', 'speed.js'), handWritten);
    await until('the edit is imported', () => ws.atoms.get('speed')!.code.includes('x * 5'));
    await ws.textTree!.written();
    await ws.builder.idle();
    assert.deepEqual(changes, ['upsert speed']);
    assert.match(bundle(ws), /return x \* 5/);
    assert.equal(read(dir, 'speed'), handWritten, 'the server keeps the file as written');
    assert.equal(ws.atoms.get('speed')!.description, null);
    // A new file with a dependency on an existing atom.
    writeFileSync(join(dir, 'atoms', 'turbo.js'), file('turbo', 'boost(x) * 2', ['boost']));
    await until('the new file is imported', () => ws.atoms.has('turbo'));
    assert.deepEqual(ws.atoms.get('turbo')!.dependencies, ['boost']);
    await ws.builder.idle();
    assert.match(bundle(ws), /function turbo/);
    assert.equal(git(dir, 'status', '--porcelain', '--', 'atoms/speed.js').trim(), 'M atoms/speed.js');
  } finally {
    await ws.close();
  }
  // Reopening rewrites nothing either: the status is as the edits left it.
  const again = await AtomWorkspace.open(dir, options);
  await again.close();
  assert.equal(read(dir, 'turbo'), file('turbo', 'boost(x) * 2', ['boost']));
  assert.equal(git(dir, 'status', '--porcelain').trim().split('\n').sort().join(' '), '?? atoms/turbo.js M atoms/speed.js');
});

test('a merge of two branches that change different atoms brings both changes into the store', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 50 } });
  try {
    await ws.upsertMany([util('left_side', 'x - 1'), util('right_side', 'x + 1')]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'base');
    git(dir, 'checkout', '-qb', 'feature');
    await ws.upsert(util('left_side', 'x - 10'));
    git(dir, 'commit', '-qam', 'left on feature');
    git(dir, 'checkout', '-q', 'main');
    await until('main checked out', () => ws.atoms.get('left_side')!.code.includes('x - 1;'));
    writeFileSync(join(dir, 'atoms', 'right_side.js'), read(dir, 'right_side').replace('x + 1', 'x + 10'));
    await until('the edit on main is imported', () => ws.atoms.get('right_side')!.code.includes('x + 10'));
    git(dir, 'commit', '-qam', 'right on main');
    git(dir, 'merge', '-q', '--no-edit', 'feature');
    await until('the merge is imported', () => ws.atoms.get('left_side')!.code.includes('x - 10'));
    assert.match(ws.atoms.get('right_side')!.code, /x \+ 10/);
    await ws.textTree!.written();
    assert.deepEqual(ws.textTree!.problems(), []);
    assert.equal(git(dir, 'status', '--porcelain').trim(), '', 'the merge leaves nothing to commit');
  } finally {
    await ws.close();
  }
});

test('a conflict left in a file is reported, the last good version stays, and fixing the file takes it', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 50 } });
  try {
    await ws.upsert(util('shared_rule', 'x * 1'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'base');
    git(dir, 'checkout', '-qb', 'other');
    await ws.upsert(util('shared_rule', 'x * 2'));
    git(dir, 'commit', '-qam', 'two');
    git(dir, 'checkout', '-q', 'main');
    await until('main checked out', () => ws.atoms.get('shared_rule')!.code.includes('x * 1'));
    await ws.upsert(util('shared_rule', 'x * 3'));
    git(dir, 'commit', '-qam', 'three');
    assert.throws(() => git(dir, 'merge', '-q', '--no-edit', 'other'), (err: { stdout?: string }) => /CONFLICT/.test(String(err.stdout)));
    assert.match(read(dir, 'shared_rule'), /^<<<<<<< /m);
    await until('the conflict is reported', () => ws.textTree!.problems().length === 1);
    const [problem] = ws.textTree!.problems();
    assert.equal(problem!.file, 'atoms/shared_rule.js');
    assert.match(problem!.reason, /merge conflict markers .*the last good version of shared_rule stays/);
    assert.match(ws.atoms.get('shared_rule')!.code, /x \* 3/, 'the last good version stays');
    await ws.builder.idle();
    assert.match(bundle(ws), /return x \* 3/);
    const status = formatStatus(workspaceStatus(ws, 'test', 0));
    assert.match(status, /^Text tree: atoms\/ \(1 file\); problems: atoms\/shared_rule\.js \(merge conflict markers/m);
    // A write through the server meanwhile never overwrites the file being resolved.
    const conflicted = read(dir, 'shared_rule');
    await ws.upsert(util('shared_rule', 'x * 4'));
    assert.equal(read(dir, 'shared_rule'), conflicted);
    // Resolved by hand.
    writeFileSync(join(dir, 'atoms', 'shared_rule.js'), file('shared_rule', 'x * 6'));
    await until('the fixed file is taken', () => ws.atoms.get('shared_rule')!.code.includes('x * 6'));
    await until('the problem is gone', () => ws.textTree!.problems().length === 0);
    git(dir, 'commit', '-qam', 'merged');
  } finally {
    await ws.close();
  }
});

test('a checkout that adds, changes and removes atoms is taken as one change; a removed atom still used stays and is reported', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 100 } });
  try {
    await ws.upsertMany([util('keep_me', 'x'), util('old_helper', 'x + 1'), util('caller', 'old_helper(x)', ['old_helper']), util('will_go', 'x * 9')]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'base');
    git(dir, 'checkout', '-qb', 'next');
    // On the branch: two new atoms, one using the other; caller changed to use them; old_helper and will_go removed.
    writeFileSync(join(dir, 'atoms', 'new_helper.js'), file('new_helper', 'new_base(x) + 2', ['new_base']));
    writeFileSync(join(dir, 'atoms', 'new_base.js'), file('new_base', 'x * 2'));
    writeFileSync(join(dir, 'atoms', 'caller.js'), file('caller', 'new_helper(x)', ['new_helper']));
    unlinkSync(join(dir, 'atoms', 'old_helper.js'));
    unlinkSync(join(dir, 'atoms', 'will_go.js'));
    await until('the branch is imported', () => ws.atoms.has('new_helper') && !ws.atoms.has('old_helper'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'next');
    git(dir, 'checkout', '-q', 'main');
    await until('main is imported back', () => ws.atoms.has('old_helper') && !ws.atoms.has('new_helper'));
    await ws.textTree!.written();
    const changes: string[] = [];
    const at = new Set<string>();
    ws.onDidChange((c) => {
      if (c.kind === 'reload') return;
      changes.push(`${c.kind} ${c.atom.name}`);
      at.add(c.kind === 'delete' ? 'delete' : c.atom.updated_at);
    });
    git(dir, 'checkout', '-q', 'next');
    await until('next is imported', () => ws.atoms.has('new_helper') && !ws.atoms.has('old_helper') && !ws.atoms.has('will_go'));
    assert.deepEqual(changes.sort(), ['delete old_helper', 'delete will_go', 'upsert caller', 'upsert new_base', 'upsert new_helper']);
    assert.equal(at.size, 2, 'the upserts share one change (one time), with the deletes');
    assert.deepEqual(ws.atoms.get('caller')!.dependencies, ['new_helper']);
    await ws.textTree!.written();
    assert.equal(git(dir, 'status', '--porcelain').trim(), '', 'the checkout leaves git status clean');
    // Removing a file whose atom is still used: the atom stays and the file is reported.
    unlinkSync(join(dir, 'atoms', 'new_base.js'));
    await until('the removal is reported', () => ws.textTree!.problems().length === 1);
    assert.match(ws.textTree!.problems()[0]!.reason, /removed, but new_helper still uses new_base: the atom stays/);
    assert.ok(ws.atoms.has('new_base'));
    git(dir, 'checkout', '--', 'atoms/new_base.js');
    await until('the restored file clears the problem', () => ws.textTree!.problems().length === 0);
  } finally {
    await ws.close();
  }
});

test('a clone with only atoms/ opens with every atom, its dependencies and its bundle; an old database-only workspace writes its files', async () => {
  const origin = repo();
  const first = await AtomWorkspace.open(origin, { ...options, textTree: false });
  await first.upsertMany([util('root_atom', 'x'), util('mid_atom', 'root_atom(x) + 1', ['root_atom']), { ...util('top_atom', 'mid_atom(x) * 2', ['mid_atom']), type: 'core' }]);
  await first.close();
  assert.equal(existsSync(join(origin, 'atoms')), false, 'textTree: false writes no files');
  // The atoms were only in the database: the next open writes the text tree.
  const second = await AtomWorkspace.open(origin, options);
  await second.close();
  assert.deepEqual(readdirSync(join(origin, 'atoms')).sort(), ['mid_atom.js', 'root_atom.js', 'top_atom.js']);
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', 'atoms');

  const clone = tempDir('atomic-texttree-clone-');
  execFileSync('git', ['clone', '-q', origin, clone], { stdio: 'ignore' });
  assert.equal(existsSync(join(clone, '.atomic')), false, 'the clone has no .atomic/');
  const ws = await AtomWorkspace.open(clone, options);
  try {
    assert.deepEqual(ws.atoms.all().map((a) => a.name), ['mid_atom', 'root_atom', 'top_atom']);
    assert.deepEqual(ws.atoms.get('top_atom')!.dependencies, ['mid_atom']);
    await ws.builder.idle();
    assert.equal(ws.atoms.lastBuild()?.status, 'success');
    assert.deepEqual(ws.atoms.lastBuild()?.order, ['root_atom', 'mid_atom', 'top_atom']);
    assert.match(bundle(ws), /function top_atom/);
    assert.equal(git(clone, 'status', '--porcelain').trim(), '', 'opening the clone changes nothing git sees');
  } finally {
    await ws.close();
  }
});

test('a writer killed between the store commit and the file write: the next open writes the files', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, options);
  await ws.upsert(util('survivor', 'x + 1'));
  await ws.close();
  const v1 = read(dir, 'survivor');
  const drafts = [util('survivor', 'x + 2'), util('newcomer', 'x + 3')];
  const child = spawn(process.execPath, [nodeScript(join(__dirname, '..', 'support', 'textTreeWriter.ts')), dir, JSON.stringify(drafts)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, s) => resolve(s)));
  assert.equal(signal, 'SIGKILL', `the writer was killed at the hook: ${output}`);
  assert.equal(read(dir, 'survivor'), v1, 'killed before the file write: the old file');
  assert.equal(existsSync(join(dir, 'atoms', 'newcomer.js')), false);
  const again = await AtomWorkspace.open(dir, options);
  try {
    assert.match(again.atoms.get('survivor')!.code, /x \+ 2/, 'the store committed');
    assert.match(read(dir, 'survivor'), /return x \+ 2;/, 'the store was newer: its file is written');
    assert.match(read(dir, 'newcomer'), /return x \+ 3;/);
    assert.deepEqual(again.textTree!.problems(), []);
  } finally {
    await again.close();
  }
});

test('a file being changed and not yet imported is never overwritten by a write through the server', async () => {
  const dir = repo();
  // Events gathered for a minute: the edit below is not imported before the server's write.
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 60_000 } });
  try {
    await ws.upsert(util('contested', 'x + 1'));
    const mine = file('contested', 'x + 100');
    writeFileSync(join(dir, 'atoms', 'contested.js'), mine);
    await ws.upsert(util('contested', 'x + 2'));
    assert.equal(read(dir, 'contested'), mine, "the person's edit is kept");
    assert.match(ws.atoms.get('contested')!.code, /x \+ 100/, "and taken: the server's version stays in the history");
    assert.deepEqual(ws.atoms.history('contested').map((v) => /x \+ \d+/.exec(v.code)![0]), ['x + 100', 'x + 2', 'x + 1']);
  } finally {
    await ws.close();
  }
});

test('a held file (an editor auto-saving it) becomes one version on release; broken text meanwhile is neither imported nor reported', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 20 } });
  try {
    await ws.upsert(util('typed', 'x + 1'));
    await ws.textTree!.written();
    const hold = ws.textTree!.hold('typed');
    for (const body of ['x + 2', 'x +', 'x + 3']) {
      writeFileSync(join(dir, 'atoms', 'typed.js'), file('typed', body));
      await new Promise((r) => setTimeout(r, 150)); // well past the settle time: rounds ran, and skipped it
    }
    await ws.textTree!.written();
    assert.equal(ws.atoms.get('typed')!.version, 1, 'three saves while held made no version');
    assert.deepEqual(ws.textTree!.problems(), [], 'the half-typed text was not reported while held');
    // A second holder (another editor of the same file) keeps it held until both let go.
    const other = ws.textTree!.hold('typed');
    hold.dispose();
    hold.dispose(); // twice is once
    await new Promise((r) => setTimeout(r, 100));
    await ws.textTree!.written();
    assert.equal(ws.atoms.get('typed')!.version, 1);
    other.dispose();
    await until('the release imports the file', () => ws.atoms.get('typed')!.version === 2);
    assert.match(ws.atoms.get('typed')!.code, /x \+ 3/);
    assert.deepEqual(ws.atoms.history('typed').map((v) => /x \+ \d+/.exec(v.code)![0]), ['x + 3', 'x + 1']);
  } finally {
    await ws.close();
  }
});

test('a store change to a held atom does not overwrite its file; the release takes the file, the store change stays in the history', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 20 } });
  try {
    await ws.upsert(util('shared', 'x + 1'));
    await ws.textTree!.written();
    const hold = ws.textTree!.hold('shared');
    const mine = file('shared', 'x + 100');
    writeFileSync(join(dir, 'atoms', 'shared.js'), mine);
    await ws.upsert(util('shared', 'x + 2')); // an agent, meanwhile
    await ws.textTree!.written();
    assert.equal(read(dir, 'shared'), mine, "the held file is not written over");
    assert.match(ws.atoms.get('shared')!.code, /x \+ 2/);
    hold.dispose();
    await until('the release takes the file', () => /x \+ 100/.test(ws.atoms.get('shared')!.code));
    assert.deepEqual(ws.atoms.history('shared').map((v) => /x \+ \d+/.exec(v.code)![0]), ['x + 100', 'x + 2', 'x + 1']);
    assert.equal(read(dir, 'shared'), mine);
  } finally {
    await ws.close();
  }
});

test('a file that is not valid is reported with its reason, and the atom is not created', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 50 } });
  try {
    await ws.upsert(util('present', 'x'));
    writeFileSync(join(dir, 'atoms', 'misnamed.js'), file('other_name', 'x'));
    writeFileSync(join(dir, 'atoms', 'needs_missing.js'), file('needs_missing', 'nowhere(x)', ['nowhere']));
    writeFileSync(join(dir, 'atoms', 'broken.js'), file('broken', 'x +'));
    writeFileSync(join(dir, 'atoms', 'cycle_a.js'), file('cycle_a', 'cycle_b(x)', ['cycle_b']));
    writeFileSync(join(dir, 'atoms', 'cycle_b.js'), file('cycle_b', 'cycle_a(x)', ['cycle_a']));
    writeFileSync(join(dir, 'atoms', 'too_big.js'), file('too_big', `x + ${'1 + '.repeat(600)}1`));
    writeFileSync(join(dir, 'atoms', 'Bad-Name.js'), file('bad', 'x'));
    writeFileSync(join(dir, 'atoms', 'fine_one.js'), file('fine_one', 'present(x)', ['present']));
    // A call to a name that is no atom and no page global: refused as a write through the tools is.
    writeFileSync(join(dir, 'atoms', 'typo_call.js'), file('typo_call', 'presnt(x) + Math.abs(x)'));
    await until('every file is judged', () => ws.atoms.has('fine_one') && ws.textTree!.problems().length === 8);
    const reasons = Object.fromEntries(ws.textTree!.problems().map((p) => [p.file, p.reason]));
    assert.match(reasons['atoms/misnamed.js']!, /the function is named "other_name" but the atom is "misnamed"/);
    assert.match(reasons['atoms/needs_missing.js']!, /dependencies not found: nowhere/);
    assert.match(reasons['atoms/broken.js']!, /does not parse as JavaScript/);
    assert.match(reasons['atoms/cycle_a.js']! + reasons['atoms/cycle_b.js']!, /cycle/);
    assert.match(reasons['atoms/too_big.js']!, /limit: 2048/);
    assert.match(reasons['atoms/Bad-Name.js']!, /not an atom name/);
    assert.match(reasons['atoms/broken.js']!, /broken is not created until the file is fixed/);
    assert.match(reasons['atoms/typo_call.js']!, /^typo_call uses names that are no atom.*: presnt \(did you mean present\?\)\..*typo_call is not created until the file is fixed/);
    assert.deepEqual(ws.atoms.all().map((a) => a.name), ['fine_one', 'present']);
    // The missing dependency created through the server: the waiting file is taken.
    await ws.upsert(util('nowhere', 'x'));
    await until('the waiting file is taken', () => ws.atoms.has('needs_missing'));
  } finally {
    await ws.close();
  }
});

test('the atoms folder is a setting and a CLI flag; a folder outside the workspace is refused and nothing opens', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { folder: 'src/atoms' } });
  try {
    await ws.upsert(util('placed', 'x'));
    assert.ok(existsSync(join(dir, 'src', 'atoms', 'placed.js')));
    assert.equal(ws.textTree!.folder, 'src/atoms');
  } finally {
    await ws.close();
  }
  await assert.rejects(AtomWorkspace.open(dir, { ...options, textTree: { folder: '../elsewhere' } }), /atoms folder .* is outside the workspace folder/);
  const run = spawn(process.execPath, [CLI, 'serve', '--workspace', dir, '--atoms-folder', '../elsewhere', '--log-level', 'error'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  run.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => run.once('exit', (c) => resolve(c)));
  assert.equal(code, 1);
  assert.match(stderr, /^atomic-coding: The atoms folder \(atomicCoding\.atomsFolder, --atoms-folder\) "\.\.\/elsewhere" is outside the workspace folder .*: nothing was written or read there/);
  assert.equal(existsSync(join(dir, '..', 'elsewhere')), false);
});

test('a copy of .atomic/ without the atoms folder deletes nothing: the files are written again', async () => {
  const dir = repo();
  const ws = await AtomWorkspace.open(dir, options);
  await ws.upsertMany([util('first_kept', 'x'), util('second_kept', 'first_kept(x)', ['first_kept'])]);
  await ws.close();
  const copy = tempDir('atomic-texttree-copy-');
  execFileSync('cp', ['-r', join(dir, '.atomic'), join(copy, '.atomic')]);
  const opened = await AtomWorkspace.open(copy, options);
  try {
    assert.deepEqual(opened.atoms.all().map((a) => a.name), ['first_kept', 'second_kept']);
    assert.deepEqual(readdirSync(join(copy, 'atoms')).sort(), ['first_kept.js', 'second_kept.js']);
  } finally {
    await opened.close();
  }
});

test('a file a person wrote keeps its layout: imported as it is, and an edit rewrites only the lines that changed', async () => {
  const dir = repo();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(dir, 'atoms'));
  writeFileSync(join(dir, 'atoms', 'lhs.js'), file('lhs', 'x'));
  writeFileSync(join(dir, 'atoms', 'rhs.js'), file('rhs', 'x'));
  const handWritten = file('both', 'lhs(x) + rhs(x)').replace(' * @returns {number} y\n', ' * @returns {number} y\n * @requires lhs, rhs\n');
  writeFileSync(join(dir, 'atoms', 'both.js'), handWritten);
  const ws = await AtomWorkspace.open(dir, { ...options, textTree: { settleMs: 50 } });
  try {
    await ws.textTree!.reconciled();
    assert.deepEqual(ws.atoms.get('both')?.dependencies, ['lhs', 'rhs']);
    await ws.textTree!.written();
    assert.equal(read(dir, 'both'), handWritten, 'the imported file is not rewritten');
    await ws.upsert({ ...ws.atoms.get('both')!, description: ws.atoms.get('both')!.description ?? undefined, code: 'function both(x) {\n  return lhs(x) * rhs(x);\n}\n' });
    await ws.textTree!.written();
    const after = read(dir, 'both').split('\n');
    const before = handWritten.split('\n');
    assert.equal(after.length, before.length);
    assert.deepEqual(after.flatMap((l, i) => (l === before[i] ? [] : [l])), ['  return lhs(x) * rhs(x);']);
  } finally {
    await ws.close();
  }
});
