/**
 * The model process runs onnxruntime and falls back to tfjs from the first run that fails
 * (src/search/embeddings/fallbackRuns.ts): the failed request is answered, the fallback is loaded
 * once and said once, and what `runtime` reports follows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFallback, type ModelRuns } from '../../src/search/embeddings/fallbackRuns.js';

const vector = (x: number) => Float32Array.of(x);

function runs(runtime: ModelRuns['runtime'], run: ModelRuns['run']): ModelRuns & { calls: number } {
  const r = { runtime, calls: 0, run: (e: readonly number[][]) => (r.calls++, run(e)) };
  return r;
}

test('runs stay on the primary while it answers', async () => {
  const primary = runs('onnxruntime', async (e) => e.map((ids) => vector(ids.length)));
  let loads = 0;
  const said: string[] = [];
  const model = withFallback(primary, async () => (loads++, runs('tfjs', async () => [])), (m) => said.push(m));
  assert.deepEqual(await model.run([[1, 2], [3]]), [vector(2), vector(1)]);
  assert.equal(model.runtime, 'onnxruntime');
  assert.equal(loads, 0);
  assert.deepEqual(said, []);
});

test('the first failed run moves every run to the fallback, loaded and said once; the failed request is answered', async () => {
  const primary = runs('onnxruntime', async () => {
    throw new Error('External buffers are not allowed');
  });
  let loads = 0;
  const fallback = runs('tfjs', async (e) => e.map((ids) => vector(-ids.length)));
  const said: string[] = [];
  const model = withFallback(primary, async () => (loads++, fallback), (m) => said.push(m));
  // Two requests at once: both fail on the primary, one fallback serves both.
  const [a, b] = await Promise.all([model.run([[1]]), model.run([[1, 2, 3]])]);
  assert.deepEqual([a, b], [[vector(-1)], [vector(-3)]]);
  assert.equal(model.runtime, 'tfjs');
  assert.equal(loads, 1);
  assert.equal(said.length, 1);
  assert.match(said[0]!, /^onnxruntime failed a run \(External buffers are not allowed\)/);
  await model.run([[4]]);
  assert.equal(primary.calls, 2, 'the primary is not asked again');
  assert.equal(fallback.calls, 3);
});

test('a fallback that fails to load fails that request, and the next one loads it again', async () => {
  const primary = runs('onnxruntime', async () => {
    throw new Error('broken');
  });
  let loads = 0;
  const model = withFallback(
    primary,
    async () => {
      if (++loads === 1) throw new Error('tfjs wasm missing');
      return runs('tfjs', async (e) => e.map(() => vector(7)));
    },
    () => {},
  );
  await assert.rejects(model.run([[1]]), /tfjs wasm missing/);
  assert.deepEqual(await model.run([[1]]), [vector(7)]);
  assert.equal(loads, 2);
});
