/**
 * The loopback preview server against other local processes and foreign web pages (issue 12): it
 * serves only under its secret path, marks every response same-origin only, and takes reports only
 * from its own page's origin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { PreviewServer, type BrowserReport, type ServedPage } from '../../src/preview/previewServer.js';
import { tempDir } from '../support/tmp.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch adds and forbids some). */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      // The event stream stays open: its first chunk is enough.
      const streaming = res.headers['content-type'] === 'text/event-stream';
      res.on('data', (chunk: string) => {
        text += chunk;
        if (streaming) res.destroy();
      });
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function withServer(page: () => ServedPage, run: (server: PreviewServer) => Promise<void>): Promise<void> {
  const bundlePath = join(tempDir('atomic-preview-security-'), 'latest.js');
  writeFileSync(bundlePath, 'function secret_atom() { return "bundle text"; }\n');
  const server = await PreviewServer.start({ bundle: () => readFileSync(bundlePath, 'utf8'), page });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

const report = JSON.stringify({ source: 'atomic-preview', kind: 'console', level: 'log', text: 'hello', stack: null });

test('the preview is served only under a secret path of 128 random bits; every other path is 404', async () => {
  await withServer(
    () => null,
    async (server) => {
      const base = new URL(server.url).pathname;
      assert.match(base, /^\/[0-9a-f]{32}\/$/, 'the address holds 32 hex digits');
      for (const path of ['/', '/index.html', '/latest.js', '/latest.js?v=0', '/events', `/${'0'.repeat(32)}/latest.js`, base.slice(0, -1), `${base.slice(0, -2)}/latest.js`]) {
        const answer = await send(server.port, 'GET', path);
        assert.equal(answer.status, 404, `${path} without the secret`);
        assert.doesNotMatch(answer.body, /secret_atom|<html/i, `${path} reveals nothing`);
      }
      assert.equal((await send(server.port, 'GET', `${base}latest.js`)).body, 'function secret_atom() { return "bundle text"; }\n');
      assert.equal((await send(server.port, 'GET', base)).status, 200);
      const other = await PreviewServer.start({ bundle: () => '', page: () => null });
      try {
        assert.notEqual(new URL(other.url).pathname, base, 'every start picks another secret');
      } finally {
        await other.close();
      }
    },
  );
});

test('every response says Cross-Origin-Resource-Policy: same-origin, so another origin cannot run latest.js', async () => {
  await withServer(
    () => null,
    async (server) => {
      const base = new URL(server.url).pathname;
      const answers = [
        await send(server.port, 'GET', base),
        await send(server.port, 'GET', `${base}latest.js`),
        await send(server.port, 'GET', `${base}events`),
        await send(server.port, 'GET', '/latest.js'),
        await send(server.port, 'GET', base, { Host: `evil.example:${server.port}` }),
        await send(server.port, 'POST', `${base}log`, { 'Content-Type': 'application/json' }, report),
      ];
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 404, 403, 403]);
      for (const a of answers) assert.equal(a.headers['cross-origin-resource-policy'], 'same-origin');
      for (const a of answers) assert.equal(a.headers['referrer-policy'], 'no-referrer');
    },
  );
});

test('a report without the preview\'s own Origin, or with another, is refused (403) and reaches nobody', async () => {
  await withServer(
    () => null,
    async (server) => {
      const reports: BrowserReport[] = [];
      server.onDidReport((r) => reports.push(r));
      const log = `${new URL(server.url).pathname}log`;
      const json = { 'Content-Type': 'application/json' };
      for (const headers of [json, { ...json, Origin: 'http://evil.example' }, { ...json, Origin: 'null' }, { ...json, Origin: `http://127.0.0.1:${server.port + 1}` }, { 'Content-Type': 'text/plain' }]) {
        const answer = await send(server.port, 'POST', log, headers, report);
        assert.equal(answer.status, 403, JSON.stringify(headers));
        assert.match(answer.body, /forbidden: reports are taken only from the preview's own page/);
      }
      assert.equal(reports.length, 0, 'no refused report was logged');
      assert.equal((await send(server.port, 'POST', log, { ...json, Origin: `http://127.0.0.1:${server.port}` }, report)).status, 204);
      assert.equal((await send(server.port, 'POST', log, { ...json, Origin: `http://localhost:${server.port}` }, report)).status, 204);
      assert.deepEqual(
        reports.map((r) => r.kind === 'console' && r.text),
        ['hello', 'hello'],
      );
    },
  );
});

test("the page talks to the server under the secret path; a refused page shows its reason and runs no bundle", async () => {
  await withServer(
    () => '<html><head></head><body><canvas id="game"></canvas><script src="latest.js"></script></body></html>',
    async (server) => {
      const base = new URL(server.url).pathname;
      const html = (await send(server.port, 'GET', base)).body;
      assert.ok(html.includes(`src="${base}frame.html?v=0"`));
      assert.ok(html.includes(`fetch("${base}log"`) && html.includes(`new EventSource("${base}events")`));
    },
  );
  await withServer(
    () => ({ refused: 'The preview page (atomicCoding.preview.page) "/etc/passwd" is outside the workspace folder /w <here>.' }),
    async (server) => {
      const base = new URL(server.url).pathname;
      assert.ok((await send(server.port, 'GET', base)).body.includes('EventSource'), 'it still reloads once the setting is fixed');
      const html = (await send(server.port, 'GET', `${base}frame.html`)).body;
      assert.match(html, /The preview page was not shown\./);
      assert.ok(html.includes('"/etc/passwd" is outside the workspace folder /w &lt;here&gt;.'), 'the reason, escaped');
      assert.doesNotMatch(html, /secret_atom/, 'no bundle runs in a refused page');
    },
  );
});

test('a bundle the builder will not hand out (outside the folder, or not a bundle) is served as a warning saying why', async () => {
  const server = await PreviewServer.start({
    bundle: () => {
      throw new Error('The bundle path (atomicCoding.bundle.outputPath) "/home/me/.bashrc" is outside the workspace folder </script>');
    },
    page: () => null,
  });
  try {
    const js = (await send(server.port, 'GET', `${new URL(server.url).pathname}latest.js`)).body;
    assert.equal(js, 'console.warn("The bundle path (atomicCoding.bundle.outputPath) \\"/home/me/.bashrc\\" is outside the workspace folder \\u003c/script>");\n');
  } finally {
    await server.close();
  }
});
