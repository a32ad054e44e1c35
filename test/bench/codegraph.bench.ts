/**
 * Side by side with a code-intelligence peer: @colbymchenry/codegraph 1.6.1, a local MCP server
 * that indexes a folder's source with tree-sitter into SQLite (symbols, call edges, FTS5 word
 * search). Both servers index the same functions: our atoms' files (`atoms/<name>.js`, ordinary
 * JavaScript to codegraph) in a clone that also holds a `codegraph.json` keeping it out of
 * `.atomic/`. In one run, for each size (BENCH_SIZES; default 1,000 here, 10,000 when asked):
 *
 * - a fresh clone (atoms/ only, no .atomic/ or .codegraph/, our user cache empty): time to the first
 *   search answer and to fully searchable (ours: every atom embedded, get_status's pending count at 0;
 *   theirs: `codegraph init -y` done, which a clone needs before its server answers anything),
 *   alternating which goes first;
 * - a start on the indexed workspace: spawn → first search answer, alternating;
 * - the same questions over MCP stdio, interleaved call by call (search, callers, impact, read one
 *   function, and a change seen: a new atom file written, then read until it shows);
 * - peak RSS of each server process (ours with the model's processes apart), tools/list in bytes,
 *   answer sizes;
 * - search quality on the labelled queries of the search evaluation, the eval's atoms written as
 *   files for both.
 *
 * codegraph is a dependency of this bench only: installed on first use into the tool cache
 * ($E2E_HOME, else ~/.cache/atomic-coding-e2e, under peers/), never into the repository's
 * node_modules. When it cannot be installed the module says so and returns no figures.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import type { AtomDraft } from '../../src/atoms/model.js';
import { EVAL_ATOMS, EVAL_SETS, type EvalQuery } from '../eval/search.eval.js';
import { GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import { tempDir } from '../support/tmp.js';
import { generateAtoms, newAtom, seeded } from './generate.js';
import { CLI, connectStdio, peakResidentBytes, timedCall, type Connected } from './harness.js';
import { bytes, ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';

export const CODEGRAPH_VERSION = '1.6.1';
const PACKAGE = `@colbymchenry/codegraph@${CODEGRAPH_VERSION}`;
/** Quiet and offline (no telemetry, update check or bundle download), one process with its watcher. */
const THEIR_ENV = {
  CODEGRAPH_TELEMETRY: '0',
  DO_NOT_TRACK: '1',
  CODEGRAPH_NO_UPDATE_CHECK: '1',
  CODEGRAPH_NO_DOWNLOAD: '1',
  CODEGRAPH_NO_DAEMON: '1',
};
/** By default codegraph lists one tool (codegraph_explore); these are the ones the questions need. */
const THEIR_TOOLS = 'explore,node,search,callers,callees,impact,files,status';
const QUERY = 'keep the value between the limits';

type Row = Record<string, string | number>;
interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** Where the peer is installed: the tool cache, outside the repository. */
function peerDir(): string {
  const cache = process.env.E2E_HOME || join(homedir(), '.cache', 'atomic-coding-e2e');
  return join(cache, 'peers', `codegraph-${CODEGRAPH_VERSION}`);
}

