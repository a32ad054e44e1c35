/**
 * The sandbox's worker thread: compiles the QuickJS wasm once, then runs one request at a time
 * in a fresh engine instance. It lives in a thread of its own so a run never blocks the host's
 * event loop, and so the host can terminate it outright when a long native operation inside the
 * engine does not return at the deadline.
 *
 * Messages in: { id, request }. Messages out: { type: 'ready' }, { id, type: 'log', entry },
 * { id, type: 'done', outcome }, { id, type: 'crash', message }.
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { Engine, type SettledRequest } from './engine.js';
import { quickjsWasmPath } from './paths.js';

export interface RunMessage {
  id: number;
  request: SettledRequest;
}

const port = parentPort;
if (!port) throw new Error('src/sandbox/worker.ts runs only as a worker thread');
// The host's stdout may be the MCP stdio channel, and the host never reads ours (sandbox.ts):
// anything printed here goes to stderr.
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const engine = Engine.compile(readFileSync(quickjsWasmPath()));
engine.then(
  () => port.postMessage({ type: 'ready' }),
  (err: unknown) => port.postMessage({ type: 'crash', id: -1, message: `cannot load QuickJS: ${String(err)}` }),
);

let queue: Promise<void> = Promise.resolve();
port.on('message', (message: RunMessage) => {
  queue = queue.then(async () => {
    try {
      const outcome = await (await engine).run(message.request, (entry) => port.postMessage({ id: message.id, type: 'log', entry }));
      port.postMessage({ id: message.id, type: 'done', outcome });
    } catch (err) {
      port.postMessage({ id: message.id, type: 'crash', message: err instanceof Error ? err.message : String(err) });
    }
  });
});
