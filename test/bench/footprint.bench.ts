/**
 * What the server costs its host (issue 15): resident memory of the server process after opening,
 * after searches and at its peak, the embedding model's process apart, the files on disk (with the
 * database's bytes per table), and cold open. At 1,000, 10,000 and 50,000 atoms; at 50,000 also
 * the round trips the issue sets targets for (read_atoms of 5 against the no-op, semantic_search,
 * upsert_atom).
 *
 * Workspaces carry synthetic vectors (syntheticWorkspaces.ts), so a 50,000-atom run takes minutes,
 * not hours; queries are embedded by the real model. With BENCH_BASELINE_CLI=<another dist/cli.js>
 * (say, a build of the last release) each size is measured on both servers, one after the other on
 * fresh copies of the same workspace, so the figures stand side by side in one run.
 *
 * This build starts the way an agent's configuration starts it (agentConfig.ts: NODE_FLAGS, and on
 * Linux /usr/bin/env with glibc's huge pages), then once more as `node cli.js` alone (V8's defaults,
 * no huge pages: as in VS Code's extension host), to show those options' share.
 *
 *   BENCH_SIZES=50000 npm run bench -- footprint
 *   BENCH_BASELINE_CLI=/tmp/before/dist/cli.js npm run bench -- footprint
 *   BENCH_BASELINE_CLI=... BENCH_BASELINE_FLAGS='--max-semi-space-size=16' npm run bench -- footprint
 *     (the baseline started with the Node options it shipped with; default: `node NODE_FLAGS cli.js`)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import { loadSqlJs } from '../../src/store/sqlite.js';
import { agentLaunch, CLI, connectStdio, launchText, paired, plainLaunch, peakResidentBytes, residentBytes, timedCall, type Connected, type Launch } from './harness.js';
import { bytes, ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { newAtom, seeded } from './generate.js';
import { prepareSynthetic, prepareUpgraded } from './syntheticWorkspaces.js';
import type { PreparedWorkspace } from './workspaces.js';
import { NODE_FLAGS } from '../../src/util/nodeFlags.js';

const MiB = 2 ** 20;
const QUERIES = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);

/**
 * The targets, by size: MiB for memory and disk, ms for times. `startMs`: start to the
 * tools/list answer ("cold open to first tools/list answer"); `openMs`: start to the first tool
 * answer, which waits for the workspace's open ("50,000 atoms: open ≤ 2 s").
 */
const TARGETS: Record<number, { peak?: number; open?: number; footprint?: number; disk?: number; startMs?: number; openMs?: number }> = {
  1000: { peak: 150 },
  10_000: { open: 200, peak: 300, footprint: 500, disk: 50, startMs: 400 },
  50_000: { peak: 600, openMs: 2000 },
};
/** Issue 15's targets at 50,000 atoms, and issue 36's for a creation there. */
const LARGE = { readRatio: 2, searchP50: 150, upsertP50: 60, createP50: 60 };

interface Build {
  label: string;
  cli: string;
  /** Its command line up to `serve --stdio` (agentLaunch, as agents start the server). */
  launch: Launch;
}

