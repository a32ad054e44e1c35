/**
 * The full-text index kept between sessions (SearchIndex's lexicalSnapshot, `.atomic/fulltext.bin`
 * in a workspace): a start restores it and indexes again only what changed since, and answers as
 * an index built from every atom; a file not sealed with this machine's secret (committed to a
 * repository), a link in its place, or one whose atoms mostly changed is not used, and the index
 * is built as before.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AtomDraft } from '../../src/atoms/model.js';
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import type { SnapshotSeal } from '../../src/search/lexicalSnapshot.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { MemorySource } from '../fixtures/search-source.js';
import { sealWith } from '../support/snapshotSeal.js';
import { linesLogger } from '../support/lines.js';
import { tempDir } from '../support/tmp.js';


const WORDS = ['orbit', 'lantern', 'harvest', 'glacier', 'compass', 'meadow', 'ember', 'harbor', 'quartz', 'thimble'];
const atom = (i: number): AtomDraft => ({
  name: `tool_${WORDS[i % 10]}_${WORDS[Math.floor(i / 10) % 10]}_${i}`,
  type: i % 3 === 0 ? 'core' : 'util',
  code: `function tool_${WORDS[i % 10]}_${WORDS[Math.floor(i / 10) % 10]}_${i}(x) {\n  const ${WORDS[(i + 3) % 10]}Level = x * ${i};\n  return ${WORDS[(i + 3) % 10]}Level + 1;\n}\n`,
  description: `Turns the ${WORDS[i % 10]} toward the ${WORDS[(i * 7) % 10]} (${i})`,
});
const ATOMS = Array.from({ length: 1200 }, (_, i) => atom(i));
const QUERIES = ['orbit lantern', 'glacier', 'turns the ember', 'quartz harbor', 'meadowLevel', 'thimbl', 'compass toward harvest', 'nebula beacon'];


async function answers(index: SearchIndex) {
  const out: Array<Array<[string, number | null]>> = [];
  for (const query of QUERIES) out.push((await index.search(query, { limit: 8, mode: 'lexical' })).hits.map((h) => [h.atom.name, h.similarity]));
  for (const query of QUERIES) out.push((await index.search(query, { limit: 8, type: 'core' })).hits.map((h) => [h.atom.name, h.similarity]));
  return out;
}

/** A search index over `source` keeping its snapshot in `file`; its answers, then closed (the snapshot written). */
async function session(source: MemorySource, file: string, seal: SnapshotSeal) {
  const { log, lines } = linesLogger();
  const index = new SearchIndex(source, new KeywordOnlyProvider(), { backlogDelayMs: 0, logger: log, lexicalSnapshot: { file, seal } });
  try {
    return { answers: await answers(index), lines };
  } finally {
    await index.close();
  }
}

/** The answers of an index built from every atom, with no snapshot. */
async function built(source: MemorySource) {
  const index = new SearchIndex(source, new KeywordOnlyProvider(), { backlogDelayMs: 0 });
  try {
    return await answers(index);
  } finally {
    await index.close();
  }
}

const restoredLine = (lines: string[]) => lines.find((l) => l.includes('restored from its snapshot'));

test('a start restores the snapshot, indexes again only what changed, and answers as a full build', async () => {
  const dir = tempDir('lexical-snapshot-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS);
  const file = join(dir, 'fulltext.bin');
  const seal = sealWith('this machine');
  const first = await session(source, file, seal);
  assert.ok(existsSync(file), 'the snapshot is written at close');
  assert.equal(restoredLine(first.lines), undefined, 'the first start builds');
  assert.deepEqual(first.answers, await built(source));

  // Changed while no index ran: one atom's words, one deleted, one new.
  source.upsert({ ...ATOMS[5]!, description: 'Polishes the nebula beacon' });
  source.delete(ATOMS[6]!.name);
  source.upsert({ ...atom(5000), name: 'tool_fresh_beacon', code: 'function tool_fresh_beacon(x) {\n  return x;\n}\n', description: 'A beacon for the glacier' });
  const second = await session(source, file, seal);
  assert.match(restoredLine(second.lines) ?? '(built)', /2 atoms indexed again and 1 removed/);
  assert.deepEqual(second.answers, await built(source));
  assert.ok(second.answers.flat().some(([name]) => name === 'tool_fresh_beacon'), 'the new atom is found');
  assert.ok(!second.answers.flat().some(([name]) => name === ATOMS[6]!.name), 'the deleted atom is not');

  // Unchanged since: restored with nothing to index again.
  const third = await session(source, file, seal);
  assert.match(restoredLine(third.lines) ?? '(built)', /0 atoms indexed again and 0 removed/);
  assert.deepEqual(third.answers, second.answers);
});

test('a snapshot sealed elsewhere (a cloned repository), or a link in its place, is not used', async () => {
  const dir = tempDir('lexical-snapshot-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS);
  const file = join(dir, 'fulltext.bin');
  await session(source, file, sealWith('the committer'));
  const forged = await session(source, file, sealWith('this machine'));
  assert.equal(restoredLine(forged.lines), undefined);
  assert.ok(forged.lines.some((l) => /not sealed on this machine/.test(l)), forged.lines.join('\n'));
  assert.deepEqual(forged.answers, await built(source));

  // A link to a file elsewhere (a shell's startup file): not read, and replaced rather than written through.
  const elsewhere = join(tempDir('lexical-elsewhere-'), '.bashrc');
  writeFileSync(elsewhere, 'export PATH=$PATH\n');
  const linked = join(dir, 'linked.bin');
  symlinkSync(elsewhere, linked);
  const viaLink = await session(source, linked, sealWith('this machine'));
  assert.equal(restoredLine(viaLink.lines), undefined);
  assert.equal(readFileSync(elsewhere, 'utf8'), 'export PATH=$PATH\n', 'the link target is untouched');
  assert.ok(lstatSync(linked).isFile(), 'the link was replaced by the snapshot');
  assert.match(restoredLine((await session(source, linked, sealWith('this machine'))).lines) ?? '(built)', /restored/);
});

test('a snapshot whose atoms mostly changed since is not used: the index is built', async () => {
  const dir = tempDir('lexical-snapshot-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS);
  const file = join(dir, 'fulltext.bin');
  const seal = sealWith('this machine');
  await session(source, file, seal);
  for (const a of ATOMS.slice(0, 400)) source.upsert({ ...a, description: `${a.description}, rewritten` });
  const after = await session(source, file, seal);
  assert.equal(restoredLine(after.lines), undefined);
  assert.deepEqual(after.answers, await built(source));
});

test('a small workspace keeps no snapshot', async () => {
  const dir = tempDir('lexical-snapshot-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS.slice(0, 200));
  const file = join(dir, 'fulltext.bin');
  await session(source, file, sealWith('this machine'));
  assert.equal(existsSync(file), false);
});
