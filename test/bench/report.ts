/**
 * What every benchmark module returns, and how sections are written: `test/bench/run.ts` runs
 * each `test/bench/*.bench.ts` (whose default export is `async (options) => BenchSection`) and
 * writes all sections to bench-results/results.json and results.md.
 */

export interface BenchSection {
  title: string;
  rows: Record<string, string | number>[];
  notes?: string[];
}

export interface BenchOptions {
  /** Smaller sizes and fewer iterations, for development (`--quick` or BENCH_QUICK=1). */
  quick: boolean;
  /** Progress lines (stderr; stdout is kept for the final table). */
  log(message: string): void;
}

export type BenchModule = (options: BenchOptions) => Promise<BenchSection | BenchSection[]>;

/** Percentile (0..100) of an unsorted sample, nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    mean: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length),
  };
}

/** Milliseconds with precision that fits their size. */
export function ms(value: number): number {
  if (!Number.isFinite(value)) return value;
  return value >= 100 ? Math.round(value) : value >= 10 ? Math.round(value * 10) / 10 : Math.round(value * 100) / 100;
}

export function ratio(value: number, base: number): number {
  return Math.round((value / base) * 100) / 100;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A GitHub-flavoured markdown table of the rows (columns in first-seen order). */
export function markdownTable(rows: readonly Record<string, string | number>[]): string {
  if (rows.length === 0) return '(no rows)';
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const cell = (v: string | number | undefined) => (v === undefined ? '' : String(v).replace(/\|/g, '\\|'));
  return [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${columns.map((c) => cell(row[c])).join(' | ')} |`),
  ].join('\n');
}

export function sectionMarkdown(section: BenchSection): string {
  const notes = section.notes?.length ? `\n\n${section.notes.map((n) => `- ${n}`).join('\n')}` : '';
  return `## ${section.title}\n\n${markdownTable(section.rows)}${notes}\n`;
}
