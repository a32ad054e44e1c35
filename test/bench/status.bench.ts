/**
 * get_status must stay cheap: "well under 5 ms at 10,000 atoms" (issue 6). Measured two ways on
 * generated workspaces of 100, 1,000 and 10,000 atoms:
 *
 * - the handler itself (workspaceStatus + its text), called in-process;
 * - a whole tools/call through the official SDK client over an in-memory transport, interleaved
 *   with the no-op bench tool on the same server, so the ratio shows what status adds to the
 *   floor of any call. (tools.bench.ts measures the same call over HTTP and stdio.)
 *
 * Status reads counters and in-memory fields only, so these workspaces skip embeddings (which
 * take tens of minutes at 10,000 atoms and change nothing status computes).
 */
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer, SessionRegistry } from '../../src/mcp/server.js';
import { benchTools } from '../../src/mcp/tools/bench.js';
import { allTools } from '../../src/mcp/tools/index.js';
import { formatStatus, workspaceStatus } from '../../src/mcp/tools/getStatus.js';
import { AtomStore } from '../../src/store/atomStore.js';
import { silentLogger } from '../../src/util/log.js';
import { VERSION } from '../../src/version.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { generateAtoms } from './generate.js';
import { ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { benchSizes } from './workspaces.js';
import { tempDir } from '../support/tmp.js';
import { upsertMany } from '../support/storeWrites.js';

const BUDGET_MS = 5;

export default async function statusBench(options: BenchOptions): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  const iterations = options.quick ? 200 : 1000;
  for (const size of benchSizes(options)) {
    options.log(`status: ${size} atoms`);
    const dir = tempDir(`atomic-status-bench-${size}-`);
    try {
      const store = await AtomStore.open(dir);
      const { atoms } = generateAtoms(size);
      for (let i = 0; i < atoms.length; i += 500) await upsertMany(store, atoms.slice(i, i + 500));
      await store.close();
      const workspace = await AtomWorkspace.open(dir);
      try {
        rows.push(...(await measure(workspace, size, iterations)));
      } finally {
        await workspace.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    title: 'get_status latency',
    rows,
    notes: [
      `Budget: well under ${BUDGET_MS} ms at 10,000 atoms. "handler" is the tool's own work in-process; "tools/call" is a full call through the SDK client over an in-memory transport, with the no-op tool on the same server as its floor.`,
      'Status reads counters the store keeps (atoms per type, edges, embeddings), the last build record and one file size; nothing walks the atoms or reads the database. Counting types by walking 10,000 atoms instead cost 1.4 ms here.',
    ],
  };
}

async function measure(workspace: AtomWorkspace, size: number, iterations: number): Promise<BenchSection['rows']> {
  // The handler alone.
  const handler: number[] = [];
  for (let i = 0; i < iterations + 50; i++) {
    const t = performance.now();
    formatStatus(workspaceStatus(workspace, VERSION, 1));
    if (i >= 50) handler.push(performance.now() - t);
  }

  // A whole call through the SDK client, interleaved with the no-op floor.
  const sessions = new SessionRegistry();
  const server = createMcpServer({ workspace, log: silentLogger, sessions, tools: [...allTools, ...benchTools] });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'status-bench', version: '1.0.0' });
  await client.connect(clientSide);
  const status: number[] = [];
  const floor: number[] = [];
  try {
    for (let i = 0; i < iterations + 20; i++) {
      let t = performance.now();
      await client.callTool({ name: 'bench_noop', arguments: {} });
      const noop = performance.now() - t;
      t = performance.now();
      const result = await client.callTool({ name: 'get_status', arguments: {} });
      const took = performance.now() - t;
      if (result.isError) throw new Error(`get_status failed: ${JSON.stringify(result.content)}`);
      if (i >= 20) {
        floor.push(noop);
        status.push(took);
      }
    }
  } finally {
    await client.close();
    await server.close();
  }

  const h = summarize(handler);
  const s = summarize(status);
  const f = summarize(floor);
  const verdict = (p95: number) => (size >= 10_000 ? (p95 < BUDGET_MS ? `met (p95 < ${BUDGET_MS} ms)` : `MISSED (p95 < ${BUDGET_MS} ms)`) : '');
  return [
    { atoms: size, measured: 'handler', n: h.n, 'p50 ms': ms(h.p50), 'p95 ms': ms(h.p95), 'max ms': ms(Math.max(...handler)), target: verdict(h.p95) },
    {
      atoms: size,
      measured: 'tools/call (in-memory)',
      n: s.n,
      'p50 ms': ms(s.p50),
      'p95 ms': ms(s.p95),
      'max ms': ms(Math.max(...status)),
      'no-op p50 ms': ms(f.p50),
      'ratio p50': ratio(s.p50, f.p50),
      target: verdict(s.p95),
    },
  ];
}

/** `node --import tsx test/bench/status.bench.ts [--quick]`: this section alone. */
if (require.main === module) {
  void statusBench({ quick: process.argv.includes('--quick'), log: (m) => process.stderr.write(`${m}\n`) }).then((section) =>
    process.stdout.write(`${JSON.stringify(section, null, 2)}\n`),
  );
}