/** codegraph's launcher (its bundled Node and app), installing the package once; or why not. */
function ensureCodegraph(log: (m: string) => void): { launcher: string } | { missing: string } {
  const dir = peerDir();
  const bundle = join(dir, 'node_modules', '@colbymchenry', `codegraph-${process.platform}-${process.arch}`);
  const launcher = join(bundle, 'bin', 'codegraph');
  const ready = () => existsSync(launcher) && existsSync(join(bundle, 'lib', 'dist', 'bin', 'codegraph.js'));
  if (ready()) return { launcher };
  log(`codegraph: installing ${PACKAGE} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--prefix', dir, PACKAGE, '--no-audit', '--no-fund', '--no-save', '--loglevel', 'error'], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0 || !ready()) {
    return { missing: `${PACKAGE} could not be installed into ${dir}: ${(r.error?.message ?? r.stderr ?? '').trim().split('\n').slice(-3).join(' ') || `npm exited ${r.status}`}` };
  }
  return { launcher };
}

export default async function codegraphBench(options: BenchOptions): Promise<BenchSection[]> {
  const installed = ensureCodegraph(options.log);
  if ('missing' in installed) {
    options.log(`codegraph: skipped: ${installed.missing}`);
    return [{ title: `Side by side: our server and @colbymchenry/codegraph ${CODEGRAPH_VERSION}`, rows: [{ skipped: installed.missing }] }];
  }
  const peer = new Peer(installed.launcher);
  // 1,000 atoms unless BENCH_SIZES says otherwise: ours embeds every atom of a fresh clone with the model (minutes at 10,000).
  const sizes = process.env.BENCH_SIZES?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0) ?? [];
  const cloneRows: Row[] = [];
  const startRows: Row[] = [];
  const questionRows: Row[] = [];
  const footprintRows: Row[] = [];
  for (const size of sizes.length ? sizes : [1000]) {
    const s = await atSize(size, peer, options);
    cloneRows.push(...s.clone);
    startRows.push(...s.start);
    questionRows.push(...s.questions);
    footprintRows.push(...s.footprint);
  }
  const quality = await searchQuality(peer, options);
  return [
    {
      title: `codegraph ${CODEGRAPH_VERSION} side by side: a fresh clone (atoms/ only) until searchable`,
      rows: cloneRows,
      notes: [
        'Both index the same functions: our atoms as files atoms/<name>.js (JavaScript to codegraph), with a codegraph.json excluding .atomic/; each in its own copy of the clone.',
        'Ours: `serve --stdio` on the clone (it imports atoms/, builds the bundle, and embeds every atom with the model in the background), our user cache of vectors empty (a machine that never saw these atoms). "first search" is semantic_search\'s first answer from the spawn (ranked by words while atoms wait for their vectors); "fully searchable" is get_status reporting no atom waiting (polled every 250 ms).',
        'Theirs: a clone has no index and its server answers nothing until `codegraph init -y DIR` has run (it writes .codegraph/ and indexes; the server does not index on its own), so both figures are init + server start + the first codegraph_search answer: its index is complete when init returns.',
        'Rounds alternate which server goes first; figures are per round. ours/theirs < 1 means ours is faster.',
      ],
    },
    {
      title: `codegraph ${CODEGRAPH_VERSION} side by side: start on an indexed workspace → first search answer`,
      rows: startRows,
      notes: [
        'The workspaces the fresh-clone runs left (.atomic/ with every vector; .codegraph/ complete), each server started again, alternating; spawn → initialize + tools/list → one search answered. Our model process starts cold for the query.',
      ],
    },
    {
      title: `codegraph ${CODEGRAPH_VERSION} side by side: the same questions over MCP stdio`,
      rows: questionRows,
      notes: [
        'Interleaved call by call, which server goes first alternating, two warm-up rounds. Same atoms asked of both.',
        '"search": semantic_search (model embedding + words, fused; answers carry each hit\'s code) against codegraph_search (FTS5 word match on symbol names and text; answers carry locations and signatures), limit 5, the search evaluation\'s game queries. "ours without code": semantic_search with detail summary (names, descriptions, signatures, dependencies). "search with who uses each": semantic_search with detail context (each hit\'s code, dependencies and the atoms that use it) against codegraph_explore (what codegraph lists unless told otherwise: the relevant symbols\' source and call paths, up to 12 files).',
        '"callers": query_graph dependents against codegraph_callers. "impact": query_graph impact (every transitive dependent and the entry points they reach) against codegraph_impact with depth 10 (its most; default 2). "read one function": read_atoms (one name) against codegraph_node with includeCode.',
        '"change seen": a new atom file (a function calling an existing one) written into atoms/, then the read-one-function call repeated every 25 ms until it answers with the new function: each server\'s own file watcher and update. "change seen via upsert_atom" is ours alone (codegraph has no write tool): upsert_atom, then read_atoms.',
      ],
    },
    {
      title: `codegraph ${CODEGRAPH_VERSION} side by side: memory and tool list`,
      rows: footprintRows,
      notes: [
        'Peak RSS (VmHWM) of each server process after the questions; ours\' model processes (its children, started on demand, ended when idle) apart. "fresh clone" rows: the peaks of the fresh-clone runs (theirs: `codegraph init`, sampled every 50 ms, then its server).',
        'tools/list: the JSON of the listed tools in bytes (ours without the bench tools; theirs with the tools these questions use enabled, and with its default of one tool).',
      ],
    },
    {
      title: `codegraph ${CODEGRAPH_VERSION} side by side: search quality on the labelled queries (${EVAL_ATOMS.length} eval atoms as files)`,
      rows: quality,
      notes: [
        'The atoms and query sets of `npm run eval:search` (test/eval/search.eval.ts), the atoms written as atoms/<name>.js for both servers. recall@k = share of queries with a relevant atom among the first k distinct atoms answered; MRR over the first 5.',
        'Ours: semantic_search, limit 5, after every atom is embedded. Theirs: codegraph_search, limit 10 (it lists a function and its file apart: both mapped to the atom, the first 5 distinct kept), no kind filter.',
      ],
    },
  ];
}

/** codegraph: its command line and its MCP server, through its own launcher (its bundled Node). */
class Peer {
  constructor(readonly launcher: string) {}

  /** `codegraph init -y DIR`: ms, and the process's peak RSS and CPU time, sampled every 50 ms while it ran. */
  async init(dir: string): Promise<{ ms: number; peak: number; cpuMs: number }> {
    const t0 = performance.now();
    const child = spawn(this.launcher, ['init', '-y', dir], { env: { ...process.env, ...THEIR_ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    let peak = 0;
    let cpu = 0;
    const sample = setInterval(() => {
      const p = peakResidentBytes(child.pid!);
      if (Number.isFinite(p)) peak = Math.max(peak, p);
      cpu = Math.max(cpu, cpuMs(child.pid!));
    }, 50);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearInterval(sample);
    if (code !== 0) throw new Error(`codegraph init exited ${code}: ${err.slice(-2000)}`);
    return { ms: performance.now() - t0, peak, cpuMs: cpu };
  }

  serve(dir: string, tools: string | null = THEIR_TOOLS, started = performance.now()): Promise<Connected> {
    return connectStdio(this.launcher, ['serve', '--mcp', '--path', dir], { ...THEIR_ENV, ...(tools ? { CODEGRAPH_MCP_TOOLS: tools } : {}) }, started);
  }
}

function startOursOn(dir: string, cacheDir: string, started = performance.now(), benchTools = true): Promise<Connected> {
  const args = [CLI, 'serve', '--stdio', ...(benchTools ? ['--bench-tools'] : []), '--log-level', 'warn', '--workspace', dir];
  return connectStdio(process.execPath, args, { ATOMIC_CODING_CACHE_DIR: cacheDir }, started);
}

/** A clone as git gives it: the atoms' files, and codegraph's config keeping it out of .atomic/. */
function writeClone(atoms: AtomDraft[], label: string): string {
  const dir = tempDir(`atomic-codegraph-${label}-`);
  writeAtomFiles(dir, atoms);
  return dir;
}

function writeAtomFiles(dir: string, atoms: AtomDraft[]): void {
  mkdirSync(join(dir, 'atoms'), { recursive: true });
  for (const a of atoms) writeFileSync(join(dir, 'atoms', `${a.name}.js`), atomFile(a));
  writeFileSync(join(dir, 'codegraph.json'), JSON.stringify({ exclude: ['.atomic/'] }, null, 2) + '\n');
}

function atomFile(a: AtomDraft): string {
  return formatAtomDocument({ type: a.type, code: a.code, inputs: a.inputs ?? [], outputs: a.outputs ?? [], dependencies: [...new Set(a.dependencies ?? [])].sort(), description: a.description ?? null });
}

function copyClone(clone: string, label: string): string {
  const dir = tempDir(`atomic-codegraph-${label}-`);
  cpSync(join(clone, 'atoms'), join(dir, 'atoms'), { recursive: true });
  cpSync(join(clone, 'codegraph.json'), join(dir, 'codegraph.json'));
  return dir;
}

interface Embedding {
  total: number;
  embedded: number;
  pending: number;
  fresh: boolean;
  model: { pid?: number } | null;
}

async function ourEmbedding(client: Client): Promise<Embedding> {
  const r = (await client.callTool({ name: 'get_status', arguments: {} }, undefined, { timeout: 600_000 })) as { structuredContent?: Record<string, unknown>; isError?: boolean };
  const s = r.structuredContent as { atoms: { total: number }; embeddings: { embedded: number; pending: number; fresh: boolean; model_process: { pid?: number } | null } } | undefined;
  if (r.isError || !s) throw new Error('get_status gave no structured status');
  return { total: s.atoms.total, embedded: s.embeddings.embedded, pending: s.embeddings.pending, fresh: s.embeddings.fresh, model: s.embeddings.model_process };
}

async function untilFullyEmbedded(client: Client, timeoutMs: number): Promise<Embedding> {
  const limit = performance.now() + timeoutMs;
  for (;;) {
    const e = await ourEmbedding(client);
    if (e.fresh && e.pending === 0) return e;
    if (performance.now() > limit) throw new Error(`still ${e.pending} atoms waiting for their vectors after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}


/** Direct children of a process (Linux /proc): our model's processes. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** CPU time (user + system) a process has used, in ms (Linux /proc; 0 where that is not available). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // After the command: state is field 3, utime 14 and stime 15 (1-based), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU time of a server and its children (our model's processes), in ms. */
function treeCpuMs(pid: number): number {
  return cpuMs(pid) + childrenOf(pid).reduce((s, c) => s + cpuMs(c), 0);
}

function modelPeak(pid: number): number {
  return childrenOf(pid)
    .map((p) => peakResidentBytes(p))
    .filter(Number.isFinite)
    .reduce((a, b) => a + b, 0);
}

async function atSize(size: number, peer: Peer, options: BenchOptions) {
  const big = size >= 10_000;
  const rounds = Number(process.env.BENCH_CODEGRAPH_ROUNDS) || (options.quick || big ? 1 : 2);
  options.log(`-- codegraph: ${size} atoms, ${rounds} round(s) from a fresh clone`);
  const { atoms } = generateAtoms(size);
  const clone = writeClone(atoms, `clone-${size}`);
  const clone$: Row[] = [];
  const timing = { ours: { first: [] as number[], full: [] as number[], cpu: [] as number[] }, theirs: { first: [] as number[], full: [] as number[], cpu: [] as number[] } };
  let oursDir = '';
  let theirsDir = '';
  const cacheDir = tempDir('atomic-codegraph-usercache-');
  const peaks = { ours: 0, model: 0, init: 0, theirServe: 0 };
  let firstByWords = false;
  for (let round = 0; round < rounds; round++) {
    for (const who of round % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const)) {
      if (who === 'ours') {
        oursDir = copyClone(clone, `ours-${size}`);
        rmSync(cacheDir, { recursive: true, force: true });
        mkdirSync(cacheDir, { recursive: true });
        options.log(`   round ${round + 1}: ours from the clone`);
        const t0 = performance.now();
        const server = await startOursOn(oursDir, cacheDir, t0);
        try {
          const first = await timedCall(server.client, 'semantic_search', { query: QUERY });
          if (first.isError) throw new Error(`semantic_search failed: ${first.text.slice(0, 300)}`);
          const firstMs = performance.now() - t0;
          firstByWords ||= /^\/\/ (Ranked by words|\d+ of \d+ atoms)/.test(first.text);
          const e = await untilFullyEmbedded(server.client, 3_600_000);
          const fullMs = performance.now() - t0;
          if (e.total !== size) throw new Error(`ours took ${e.total} of ${size} atoms`);
          timing.ours.first.push(firstMs);
          timing.ours.full.push(fullMs);
          timing.ours.cpu.push(treeCpuMs(server.pid));
          peaks.ours = Math.max(peaks.ours, peakResidentBytes(server.pid));
          peaks.model = Math.max(peaks.model, modelPeak(server.pid));
          options.log(`     first search ${ms(firstMs)} ms, fully searchable ${ms(fullMs)} ms`);
        } finally {
          await server.close();
        }
      } else {
        theirsDir = copyClone(clone, `theirs-${size}`);
        options.log(`   round ${round + 1}: theirs from the clone (init, then serve)`);
        const t0 = performance.now();
        const init = await peer.init(theirsDir);
        const server = await peer.serve(theirsDir);
        try {
          const first = await timedCall(server.client, 'codegraph_search', { query: QUERY, limit: 5 });
          if (first.isError || !/Search Results/.test(first.text)) throw new Error(`codegraph_search failed: ${first.text.slice(0, 300)}`);
          const firstMs = performance.now() - t0;
          timing.theirs.first.push(firstMs);
          timing.theirs.full.push(firstMs);
          timing.theirs.cpu.push(init.cpuMs + cpuMs(server.pid));
          peaks.init = Math.max(peaks.init, init.peak);
          peaks.theirServe = Math.max(peaks.theirServe, peakResidentBytes(server.pid));
          options.log(`     init ${ms(init.ms)} ms, first search ${ms(firstMs)} ms`);
        } finally {
          await server.close();
        }
      }
    }
  }
  for (const [label, key] of [
    ['first search answer', 'first'],
    ['fully searchable', 'full'],
    ['CPU time until fully searchable', 'cpu'],
  ] as const) {
    const o = summarize(timing.ours[key]).p50;
    const t = summarize(timing.theirs[key]).p50;
    clone$.push({
      atoms: size,
      'from a fresh clone': label,
      'ours ms': timing.ours[key].map(ms).join(', '),
      'theirs ms': timing.theirs[key].map(ms).join(', '),
      'ours/theirs (p50)': ratio(o, t),
      note:
        key === 'first'
          ? `ours: ${firstByWords ? 'ranked by words (atoms still waiting for vectors)' : 'with meaning'}; theirs: init + start + search`
          : key === 'full'
            ? 'ours: every atom embedded; theirs: init done (index complete)'
            : 'user + system, all cores: ours the server and its model processes; theirs init and its server (less sensitive to the machine\'s load than the wall time)',
    });
  }

  // ---- a start on the indexed workspace, alternating ----
  const startRows: Row[] = [];
  const starts = { ours: [] as number[], theirs: [] as number[], oursList: [] as number[], theirsList: [] as number[] };
  const startRounds = options.quick ? 2 : 3;
  let oursByWords = 0;
  for (let i = 0; i < startRounds; i++) {
    for (const who of i % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const)) {
      const t0 = performance.now();
      const server = who === 'ours' ? await startOursOn(oursDir, cacheDir, t0) : await peer.serve(theirsDir, THEIR_TOOLS, t0);
      try {
        const r = who === 'ours' ? await timedCall(server.client, 'semantic_search', { query: QUERY }) : await timedCall(server.client, 'codegraph_search', { query: QUERY, limit: 5 });
        if (r.isError) throw new Error(`${who}: first search failed: ${r.text.slice(0, 300)}`);
        starts[who].push(performance.now() - t0);
        if (who === 'ours') oursByWords += /^\/\/ Ranked by words/.test(r.text) ? 1 : 0;
        starts[who === 'ours' ? 'oursList' : 'theirsList'].push(server.startMs);
      } finally {
        await server.close();
      }
    }
  }
  const so = summarize(starts.ours).p50;
  const st = summarize(starts.theirs).p50;
  const lo = summarize(starts.oursList).p50;
  const lt = summarize(starts.theirsList).p50;
  startRows.push(
    { atoms: size, 'indexed workspace': 'spawn → tools/list', 'ours p50 ms': ms(lo), 'theirs p50 ms': ms(lt), 'ours/theirs': ratio(lo, lt), n: startRounds },
    { atoms: size, 'indexed workspace': 'spawn → first search answer', 'ours p50 ms': ms(so), 'theirs p50 ms': ms(st), 'ours/theirs': ratio(so, st), n: startRounds, note: `ours ranked by words alone (model still starting) in ${oursByWords} of ${startRounds}` },
  );

  // ---- the questions, interleaved ----
  const { rows: questions, footprint } = await questionsAt(size, atoms, oursDir, theirsDir, cacheDir, peer, options);
  footprint.unshift(
    { atoms: size, what: 'fresh clone: server peak RSS', ours: bytes(peaks.ours), theirs: `${bytes(peaks.theirServe)} (server); init ${bytes(peaks.init)}` },
    { atoms: size, what: 'fresh clone: model processes peak RSS (ours)', ours: bytes(peaks.model), theirs: '(no model)' },
  );
  return { clone: clone$, start: startRows, questions, footprint };
}

