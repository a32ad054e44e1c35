/**
 * The text tree (src/textTree/, issue 18), in this process, on generated atoms:
 *
 * - a fresh clone: N atom files and no .atomic/ at all, opened as the server opens it, until the
 *   tools are usable (every atom imported and validated, the bundle built); the search index's
 *   embedding catch-up runs in the background and is left out (no model here: its cost is the
 *   search modules');
 * - the file write's share of an upsert: the same edits on two copies of the workspace, one with
 *   the text tree and one without, interleaved write by write, as a ratio of medians;
 * - a branch switch: 1,000 files rewritten at once outside the server, from the first write to the
 *   store holding all of them (one store change).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { silentLogger } from '../../src/util/log.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { tempDir } from '../support/tmp.js';
import { generateAtoms } from './generate.js';
import { ms, ratio, summarize, type BenchOptions, type BenchSection } from './report.js';
import { benchSizes } from './workspaces.js';

const noModel = new KeywordOnlyProvider();

/** A clone as git gives it: the atom files only. */
function writeClone(count: number): { dir: string; names: string[] } {
  const dir = tempDir(`atomic-texttree-bench-${count}-`);
  mkdirSync(join(dir, 'atoms'));
  const { atoms } = generateAtoms(count);
  for (const a of atoms) {
    const text = formatAtomDocument({ type: a.type, code: a.code, inputs: a.inputs ?? [], outputs: a.outputs ?? [], dependencies: [...new Set(a.dependencies ?? [])].sort(), description: a.description ?? null });
    writeFileSync(join(dir, 'atoms', `${a.name}.js`), text);
  }
  return { dir, names: atoms.map((a) => a.name) };
}

export default async function textTreeBench(options: BenchOptions): Promise<BenchSection[]> {
  const writes = options.quick ? 20 : 60;
  const openRows: BenchSection['rows'] = [];
  const upsertRows: BenchSection['rows'] = [];
  const switchRows: BenchSection['rows'] = [];
  for (const size of benchSizes(options)) {
    options.log(`texttree: a clone of ${size} atom files`);
    const clone = writeClone(size);
    const t0 = performance.now();
    const workspace = await AtomWorkspace.open(clone.dir, { embeddings: noModel, log: silentLogger });
    const openMs = performance.now() - t0;
    await workspace.builder.idle();
    const usableMs = performance.now() - t0;
    openRows.push({
      atoms: size,
      'open ms (imported, validated)': ms(openMs),
      'tools usable ms (+ bundle)': ms(usableMs),
      'atoms taken': workspace.atoms.size,
      'files not taken': workspace.textTree?.problems().length ?? 0,
    });

    // The same edits with and without the file write, interleaved.
    const bare = tempDir(`atomic-texttree-bare-${size}-`);
    await workspace.close();
    cpSync(join(clone.dir, '.atomic'), join(bare, '.atomic'), { recursive: true });
    const withTree = await AtomWorkspace.open(clone.dir, { embeddings: noModel, log: silentLogger });
    const without = await AtomWorkspace.open(bare, { embeddings: noModel, log: silentLogger, textTree: false });
    const timed: { with: number[]; without: number[] } = { with: [], without: [] };
    try {
      for (let i = 0; i < writes; i++) {
        const name = clone.names[(i * 7919) % clone.names.length]!;
        for (const [key, ws] of [['with', withTree], ['without', without]] as const) {
          const atom = ws.atoms.get(name)!;
          const t = performance.now();
          const { name: n, type, code, inputs, outputs, dependencies } = atom;
          await ws.upsert({ name: n, type, code, inputs, outputs, dependencies, description: `${atom.description ?? ''} (edit ${i})` });
          timed[key].push(performance.now() - t);
        }
      }
    } finally {
      await without.close();
    }
    const w = summarize(timed.with);
    const wo = summarize(timed.without);
    upsertRows.push({ atoms: size, 'upsert p50 ms with files': ms(w.p50), 'without files': ms(wo.p50), 'ratio p50': ratio(w.p50, wo.p50), 'p95 with': ms(w.p95), 'p95 without': ms(wo.p95) });

    // A branch switch: 1,000 files (or all of a smaller workspace) rewritten outside at once.
    const changed = clone.names.slice(0, Math.min(1000, clone.names.length));
    let seen = 0;
    const done = new Promise<void>((resolve) => {
      const sub = withTree.onDidChange((c) => {
        if (c.kind === 'upsert' && changed.includes(c.atom.name) && c.atom.code.includes('/* switched */') && ++seen === changed.length) {
          sub.dispose();
          resolve();
        }
      });
    });
    let changes = 0;
    const count = withTree.onDidChange(() => changes++);
    const t1 = performance.now();
    for (const name of changed) {
      const atom = withTree.atoms.get(name)!;
      writeFileSync(join(clone.dir, 'atoms', `${name}.js`), formatAtomDocument({ ...atom, code: atom.code.replace(/\}\s*$/, '  /* switched */\n}\n') }));
    }
    const writtenMs = performance.now() - t1;
    // The watcher and its timer do not keep a process alive (a server has its own reasons to stay).
    const keepAlive = setInterval(() => {}, 1000);
    await done;
    clearInterval(keepAlive);
    const importedMs = performance.now() - t1;
    count.dispose();
    await withTree.textTree?.written();
    switchRows.push({
      atoms: size,
      'files changed': changed.length,
      'writing them ms': ms(writtenMs),
      'all in the store ms (from the first write)': ms(importedMs),
      'store announcements': changes,
      'store changes (distinct times)': new Set(changed.map((n) => withTree.atoms.get(n)!.updated_at)).size,
    });
    await withTree.close();
    rmSync(clone.dir, { recursive: true, force: true });
    rmSync(bare, { recursive: true, force: true });
  }
  return [
    {
      title: 'Text tree: a fresh clone (atom files only, no .atomic/) opened until the tools are usable',
      rows: openRows,
      notes: ['In process, no embedding model: the search index catches up in the background and is measured by the search modules.'],
    },
    {
      title: 'Text tree: the file write in an upsert (same edits, with and without the files, interleaved)',
      rows: upsertRows,
      notes: [`${writes} edits of the description of spread-out atoms on each workspace; ratio of medians.`],
    },
    {
      title: 'Text tree: a branch switch (files rewritten outside the server at once)',
      rows: switchRows,
      notes: ['Files are gathered 150 ms after the last event, then validated together and committed as one store change.'],
    },
  ];
}
