/**
 * Side by side with an alternative: the official MCP knowledge-graph memory server
 * (@modelcontextprotocol/server-memory, file-backed, over stdio) holding the same items (an atom
 * is an entity whose observations are its description, signature and code; each dependency is a
 * `depends_on` relation), asked the equivalent questions in the same run as our server over
 * stdio. Then search quality on the labelled queries of the search evaluation, for both.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AtomDraft } from '../../src/atoms/model.js';
import { formatSignature } from '../../src/atoms/signature.js';
import { GAME_ATOMS, GAME_QUERIES, HELD_OUT_QUERIES, type LabelledQuery } from '../fixtures/game-atoms.js';
import { newAtom, seeded } from './generate.js';
import { connectStdio, peakResidentBytes, SDK_DEFAULT_STDIO_MAX, startOurs, timedCall, type Connected } from './harness.js';
import { bytes, ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { benchSizes, prepareFrom, prepareWorkspace, type PreparedWorkspace } from './workspaces.js';

const MEMORY_SERVER = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** One question asked of both servers: our tool call and theirs (one or more calls in a row). */
interface Question {
  label: string;
  ours: (i: number) => { name: string; args: Record<string, unknown> }[];
  theirs: (i: number) => { name: string; args: Record<string, unknown> }[];
  iterations: number;
}

export default async function alternativeBench(options: BenchOptions): Promise<BenchSection[]> {
  const rows: Record<string, string | number>[] = [];
  for (const size of benchSizes(options)) {
    options.log(`-- ${size} atoms: ours and server-memory over stdio`);
    const ws = await prepareWorkspace(size, options.log);
    try {
      rows.push(...(await sideBySide(ws, size, options)));
    } finally {
      ws.remove();
    }
  }
  const quality = await searchQuality(options);
  return [
    {
      title: 'Side by side: our server and @modelcontextprotocol/server-memory, same items, over stdio',
      rows,
      notes: [
        'server-memory keeps the graph in one JSONL file and reads the whole file on every call (and rewrites it on every write); the same items are loaded into it: an atom is an entity (entityType = atom type; observations = description, signature, code), each dependency a depends_on relation.',
        '"read the map": our get_code_structure (every atom with its typed ports and edges, no code) against read_graph, the only way to see its whole graph (it returns every observation, code included).',
        '"write one item": our upsert_atom of a new atom (validated, journaled and fsynced, bundled) against create_entities then create_relations (two calls: its entity and its edges).',
        '"search": our semantic_search (model embedding of the query + full text, fused) against search_nodes (case-insensitive substring match of the whole query).',
        'ours/theirs < 1 means ours is faster.',
        '"over the SDK stdio limit": the official SDK client refuses a stdio message over 10 MiB by default and closes the connection (server-memory\'s read_graph passes it at 10,000 items); the bench client raises the limit to time it anyway.',
      ],
    },
    {
      title: 'Search quality on the labelled queries of the search evaluation (47 game atoms)',
      rows: quality,
      notes: [
        'The same atoms and queries as `npm run eval:search` (test/fixtures/game-atoms.ts); recall@k = share of queries with a relevant atom among the first k answers; MRR = mean reciprocal rank; "no answer" = share of queries answered with nothing.',
        'server-memory answers entities in file order, so its first 5 are the first 5 that contain the query text.',
      ],
    },
  ];
}

