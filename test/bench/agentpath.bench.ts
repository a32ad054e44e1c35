/**
 * Memory and write latency along the path agents take: a server started with no V8 options (as
 * VS Code's extension host runs it), over HTTP, on an empty workspace; the atoms created through
 * the tools (1,000 one by one through upsert_atom, or 10,000 through upsert_atoms batches of 50,
 * with dependencies and descriptions), then reads, updates and searches. The server's own RSS is
 * measured (/proc VmRSS, VmHWM of its pid): the embedding model's process is apart. Each server
 * gets a user cache of its own, empty (ATOMIC_CODING_CACHE_DIR): an agent writes code this machine
 * has not embedded, so the model embeds every atom beside the writes, as it would for the agent
 * (a cache warm from an earlier run had the server read vectors from it instead).
 *
 * An agent calls a tool, then its model takes a turn (seconds) before the next call. The path runs
 * twice: back to back (the worst case, the issue's path), and paced as an agent's session is, with
 * a pause of PAUSE_MS after every 50 calls at 1,000 atoms (10 batches at 10,000): 20 turns a path.
 * "RSS at rest" is read REST_MS after the last search. A quiet server gives V8's grown heap back
 * (src/util/idleMemory.ts); BENCH_AGENTPATH_PACED=0 leaves the paced rows out.
 *
 * With BENCH_BASELINE_CLI=<another build's dist/cli.js> the same path runs on that build too, one
 * server after the other in the same run, so the figures stand side by side; BENCH_ROUNDS=n repeats
 * each size n times, alternating which build runs first (the second server of a pair runs faster).
 *
 *   npm run bench -- agentpath
 *   BENCH_BASELINE_CLI=/tmp/base/dist/cli.js BENCH_SIZES=1000,10000 npm run bench -- agentpath
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import { generateAtoms } from './generate.js';
import { CLI, peakResidentBytes, residentBytes, serveHttp } from './harness.js';
import { bytes, ms, summarize, type BenchOptions, type BenchSection } from './report.js';
import { NODE_FLAGS } from '../../src/util/nodeFlags.js';

const MiB = 2 ** 20;
const QUERIES = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);
/** The issue's targets: server peak RSS (MiB) by size, upsert_atom p50 (ms) at 1,000 atoms. */
const PEAK_TARGET: Record<number, number> = { 1000: 150, 10_000: 300 };
const UPSERT_P50_TARGET = 10;
const BATCH = 50;
/** An agent's turn between bursts of calls on the paced path, and how long after the path the RSS at rest is read. */
const PAUSE_MS = 5_000;
const REST_MS = 10_000;

interface Build {
  label: string;
  cli: string;
  /** Node's and V8's options before the script: none (V8's defaults, as in the extension host), or NODE_FLAGS. */
  flags: readonly string[];
  /** Paced as an agent's session: a turn (PAUSE_MS) after every 20th of the path's calls. */
  paced?: boolean;
}

/** Records, from inside the server, the largest young generation and heap V8 had (v8Heap.mjs). */
const V8_HEAP_PROBE = pathToFileURL(join(__dirname, 'v8Heap.mjs')).href;

export default async function agentPathBench(options: BenchOptions): Promise<BenchSection[]> {
  const sizes = process.env.BENCH_SIZES?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0) ?? (options.quick ? [1000] : [1000, 10_000]);
  const builds: Build[] = [{ label: 'this build', cli: CLI, flags: [] }];
  const baseline = process.env.BENCH_BASELINE_CLI;
  if (baseline) {
    if (!existsSync(baseline)) throw new Error(`BENCH_BASELINE_CLI=${baseline} does not exist`);
    builds.push({ label: 'baseline', cli: baseline, flags: [] });
  }
  // The same path with the options an agent's configuration starts the command line with: how much
  // of the peak is V8's young generation, which grows to its default maximum on this path.
  if (process.env.BENCH_AGENTPATH_FLAGS !== '0') builds.push({ label: 'this build, NODE_FLAGS', cli: CLI, flags: NODE_FLAGS });
  if (process.env.BENCH_AGENTPATH_PACED !== '0') {
    builds.push({ label: 'this build, paced', cli: CLI, flags: [], paced: true });
    if (baseline) builds.push({ label: 'baseline, paced', cli: baseline, flags: [], paced: true });
  }
  // The server that runs second was faster in an A/A run (one build against a copy of itself: create
  // p50 12.6 and 12.4 ms first, 11.2 and 9.9 ms second), so rounds alternate which build goes first.
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS) || 1);
  const rows: Record<string, string | number>[] = [];
  for (const size of sizes) {
    for (let round = 0; round < rounds; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        options.log(`-- ${size} atoms through the tools, ${build.label}${rounds > 1 ? `, round ${round + 1} of ${rounds}` : ''}`);
        rows.push({ ...(rounds > 1 ? { round: round + 1 } : {}), ...(await measure(build, size, options)) });
      }
    }
  }
  return [
    {
      title: "The agent path: atoms created through the tools, V8's defaults unless the row says NODE_FLAGS (the server process; the model apart)",
      rows,
      notes: [
        'An empty workspace; node cli.js serve over HTTP with no V8 options (as the extension host runs the server). 1,000 atoms: upsert_atom one by one; 10,000: upsert_atoms, 50 a call. Then read_atoms and upsert_atom updates, interleaved, and 30 searches (the first right after the last update, while the model still embeds the atoms).',
        `RSS: /proc VmRSS of the server process after creation, after the searches and at rest (${REST_MS / 1000} s after the last search, nothing called meanwhile); peak: VmHWM over its life. The model (a child process) is not counted; it embeds every atom meanwhile (each server has an empty user cache of its own).`,
        `"paced": the same calls with an agent's turns between them: a pause of ${PAUSE_MS / 1000} s after every 20th of the creation's calls (50 upsert_atom at 1,000 atoms, 10 upsert_atoms at 10,000); an agent's model takes seconds to write each next call, so a real session has more turns than these 20, not fewer. A quiet server gives V8's grown heap back (src/util/idleMemory.ts), so its young generation starts small again after each turn. BENCH_AGENTPATH_PACED=0 leaves these rows out.`,
        "V8 young generation: the largest committed new space V8 had (sampled every 100 ms from inside the server by test/bench/v8Heap.mjs, which changes no option). With V8's defaults it grows whenever the bytes surviving scavenges since it last grew exceed its size, so on a long busy path it reaches its maximum whatever the code keeps; in the extension host it is the host's, shared by every extension.",
        `"this build, NODE_FLAGS": the same path with node ${NODE_FLAGS.join(' ')}, as an agent's configuration starts the command line (agentConfig.ts); the targets are about V8's defaults (BENCH_AGENTPATH_FLAGS=0 leaves this row out).`,
        `targets: server peak ≤ ${PEAK_TARGET[1000]} MiB at 1,000 atoms, ≤ ${PEAK_TARGET[10_000]} MiB at 10,000; upsert_atom p50 ≤ ${UPSERT_P50_TARGET} ms at 1,000 (creation and update).`,
      ],
    },
  ];
}

