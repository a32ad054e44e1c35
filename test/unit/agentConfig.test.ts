import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AGENT_TARGETS, findTarget, mergeAgentConfig, stdioServer, writeAgentConfig } from '../../src/agents/agentConfig.js';

const server = stdioServer('node', '/ext/dist/cli.js', '/proj');

describe('Connect Other Agents: config files', () => {
  it('uses the stdio command line of the CLI', () => {
    assert.deepEqual(server, { command: 'node', args: ['/ext/dist/cli.js', 'serve', '--workspace', '/proj', '--stdio'] });
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
    const dir = mkdtempSync(join(tmpdir(), 'agents-'));
    const home = mkdtempSync(join(tmpdir(), 'home-'));
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

  it('has unique ids and files', () => {
    assert.equal(new Set(AGENT_TARGETS.map((t) => t.id)).size, AGENT_TARGETS.length);
    assert.equal(new Set(AGENT_TARGETS.map((t) => t.file)).size, AGENT_TARGETS.length);
  });
});