export default async function footprintBench(options: BenchOptions): Promise<BenchSection[]> {
  const sizes = footprintSizes(options);
  const builds: Build[] = [
    { label: 'this build', cli: CLI, launch: agentLaunch(CLI) },
    { label: 'this build, V8 defaults', cli: CLI, launch: plainLaunch(CLI, []) },
  ];
  const baseline = process.env.BENCH_BASELINE_CLI;
  if (baseline) {
    if (!existsSync(baseline)) throw new Error(`BENCH_BASELINE_CLI=${baseline} does not exist: point it at another build's dist/cli.js`);
    const flags = process.env.BENCH_BASELINE_FLAGS?.split(/\s+/).filter(Boolean) ?? NODE_FLAGS;
    builds.push({ label: flags === NODE_FLAGS ? 'baseline' : `baseline (${flags.join(' ') || 'V8 defaults'})`, cli: baseline, launch: plainLaunch(baseline, flags) });
  }
  const memory: Record<string, string | number>[] = [];
  const disk: Record<string, string | number>[] = [];
  const large: Record<string, string | number>[] = [];
  for (const size of sizes) {
    for (const build of builds) {
      options.log(`-- ${size} atoms, ${build.label}`);
      // Each build measures a workspace it has opened before, as a user's is: this build's copy is
      // migrated and sealed (cached); the baseline's is opened once by the baseline server first
      // (it writes the text tree, atoms/, on a first open). Both are opened once by their own
      // server before the measured open, so the text tree's records are that build's own (a copy
      // has new inodes, and this build's records vouch for a file by its size, mtime and inode).
      const ws = build.cli === CLI ? await prepareUpgraded(size, options.log) : await prepareSynthetic(size, options.log);
      try {
        await firstOpen(ws, build);
        const before = await filesOf(ws.dir);
        if (build === builds[0]) disk.push({ atoms: size, ...before.row, target: verdictMiB(before.total, TARGETS[size]?.disk) });
        const result = await measure(ws, size, build, options);
        memory.push(result.memory);
        large.push(...result.large);
      } finally {
        ws.remove();
      }
    }
  }
  return [
    {
      title: 'Footprint: the server process and the model process, apart',
      rows: memory,
      notes: [
        'start → tools/list: from spawning the server to its tools/list answer; start → first get_status: to the answer of the first tool call, which waits for the workspace to open (a server may list its tools before).',
        `This build starts as an agent's configuration starts it: ${launchText(agentLaunch(CLI), CLI)} (agentConfig.ts, util/nodeFlags.ts); "V8 defaults" is this build as node cli.js serve --stdio alone (no options, no huge pages: as in VS Code's extension host); a baseline starts as node ${NODE_FLAGS.join(' ')} cli.js unless BENCH_BASELINE_FLAGS gives its own options.`,
        'RSS: resident memory of the server process (/proc VmRSS) after that first get_status (the workspace open), after the searches; peak = VmHWM over its life. The model process (a child started by the first search that embeds a query) is measured apart; footprint = server peak + model peak (an upper bound: the peaks need not coincide). A baseline (BENCH_BASELINE_CLI) from before the model had its own process shows its model inside the server figures.',
        `targets (issue 15): server peak after searches ≤ 150 MiB at 1,000 atoms; at 10,000 RSS after open ≤ 200, peak ≤ 300, footprint ≤ 500 MiB, start ≤ 400 ms; at 50,000 peak ≤ 600 MiB, open ≤ 2 s.`,
      ],
    },
    {
      title: 'Footprint: .atomic/ on disk (this build)',
      rows: disk,
      notes: [
        'Per table: the bytes its rows hold (sum of the columns\' lengths, without SQLite\'s page and index overhead, which the file size includes). The vectors are in vectors.bin (schema 3); the embedding_slots table names the slot of each atom; the embeddings table, where schema 2 kept them, stays empty.',
        'target (issue 15): .atomic/ ≤ 50 MiB at 10,000 atoms.',
      ],
    },
    ...(large.length
      ? [
          {
            title: 'Round trips at 50,000 atoms (stdio)',
            rows: large,
            notes: [
              `targets (issue 15): read_atoms of 5 ≤ ${LARGE.readRatio}× the no-op, semantic_search p50 ≤ ${LARGE.searchP50} ms, upsert_atom (an update) p50 ≤ ${LARGE.upsertP50} ms; (issue 36) a creation p50 ≤ ${LARGE.createP50} ms.`,
              'Each call is timed right after a no-op call on the same server (interleaved), so the ratio holds under load from other processes.',
            ],
          },
        ]
      : []),
  ];
}

