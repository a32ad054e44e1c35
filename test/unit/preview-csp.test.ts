/**
 * The preview against a repository's own code (issue 12): the frame that runs the page and
 * latest.js in the webview has its own policy and nonce, with no address to load anything from.
 * (Reading the page file itself: test/integration/preview-page-file.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frameCsp, makeFrameNonce, webviewCsp, withCsp } from '../../src/preview/csp.js';
import { framePage } from '../../src/preview/page.js';

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
