/**
 * A process that opens a workspace whose atoms folder holds hostile files (a link to /dev/zero, a
 * FIFO, a large sparse file), for the text tree's safety tests: prints what the open took and
 * refused as one JSON line on stdout, then exits. Its memory is watched: past MEMORY_LIMIT_BYTES of
 * resident memory it exits with code 3 (a read without bounds), so the test can never take the
 * machine's memory; the parent bounds its time.
 */
import { AtomWorkspace } from '../../src/workspace.js';

const MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;

const watchdog = setInterval(() => {
  if (process.memoryUsage.rss() > MEMORY_LIMIT_BYTES) {
    process.stdout.write(JSON.stringify({ memory: process.memoryUsage.rss() }) + '\n');
    process.exit(3);
  }
}, 5);

async function main(): Promise<void> {
  const dir = process.argv[2]!;
  const workspace = await AtomWorkspace.open(dir, {
    embeddings: { modelId: 'none', dimensions: 1, embed: () => Promise.reject(new Error('no model')), dispose: async () => {} },
  });
  const result = { atoms: workspace.atoms.all().map((a) => a.name), problems: workspace.textTree!.problems().map(({ file, reason }) => ({ file, reason })) };
  await workspace.close();
  clearInterval(watchdog);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

void main();