/** 1,000, 10,000 and 50,000 atoms (quick: 1,000; BENCH_SIZES=a,b overrides). */
function footprintSizes(options: { quick: boolean }): number[] {
  const override = process.env.BENCH_SIZES?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  if (override?.length) return override;
  return options.quick ? [1000] : [1000, 10_000, 50_000];
}

/**
 * Starts `build`'s server on the workspace, waits for its first tool answer (the open done: a
 * server may list its tools before) and stops it, so the measured open is a second, clean one.
 */
async function firstOpen(ws: PreparedWorkspace, build: Build): Promise<void> {
  const server = await connectStdio(build.launch.command, [...build.launch.args, '--log-level', 'warn', '--workspace', ws.dir], {});
  try {
    await timedCall(server.client, 'get_status', {});
  } finally {
    await server.close();
  }
}

async function measure(ws: PreparedWorkspace, size: number, build: Build, options: BenchOptions) {
  const started = performance.now();
  const server = await connectStdio(build.launch.command, [...build.launch.args, '--bench-tools', '--log-level', 'warn', '--workspace', ws.dir], {}, started);
  const target = TARGETS[size] ?? {};
  const row: Record<string, string | number> = { atoms: size, server: build.label, 'start → tools/list ms': ms(server.startMs) };
  const large: Record<string, string | number>[] = [];
  try {
    // A server may list its tools before the workspace has opened; the first tool call waits for it.
    const status = await timedCall(server.client, 'get_status', {});
    if (status.isError) throw new Error(`get_status failed: ${status.text}`);
    const openMs = performance.now() - started;
    row['start → first get_status ms'] = ms(openMs);
    const afterOpen = residentBytes(server.pid);
    row['RSS after open'] = bytes(afterOpen);
    const searches = options.quick ? 5 : 10;
    for (let i = 0; i < searches; i++) {
      const r = await timedCall(server.client, 'semantic_search', { query: QUERIES[i % QUERIES.length]! });
      if (r.isError) throw new Error(`semantic_search failed: ${r.text}`);
    }
    row['RSS after searches'] = bytes(residentBytes(server.pid));
    if (size >= 50_000) large.push(...(await roundTrips(server, ws, size, build, options)));
    const peak = peakResidentBytes(server.pid);
    row['server peak'] = bytes(peak);
    const model = childrenOf(server.pid).map((pid) => peakResidentBytes(pid)).filter(Number.isFinite);
    const modelPeak = model.reduce((a, b) => a + b, 0);
    row['model process peak'] = model.length ? bytes(modelPeak) : '(none: in the server)';
    row['footprint peak'] = bytes(peak + modelPeak);
    row.targets = [
      target.open !== undefined ? `open ${verdictMiB(afterOpen, target.open)}` : '',
      target.peak !== undefined ? `peak ${verdictMiB(peak, target.peak)}` : '',
      target.footprint !== undefined ? `footprint ${verdictMiB(peak + modelPeak, target.footprint)}` : '',
      target.startMs !== undefined ? `start ${server.startMs <= target.startMs ? 'met' : 'MISSED'} (≤${target.startMs} ms)` : '',
      target.openMs !== undefined ? `open ${openMs <= target.openMs ? 'met' : 'MISSED'} (≤${target.openMs} ms to the first tool answer)` : '',
    ]
      .filter(Boolean)
      .join(', ');
  } finally {
    await server.close();
  }
  return { memory: row, large };
}

