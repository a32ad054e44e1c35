/**
 * The preview against a repository's own files and code (issue 12): the page must lie inside the
 * workspace folder (links resolved), and the frame that runs the page and latest.js in the webview has
 * its own policy and nonce, with no address to load anything from.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { frameCsp, makeFrameNonce, webviewCsp, withCsp } from '../../src/preview/csp.js';
import { framePage } from '../../src/preview/page.js';
import { readPageFile } from '../../src/preview/pageFile.js';
import { tempDir } from '../support/tmp.js';

/** A workspace folder with a secret file beside it, outside. */
function layout() {
  const parent = realpathSync(tempDir('preview-page-'));
  const folder = join(parent, 'ws');
  const outside = join(parent, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
  const secret = join(outside, 'id_rsa');
  writeFileSync(secret, 'PRIVATE KEY');
  return { folder, outside, secret };
}

test('a preview page outside the workspace folder is refused with a message saying what to do, and is not read', async () => {
  const { folder, outside, secret } = layout();
  mkdirSync(join(folder, 'pages'));
  symlinkSync(outside, join(folder, 'pages', 'out'));
  for (const setting of [secret, '../outside/id_rsa', 'pages/out/id_rsa']) {
    const page = await readPageFile(folder, setting);
    assert.equal(page.kind, 'refused', setting);
    if (page.kind !== 'refused') continue;
    assert.match(page.message, /^The preview page \(atomicCoding\.preview\.page\) ".*" is outside the workspace folder/);
    assert.match(page.message, /Change the setting atomicCoding\.preview\.page/);
    assert.doesNotMatch(JSON.stringify(page), /PRIVATE KEY/);
  }
  // The default page, preview.html, linked out of the folder.
  symlinkSync(secret, join(folder, 'preview.html'));
  const linked = await readPageFile(folder, '');
  assert.equal(linked.kind, 'refused');
  assert.match(linked.kind === 'refused' ? linked.message : '', /^The preview page preview\.html "preview\.html" is outside the workspace folder .* through a symbolic link/);
});

test('a preview page inside the folder is read, by a relative or an absolute path; no preview.html means the built-in page', async () => {
  const { folder } = layout();
  assert.deepEqual(await readPageFile(folder, ''), { kind: 'builtin' });
  mkdirSync(join(folder, 'pages'));
  writeFileSync(join(folder, 'pages', 'game.html'), '<p>game</p>');
  assert.deepEqual(await readPageFile(folder, 'pages/game.html'), { kind: 'page', html: '<p>game</p>' });
  assert.deepEqual(await readPageFile(folder, join(folder, 'pages', 'game.html')), { kind: 'page', html: '<p>game</p>' });
  writeFileSync(join(folder, 'preview.html'), '<p>default</p>');
  assert.deepEqual(await readPageFile(folder, ''), { kind: 'page', html: '<p>default</p>' });
  const missing = await readPageFile(folder, 'pages/none.html');
  assert.equal(missing.kind, 'builtin');
  assert.match(missing.kind === 'builtin' ? (missing.warning ?? '') : '', /could not read the page .*none\.html \(ENOENT\); using the built-in page/);
});

/** The source expressions of every directive of a policy. */
function sources(policy: string): string[] {
  return policy
    .split(';')
    .map((d) => d.trim().split(/\s+/).slice(1))
    .flat();
}

test("the preview frame has its own policy and nonce: inline scripts with the frame's nonce, no address to load from", () => {
  const webviewPolicy = webviewCsp('https://*.vscode-cdn.net');
  assert.doesNotMatch(webviewPolicy, /nonce-/, 'the webview has no nonce for the frame to learn');
  const nonce = makeFrameNonce();
  assert.match(nonce, /^[0-9a-f]{32}$/);
  assert.notEqual(makeFrameNonce(), nonce, 'a fresh nonce for every load');

  const page = '<!doctype html><html><head><script src="https://evil.example/x.js"></script><style>b{}</style></head><body><script src="latest.js"></script><script>go()</script></body></html>';
  const html = framePage(page, 'function main() {}\n', nonce);
  const policies = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)].map((m) => m[1]!.replace(/&quot;/g, '"'));
  assert.deepEqual(policies, frameCsp(nonce));
  assert.ok(html.startsWith('<!doctype html><meta http-equiv="Content-Security-Policy"'), 'the policies come before anything of the page, after its doctype');
  const allowed = new Set(["'none'", `'nonce-${nonce}'`, "'unsafe-inline'", 'data:', 'blob:']);
  for (const source of policies.flatMap(sources)) assert.ok(allowed.has(source), `no address in the frame's policy: ${source}`);
  assert.match(policies[0]!, /script-src 'nonce-[0-9a-f]{32}';/);
  assert.match(policies[1]!, /script-src 'unsafe-inline'/, 'and only inline scripts: no address, even with the nonce');
  // Every script and style of the frame carries the frame's own nonce, not another.
  const nonces = [...html.matchAll(/<(?:script|style)\b[^>]*\bnonce="([^"]*)"/g)].map((m) => m[1]);
  assert.equal(nonces.length, 5, 'prelude, page script, style, bundle, page inline script');
  assert.ok(nonces.every((n) => n === nonce));
  assert.ok(html.includes('function main() {}'), 'the bundle is inline');
  assert.throws(() => frameCsp("x' https:"), /the nonce must be/);
});

test('withCsp puts the policies first: after a doctype, else at the very start', () => {
  assert.equal(withCsp('<p>x</p>', ['a']), '<meta http-equiv="Content-Security-Policy" content="a"><p>x</p>');
  assert.equal(withCsp('\n<!DOCTYPE html>\n<p>', ['a', 'b"c']), '\n<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="a"><meta http-equiv="Content-Security-Policy" content="b&quot;c">\n<p>');
});