async function questionsAt(size: number, atoms: AtomDraft[], oursDir: string, theirsDir: string, cacheDir: string, peer: Peer, options: BenchOptions) {
  const random = seeded(size + 11);
  const names = atoms.map((a) => a.name);
  // Callers and impact of atoms something calls (most generated atoms are leaves).
  const called = [...new Set(atoms.flatMap((a) => a.dependencies ?? []))];
  const pick = (list: string[]) => list[Math.floor(random() * list.length)]!;
  const queries = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);
  const n = options.quick ? 10 : 30;
  // Each search question asks other queries than the one before (n + 2 each, of 103): our server
  // keeps the vectors of queries it embedded, so a repeated query would skip the model.
  const questions: { label: string; ours: (x: string, i: number) => Call; theirs: (x: string, i: number) => Call; subject: (i: number) => string }[] = [
    {
      label: 'search',
      subject: (i) => queries[(i + 0 * (n + 2)) % queries.length]!,
      ours: (q) => ({ name: 'semantic_search', args: { query: q, limit: 5 } }),
      theirs: (q) => ({ name: 'codegraph_search', args: { query: q, limit: 5 } }),
    },
    {
      label: 'search, ours without code',
      subject: (i) => queries[(i + 1 * (n + 2)) % queries.length]!,
      ours: (q) => ({ name: 'semantic_search', args: { query: q, limit: 5, detail: 'summary' } }),
      theirs: (q) => ({ name: 'codegraph_search', args: { query: q, limit: 5 } }),
    },
    {
      label: 'search with who uses each (ours: detail context; theirs: explore, its one default tool)',
      subject: (i) => queries[(i + 2 * (n + 2)) % queries.length]!,
      ours: (q) => ({ name: 'semantic_search', args: { query: q, limit: 5, detail: 'context' } }),
      theirs: (q) => ({ name: 'codegraph_explore', args: { query: q } }),
    },
    {
      label: 'callers',
      subject: () => pick(called),
      ours: (x) => ({ name: 'query_graph', args: { operation: 'dependents', name: x } }),
      theirs: (x) => ({ name: 'codegraph_callers', args: { symbol: x } }),
    },
    {
      label: 'impact',
      subject: () => pick(called),
      ours: (x) => ({ name: 'query_graph', args: { operation: 'impact', name: x } }),
      theirs: (x) => ({ name: 'codegraph_impact', args: { symbol: x, depth: 10 } }),
    },
    {
      label: 'read one function',
      subject: () => pick(names),
      ours: (x) => ({ name: 'read_atoms', args: { names: [x] } }),
      theirs: (x) => ({ name: 'codegraph_node', args: { symbol: x, includeCode: true } }),
    },
  ];
  const ours = await startOursOn(oursDir, cacheDir);
  const theirs = await peer.serve(theirsDir);
  const rows: Row[] = [];
  const footprint: Row[] = [];
  try {
    for (const q of questions) {
      options.log(`   ${q.label}`);
      const a: number[] = [];
      const b: number[] = [];
      let aBytes = 0;
      let bBytes = 0;
      for (let i = 0; i < n + 2; i++) {
        const x = q.subject(i);
        const one = async (who: 'ours' | 'theirs') => {
          const call = who === 'ours' ? q.ours(x, i) : q.theirs(x, i);
          const r = await timedCall((who === 'ours' ? ours : theirs).client, call.name, call.args);
          if (r.isError) throw new Error(`${who}: ${call.name} failed: ${r.text.slice(0, 300)}`);
          if (i >= 2) (who === 'ours' ? a : b).push(r.ms);
          if (who === 'ours') aBytes = Math.max(aBytes, Buffer.byteLength(r.text));
          else bBytes = Math.max(bBytes, Buffer.byteLength(r.text));
        };
        for (const who of i % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const)) await one(who);
      }
      const sa = summarize(a);
      const sb = summarize(b);
      rows.push({
        atoms: size,
        question: q.label,
        'ours p50 ms': ms(sa.p50),
        'theirs p50 ms': ms(sb.p50),
        'ours/theirs p50': ratio(sa.p50, sb.p50),
        'ours p95 ms': ms(sa.p95),
        'theirs p95 ms': ms(sb.p95),
        'ours answer (largest)': bytes(aBytes),
        'theirs answer (largest)': bytes(bBytes),
        'ours tool': q.ours('x', 0).name,
        'theirs tool': q.theirs('x', 0).name,
        n: sa.n,
      });
    }

    // ---- a change seen: a new atom file, read until it shows ----
    const changes = options.quick ? 4 : 8;
    options.log(`   change seen (${changes} new files each)`);
    const seen = { ours: [] as number[], theirs: [] as number[] };
    for (let i = 0; i < changes; i++) {
      for (const who of i % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const)) {
        const atom = newAtom(`bench_seen_${who}_${size}_${i}`, pick(names));
        const dir = who === 'ours' ? oursDir : theirsDir;
        const client = (who === 'ours' ? ours : theirs).client;
        const call: Call = who === 'ours' ? { name: 'read_atoms', args: { names: [atom.name] } } : { name: 'codegraph_node', args: { symbol: atom.name, includeCode: true } };
        const t0 = performance.now();
        writeFileSync(join(dir, 'atoms', `${atom.name}.js`), atomFile(atom));
        seen[who].push(await untilShows(client, call, atom.name, t0, 60_000));
      }
    }
    const co = summarize(seen.ours).p50;
    const ct = summarize(seen.theirs).p50;
    rows.push({
      atoms: size,
      question: 'change seen (new atom file → read shows it)',
      'ours p50 ms': ms(co),
      'theirs p50 ms': ms(ct),
      'ours/theirs p50': ratio(co, ct),
      'ours p95 ms': ms(summarize(seen.ours).p95),
      'theirs p95 ms': ms(summarize(seen.theirs).p95),
      'ours tool': 'file write + read_atoms',
      'theirs tool': 'file write + codegraph_node',
      n: changes,
    });
    const viaUpsert: number[] = [];
    for (let i = 0; i < changes; i++) {
      const atom = newAtom(`bench_upserted_${size}_${i}`, pick(names));
      const t0 = performance.now();
      const w = await timedCall(ours.client, 'upsert_atom', atom as unknown as Record<string, unknown>);
      if (w.isError) throw new Error(`upsert_atom failed: ${w.text.slice(0, 300)}`);
      viaUpsert.push(await untilShows(ours.client, { name: 'read_atoms', args: { names: [atom.name] } }, atom.name, t0, 60_000));
    }
    rows.push({
      atoms: size,
      question: 'change seen via upsert_atom (ours only)',
      'ours p50 ms': ms(summarize(viaUpsert).p50),
      'theirs p50 ms': '(no write tool)',
      'ours p95 ms': ms(summarize(viaUpsert).p95),
      'ours tool': 'upsert_atom + read_atoms',
      n: changes,
    });

    const modelPeakBytes = modelPeak(ours.pid);
    footprint.push(
      { atoms: size, what: 'indexed workspace, after the questions: server peak RSS', ours: bytes(peakResidentBytes(ours.pid)), theirs: bytes(peakResidentBytes(theirs.pid)) },
      { atoms: size, what: 'indexed workspace: model processes peak RSS (ours)', ours: modelPeakBytes ? bytes(modelPeakBytes) : '(not running)', theirs: '(no model)' },
    );
  } finally {
    await ours.close();
    await theirs.close();
  }
  // tools/list as each lists it: ours without the bench tools; theirs with these tools, and its default.
  // One server at a time: codegraph lets one server a project write (its watcher's sync).
  const listed = async (start: () => Promise<Connected>) => {
    const c = await start();
    try {
      const { tools } = await c.client.listTools();
      return { bytes: Buffer.byteLength(JSON.stringify(tools)), count: tools.length };
    } finally {
      await c.close();
    }
  };
  const o = await listed(() => startOursOn(oursDir, cacheDir, performance.now(), false));
  const t = await listed(() => peer.serve(theirsDir));
  const d = await listed(() => peer.serve(theirsDir, null));
  footprint.push({ atoms: size, what: 'tools/list (JSON of the tools)', ours: `${bytes(o.bytes)} (${o.count} tools)`, theirs: `${bytes(t.bytes)} (${t.count} tools); default ${bytes(d.bytes)} (${d.count} tool${d.count === 1 ? '' : 's'})` });
  return { rows, footprint };
}

