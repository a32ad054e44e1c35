// Rebuilds examples/jumping-cube/.atomic (atoms.db + atoms.journal, and latest.js) from the readable
// atom sources in examples/jumping-cube/atoms/, through the real AtomWorkspace: every atom is validated
// by the store exactly as an upsert_atom call would be, all of them in one all-or-nothing batch.
// Usage: node --import tsx scripts/seed-example.ts [folder]   (default examples/jumping-cube)
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { AtomDraft } from '../src/atoms/model.js';
import { parseAtomSource } from '../src/views/atomSource.js';
import { stderrLogger } from '../src/util/log.js';
import { AtomWorkspace } from '../src/workspace.js';

const root = join(__dirname, '..');
const folder = resolve(process.argv[2] ?? join(root, 'examples', 'jumping-cube'));

/** Reads every `atoms/<name>.js` in the editor's format into a draft. */
export function readAtomSources(dir: string): AtomDraft[] {
  const atomsDir = join(dir, 'atoms');
  return readdirSync(atomsDir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((file) => {
      const name = basename(file, '.js');
      const { draft, hasHeader } = parseAtomSource(name, readFileSync(join(atomsDir, file), 'utf8'));
      if (!hasHeader || !draft.type) throw new Error(`${file}: needs a JSDoc header with @kind`);
      return { ...draft, type: draft.type, code: draft.code.trim() + '\n' };
    });
}

async function main(): Promise<void> {
  const drafts = readAtomSources(folder);
  // A fresh store: the committed database holds exactly these atoms, each at version 1.
  for (const f of ['atoms.db', 'atoms.journal', 'latest.js']) rmSync(join(folder, '.atomic', f), { force: true });
  const workspace = await AtomWorkspace.open(folder, { log: stderrLogger('warn') });
  try {
    const { result, build } = await workspace.upsertMany(drafts);
    if (build.status !== 'success') throw new Error(build.error_message ?? 'the build failed');
    process.stderr.write(`seeded ${result.length} atoms into ${join(folder, '.atomic')}; bundle order: ${build.order.join(' -> ')}\n`);
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