async function sideBySide(ws: PreparedWorkspace, size: number, options: BenchOptions): Promise<Record<string, string | number>[]> {
  const memoryFile = join(ws.dir, 'memory.jsonl');
  writeFileSync(memoryFile, toMemoryGraph(ws.set.atoms));
  const random = seeded(size + 7);
  const names = ws.set.atoms.map((a) => a.name);
  const five = () => Array.from({ length: 5 }, () => names[Math.floor(random() * names.length)]!);
  const queries = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);
  const big = size >= 10_000;
  const n = (k: number) => Math.max(5, Math.round(options.quick ? k / 2 : k));
  const fresh = (i: number) => newAtom(`bench_added_${size}_${i}`, names[i % names.length]!);
  const questions: Question[] = [
    { label: 'open 5 nodes', ours: () => [{ name: 'read_atoms', args: { names: five() } }], theirs: () => [{ name: 'open_nodes', args: { names: five() } }], iterations: n(big ? 20 : 40) },
    { label: 'read the map', ours: () => [{ name: 'get_code_structure', args: {} }], theirs: () => [{ name: 'read_graph', args: {} }], iterations: n(big ? 6 : 20) },
    {
      label: 'search',
      ours: (i) => [{ name: 'semantic_search', args: { query: `${queries[i % queries.length]} ${i}` } }],
      theirs: (i) => [{ name: 'search_nodes', args: { query: queries[i % queries.length]! } }],
      iterations: n(big ? 15 : 30),
    },
    {
      label: 'write one item',
      ours: (i) => [{ name: 'upsert_atom', args: fresh(i) as unknown as Record<string, unknown> }],
      theirs: (i) => {
        const atom = fresh(i);
        return [
          { name: 'create_entities', args: { entities: [toEntity(atom)] } },
          { name: 'create_relations', args: { relations: atom.dependencies!.map((d) => ({ from: atom.name, to: d, relationType: 'depends_on' })) } },
        ];
      },
      iterations: n(big ? 10 : 20),
    },
  ];

  const ours = await startOurs(ws.dir, 'stdio');
  const theirs = await connectStdio(process.execPath, [MEMORY_SERVER], { MEMORY_FILE_PATH: memoryFile });
  const rows: Record<string, string | number>[] = [];
  try {
    rows.push({ atoms: size, question: 'start (spawn → tools/list)', 'ours p50 ms': ms(ours.startMs), 'theirs p50 ms': ms(theirs.startMs), 'ours/theirs p50': ratio(ours.startMs, theirs.startMs) });
    for (const q of questions) {
      options.log(`   ${q.label}`);
      const a: number[] = [];
      const b: number[] = [];
      let aBytes = 0;
      let bBytes = 0;
      // Interleaved, so load from other processes falls on both alike; two warm-up rounds.
      for (let i = 0; i < q.iterations + 2; i++) {
        const oa = await sequence(ours, q.ours(i));
        const ob = await sequence(theirs, q.theirs(i + q.iterations + 2));
        if (i >= 2) {
          a.push(oa.ms);
          b.push(ob.ms);
        }
        aBytes = oa.bytes;
        bBytes = ob.bytes;
      }
      const sa = summarize(a);
      const sb = summarize(b);
      rows.push({
        atoms: size,
        question: q.label,
        'ours p50 ms': ms(sa.p50),
        'ours p95 ms': ms(sa.p95),
        'theirs p50 ms': ms(sb.p50),
        'theirs p95 ms': ms(sb.p95),
        'ours/theirs p50': ratio(sa.p50, sb.p50),
        'ours answer': bytes(aBytes) + (aBytes > SDK_DEFAULT_STDIO_MAX ? ' (over the SDK stdio limit)' : ''),
        'theirs answer': bytes(bBytes) + (bBytes > SDK_DEFAULT_STDIO_MAX ? ' (over the SDK stdio limit)' : ''),
        'ours tool': q.ours(0).map((c) => c.name).join(' + '),
        'theirs tools': q.theirs(0).map((c) => c.name).join(' + '),
      });
    }
    rows.push({ atoms: size, question: 'peak memory (RSS)', 'ours p50 ms': bytes(peakResidentBytes(ours.pid)), 'theirs p50 ms': bytes(peakResidentBytes(theirs.pid)) });
  } finally {
    await ours.close();
    await theirs.close();
  }
  return rows;
}

async function sequence(server: Connected, calls: { name: string; args: Record<string, unknown> }[]) {
  let total = 0;
  let size = 0;
  for (const c of calls) {
    const r = await timedCall(server.client, c.name, c.args);
    if (r.isError) throw new Error(`${c.name} failed: ${r.text.slice(0, 300)}`);
    total += r.ms;
    size += Buffer.byteLength(r.text);
  }
  return { ms: total, bytes: size };
}

