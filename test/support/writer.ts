/**
 * A writer process for crash tests: upserts atoms in a loop and prints `ack N` on stdout after
 * each write resolves (is durable). The parent kills it with SIGKILL at a random moment.
 * Compaction is forced often, so kills also land while the snapshot is being replaced.
 */
import { AtomStore } from '../../src/store/atomStore.js';
import { upsert } from './storeWrites.js';

async function main(): Promise<void> {
  const [dir, startArg] = process.argv.slice(2);
  const store = await AtomStore.open(dir!, { compactAfterEntries: 5 });
  let i = Number(startArg ?? '0');
  for (;;) {
    const name = `atom_${i}`;
    await upsert(store, {
      name,
      type: 'util',
      code: `function ${name}() {\n  return ${i} + ${JSON.stringify('x'.repeat(i % 500))}.length;\n}`,
      description: `Written by the crash test, number ${i}`,
    });
    await upsert(store, { name: 'counter', type: 'util', code: `function counter() { return ${i}; }` });
    process.stdout.write(`ack ${i}\n`);
    i++;
  }
}

void main();
