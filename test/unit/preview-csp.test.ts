/**
 * The preview against a repository's own code (issue 12): the frame that runs the page and
 * latest.js in the webview has its own policy and nonce, with no address to load anything from.
 * (Reading the page file itself: test/integration/preview-page-file.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameCsp, makeFrameNonce, webviewCsp, withCsp } from '../../src/preview/csp.js';
import { LOCKDOWN_SCRIPT, framePage } from '../../src/preview/page.js';
import { sha256Base64 } from '../../src/preview/sha256.js';
import { createHash } from 'node:crypto';

/** The source expressions of every directive of a policy. */
function sources(policy: string): string[] {
  return policy
    .split(';')
    .map((d) => d.trim().split(/\s+/).slice(1))
    .flat();
}

test("the preview frame has its own policy: its scripts by hash, each beginning with the lockdown; styles by nonce; no address to load from", () => {
  const webviewPolicy = webviewCsp('https://*.vscode-cdn.net');
  assert.doesNotMatch(webviewPolicy, /nonce-/, 'the webview has no nonce for the frame to learn');
  const nonce = makeFrameNonce();
  assert.match(nonce, /^[0-9a-f]{32}$/);
  assert.notEqual(makeFrameNonce(), nonce, 'a fresh nonce for every load');

  const page = '<!doctype html><html><head><script src="https://evil.example/x.js"></script><style>b{}</style></head><body><script src="latest.js"></script><script>go()</script><script type="application/json">{"a":1}</script></body></html>';
  const html = framePage(page, 'function main() {}\n', nonce);
  const policies = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)].map((m) => m[1]!.replace(/&quot;/g, '"'));
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/\b(src|type)=/.test(m[1]!)).map((m) => m[2]!);
  assert.equal(scripts.length, 3, 'prelude, bundle, page inline script');
  for (const code of scripts) assert.ok(code.startsWith(LOCKDOWN_SCRIPT), 'every script the frame may run begins with the lockdown');
  const hashes = scripts.map((code) => createHash('sha256').update(code).digest('base64'));
  assert.deepEqual(policies, frameCsp(nonce, hashes));
  assert.ok(html.startsWith('<!doctype html><meta http-equiv="Content-Security-Policy"'), 'the policies come before anything of the page, after its doctype');
  assert.ok(html.includes('<meta http-equiv="x-dns-prefetch-control" content="off">'));
  const allowed = new Set(["'none'", `'nonce-${nonce}'`, "'unsafe-inline'", 'data:', 'blob:', "'block'", ...hashes.map((h) => `'sha256-${h}'`)]);
  for (const source of policies.flatMap(sources)) assert.ok(allowed.has(source), `no address in the frame's policy: ${source}`);
  for (const directive of ["connect-src 'none'", "frame-src 'none'", "child-src 'none'", "worker-src 'none'", "webrtc 'block'", "form-action 'none'"]) assert.ok(policies[0]!.includes(directive), directive);
  assert.doesNotMatch(policies[0]!, /script-src[^;]*nonce-/, 'no nonce for scripts: the code it lets run could read it');
  assert.match(policies[1]!, /script-src 'unsafe-inline'/, 'and only inline scripts: no address, even with a hash');
  assert.doesNotMatch(html, /<script\b[^>]*\bnonce=/, 'no script carries a nonce');
  const nonces = [...html.matchAll(/<style\b[^>]*\bnonce="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(nonces, [nonce], "the page's style carries the frame's own nonce");
  assert.ok(html.includes('{"a":1}</script>') && !html.includes(LOCKDOWN_SCRIPT + '{"a":1}'), 'a data block is left as it is');
  assert.ok(html.includes(LOCKDOWN_SCRIPT + 'function main() {}'), 'the bundle is inline, on the lockdown\'s line: its lines stay its own');
  assert.throws(() => frameCsp("x' https:"), /the nonce must be/);
  assert.throws(() => frameCsp(nonce, ["x' https:"]), /a script hash must be/);
});

test('the SHA-256 of the frame\'s scripts is the one Node computes', () => {
  for (const text of ['', 'abc', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'é€😀\n'.repeat(500)]) {
    assert.equal(sha256Base64(text), createHash('sha256').update(text).digest('base64'), `${text.length} characters`);
  }
});

test('withCsp puts the policies first: after a doctype, else at the very start', () => {
  assert.equal(withCsp('<p>x</p>', ['a']), '<meta http-equiv="Content-Security-Policy" content="a"><p>x</p>');
  assert.equal(withCsp('\n<!DOCTYPE html>\n<p>', ['a', 'b"c']), '\n<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="a"><meta http-equiv="Content-Security-Policy" content="b&quot;c">\n<p>');
});
