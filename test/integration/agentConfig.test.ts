import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, existsSync, linkSync, lstatSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_TARGETS, findTarget, mergeAgentConfig, stdioServer, writeAgentConfig } from '../../src/agents/agentConfig.js';
import { tempDir } from '../support/tmp.js';

// The entry as every system but Linux spells it (Linux's goes through /usr/bin/env: below).
const server = stdioServer('node', '/ext/dist/cli.js', '/proj', 'darwin');

describe('Connect Other Agents: config files', () => {
  it('uses the stdio command line of the CLI, with a small young generation for V8', () => {
    assert.deepEqual(server, { command: 'node', args: ['--max-semi-space-size=8', '--heap-growing-percent=50', '/ext/dist/cli.js', 'serve', '--workspace', '/proj', '--stdio'] });
  });

  it("on Linux, runs node through /usr/bin/env with glibc's huge pages, the variable on the command line, not in an env the agent may use alone", () => {
    const linux = stdioServer('node', '/ext/dist/cli.js', '/proj', 'linux', (file) => file === '/usr/bin/env');
    assert.deepEqual(linux, {
      command: '/usr/bin/env',
      args: ['GLIBC_TUNABLES=glibc.malloc.hugetlb=1', 'node', '--max-semi-space-size=8', '--heap-growing-percent=50', '/ext/dist/cli.js', 'serve', '--workspace', '/proj', '--stdio'],
    });
    assert.equal('env' in linux, false);
    // A Linux without /usr/bin/env gets the plain command; so do Windows and macOS.
    assert.deepEqual(stdioServer('node', '/ext/dist/cli.js', '/proj', 'linux', () => false), server);
    assert.deepEqual(stdioServer('C:\\node\\node.exe', 'C:\\ext\\dist\\cli.js', null, 'win32', () => true), {
      command: 'C:\\node\\node.exe',
      args: ['--max-semi-space-size=8', '--heap-growing-percent=50', 'C:\\ext\\dist\\cli.js', 'serve', '--stdio'],
    });
  });

  it('creates a missing Claude Code .mcp.json with our entry', () => {
    const { text, outcome } = mergeAgentConfig(findTarget('claude'), undefined, server);
    assert.equal(outcome, 'added');
    assert.deepEqual(JSON.parse(text), { mcpServers: { 'atomic-coding': { type: 'stdio', ...server } } });
  });

  it('keeps every other server and setting, and replaces only our stale entry', () => {
    const existing = JSON.stringify({ mcpServers: { other: { command: 'x', args: ['y'] }, 'atomic-coding': { command: 'old', args: [] } }, theme: 'dark' }, null, 4);
    const { text, outcome } = mergeAgentConfig(findTarget('cursor'), existing, server);
    assert.equal(outcome, 'updated');
    assert.deepEqual(JSON.parse(text), { mcpServers: { other: { command: 'x', args: ['y'] }, 'atomic-coding': server }, theme: 'dark' });
    assert.match(text, /\n {4}"mcpServers"/, 'keeps the file\'s indentation');
  });

  it('says unchanged when the entry is already current', () => {
    const first = mergeAgentConfig(findTarget('cursor'), undefined, server).text;
    assert.equal(mergeAgentConfig(findTarget('cursor'), first, server).outcome, 'unchanged');
  });

  it('refuses a file that is not JSON, or whose servers key is not an object', () => {
    assert.throws(() => mergeAgentConfig(findTarget('claude'), '{ "mcpServers": ', server), /\.mcp\.json is not valid JSON.*not changed/);
    assert.throws(() => mergeAgentConfig(findTarget('claude'), '[]', server), /does not hold a JSON object/);
    assert.throws(() => mergeAgentConfig(findTarget('claude'), '{"mcpServers": 3}', server), /"mcpServers" in \.mcp\.json is not an object/);
  });

  it('writes the VS Code format under "servers"', () => {
    const { text } = mergeAgentConfig(findTarget('vscode'), '{"inputs": []}', server);
    assert.deepEqual(JSON.parse(text), { inputs: [], servers: { 'atomic-coding': { type: 'stdio', ...server } } });
  });

  it('writes files on disk, creating folders, and leaves a broken file byte for byte as it was', () => {
    const dir = tempDir('agents-');
    const home = tempDir('home-');
    const cursor = writeAgentConfig(findTarget('cursor'), dir, server, home);
    assert.equal(cursor.path, join(dir, '.cursor', 'mcp.json'));
    assert.deepEqual(JSON.parse(readFileSync(cursor.path, 'utf8')).mcpServers['atomic-coding'], server);
    const windsurf = writeAgentConfig(findTarget('windsurf'), dir, server, home);
    assert.equal(windsurf.path, join(home, '.codeium', 'windsurf', 'mcp_config.json'));
    mkdirSync(join(dir, '.gemini'));
    writeFileSync(join(dir, '.gemini', 'settings.json'), '{ broken');
    assert.throws(() => writeAgentConfig(findTarget('gemini'), dir, server, home), /not valid JSON/);
    assert.equal(readFileSync(join(dir, '.gemini', 'settings.json'), 'utf8'), '{ broken');
    assert.equal(existsSync(join(dir, '.mcp.json')), false, 'only the chosen agents are written');
  });

  it("writes the user's own configuration by default: Claude Code's local scope for this folder, Cursor's ${workspaceFolder}, nothing in the project", async () => {
    const { DEFAULT_TARGET_IDS, serverFor } = await import('../../src/agents/agentConfig.js');
    const dir = tempDir('agents-');
    const home = tempDir('home-');
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ oauthAccount: { x: 1 }, projects: { [dir]: { allowedTools: [] } } }));
    for (const id of DEFAULT_TARGET_IDS) {
      const target = findTarget(id);
      assert.ok(target.file.startsWith('~/'), `${id} is in the home folder`);
      writeAgentConfig(target, dir, serverFor(target, 'node', '/ext/dist/cli.js', dir), home);
    }
    assert.deepEqual(readdirSync(dir), [], 'nothing in the project');
    const claude = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
    assert.deepEqual(claude.oauthAccount, { x: 1 });
    assert.deepEqual(claude.projects[dir].allowedTools, []);
    assert.deepEqual(claude.projects[dir].mcpServers['atomic-coding'].args.slice(-4), ['serve', '--workspace', dir, '--stdio']);
    const cursor = JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8'));
    assert.deepEqual(cursor.mcpServers['atomic-coding'].args.slice(-4), ['serve', '--workspace', '${workspaceFolder}', '--stdio']);
    assert.ok(!JSON.stringify(cursor).includes(dir), "Cursor's global file names no folder of this machine");
  });

  it('has unique ids and files', () => {
    assert.equal(new Set(AGENT_TARGETS.map((t) => t.id)).size, AGENT_TARGETS.length);
    assert.equal(new Set(AGENT_TARGETS.map((t) => t.file)).size, AGENT_TARGETS.length);
  });
});

