/**
 * `npm run bench`: runs every `test/bench/*.bench.ts` in turn and writes what they measured to
 * bench-results/results.json and bench-results/results.md (also printed).
 *
 *   npm run bench                     every module, full sizes (100, 1,000 and 10,000 atoms)
 *   npm run bench -- --quick          smaller sizes and fewer iterations (also BENCH_QUICK=1)
 *   npm run bench -- tools scale      only the modules whose file name contains one of the words
 *                                     (the other modules' last results are kept in the files)
 *
 * A module default-exports `async (options) => BenchSection | BenchSection[]` (report.ts). The
 * machine is shared, so modules report ratios measured side by side, not absolute promises.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { sectionMarkdown, type BenchModule, type BenchOptions, type BenchSection } from './report.js';
import { RESULTS_DIR } from './workspaces.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1';
  if (quick) process.env.BENCH_QUICK = '1';
  const only = args.filter((a) => !a.startsWith('--'));
  const options: BenchOptions = { quick, log: (m) => process.stderr.write(`${m}\n`) };

  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((w) => f.includes(w)))
    .sort();
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`;
  const results = previousResults();
  const failures: string[] = [];
  for (const file of files) {
    options.log(`\n== ${file}${quick ? ' (quick)' : ''}`);
    const started = performance.now();
    try {
      const mod = (await import(join(__dirname, file))) as { default: BenchModule | { default: BenchModule } };
      // tsx may wrap a CommonJS module's default export once more.
      const run = typeof mod.default === 'function' ? mod.default : mod.default.default;
      const result = await run(options);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      results.modules[file] = { at: new Date().toISOString(), quick, machine, seconds, sections: Array.isArray(result) ? result : [result] };
      options.log(`== ${file} done in ${seconds} s`);
    } catch (err) {
      failures.push(`${file}: ${(err as Error).stack ?? err}`);
      options.log(`== ${file} FAILED: ${(err as Error).stack ?? err}`);
    }
  }

  const header = [
    '# Atomic Coding benchmarks',
    '',
    'Times are round trips through the official MCP SDK client; ratios are to a no-op tool measured in the same run on the same server and transport.',
    '',
  ].join('\n');
  // Sections of the first-format run that a module has measured again since are left out.
  const earlier = results.modules['(an earlier run)'];
  if (earlier) {
    const newer = new Set(Object.entries(results.modules).filter(([k]) => k !== '(an earlier run)').flatMap(([, m]) => m.sections.map((s) => s.title)));
    earlier.sections = earlier.sections.filter((s) => !newer.has(s.title));
    if (earlier.sections.length === 0) delete results.modules['(an earlier run)'];
  }
  const ordered = Object.keys(results.modules).sort();
  const markdown =
    header +
    ordered
      .map((file) => {
        const m = results.modules[file]!;
        const when = `_${file}: ${m.at} on ${m.machine}${m.quick ? ', quick mode (smaller sizes, fewer iterations)' : ''}${Number.isFinite(m.seconds) ? `, ${m.seconds} s` : ''}._\n\n`;
        return when + m.sections.map(sectionMarkdown).join('\n');
      })
      .join('\n') +
    (failures.length ? `\n## Failed in the last run\n\n${failures.map((f) => `- ${f.split('\n')[0]}`).join('\n')}\n` : '');
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'results.json'), JSON.stringify({ ...results, failures }, null, 2) + '\n');
  writeFileSync(join(RESULTS_DIR, 'results.md'), markdown);
  process.stdout.write(markdown);
  if (failures.length) process.exitCode = 1;
}

interface ModuleResult {
  at: string;
  quick: boolean;
  machine: string;
  seconds: number;
  sections: BenchSection[];
}

/** The results file as the last runs left it: each module's newest sections. */
function previousResults(): { modules: Record<string, ModuleResult> } {
  const file = join(RESULTS_DIR, 'results.json');
  try {
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { modules?: Record<string, ModuleResult> } & Partial<ModuleResult>;
      if (parsed.modules) return { modules: parsed.modules };
      // The first format: one run's sections, not grouped by module.
      if (parsed.sections && parsed.at && parsed.machine) {
        const earlier: ModuleResult = { at: parsed.at, quick: parsed.quick ?? false, machine: parsed.machine, seconds: NaN, sections: parsed.sections };
        return { modules: { '(an earlier run)': earlier } };
      }
    }
  } catch {} // unreadable: start afresh
  return { modules: {} };
}

void main();
