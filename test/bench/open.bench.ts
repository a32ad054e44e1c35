/**
 * Cold open, step by step, in this process: the store (sql.js, the snapshot, the journal, the
 * in-memory model), the workspace (plus the bundle check), the search index (vectors loaded from
 * .atomic/vectors/) and the first search (the model's worker starts). Then the extension's
 * activation as last measured in real VS Code by the e2e harness, when a run left its report.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AtomStore } from '../../src/store/atomStore.js';
import { loadSqlJs } from '../../src/store/sqlite.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { ms, type BenchOptions, type BenchSection } from './report.js';
import { benchSizes, prepareWorkspace } from './workspaces.js';

export default async function openBench(options: BenchOptions): Promise<BenchSection[]> {
  const started = performance.now();
  await loadSqlJs();
  const sqlJsMs = performance.now() - started;
  const rows: Record<string, string | number>[] = [];
  for (const size of benchSizes(options)) {
    const ws = await prepareWorkspace(size, options.log);
    try {
      const t0 = performance.now();
      const store = await AtomStore.open(ws.dir);
      const storeMs = performance.now() - t0;
      await store.close();
      const t1 = performance.now();
      const workspace = await AtomWorkspace.open(ws.dir);
      const workspaceMs = performance.now() - t1;
      const t2 = performance.now();
      await workspace.search.open();
      const indexMs = performance.now() - t2;
      const t3 = performance.now();
      await workspace.search.search('move the player to the left');
      const firstSearchMs = performance.now() - t3;
      const t4 = performance.now();
      await workspace.search.search('collision between two boxes');
      const secondSearchMs = performance.now() - t4;
      await workspace.close();
      rows.push({
        atoms: size,
        'store open ms': ms(storeMs),
        'workspace open ms': ms(workspaceMs),
        'vector index loaded ms': ms(indexMs),
        'first search ms (model starts)': ms(firstSearchMs),
        'next search ms': ms(secondSearchMs),
      });
    } finally {
      ws.remove();
    }
  }
  const sections: BenchSection[] = [
    {
      title: 'Cold open, step by step (in process)',
      rows,
      notes: [
        `sql.js itself loads once per process in ${ms(sqlJsMs)} ms (not in the rows).`,
        'store open: read atoms.db, replay the journal, build the in-memory model. workspace open: the store, plus a check that latest.js is whole (it is rebuilt if not). The vector index then loads in the background; the embedding model starts in its worker on the first search or edit.',
      ],
    },
  ];
  const activation = lastActivationReport();
  if (activation) sections.push(activation);
  return sections;
}

/** The newest report of the real-VS-Code e2e harness (scripts/e2e/extension-tests.mjs), if any. */
function lastActivationReport(): BenchSection | undefined {
  const runs = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'atomic-coding-e2e', 'runs');
  if (!existsSync(runs)) return undefined;
  const reports = readdirSync(runs)
    .map((d) => join(runs, d, 'results.txt'))
    .filter((f) => existsSync(f) && /activate\(\) took/.test(readFileSync(f, 'utf8')))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const newest = reports[0];
  if (!newest) return undefined;
  const text = readFileSync(newest, 'utf8');
  const line = /activate\(\) took ([\d.]+) ms; store \+ server ready (\d+) ms/.exec(text);
  const load = /loading dist\/extension\.js \((\d+) KB\) takes ([\d.]+) ms/.exec(text);
  if (!line) return undefined;
  return {
    title: 'Extension activation (real VS Code, from the last e2e run)',
    rows: [
      {
        'activate() ms': Number(line[1]),
        'store + MCP server ready ms': Number(line[2]),
        ...(load ? { 'load dist/extension.js ms': Number(load[2]), 'extension.js KB': Number(load[1]) } : {}),
        measured: new Date(statSync(newest).mtimeMs).toISOString(),
      },
    ],
    notes: [
      `From ${newest} (written by \`node scripts/e2e/extension-tests.mjs\`, which runs the packaged extension in code-server). activate() only wires the parts; the store opens and the server starts after it returns.`,
    ],
  };
}
