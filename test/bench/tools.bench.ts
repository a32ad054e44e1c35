/**
 * Every tool's round trip against the physical limit, at 100, 1,000 and 10,000 generated atoms,
 * over stdio and HTTP: the no-op tool on the same server and transport (or, for an answer of
 * many bytes, a no-op that answers a text of the same size). Also what the server costs to
 * hold and open at each size: memory, files on disk, cold start.
 */
import { statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AtomDraft } from '../../src/atoms/model.js';
import { GAME_QUERIES, HELD_OUT_QUERIES } from '../fixtures/game-atoms.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { paired, peakResidentBytes, residentBytes, startOurs, timedCall, type Transport } from './harness.js';
import { bytes, ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { seeded } from './generate.js';
import { benchSizes, prepareWorkspace, type PreparedWorkspace } from './workspaces.js';

interface ToolCase {
  label: string;
  tool: string;
  /** Arguments of call i. */
  args: (i: number) => Record<string, unknown>;
  /** Untimed work before call i, through the same client (e.g. a write the call must see). */
  before?: (client: Client, i: number) => Promise<void>;
  /** Compare with a text answer of the same size instead of "ok". */
  sizedFloor?: boolean;
  iterations: number;
  /** The target, checked on this row: max ratio to the floor at p50, or max p50 ms. */
  target?: { ratio?: number; p50Ms?: number; atSize?: number[] };
}

const NOOP = { name: 'bench_noop', args: {} };

export default async function toolsBench(options: BenchOptions): Promise<BenchSection[]> {
  const sizes = benchSizes(options);
  const transports: Transport[] = ['stdio', 'http'];
  const rows: Record<string, string | number>[] = [];
  const scale: Record<string, string | number>[] = [];
  const growth = new Map<string, Map<number, number>>();
  const notes: string[] = [];

  for (const size of sizes) {
    for (const transport of transports) {
      options.log(`-- ${size} atoms over ${transport}`);
      const ws = await prepareWorkspace(size, options.log);
      try {
        const result = await measure(ws, size, transport, options);
        rows.push(...result.rows);
        scale.push(result.scale);
        if (transport === 'stdio') for (const r of result.rows) {
          const byLabel = growth.get(String(r.tool)) ?? new Map<number, number>();
          byLabel.set(size, Number(r['p50 ms']));
          growth.set(String(r.tool), byLabel);
        }
      } finally {
        ws.remove();
      }
    }
  }

  const first = sizes[0]!;
  const last = sizes[sizes.length - 1]!;
  const growthRows = [...growth.entries()].map(([tool, bySize]) => ({
    tool,
    ...Object.fromEntries(sizes.map((s) => [`p50 ms @${s}`, bySize.get(s) ?? ''])),
    [`×${last / first} atoms → ×time`]: bySize.get(first) && bySize.get(last) ? ratio(bySize.get(last)!, bySize.get(first)!) : '',
  }));
  notes.push(
    'ratio = the tool\'s round trip / the floor\'s, both measured in interleaved rounds on the same server and transport; the floor is bench_noop (answers "ok"), or bench_echo_size (answers a text as long as the tool\'s answer) where the answer is big.',
    'upsert_atom updates a random existing atom with new code each time: validated, journaled and fsynced, bundled into latest.js, then answered; its embedding is computed after the answer (semantic_search waits for it).',
    'semantic_search queries are all different, so every call embeds its query with the shipped model.',
  );
  return [
    { title: 'Tool round trips against the no-op floor', rows, notes },
    {
      title: 'How each cost grows with the workspace (stdio, p50)',
      rows: growthRows,
      notes: [
        'Constant by design: bench_noop; get_status (counters kept by the store and two stat() calls); read_atoms of 5 (map lookups, an answer of fixed size).',
        'Linear in the answer, hence in the atoms: get_code_structure (every atom is written out; its floor, moving the same bytes, grows alike, so the ratio stays flat).',
        'query_graph: the dependency map and its reverse edges are built once per change (linear, ~15-20 ms at 10,000 atoms, paid by the first question after an edit) and reused until the next; the rows ask questions between edits, which walk only the affected part.',
        'semantic_search: a constant ~70-200 ms to embed the query with the model (the dominant cost) plus a scan of every vector and the full-text index (linear, a few ms at 10,000).',
        'upsert_atom: journal append and fsync are constant; validation copies the dependency map (linear, ~1 ms at 10,000); the bundle is linear: every change rewrites latest.js (~10 MB at 10,000 atoms), now by copying cached bytes rather than rebuilding them. Compaction (a full export of the database) is linear too, but comes once per ~330-500 edits and runs after the write that made it due has been answered.',
      ],
    },
    { title: 'Holding and opening a workspace', rows: scale, notes: scaleNotes() },
  ];
}

async function measure(ws: PreparedWorkspace, size: number, transport: Transport, options: BenchOptions) {
  const atomsBefore = filesOf(ws.dir);
  const server = await startOurs(ws.dir, transport);
  const rows: Record<string, string | number>[] = [];
  const scaleRow: Record<string, string | number> = { atoms: size, transport, 'start → tools/list ms': ms(server.startMs) };
  try {
    const client = server.client;
    const first = await timedCall(client, 'read_atoms', { names: [ws.set.atoms[0]!.name] });
    scaleRow['then first read_atoms ms'] = ms(first.ms);
    scaleRow['RSS after open'] = bytes(residentBytes(server.pid));
    const cases = toolCases(ws.set.atoms, size, options.quick, server.schemas.get('get_code_structure'));
    // Reads first, then writes (they change the workspace).
    for (const c of cases) {
      if (!server.tools.includes(c.tool)) continue;
      options.log(`   ${c.label}`);
      let floor = NOOP as { name: string; args: Record<string, unknown> };
      if (c.sizedFloor) {
        const probe = await timedCall(client, c.tool, c.args(0));
        floor = { name: 'bench_echo_size', args: { bytes: Buffer.byteLength(probe.text) } };
      }
      const before = c.before;
      const timing = await paired(client, { name: c.tool, args: c.args, before: before && ((i) => before(client, i)) }, floor, c.iterations);
      const t = summarize(timing.tool);
      const b = summarize(timing.base);
      const row: Record<string, string | number> = {
        atoms: size,
        transport,
        tool: c.label,
        n: t.n,
        'p50 ms': ms(t.p50),
        'p95 ms': ms(t.p95),
        floor: floor.name === 'bench_noop' ? 'no-op' : `echo ${bytes(Number(floor.args.bytes))}`,
        'floor p50 ms': ms(b.p50),
        'ratio p50': ratio(t.p50, b.p50),
        'ratio p95': ratio(t.p95, b.p95),
        answer: bytes(timing.answerBytes),
      };
      row.target = verdict(c, size, t.p50, b.p50);
      rows.push(row);
    }
    scaleRow['RSS after run'] = bytes(residentBytes(server.pid));
    scaleRow['peak RSS'] = bytes(peakResidentBytes(server.pid));
  } finally {
    await server.close();
  }
  const after = filesOf(ws.dir);
  scaleRow['atoms.db'] = bytes(atomsBefore.db);
  scaleRow['journal after run'] = bytes(after.journal);
  scaleRow['vectors.bin'] = bytes(atomsBefore.vectors);
  scaleRow['latest.js'] = bytes(atomsBefore.bundle);
  return { rows, scale: scaleRow };
}

function toolCases(atoms: AtomDraft[], size: number, quick: boolean, structureSchema: Record<string, unknown> | undefined): ToolCase[] {
  const random = seeded(size);
  const names = atoms.map((a) => a.name);
  const pickNames = (k: number) => Array.from({ length: k }, () => names[Math.floor(random() * names.length)]!);
  const many = quick ? 30 : 100;
  const few = size >= 10_000 ? (quick ? 8 : 20) : quick ? 15 : 40;
  const queries = [...GAME_QUERIES, ...HELD_OUT_QUERIES].map((q) => q.query);
  const cases: ToolCase[] = [
    { label: 'bench_noop', tool: 'bench_noop', args: () => ({}), iterations: many },
    { label: 'get_status', tool: 'get_status', args: () => ({}), iterations: many, target: { ratio: 2, atSize: [10_000] } },
    { label: 'read_atoms (5)', tool: 'read_atoms', args: () => ({ names: pickNames(5) }), iterations: many, target: { ratio: 2, atSize: [10_000] } },
    { label: 'get_code_structure', tool: 'get_code_structure', args: () => ({}), sizedFloor: true, iterations: few, target: { ratio: 2 } },
    ...detailLevels(structureSchema).map(
      (detail): ToolCase => ({
        label: `get_code_structure (detail ${detail})`,
        tool: 'get_code_structure',
        args: () => ({ detail }),
        sizedFloor: true,
        iterations: few,
        target: { ratio: 2 },
      }),
    ),
    {
      label: 'get_code_structure (type_filter core)',
      tool: 'get_code_structure',
      args: () => ({ type_filter: 'core' }),
      sizedFloor: true,
      iterations: few,
      target: { ratio: 2 },
    },
    {
      label: 'query_graph impact',
      tool: 'query_graph',
      args: () => ({ operation: 'impact', name: pickNames(1)[0] }),
      iterations: many,
    },
    {
      label: 'semantic_search',
      tool: 'semantic_search',
      args: (i) => ({ query: queries[i % queries.length] + (i >= queries.length ? ` ${i}` : '') }),
      iterations: Math.min(queries.length, quick ? 20 : 60),
      target: { p50Ms: 100, atSize: [10_000] },
    },
    {
      // Read your writes: the atom just changed must be embedded again before the search answers.
      label: 'semantic_search right after an upsert',
      tool: 'semantic_search',
      args: (i) => ({ query: `${queries[i % queries.length]} ${i}`, limit: 5 }),
      before: async (client, i) => {
        const atom = atoms[Math.floor(random() * atoms.length)]!;
        const r = await timedCall(client, 'upsert_atom', { ...atom, code: atom.code.replace(/\n}\n$/, `\n  // before search ${i}\n}\n`) });
        if (r.isError) throw new Error(`upsert_atom failed: ${r.text}`);
      },
      iterations: size >= 10_000 ? (quick ? 8 : 20) : quick ? 10 : 30,
    },
    {
      label: 'upsert_atom (update)',
      tool: 'upsert_atom',
      args: (i) => {
        const atom = atoms[Math.floor(random() * atoms.length)]!;
        return { ...atom, code: atom.code.replace(/\n}\n$/, `\n  // edit ${i}\n}\n`) };
      },
      iterations: size >= 10_000 ? (quick ? 10 : 30) : quick ? 15 : 40,
      target: { p50Ms: size >= 10_000 ? 150 : 50, atSize: [1000, 10_000] },
    },
  ];
  return cases;
}

