/**
 * USE-lite's files as shipped (tfjs's format): model.json, whose manifest lists the weights in the
 * order of their bytes in the shards. Both runtimes read them (useLiteWorker.ts, useLiteOnnx.ts).
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** tfjs's model.json, as far as its weights go. */
export interface ModelJson {
  weightsManifest: Array<{ paths: string[]; weights: Array<{ name: string; shape: number[]; dtype: string; quantization?: unknown }> }>;
}

/** model.json and its shards, read into one buffer in the manifest's order. */
export interface ModelFiles {
  json: ModelJson;
  shards: Uint8Array;
}

/**
 * The model's files: model.json and its weight shards read into one buffer. tfjs's file handler
 * (@energetic-ai/core's) read each shard into a buffer of its own, then copied them all into one:
 * 27 MB more to copy, and to fault in, at every start of this process (a cold start to the first
 * vector went 1.0 → 0.85 s; a search's query waits for it).
 */
export async function readModelFiles(dir: string): Promise<ModelFiles> {
  const json = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as ModelJson;
  const paths = json.weightsManifest.flatMap((group) => group.paths);
  const files = await Promise.all(paths.map((path) => open(join(dir, path), 'r')));
  try {
    const sizes = await Promise.all(files.map(async (file) => (await file.stat()).size));
    const shards = new Uint8Array(sizes.reduce((sum, size) => sum + size, 0));
    let at = 0;
    for (let i = 0; i < files.length; i++) {
      const end = at + sizes[i]!;
      while (at < end) {
        const { bytesRead } = await files[i]!.read(shards, at, end - at, null);
        if (bytesRead === 0) throw new Error(`${paths[i]} is shorter than it was`);
        at += bytesRead;
      }
    }
    return { json, shards };
  } finally {
    await Promise.all(files.map((file) => file.close()));
  }
}

