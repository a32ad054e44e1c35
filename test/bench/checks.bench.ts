/**
 * What the checks cost a write (issue 32): at 1,000 atoms, an upsert of an atom with three
 * examples against the same upsert of an atom without, alternating on one workspace; and an upsert
 * of a helper that twenty atoms with examples (and a test atom) depend on, whose answer waits for all
 * their runs. The sandbox's worker is warm after the first run; each example is one run in it.
 */
import { rmSync } from 'node:fs';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { AtomWorkspace } from '../../src/workspace.js';
import type { AtomDraft } from '../../src/atoms/model.js';
import { tempDir } from '../support/tmp.js';
import { upsertMany } from '../support/storeWrites.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { generateAtoms } from './generate.js';
import { ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';

const num = (name: string) => ({ name, type: 'number' as const });

function scale(name: string, factor: number, examples: boolean): AtomDraft {
  return {
    name,
    type: 'util',
    code: `function ${name}(x) {\n  return x * ${factor};\n}`,
    inputs: [num('x')],
    outputs: [num('y')],
    description: `Scales a number by ${factor}`,
    ...(examples ? { examples: [{ args: [1], returns: factor }, { args: [2], returns: 2 * factor }, { args: [0], returns: 0 }] } : {}),
  };
}

export default async function checksBench(options: BenchOptions): Promise<BenchSection> {
  const size = 1000;
  const iterations = options.quick ? 20 : 60;
  const dir = tempDir('atomic-checks-bench-');
  const rows: BenchSection['rows'] = [];
  try {
    const store = await AtomStore.open(dir);
    const { atoms } = generateAtoms(size);
    for (let i = 0; i < atoms.length; i += 500) await upsertMany(store, atoms.slice(i, i + 500));
    await store.close();
    const ws = await AtomWorkspace.open(dir, { embeddings: new KeywordOnlyProvider() });
    try {
      // A helper twenty atoms with examples use, and a test atom over them.
      await ws.upsert(scale('shared_factor', 3, false));
      const users: AtomDraft[] = [];
      for (let i = 0; i < 20; i++) {
        users.push({
          name: `uses_factor_${i}`,
          type: 'util',
          code: `function uses_factor_${i}(x) {\n  return shared_factor(x) + ${i};\n}`,
          inputs: [num('x')],
          outputs: [num('y')],
          examples: [{ args: [1], returns: 3 + i }, { args: [2], returns: 6 + i }],
        });
      }
      await ws.upsertMany(users);
      await ws.upsert({ name: 'test_factors', type: 'test', code: 'function test_factors() {\n  assert(uses_factor_0(1) === 3, "uses_factor_0(1)");\n}' });
      await ws.upsert(scale('with_examples', 9, true));
      await ws.upsert(scale('without_examples', 9, false));
      const times = { with: [] as number[], without: [] as number[], shared: [] as number[] };
      for (let i = 0; i < iterations + 5; i++) {
        const factor = 2 + (i % 2); // a real change every time
        let t = performance.now();
        const a = await ws.upsert({ ...scale('without_examples', factor, false) });
        const without = performance.now() - t;
        t = performance.now();
        const b = await ws.upsert({ ...scale('with_examples', factor, true) });
        const withEx = performance.now() - t;
        t = performance.now();
        await ws.upsert({ ...scale('shared_factor', 3, false), description: `Scales a number by 3 (${i})` });
        const shared = performance.now() - t;
        if (b.notes.checks?.length !== 3 || a.notes.checks) throw new Error(`the checks did not run as measured: ${JSON.stringify([a.notes.checks, b.notes.checks])}`);
        if (i >= 5) {
          times.without.push(without);
          times.with.push(withEx);
          times.shared.push(shared);
        }
      }
      const w = summarize(times.without);
      const e = summarize(times.with);
      const s = summarize(times.shared);
      rows.push(
        { atoms: size, write: 'upsert_atom, no examples', n: w.n, 'p50 ms': ms(w.p50), 'p95 ms': ms(w.p95), 'ratio p50': 1 },
        { atoms: size, write: 'upsert_atom, 3 examples', n: e.n, 'p50 ms': ms(e.p50), 'p95 ms': ms(e.p95), 'ratio p50': ratio(e.p50, w.p50) },
        { atoms: size, write: 'upsert of a helper 20 atoms with examples (41 checks) use', n: s.n, 'p50 ms': ms(s.p50), 'p95 ms': ms(s.p95), 'ratio p50': ratio(s.p50, w.p50) },
      );
    } finally {
      await ws.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: 'Checks: what examples and tests add to a write',
    rows,
    notes: [
      'In-process workspace (store, text tree, bundle, checks; search by words only), alternating the three writes, each a real change. Ratios are to the write without examples in the same run.',
    ],
  };
}

if (require.main === module) {
  void checksBench({ quick: process.argv.includes('--quick'), log: (m) => process.stderr.write(`${m}\n`) }).then((section) =>
    process.stdout.write(`${JSON.stringify(section, null, 2)}\n`),
  );
}
