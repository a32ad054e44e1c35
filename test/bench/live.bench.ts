/**
 * The live loop: from a save (an editor save, and an upsert as an agent's tool does it) to the running
 * preview executing the new code, with hot swap and with a restart, at 20 and 1,000 atoms. The preview
 * is the loopback browser preview in Chromium (its sandboxed frame, as the user's browser runs it); the
 * page is instrumented by an atom, `live_probe`, called every frame, that logs once when its new code
 * first runs. The time ends when that console line reaches the server (the report's own trip back is
 * in both columns alike).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import { toDraft } from '../../src/atoms/atomDocument.js';
import { isProgramAtom, type Atom, type AtomDraft } from '../../src/atoms/model.js';
import { BrowserLiveLoop, type LiveState } from '../../src/preview/hotSwap.js';
import { PreviewServer } from '../../src/preview/previewServer.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';
import { ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';

const root = join(__dirname, '..', '..');

function probe(version: number): string {
  return `function live_probe() {\n  if (live_probe.seen !== ${version}) {\n    live_probe.seen = ${version};\n    console.log('probe ${version}');\n  }\n  return live_probe.seen;\n}`;
}

function atoms(count: number): AtomDraft[] {
  const drafts: AtomDraft[] = [
    { name: 'live_probe', type: 'util', code: probe(0), description: 'logs once when its new code first runs' },
    {
      name: 'main',
      type: 'core',
      code: 'function main() {\n  const frame = () => {\n    live_probe();\n    requestAnimationFrame(frame);\n  };\n  requestAnimationFrame(frame);\n}',
      description: 'calls live_probe every frame',
    },
  ];
  for (let i = 0; drafts.length < count; i++) {
    drafts.push({ name: `filler_${i}`, type: 'util', code: `function filler_${i}(x) {\n  const y = x * ${i + 1};\n  return y + ${i} - Math.floor(y / 7);\n}`, description: `filler ${i}` });
  }
  return drafts;
}

export default async function liveBench(options: BenchOptions): Promise<BenchSection> {
  const samples = options.quick ? 8 : 25;
  const lib = (await import(join(root, 'scripts', 'e2e', 'lib.mjs'))) as { launchBrowser(runDir: string, viewport?: object): Promise<BrowserContext> };
  const browser = await lib.launchBrowser(tempDir('live-bench-browser-'), { width: 400, height: 300 });
  const rows: BenchSection['rows'] = [];
  try {
    for (const count of [20, 1000]) {
      const dir = tempDir('live-bench-');
      mkdirSync(join(dir, 'atoms'));
      const workspace = await AtomWorkspace.open(dir, { embeddings: wordsOnly, textTree: false });
      let hotSwap = true;
      const server = await PreviewServer.start({ bundle: () => workspace.builder.readBundle(), page: () => null, hotSwap: () => hotSwap });
      try {
        await workspace.upsertMany(atoms(count));
        await workspace.builder.idle();
        const state = (): LiveState => {
          const map = new Map<string, Atom>();
          for (const atom of workspace.atoms.all()) if (isProgramAtom(atom)) map.set(atom.name, atom);
          return { atoms: map, entry: workspace.bootAtom(), page: null };
        };
        const loop = new BrowserLiveLoop(server, state());
        workspace.builder.onDidBuild((b) => {
          if (b.status === 'success') loop.built(state(), hotSwap);
        });
        let waiting: { text: string; done: () => void } | undefined;
        server.onDidReport((r) => {
          if (r.kind === 'console' && waiting && r.text === waiting.text) waiting.done();
        });
        const page = await browser.newPage();
        let version = 0;
        const seen = (v: number) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`probe ${v} never ran`)), 30_000);
            waiting = { text: `probe ${v}`, done: () => (clearTimeout(timer), resolve()) };
          });
        const first = seen(0);
        await page.goto(server.url);
        await first;
        for (const mode of ['swap', 'restart'] as const) {
          hotSwap = mode === 'swap';
          for (const via of ['upsert', 'editor save'] as const) {
            const times: number[] = [];
            const writes: number[] = [];
            for (let i = 0; i < samples + 2; i++) {
              version++;
              const ran = seen(version);
              const started = performance.now();
              if (via === 'upsert') await workspace.upsert({ name: 'live_probe', type: 'util', code: probe(version), description: 'logs once when its new code first runs' });
              else {
                // As the atom editor saves: its document's text parsed into a draft, then the same write.
                const atom = workspace.atoms.get('live_probe')!;
                const text = formatAtomDocument({ ...atom, code: probe(version) });
                await workspace.upsert(toDraft('live_probe', text, atom));
              }
              const written = performance.now() - started;
              await ran;
              if (i >= 2) {
                // The first two warm up.
                times.push(performance.now() - started);
                writes.push(written);
              }
            }
            const s = summarize(times);
            rows.push({ atoms: count, mode, via, n: s.n, 'p50 ms': ms(s.p50), 'p95 ms': ms(s.p95), 'of which the write, p50 ms': ms(summarize(writes).p50) });
            options.log(`live: ${count} atoms, ${mode} via ${via}: p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms`);
          }
        }
        await page.close();
      } finally {
        await server.close();
        await workspace.close();
      }
    }
  } finally {
    await browser.close();
  }
  for (const row of rows) {
    if (row.mode !== 'swap') continue;
    const restart = rows.find((r) => r.atoms === row.atoms && r.via === row.via && r.mode === 'restart');
    if (restart) row['restart ÷ swap (p50)'] = ratio(Number(restart['p50 ms']), Number(row['p50 ms']));
  }
  return {
    title: 'Live loop: save to the new code running in the preview',
    rows,
    notes: [
      'From the start of the write (an upsert, or an editor save: the document parsed, then the same write) to the console line of the new code reaching the preview server: the write, the build of latest.js and its map, the swap or the reload of the page, and the first call of the new code at the next animation frame.',
      '"of which the write" is the write alone (journal, fsync, store): the same in both modes.',
      'swap: hot swap on, only the changed atom is sent and evaluated in the running frame. restart: hot swap off, the page reloads and runs the whole bundle again.',
      'Chromium headless (Debian chromium through playwright-core); targets: swap p50 <= 100 ms at 1,000 atoms and >= 3x ahead of a restart.',
    ],
  };
}

/** `node --import tsx test/bench/live.bench.ts [--quick]`: this section alone. */
if (require.main === module) {
  void liveBench({ quick: process.argv.includes('--quick'), log: (m) => process.stderr.write(`${m}\n`) }).then((section) =>
    process.stdout.write(`${JSON.stringify(section.rows, null, 1)}\n`),
  );
}