async function roundTrips(server: Connected, ws: PreparedWorkspace, size: number, build: Build, options: BenchOptions) {
  const random = seeded(size);
  const atoms = ws.set.atoms;
  const pick = () => atoms[Math.floor(random() * atoms.length)]!;
  const noop = { name: 'bench_noop', args: {} };
  const n = options.quick ? 10 : 30;
  const cases = [
    { label: 'read_atoms (5)', name: 'read_atoms', args: () => ({ names: Array.from({ length: 5 }, () => pick().name) }), check: (p50: number, floor: number) => p50 / floor <= LARGE.readRatio, target: `≤${LARGE.readRatio}× no-op` },
    { label: 'semantic_search', name: 'semantic_search', args: (i: number) => ({ query: `${QUERIES[i % QUERIES.length]} ${i}` }), check: (p50: number) => p50 <= LARGE.searchP50, target: `≤${LARGE.searchP50} ms` },
    {
      label: 'upsert_atom (update)',
      name: 'upsert_atom',
      args: (i: number) => {
        const atom = pick();
        return { ...atom, code: atom.code.replace(/\n}\n$/, `\n  // edit ${i}\n}\n`) };
      },
      check: (p50: number) => p50 <= LARGE.upsertP50,
      target: `≤${LARGE.upsertP50} ms`,
    },
    {
      // A new atom that calls an existing one: the bundle's order changes, its callers are looked for.
      label: 'upsert_atom (creation)',
      name: 'upsert_atom',
      args: (i: number) => ({ ...newAtom(`bench_created_atom_${i}`, atoms[i % atoms.length]!.name) }),
      check: (p50: number) => p50 <= LARGE.createP50,
      target: `≤${LARGE.createP50} ms (issue 36)`,
    },
  ];
  const rows: Record<string, string | number>[] = [];
  for (const c of cases) {
    options.log(`   ${c.label}`);
    const timing = await paired(server.client, { name: c.name, args: c.args }, noop, n);
    const t = summarize(timing.tool);
    const b = summarize(timing.base);
    rows.push({
      atoms: size,
      server: build.label,
      tool: c.label,
      n: t.n,
      'p50 ms': ms(t.p50),
      'p95 ms': ms(t.p95),
      'no-op p50 ms': ms(b.p50),
      'ratio p50': ratio(t.p50, b.p50),
      target: `${c.check(t.p50, b.p50) ? 'met' : 'MISSED'} (${c.target})`,
    });
  }
  return rows;
}

function verdictMiB(value: number, targetMiB: number | undefined): string {
  if (targetMiB === undefined) return '';
  return `${value <= targetMiB * MiB ? 'met' : 'MISSED'} (≤${targetMiB} MiB)`;
}

/** Direct children of a process (Linux /proc), e.g. the embedding model's process. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** .atomic/'s files, and the bytes each table of atoms.db holds. */
async function filesOf(dir: string) {
  const atomic = join(dir, '.atomic');
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  const folder = (d: string): number =>
    existsSync(d) ? readdirSync(d, { withFileTypes: true }).reduce((sum, e) => sum + (e.isDirectory() ? folder(join(d, e.name)) : size(join(d, e.name))), 0) : 0;
  const total = folder(atomic);
  const row: Record<string, string | number> = {
    '.atomic/': bytes(total),
    'atoms.db': bytes(size(join(atomic, 'atoms.db'))),
    'vectors.bin': bytes(size(join(atomic, 'vectors.bin'))),
    'latest.js': bytes(size(join(atomic, 'latest.js'))),
    journal: bytes(size(join(atomic, 'atoms.journal'))),
  };
  const dbFile = join(atomic, 'atoms.db');
  if (existsSync(dbFile)) {
    const SQL = await loadSqlJs();
    const db = new SQL.Database(readFileSync(dbFile));
    try {
      const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")[0]?.values.map((v) => String(v[0])) ?? [];
      for (const table of tables) {
        const columns = db.exec(`SELECT name FROM pragma_table_info('${table}')`)[0]?.values.map((v) => String(v[0])) ?? [];
        const sum = columns.map((c) => `COALESCE(SUM(length(CAST("${c}" AS BLOB))), 0)`).join(' + ');
        const [count, payload] = db.exec(`SELECT COUNT(*), ${sum || 0} FROM "${table}"`)[0]!.values[0]! as number[];
        row[`${table} (rows)`] = `${bytes(payload!)} (${count})`;
      }
    } finally {
      db.close();
    }
  }
  return { total, row };
}
