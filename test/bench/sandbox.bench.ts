/**
 * What a run_atom costs in the sandbox itself: the first run (starting the worker and compiling
 * QuickJS), then warm runs, each in a fresh engine instance, for an atom alone and with a chain
 * of dependencies. Measured in-process on the sandbox API; the MCP round trip adds the same
 * floor as any tool (tools.bench.ts).
 */
import { AtomSandbox } from '../../src/sandbox/sandbox.js';
import type { SourceAtom } from '../../src/sandbox/types.js';
import { ms, summarize, type BenchOptions, type BenchSection } from './report.js';

function chain(length: number): SourceAtom[] {
  const atoms: SourceAtom[] = [{ name: 'step_0', code: 'function step_0(x) {\n  return x + 1;\n}' }];
  for (let i = 1; i < length; i++) {
    atoms.push({ name: `step_${i}`, code: `function step_${i}(x) {\n  const y = step_${i - 1}(x) * 2;\n  return y % 1000003;\n}` });
  }
  return atoms;
}

export default async function sandboxBench(options: BenchOptions): Promise<BenchSection> {
  const iterations = options.quick ? 30 : 100;
  const rows: BenchSection['rows'] = [];
  const sandbox = new AtomSandbox();
  try {
    const cold = performance.now();
    const first = await sandbox.run({ atoms: chain(1), entry: 'step_0', args: [1] });
    if (!first.ok) throw new Error(JSON.stringify(first));
    rows.push({ case: 'first run (worker start + QuickJS compile)', atoms: 1, n: 1, 'p50 ms': ms(performance.now() - cold), 'p95 ms': '', 'engine ms p50': ms(first.ms) });
    for (const length of [1, 20, 200]) {
      const atoms = chain(length);
      const entry = `step_${length - 1}`;
      const wall: number[] = [];
      const engine: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const t = performance.now();
        const outcome = await sandbox.run({ atoms, entry, args: [i] });
        if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
        wall.push(performance.now() - t);
        engine.push(outcome.ms);
      }
      const w = summarize(wall);
      rows.push({ case: 'warm run (fresh instance each)', atoms: length, n: w.n, 'p50 ms': ms(w.p50), 'p95 ms': ms(w.p95), 'engine ms p50': ms(summarize(engine).p50) });
    }
  } finally {
    await sandbox.dispose();
  }
  return {
    title: 'run_atom sandbox cost',
    rows,
    notes: [
      '"p50/p95 ms" is the whole run as the tool sees it (message to the worker, a fresh WebAssembly instance with its own capped memory, evaluation, the call, the answer); "engine ms" is evaluation and call alone, as reported to the agent.',
      'A fresh instance per run is the price of a real memory cap and of leaving nothing behind between runs.',
    ],
  };
}

/** `node --import tsx test/bench/sandbox.bench.ts [--quick]`: this section alone. */
if (require.main === module) {
  void sandboxBench({ quick: process.argv.includes('--quick'), log: (m) => process.stderr.write(`${m}\n`) }).then((section) =>
    process.stdout.write(`${JSON.stringify(section.rows, null, 1)}\n`),
  );
}
