// Rebuilds a workspace's store from its atom files through the real AtomWorkspace: every atom is
// validated exactly as an upsert_atom call would be, all of them in one all-or-nothing batch. Opening a
// workspace does this by itself now (the text tree imports atoms/ at open, see src/textTree/); this
// script starts the store afresh and also embeds every atom.
// Usage: node --import tsx scripts/seed-example.ts [folder]   (default examples/jumping-cube)
//        node --import tsx scripts/seed-example.ts --generate N folder
//          a synthetic workspace of N atoms in layers (for measuring the graph view at scale); the
//          workspace writes their files to folder/atoms/.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { AtomDraft } from '../src/atoms/model.js';
import { parseAtomDocument } from '../src/atoms/atomDocument.js';
import { stderrLogger } from '../src/util/log.js';
import { AtomWorkspace } from '../src/workspace.js';

const root = join(__dirname, '..');
const args = process.argv.slice(2).filter((a, i, all) => a !== '--generate' && all[i - 1] !== '--generate');
const folder = resolve(args[0] ?? join(root, 'examples', 'jumping-cube'));

/** Reads every `atoms/<name>.js` in the editor's format into a draft. */
export function readAtomSources(dir: string): AtomDraft[] {
  const atomsDir = join(dir, 'atoms');
  return readdirSync(atomsDir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((file) => {
      const name = basename(file, '.js');
      const { draft, hasHeader } = parseAtomDocument(name, readFileSync(join(atomsDir, file), 'utf8'));
      if (!hasHeader || !draft.type) throw new Error(`${file}: needs a JSDoc header with @kind`);
      return { ...draft, type: draft.type, code: draft.code.trim() + '\n' };
    });
}

/**
 * N atoms in about sqrt(N)/2 layers, each using one to three atoms of lower layers (a seeded, repeatable
 * pick): the top layer is core, the bottom util, the rest feature, like a real game's shape.
 */
export function generateAtoms(count: number, seed = 7): AtomDraft[] {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const layers = Math.max(3, Math.round(Math.sqrt(count) / 2));
  const perLayer = Math.ceil(count / layers);
  const drafts: AtomDraft[] = [];
  for (let i = 0; i < count; i++) {
    const layer = Math.floor(i / perLayer);
    const name = `gen_l${layer}_a${i}`;
    const below = drafts.filter((_, j) => Math.floor(j / perLayer) < layer);
    const deps = new Set<string>();
    const want = layer === 0 ? 0 : 1 + Math.floor(random() * 3);
    // Mostly from the layer just below, sometimes from anywhere lower.
    const near = below.slice(-perLayer);
    while (deps.size < Math.min(want, below.length)) {
      const pool = random() < 0.8 ? near : below;
      deps.add(pool[Math.floor(random() * pool.length)]!.name);
    }
    const calls = [...deps].map((d) => `${d}(n)`);
    drafts.push({
      name,
      type: layer === layers - 1 ? 'core' : layer === 0 ? 'util' : 'feature',
      code: `function ${name}(n) {\n  return ${calls.length ? calls.join(' + ') : 'n'} + ${i % 7};\n}\n`,
      inputs: [{ name: 'n', type: 'number' }],
      outputs: [{ name: 'value', type: 'number' }],
      dependencies: [...deps],
      description: `Generated atom ${i} in layer ${layer}`,
    });
  }
  return drafts;
}

async function main(): Promise<void> {
  const generate = process.argv.indexOf('--generate');
  const drafts = generate > 0 ? generateAtoms(Number(process.argv[generate + 1])) : readAtomSources(folder);
  // A fresh store: exactly these atoms, each at version 1 (what it knew of the files goes too).
  for (const f of ['atoms.db', 'atoms.journal', 'latest.js', 'text-tree']) rmSync(join(folder, '.atomic', f), { force: true });
  const workspace = await AtomWorkspace.open(folder, { log: stderrLogger('warn') });
  try {
    const { result, build } = await workspace.upsertMany(drafts);
    if (build.status !== 'success') throw new Error(build.error_message ?? 'the build failed');
    // Every atom's embedding, so semantic_search needs no model run at first.
    if (generate < 0) await workspace.search.whenIdle();
    process.stderr.write(`seeded ${result.length} atoms into ${join(folder, '.atomic')}; bundle order: ${build.order.length > 30 ? `${build.order.slice(0, 5).join(' -> ')} -> … (${build.order.length})` : build.order.join(' -> ')}\n`);
  } finally {
    await workspace.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`seed-example: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
