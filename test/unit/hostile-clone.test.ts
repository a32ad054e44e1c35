/**
 * What a cloned repository cannot reach through the environment and the settings: the model's
 * process gets none of the user's secrets, an agent's entry never starts a `node` from the
 * repository, and Restricted Mode ignores the workspace's ports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCommand } from '../../src/agents/agentConfig.js';
import { modelProcessEnv } from '../../src/search/embeddings/modelProcess.js';

test("the embedding model's process inherits none of the user's tokens", () => {
  const env = modelProcessEnv({ PATH: '/usr/bin', GITHUB_TOKEN: 'ghp_secret', AWS_SECRET_ACCESS_KEY: 'k', TMPDIR: '/tmp', ATOMIC_BUNDLED: '1', HOME: '/root' });
  assert.deepEqual(env, { PATH: '/usr/bin', TMPDIR: '/tmp', ATOMIC_BUNDLED: '1' });
});

test("on Windows an agent's entry names node.exe on PATH by its full path, never one in the repository", () => {
  const exists = (file: string) => file === 'C:\\Program Files\\nodejs\\node.exe' || file === 'C:\\repo\\tools\\node.exe';
  assert.equal(nodeCommand('C:\\repo', 'win32', '.;C:\\repo\\tools;C:\\Program Files\\nodejs', exists), 'C:\\Program Files\\nodejs\\node.exe');
});

test('elsewhere the bare, portable node is kept unless PATH names the current or the workspace folder', () => {
  const exists = (file: string) => file === '/usr/local/bin/node';
  assert.equal(nodeCommand('/home/u/repo', 'linux', '/usr/local/bin:/usr/bin', exists), 'node');
  assert.equal(nodeCommand('/home/u/repo', 'linux', ':/usr/local/bin', exists), '/usr/local/bin/node');
  assert.equal(nodeCommand('/home/u/repo', 'linux', '/home/u/repo/bin:/usr/local/bin', exists), '/usr/local/bin/node');
});

test('Restricted Mode ignores the ports a workspace sets, as it ignores its paths', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  for (const key of ['atomicCoding.preview.port', 'atomicCoding.server.port', 'atomicCoding.bundle.outputPath', 'atomicCoding.preview.page', 'atomicCoding.atomsFolder']) {
    assert.ok(restricted.includes(key), key);
  }
});