/** Repeats `call` every 25 ms until its answer has the function `name`; ms since `t0`. */
async function untilShows(client: Client, call: Call, name: string, t0: number, timeoutMs: number): Promise<number> {
  const shows = new RegExp(`function ${name}\\(`);
  for (;;) {
    const r = await timedCall(client, call.name, call.args);
    if (!r.isError && shows.test(r.text)) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`${call.name}: ${name} not seen after ${timeoutMs / 1000} s: ${r.text.slice(0, 300)}`);
    await sleep(25);
  }
}

/** recall@1, recall@5 and MRR of both servers on the eval's labelled query sets. */
async function searchQuality(peer: Peer, options: BenchOptions): Promise<Row[]> {
  options.log('-- codegraph: search quality on the eval atoms');
  const clone = writeClone(EVAL_ATOMS.map(pageState), 'eval');
  const oursDir = copyClone(clone, 'eval-ours');
  const theirsDir = copyClone(clone, 'eval-theirs');
  const cacheDir = tempDir('atomic-codegraph-usercache-eval-');
  await peer.init(theirsDir);
  const ours = await startOursOn(oursDir, cacheDir);
  const theirs = await peer.serve(theirsDir);
  const rows: Row[] = [];
  try {
    const e = await untilFullyEmbedded(ours.client, 1_800_000);
    if (e.total !== EVAL_ATOMS.length) throw new Error(`ours took ${e.total} of ${EVAL_ATOMS.length} eval atoms (get_status: text_tree problems)`);
    const all: { ours: number[]; theirs: number[]; n: number } = { ours: [], theirs: [], n: 0 };
    for (const { set, queries } of EVAL_SETS) {
      const o: number[] = [];
      const t: number[] = [];
      for (const q of queries) {
        o.push(rankOf(q, await ourNames(ours.client, q.query)));
        t.push(rankOf(q, await theirNames(theirs.client, q.query)));
      }
      rows.push(qualityRow(set, queries.length, o, t));
      all.ours.push(...o);
      all.theirs.push(...t);
      all.n += queries.length;
    }
    rows.push(qualityRow('all sets', all.n, all.ours, all.theirs));
  } finally {
    await ours.close();
    await theirs.close();
  }
  return rows;
}

