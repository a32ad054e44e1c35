/**
 * The embedding model runs on onnxruntime where its native library ships and loads, and on tfjs's
 * wasm backend where it does not (src/search/embeddings/useLiteWorker.ts). Checked on the bundled
 * build (what the extension and the command line run) and on two copies of it: one without
 * onnxruntime (a platform it is not shipped for) and one whose library is damaged (a system it
 * does not load on). Each answers a search by meaning and says in get_status what ran the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../support/server.js';
import { tempDir } from '../support/tmp.js';
import { mathClamp } from '../support/atoms.js';

const DIST = dirname(CLI);
const ORT_LIBRARY = join('onnxruntime', 'bin', 'napi-v6', process.platform, process.arch);

/** dist/ copied, without onnxruntime or with its native files damaged. */
function distCopy(onnx: 'absent' | 'damaged'): string {
  const dir = tempDir(`atomic-dist-${onnx}-`);
  cpSync(DIST, dir, { recursive: true, filter: (src) => onnx === 'damaged' || !src.slice(DIST.length).startsWith(`${sep}onnxruntime`) });
  if (onnx === 'damaged') {
    for (const file of ['onnxruntime_binding.node', process.platform === 'linux' ? 'libonnxruntime.so.1' : 'onnxruntime.dll']) {
      writeFileSync(join(dir, ORT_LIBRARY, file), 'not a library');
    }
  }
  return join(dir, 'cli.js');
}

/** A server of that build on a new workspace: one atom written, searched by meaning, then get_status. */
async function searchWith(cli: string): Promise<{ search: string; status: string; stderr: string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', '--stdio', '--workspace', tempDir('atomic-runtime-ws-')], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'runtime-test', version: '1.0.0' });
  await client.connect(transport);
  const text = (r: unknown) => ((r as { content: Array<{ text: string }> }).content[0]?.text ?? '');
  try {
    await client.callTool({ name: 'upsert_atom', arguments: { ...mathClamp } });
    const ask = async () => text(await client.callTool({ name: 'semantic_search', arguments: { query: 'keep a number inside its limits' } }));
    let search = await ask();
    // A search that finds the model still starting answers by words and starts it: the next uses meaning.
    for (let i = 0; i < 40 && /the search model is still starting/.test(search); i++) {
      await new Promise((r) => setTimeout(r, 500));
      search = await ask();
    }
    const status = text(await client.callTool({ name: 'get_status', arguments: {} }));
    return { search, status, stderr };
  } finally {
    await client.close();
  }
}

test('the bundled build runs the model on onnxruntime', async () => {
  const { search, status } = await searchWith(CLI);
  assert.match(search, /math_clamp/);
  assert.doesNotMatch(search, /ranked by words/i);
  assert.match(status, /^Embedding model: running in its own process \(pid \d+\) on onnxruntime,/m);
});

test('without onnxruntime for this platform the model runs on tfjs, quietly', async () => {
  const { search, status, stderr } = await searchWith(distCopy('absent'));
  assert.match(search, /math_clamp/);
  assert.doesNotMatch(search, /ranked by words/i);
  assert.match(status, /on tfjs's wasm backend \(slower: onnxruntime is not available here\)/);
  assert.doesNotMatch(stderr, /onnxruntime/);
});

test('an onnxruntime library that does not load leaves the model on tfjs, and the log says why', async () => {
  const { search, status, stderr } = await searchWith(distCopy('damaged'));
  assert.match(search, /math_clamp/);
  assert.doesNotMatch(search, /ranked by words/i);
  assert.match(status, /on tfjs's wasm backend/);
  assert.match(stderr, /useLiteWorker: onnxruntime did not load \(.+\); the model runs on tfjs's wasm backend/);
});
