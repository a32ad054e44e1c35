import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { validateDraft } from '../../src/atoms/validate.js';
import { createBundle } from '../../src/bundle/bundler.js';
import { PreviewServer, type BrowserReport } from '../../src/preview/previewServer.js';
import { cube } from '../support/atoms.js';
import { tempDir } from '../support/tmp.js';

const toAtom = (d: AtomDraft): Atom => ({ ...validateDraft(d), version: 1, created_at: 't', updated_at: 't' });

/** A raw request, so the Host header can be anything (fetch does not let a test set it). */
function raw(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

async function withServer(page: string | null, run: (server: PreviewServer, bundlePath: string) => Promise<void>): Promise<void> {
  const dir = tempDir('atomic-preview-');
  const bundlePath = join(dir, 'latest.js');
  writeFileSync(bundlePath, createBundle(cube.map(toAtom)).code);
  const server = await PreviewServer.start({ bundle: () => readFileSync(bundlePath, 'utf8'), page: () => page });
  try {
    await run(server, bundlePath);
  } finally {
    await server.close();
  }
}

test('serves the page with the prelude and the bundle, on 127.0.0.1 only', async () => {
  await withServer(null, async (server, bundlePath) => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
    const base = new URL(server.url).pathname;
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.ok(html.includes(`new EventSource("${base}events")`));
    assert.ok(html.includes(`<iframe id="frame" title="Preview of latest.js" sandbox="allow-scripts" src="${base}frame.html?v=0"></iframe>`), 'the bundle runs in a sandboxed frame');
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'sha256-[^']+'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self';/);
    const frame = await fetch(new URL('frame.html', server.url));
    assert.equal(frame.headers.get('content-security-policy'), 'sandbox allow-scripts');
    const frameHtml = await frame.text();
    assert.match(frameHtml, /<canvas id="game"/);
    assert.ok(frameHtml.includes((await import('node:fs')).readFileSync(bundlePath, 'utf8')), 'with the bundle inline');
    const js = await fetch(new URL('latest.js', server.url));
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await js.text(), (await import('node:fs')).readFileSync(bundlePath, 'utf8'));
    assert.equal((await fetch(new URL('nope', server.url))).status, 404);
    // DNS rebinding: another host name pointing at 127.0.0.1 is refused.
    assert.equal(await raw(server.port, base, `evil.example:${server.port}`), 403);
    assert.equal(await raw(server.port, base, `localhost:${server.port}`), 200);
  });
});

test("uses the workspace's own page", async () => {
  await withServer('<html><head></head><body><div id="mine"></div><script src="latest.js"></script></body></html>', async (server) => {
    const html = await (await fetch(new URL('frame.html', server.url))).text();
    assert.match(html, /<div id="mine"><\/div><script>\(function\(w\)[^\n]*\/\/ === Atomic Coding Bundle ===/, 'the bundle where the page loads latest.js, inline');
    assert.ok(html.indexOf("source: 'atomic-preview'") < html.indexOf('id="mine"'), 'the prelude first');
  });
});

test('pushes reload after a successful build and the error of a failed one', async () => {
  await withServer(null, async (server) => {
    const controller = new AbortController();
    const res = await fetch(new URL('events', server.url), { signal: controller.signal });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value);
      }
    };
    await readUntil(': atomic coding preview');
    while (server.listeners === 0) await new Promise((r) => setTimeout(r, 5));
    server.notifyBuild({ status: 'success', error: null });
    await readUntil('event: reload');
    server.notifyBuild({ status: 'error', error: 'build failed: a cycle' });
    await readUntil('event: buildFailed\ndata: {"error":"build failed: a cycle"}');
    controller.abort();
    // A page that connects after a failed build is told at once.
    const again = await fetch(new URL('events', server.url));
    const first = await again.body!.getReader().read();
    assert.match(decoder.decode(first.value), /buildFailed|atomic coding preview/);
    await again.body!.cancel().catch(() => {});
  });
});

test('a console report from the page is mapped to the atom of its stack frame', async () => {
  await withServer(null, async (server, bundlePath) => {
    const code = (await import('node:fs')).readFileSync(bundlePath, 'utf8');
    const line = code.split('\n').findIndex((l) => l.includes('function player_jump(')) + 2;
    const reports: BrowserReport[] = [];
    server.onDidReport((r) => reports.push(r));
    const own = new URL(server.url).origin;
    const post = (body: unknown, origin = own) =>
      fetch(new URL('log', server.url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: origin },
        body: JSON.stringify(body),
      });
    // The page holds the bundle inline without a sourceURL (a debugger needs that, page.ts inlineBundleTag):
    // its frames name frame.html and count the page's lines, the prelude's above the bundle's.
    const frame = await (await fetch(new URL('frame.html?v=0', server.url))).text();
    const pageLine = frame.split('\n').findIndex((l) => l.includes('function player_jump(')) + 2;
    assert.ok(pageLine > line, 'the bundle is below the prelude in the page');
    const ok = await post({ source: 'atomic-preview', kind: 'console', level: 'warn', text: 'low', stack: `Error\n at console.warn (${server.url}frame.html?v=0:40:7)\n at player_jump (${server.url}frame.html?v=0:${pageLine}:3)` });
    assert.equal(ok.status, 204);
    assert.deepEqual(reports, [{ kind: 'console', level: 'warn', text: 'low', atom: 'player_jump', line, atomLine: 2 }]);
    const err = await post({ source: 'atomic-preview', kind: 'error', message: 'Uncaught boom', stack: null, line: pageLine });
    assert.equal(err.status, 204);
    assert.equal(reports[1]!.kind === 'error' && reports[1]!.message, 'Uncaught boom');
    assert.equal(reports[1]!.atom, 'player_jump');
    assert.equal((await post({ kind: 'console' })).status, 400);
    assert.equal((await post({ source: 'atomic-preview', kind: 'console', level: 'eval', text: 'x', stack: null })).status, 400);
    assert.equal((await post({ source: 'atomic-preview', kind: 'error', message: 'x' }, 'http://evil.example')).status, 403);
    assert.equal(reports.length, 2);
  });
});