async function measure(build: Build, size: number, options: BenchOptions): Promise<Record<string, string | number>> {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-agentpath-'));
  const cache = mkdtempSync(join(tmpdir(), 'atomic-agentpath-cache-'));
  const heapFile = `${dir}-v8heap.json`;
  const server = await startHttp(build, dir, { ATOMIC_CODING_CACHE_DIR: cache, ATOMIC_BENCH_V8_HEAP_FILE: heapFile });
  const row: Record<string, string | number> = { atoms: size, server: build.label };
  try {
    const { atoms } = generateAtoms(size);
    const created: number[] = [];
    const calls = size <= 2000 ? atoms.map((atom) => ['upsert_atom', { ...atom }] as const) : chunks(atoms, BATCH).map((batch) => ['upsert_atoms', { atoms: batch }] as const);
    const turnEvery = Math.max(1, Math.ceil(calls.length / 20));
    for (const [i, [name, args]] of calls.entries()) {
      created.push(await server.call(name, args));
      if (build.paced && (i + 1) % turnEvery === 0) await sleep(PAUSE_MS);
    }
    const c = summarize(created);
    row[size <= 2000 ? 'create p50 ms (upsert_atom)' : `create p50 ms (upsert_atoms of ${BATCH})`] = ms(c.p50);
    row['RSS after creation'] = bytes(residentBytes(server.pid));
    const updates: number[] = [];
    const n = options.quick ? 20 : 50;
    for (let i = 0; i < n; i++) {
      const atom = atoms[(i * 37) % atoms.length]!;
      await server.call('read_atoms', { names: [atoms[(i * 11) % atoms.length]!.name] });
      updates.push(await server.call('upsert_atom', { ...atom, code: atom.code.replace(/\n}\n$/, `\n  // edit ${i}\n}\n`) }));
    }
    const u = summarize(updates);
    row['update p50 ms'] = ms(u.p50);
    const searches: number[] = [];
    for (let i = 0; i < 30; i++) searches.push(await server.call('semantic_search', { query: QUERIES[i % QUERIES.length]! }));
    row['first search ms'] = ms(searches[0]!);
    row['search p50 ms'] = ms(summarize(searches).p50);
    row['RSS after searches'] = bytes(residentBytes(server.pid));
    await sleep(REST_MS);
    row['RSS at rest'] = bytes(residentBytes(server.pid));
    const peak = peakResidentBytes(server.pid);
    row['server peak'] = bytes(peak);
    const target = PEAK_TARGET[size];
    const verdicts: string[] = [];
    if (target !== undefined) verdicts.push(`peak ${peak <= target * MiB ? 'met' : 'MISSED'} (≤${target} MiB)`);
    if (size === 1000) verdicts.push(`upsert p50 ${Math.max(c.p50, u.p50) <= UPSERT_P50_TARGET ? 'met' : 'MISSED'} (≤${UPSERT_P50_TARGET} ms)`);
    // The targets are set for V8's defaults: a row with other options is context, not a verdict.
    row.targets = build.flags.length > 0 ? 'context: not V8\'s defaults' : verdicts.join(', ');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
  try {
    const { youngBytes, heapBytes } = JSON.parse(readFileSync(heapFile, 'utf8')) as { youngBytes: number; heapBytes: number };
    row['V8 young generation (max)'] = bytes(youngBytes);
    row['V8 heap (max)'] = bytes(heapBytes);
  } catch {
    row['V8 young generation (max)'] = 'n/a';
  } finally {
    rmSync(heapFile, { force: true });
  }
  return row;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `cli serve` over HTTP with the build's options (none: V8's defaults) and the heap probe; `call` answers the call's round trip in ms. */
async function startHttp(build: Build, workspace: string, env: Record<string, string>) {
  const { child, client, exited } = await serveHttp(build.cli, [], workspace, env, [...build.flags, '--import', V8_HEAP_PROBE]);
  return {
    pid: child.pid!,
    async call(name: string, args: Record<string, unknown>): Promise<number> {
      const started = performance.now();
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as { content: { text?: string }[]; isError?: boolean };
      const took = performance.now() - started;
      if (result.isError) throw new Error(`${name} failed: ${result.content.map((c) => c.text ?? '').join('')}`);
      return took;
    },
    async close() {
      await client.close().catch(() => {});
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