describe('Connect Other Agents: links in the workspace are refused, not followed', { skip: process.platform === 'win32' && 'symbolic links need privileges on Windows' }, () => {
  const secrets = JSON.stringify({ oauthAccount: { accessToken: 'sk-secret-token' }, mcpServers: {} }, null, 2);

  /** A workspace and a home folder whose ~/.claude.json holds secrets. */
  function setup(): { dir: string; home: string; claude: string } {
    const dir = tempDir('agents-ws-');
    const home = tempDir('agents-home-');
    const claude = join(home, '.claude.json');
    writeFileSync(claude, secrets);
    return { dir, home, claude };
  }

  /** Nothing in the workspace but what the test put there, and the linked file untouched. */
  function assertNothingWritten(dir: string, before: string[], claude: string): void {
    assert.deepEqual(readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort(), before, 'no file was written in the workspace');
    assert.equal(readFileSync(claude, 'utf8'), secrets, 'the linked file was not changed');
  }

  it('refuses a .mcp.json that is a symbolic link to ~/.claude.json: no secret is copied into the repository', () => {
    const { dir, home, claude } = setup();
    symlinkSync(claude, join(dir, '.mcp.json'));
    const before = readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
    assert.throws(
      () => writeAgentConfig(findTarget('claude'), dir, server, home),
      /^Error: \.mcp\.json is a symbolic link\. .*nothing was read or written\. Replace the link with a regular file, or add the "atomic-coding" server to \.mcp\.json by hand, then connect again\.$/,
    );
    assert.ok(lstatSync(join(dir, '.mcp.json')).isSymbolicLink(), 'the link is still a link');
    assertNothingWritten(dir, before, claude);
  });

  it('refuses a link however it is spelled: relative, or to a file that does not exist yet', () => {
    const { dir, home, claude } = setup();
    symlinkSync(join('..', home.split('/').pop()!, '.claude.json'), join(dir, '.mcp.json'));
    assert.throws(() => writeAgentConfig(findTarget('claude'), dir, server, home), /\.mcp\.json is a symbolic link/);
    const dangling = setup();
    symlinkSync(join(dangling.home, 'not-yet.json'), join(dangling.dir, '.mcp.json'));
    assert.throws(() => writeAgentConfig(findTarget('claude'), dangling.dir, server, dangling.home), /\.mcp\.json is a symbolic link/);
    assert.equal(existsSync(join(dangling.home, 'not-yet.json')), false, 'nothing was created through the link');
    assert.equal(readFileSync(claude, 'utf8'), secrets);
  });

  it('refuses a folder on the way that is a link out of the workspace, but not a workspace reached through one', () => {
    const { dir, home, claude } = setup();
    mkdirSync(join(home, '.cursor'));
    writeFileSync(join(home, '.cursor', 'mcp.json'), secrets);
    symlinkSync(join(home, '.cursor'), join(dir, '.cursor'));
    const before = readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
    assert.throws(() => writeAgentConfig(findTarget('cursor'), dir, server, home), /^Error: \.cursor \(on the way to \.cursor\/mcp\.json\) is a symbolic link\..*regular folder/);
    assert.equal(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8'), secrets);
    assertNothingWritten(dir, before, claude);
    // Deeper: .kiro is real, .kiro/settings links out.
    mkdirSync(join(dir, '.kiro'));
    symlinkSync(home, join(dir, '.kiro', 'settings'));
    assert.throws(() => writeAgentConfig(findTarget('kiro'), dir, server, home), /\.kiro\/settings \(on the way to \.kiro\/settings\/mcp\.json\) is a symbolic link/);
    assert.equal(existsSync(join(home, 'mcp.json')), false);
    // The workspace folder itself may be reached through a link (only what lies inside it is checked),
    // and a write leaves no temporary file behind.
    const ws = setup();
    const alias = join(tempDir('agents-alias-'), 'ws');
    symlinkSync(ws.dir, alias);
    const result = writeAgentConfig(findTarget('cursor'), alias, server, ws.home);
    assert.equal(result.outcome, 'added');
    assert.deepEqual(JSON.parse(readFileSync(join(ws.dir, '.cursor', 'mcp.json'), 'utf8')).mcpServers['atomic-coding'], server);
    assert.deepEqual(readdirSync(join(ws.dir, '.cursor')), ['mcp.json']);
    assert.equal(writeAgentConfig(findTarget('cursor'), alias, server, ws.home).outcome, 'unchanged');
  });

  it('refuses a hard link and what is not a regular file', () => {
    const { dir, home, claude } = setup();
    linkSync(claude, join(dir, '.mcp.json'));
    assert.throws(() => writeAgentConfig(findTarget('claude'), dir, server, home), /\.mcp\.json is a hard link.*nothing was read or written/);
    assert.equal(readFileSync(claude, 'utf8'), secrets);
    mkdirSync(join(dir, '.roo', 'mcp.json'), { recursive: true });
    assert.throws(() => writeAgentConfig(findTarget('roo'), dir, server, home), /\.roo\/mcp\.json is not a regular file/);
    writeFileSync(join(dir, '.gemini'), 'a file, not a folder');
    assert.throws(() => writeAgentConfig(findTarget('gemini'), dir, server, home), /\.gemini \(on the way to \.gemini\/settings\.json\) is not a folder/);
  });

});