/**
 * 14 of the eval's atoms (todo, editor, RPG) keep their data in a free global `state`: the eval
 * ranks them in memory, but a file of ours that uses a name no atom, local or page global defines
 * is not taken (a page's own global is reached as window.<name>). Their files say `window.state`,
 * so both servers hold all the eval's functions; the text differs by that word, for both alike.
 */
function pageState(a: AtomDraft): AtomDraft {
  if (/\bfunction\s+\w+\s*\([^)]*\bstate\b|\b(?:const|let|var)\s+state\b/.test(a.code)) return a;
  return { ...a, code: a.code.replace(/(?<![.\w$])state(?=\s*\.)/g, 'window.state') };
}

function qualityRow(set: string, n: number, ours: number[], theirs: number[]): Row {
  // A rank is 1-5, Infinity (not among the first 5) or -1 (no answer at all).
  const at = (ranks: number[], k: number) => Math.round((ranks.filter((r) => r >= 1 && r <= k).length / n) * 1000) / 1000;
  const mrr = (ranks: number[]) => Math.round((ranks.reduce((s, r) => s + (r >= 1 && Number.isFinite(r) ? 1 / r : 0), 0) / n) * 1000) / 1000;
  return {
    set,
    n,
    'ours recall@1': at(ours, 1),
    'theirs recall@1': at(theirs, 1),
    'ours recall@5': at(ours, 5),
    'theirs recall@5': at(theirs, 5),
    'ours MRR': mrr(ours),
    'theirs MRR': mrr(theirs),
    'theirs no answer': Math.round((theirs.filter((r) => r === -1).length / n) * 1000) / 1000,
  };
}

/** 1-based rank of the first relevant name among the first 5; Infinity when none; -1 when the answer is empty. */
function rankOf(q: EvalQuery, names: string[]): number {
  if (names.length === 0) return -1;
  const i = names.slice(0, 5).findIndex((n) => q.relevant.includes(n));
  return i < 0 ? Infinity : i + 1;
}

async function ourNames(client: Client, query: string): Promise<string[]> {
  const r = await timedCall(client, 'semantic_search', { query, limit: 5 });
  if (r.isError) return [];
  return [...r.text.matchAll(/^\/\/ ([a-z][a-z0-9_]*) \([a-z]+\) \[similarity/gm)].map((m) => m[1]!);
}

/** codegraph lists `**name** (function)` and `**name.js** (file)`: both are the atom. */
async function theirNames(client: Client, query: string): Promise<string[]> {
  const r = await timedCall(client, 'codegraph_search', { query, limit: 10 });
  if (r.isError) return [];
  const names = [...r.text.matchAll(/^\*\*([A-Za-z0-9_$.]+)\*\* \((\w+)\)/gm)].map((m) => m[1]!.replace(/\.js$/, ''));
  return [...new Set(names)];
}