/** The values of get_code_structure's `detail` argument, when it has one (each is measured). */
function detailLevels(schema: Record<string, unknown> | undefined): string[] {
  const detail = (schema?.properties as Record<string, { enum?: unknown[] }> | undefined)?.detail;
  return Array.isArray(detail?.enum) ? detail.enum.map(String) : [];
}

function verdict(c: ToolCase, size: number, p50: number, floorP50: number): string {
  const target = c.target;
  if (!target || (target.atSize && !target.atSize.includes(size))) return '';
  if (target.ratio !== undefined) return p50 / floorP50 <= target.ratio ? `met (≤${target.ratio}×)` : `MISSED (≤${target.ratio}×)`;
  if (target.p50Ms !== undefined) return p50 <= target.p50Ms ? `met (<${target.p50Ms} ms)` : `MISSED (<${target.p50Ms} ms)`;
  return '';
}

function filesOf(dir: string) {
  const atomic = join(dir, '.atomic');
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  return {
    db: size(join(atomic, 'atoms.db')),
    journal: size(join(atomic, 'atoms.journal')),
    vectors: size(join(atomic, 'vectors.bin')),
    bundle: size(join(atomic, 'latest.js')),
  };
}

function scaleNotes(): string[] {
  return [
    'start → tools/list: spawning `atomic-coding serve` until it has answered initialize and tools/list (Node start, sql.js, reading the database and replaying the journal; the vector index loads in the background and the model starts only when needed).',
    'RSS: resident memory of the server process (Linux /proc), after opening, after the run, and its peak.',
  ];
}
