import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

test('the official MCP conformance suite passes every generic server scenario', { timeout: 300_000 }, () => {
  const run = spawnSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'conformance.mjs')], { encoding: 'utf8', timeout: 290_000 });
  process.stderr.write(run.stdout);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^conformance: 8 passed, 0 failed$/m);
});