function toEntity(atom: AtomDraft) {
  const signature = formatSignature({ inputs: atom.inputs ?? [], outputs: atom.outputs ?? [] });
  return { name: atom.name, entityType: atom.type, observations: [atom.description ?? '', `signature: ${signature}`, atom.code] };
}

/** server-memory's file format: one JSON object per line, entities then relations. */
function toMemoryGraph(atoms: AtomDraft[]): string {
  const lines: string[] = [];
  for (const atom of atoms) lines.push(JSON.stringify({ type: 'entity', ...toEntity(atom) }));
  for (const atom of atoms) {
    for (const d of atom.dependencies ?? []) lines.push(JSON.stringify({ type: 'relation', from: atom.name, to: d, relationType: 'depends_on' }));
  }
  return lines.join('\n');
}

/** recall@1, recall@5 and MRR of both servers on the labelled queries. */
async function searchQuality(options: BenchOptions): Promise<Record<string, string | number>[]> {
  options.log('-- search quality on the labelled game atoms');
  const ws = await prepareFrom('game-atoms', { atoms: GAME_ATOMS, edges: 0, codeBytes: 0 }, options.log);
  const memoryFile = join(ws.dir, 'memory.jsonl');
  writeFileSync(memoryFile, toMemoryGraph(GAME_ATOMS));
  const ours = await startOurs(ws.dir, 'stdio');
  const theirs = await connectStdio(process.execPath, [MEMORY_SERVER], { MEMORY_FILE_PATH: memoryFile });
  const rows: Record<string, string | number>[] = [];
  try {
    for (const [set, queries] of [['tuned', GAME_QUERIES], ['held-out', HELD_OUT_QUERIES]] as const) {
      const oursRanks: number[] = [];
      const theirRanks: number[] = [];
      for (const q of queries) {
        oursRanks.push(rankOf(q, await ourNames(ours.client, q.query)));
        theirRanks.push(rankOf(q, await theirNames(theirs.client, q.query)));
      }
      for (const kind of ['paraphrase', 'identifier', 'all'] as const) {
        const pick = (ranks: number[]) => ranks.filter((_, i) => kind === 'all' || queries[i]!.kind === kind);
        const count = pick(oursRanks).length;
        if (count === 0) continue;
        rows.push(qualityRow('ours: semantic_search', set, kind, pick(oursRanks)));
        rows.push(qualityRow('server-memory: search_nodes', set, kind, pick(theirRanks)));
      }
    }
  } finally {
    await ours.close();
    await theirs.close();
    ws.remove();
  }
  return rows;
}

function qualityRow(server: string, set: string, kind: string, ranks: number[]): Record<string, string | number> {
  const n = ranks.length;
  const share = (f: (r: number) => boolean) => Math.round((ranks.filter(f).length / n) * 100) / 100;
  return {
    server,
    set,
    queries: kind,
    n,
    'recall@1': share((r) => r >= 1 && r <= 1),
    'recall@5': share((r) => r >= 1 && r <= 5),
    MRR: Math.round((ranks.reduce((s, r) => s + (r >= 1 && Number.isFinite(r) ? 1 / r : 0), 0) / n) * 100) / 100,
    'no answer': share((r) => r === -1),
  };
}

/** 1-based rank of the first relevant name; Infinity when none is in the answer; -1 when the answer is empty. */
function rankOf(q: LabelledQuery, names: string[]): number {
  if (names.length === 0) return -1;
  const i = names.findIndex((n) => q.relevant.includes(n));
  return i < 0 ? Infinity : i + 1;
}

async function ourNames(client: Client, query: string): Promise<string[]> {
  const r = await timedCall(client, 'semantic_search', { query, limit: 5 });
  if (r.isError) return [];
  return [...r.text.matchAll(/^\/\/ ([a-z][a-z0-9_]*) \((?:core|feature|util)\) \[similarity/gm)].map((m) => m[1]!);
}

async function theirNames(client: Client, query: string): Promise<string[]> {
  const r = await timedCall(client, 'search_nodes', { query });
  if (r.isError) return [];
  const graph = JSON.parse(r.text) as { entities: { name: string }[] };
  return graph.entities.slice(0, 5).map((e) => e.name);
}
