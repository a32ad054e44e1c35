/**
 * A start on an existing workspace, to the first search's answer (issue 38: ≤ 1 s at 10,000
 * atoms): `serve --stdio` spawned on a workspace this build opened and searched before (its
 * `.atomic/` there, every atom's vector stored, the user cache folder of that earlier start),
 * semantic_search called at once, timed from the spawn to the answer. The query waits for the
 * store's open, the vectors' reconcile, the full-text index (restored from its snapshot when one
 * was kept) and the model's process (started cold: its first query).
 *
 * The server starts as an agent's configuration starts it (agentConfig.ts): `node NODE_FLAGS
 * dist/cli.js serve --stdio`, on Linux through `/usr/bin/env GLIBC_TUNABLES=glibc.malloc.hugetlb=1`
 * (util/nodeFlags.ts's HUGE_PAGES_ENV; until issue 38's third pass it ran with V8's defaults here: 2,780
 * against 2,432 ms p50 at 10,000 atoms, 5 rounds alternated; the open's survivors are copied through
 * a young generation grown to tens of MiB, each of its new pages a fault).
 *
 * With BENCH_BASELINE_CLI=<another build's dist/cli.js> that build does the same on its own copy
 * of the workspace, alternating which one starts first, `BENCH_ROUNDS` times (default 5; 3 with
 * --quick), started as its own configuration started it: `node NODE_FLAGS cli.js serve --stdio`
 * (BENCH_BASELINE_FLAGS gives other options; BENCH_BASELINE_LAUNCH=agent starts it as this build's
 * agents do, to compare the code alone). 1,000 and 10,000 atoms (--quick: 1,000; BENCH_SIZES overrides).
 *
 *   BENCH_BASELINE_CLI=/tmp/before/dist/cli.js npm run bench -- start
 */
import { existsSync, rmSync } from 'node:fs';
import { agentLaunch, CLI, connectStdio, launchText, plainLaunch, timedCall, type Launch } from './harness.js';
import { ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { prepareSynthetic } from './syntheticWorkspaces.js';
import type { PreparedWorkspace } from './workspaces.js';
import { NODE_FLAGS } from '../../src/util/nodeFlags.js';

const QUERIES = ['update the physics body velocity', 'clamp a value into a range', 'save the game state', 'spawn an enemy wave', 'play a sound effect'];
/** Issue 38's target for the first search after a start, at 10,000 atoms. */
const TARGET_10K_MS = 1000;

interface Build {
  label: string;
  cli: string;
  /** Its command line up to `serve --stdio` (agentLaunch, as agents start the server). */
  launch: Launch;
}

export default async function start(options: BenchOptions): Promise<BenchSection> {
  const builds: Build[] = [{ label: 'this build', cli: CLI, launch: agentLaunch(CLI) }];
  const baseline = process.env.BENCH_BASELINE_CLI;
  if (baseline) {
    if (!existsSync(baseline)) throw new Error(`BENCH_BASELINE_CLI=${baseline} does not exist: point it at another build's dist/cli.js`);
    const flags = process.env.BENCH_BASELINE_FLAGS?.split(/\s+/).filter(Boolean) ?? NODE_FLAGS;
    const asAgent = process.env.BENCH_BASELINE_LAUNCH === 'agent';
    const label = asAgent ? "baseline (this build's agent launch)" : flags === NODE_FLAGS ? 'baseline' : `baseline (${flags.join(' ') || 'V8 defaults'})`;
    builds.push({ label, cli: baseline, launch: asAgent ? agentLaunch(baseline) : plainLaunch(baseline, flags) });
  }
  const rounds = Number(process.env.BENCH_ROUNDS) || (options.quick ? 3 : 5);
  const override = process.env.BENCH_SIZES?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const sizes = override?.length ? override : options.quick ? [1000] : [1000, 10_000];
  const rows: Record<string, string | number>[] = [];
  for (const size of sizes) {
    // A copy of the workspace per build, opened and searched once by it, so each starts on what it left.
    const workspaces = new Map<Build, PreparedWorkspace>();
    try {
      for (const build of builds) {
        const ws = await prepareSynthetic(size, options.log);
        workspaces.set(build, ws);
        options.log(`start: ${size} atoms, ${build.label}: first open`);
        await firstSearch(build, ws, 'keep a value in range');
      }
      const times = new Map<Build, number[]>(builds.map((b) => [b, []]));
      for (let round = 0; round < rounds; round++) {
        for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
          const t = await firstSearch(build, workspaces.get(build)!, `${QUERIES[round % QUERIES.length]} ${round}`);
          times.get(build)!.push(t);
          options.log(`start: ${size} atoms, ${build.label}, round ${round + 1}: ${ms(t)} ms`);
        }
      }
      const ours = summarize(times.get(builds[0]!)!).p50;
      const row: Record<string, string | number> = { atoms: size, 'this build: spawn → first search p50 ms': ms(ours), rounds };
      if (builds[1]) {
        const theirs = summarize(times.get(builds[1])!).p50;
        row['baseline p50 ms'] = ms(theirs);
        row['this/baseline'] = ratio(ours, theirs);
      }
      row['every round (this build)'] = times.get(builds[0]!)!.map(ms).join(', ');
      if (builds[1]) row['every round (baseline)'] = times.get(builds[1])!.map(ms).join(', ');
      if (size === 10_000) row.target = `${ours <= TARGET_10K_MS ? 'met' : 'MISSED'} (≤${TARGET_10K_MS} ms, issue 38)`;
      rows.push(row);
    } finally {
      for (const ws of workspaces.values()) {
        ws.remove();
        rmSync(`${ws.dir}-cache`, { recursive: true, force: true });
      }
    }
  }
  return {
    title: 'A start on an existing workspace: spawn → first semantic_search answer (stdio)',
    rows,
    notes: [
      `This build starts as an agent's configuration starts it: ${launchText(builds[0]!.launch, CLI)} (agentConfig.ts, util/nodeFlags.ts).${builds[1] ? ` The baseline: ${launchText(builds[1].launch, builds[1].cli)}.` : ''}`,
      'Each build starts on its own copy of the workspace, which it opened and searched once before (so it left there what it keeps between sessions: for this build the full-text snapshot, .atomic/fulltext.bin, and the checked atoms, .atomic/atoms.bin). The query is a new one every round: the model process starts cold for it.',
      'Builds alternate which one starts first each round; the figure is the p50 of the rounds.',
    ],
  };
}

/** Spawns `build`'s server on `ws`, asks one search at once, and returns spawn → answer in ms (then stops it). */
async function firstSearch(build: Build, ws: PreparedWorkspace, query: string): Promise<number> {
  const started = performance.now();
  // The user cache folder stays the workspace's across starts (its secret seals what a start keeps).
  const server = await connectStdio(build.launch.command, [...build.launch.args, '--log-level', 'warn', '--workspace', ws.dir], { ATOMIC_CODING_CACHE_DIR: `${ws.dir}-cache` }, started);
  try {
    const answer = await timedCall(server.client, 'semantic_search', { query });
    if (answer.isError) throw new Error(`${build.label}: semantic_search failed: ${answer.text.slice(0, 300)}`);
    return performance.now() - started;
  } finally {
    await server.close();
  }
}
