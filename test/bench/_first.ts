import { AtomWorkspace } from '../../src/workspace.js';
import { UseLiteProvider } from '../../src/search/embeddings/useLite.js';
import { silentLogger } from '../../src/util/log.js';
async function main() {
  const dir = process.argv[2]!;
  const mode = process.argv[3] as 'fused' | 'lexical';
  const t0 = performance.now();
  const p = new UseLiteProvider();
  const ws = await AtomWorkspace.open(dir, { embeddings: p, log: silentLogger });
  const t1 = performance.now();
  await ws.search.open();
  const t2 = performance.now();
  const r = await ws.search.search('keep the value between the limits', { mode });
  const t3 = performance.now();
  const pe = performance.now();
  await p.embed(['warm again']);
  const t4 = performance.now();
  console.log(JSON.stringify({ mode, open: Math.round(t1 - t0), searchOpen: Math.round(t2 - t1), firstSearch: Math.round(t3 - t1), hits: r.hits.length, unembedded: r.unembedded, nextEmbed: Math.round(t4 - pe) }));
  await ws.close();
}
main();
