/**
 * The vector index kept between sessions (SearchIndex's vectorSnapshot, `.atomic/vectors.idx` in a
 * workspace): written at close, a start takes the vectors of the atoms unchanged since and reads only
 * the others from the store, and answers as an index read from the store; a file not sealed on this
 * machine, another model's, or one most of whose atoms changed is not used.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AtomDraft } from '../../src/atoms/model.js';
import { embeddingText } from '../../src/atoms/signature.js';
import type { EmbeddingProvider } from '../../src/search/embeddings/provider.js';
import type { SnapshotSeal } from '../../src/search/lexicalSnapshot.js';
import { SearchIndex } from '../../src/search/searchIndex.js';
import { MemorySource } from '../fixtures/search-source.js';
import { sealWith } from '../support/snapshotSeal.js';
import { linesLogger } from '../support/lines.js';
import { tempDir } from '../support/tmp.js';

const DIMENSIONS = 16;
const WORDS = ['orbit', 'lantern', 'harvest', 'glacier', 'compass', 'meadow', 'ember', 'harbor', 'quartz', 'thimble'];
const atom = (i: number): AtomDraft => ({
  name: `tool_${WORDS[i % 10]}_${WORDS[Math.floor(i / 10) % 10]}_${i}`,
  type: i % 3 === 0 ? 'core' : 'util',
  code: `function tool_${WORDS[i % 10]}_${WORDS[Math.floor(i / 10) % 10]}_${i}(x) {\n  return x * ${i};\n}\n`,
  description: `Turns the ${WORDS[i % 10]} toward the ${WORDS[(i * 7) % 10]} (${i})`,
});
const ATOMS = Array.from({ length: 1200 }, (_, i) => atom(i));
const QUERIES = ['orbit lantern', 'glacier', 'turns the ember', 'quartz harbor', 'compass toward harvest', 'nebula beacon'];

/** A vector for a text, the same for the same text (its characters' codes folded into DIMENSIONS). */
function vectorOf(text: string): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  for (let i = 0; i < text.length; i++) v[(i * 7 + text.charCodeAt(i)) % DIMENSIONS]! += ((text.charCodeAt(i) % 13) - 6) / 7;
  return v;
}

/** A model that embeds by `vectorOf` and remembers what it was asked. */
class FoldingProvider implements EmbeddingProvider {
  readonly dimensions = DIMENSIONS;
  embedded: string[] = [];
  constructor(readonly modelId = 'folding-1') {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return texts.map(vectorOf);
  }
  async dispose(): Promise<void> {}
}


async function answers(index: SearchIndex) {
  const out: Array<Array<[string, number | null]>> = [];
  for (const query of QUERIES) out.push((await index.search(query, { limit: 8, mode: 'semantic' })).hits.map((h) => [h.atom.name, h.similarity]));
  for (const query of QUERIES) out.push((await index.search(query, { limit: 8, type: 'core' })).hits.map((h) => [h.atom.name, h.similarity]));
  return out;
}

/** A session over `source` keeping its vectors in `file`: every atom embedded, its answers, then closed. */
async function session(source: MemorySource, file: string | undefined, seal: SnapshotSeal, provider = new FoldingProvider()) {
  const { log, lines } = linesLogger();
  const index = new SearchIndex(source, provider, { backlogDelayMs: 0, logger: log, ...(file ? { vectorSnapshot: { file, seal } } : {}) });
  try {
    await index.whenIdle();
    const atomTexts = provider.embedded.filter((t) => !QUERIES.includes(t));
    return { answers: await answers(index), lines, atomTexts };
  } finally {
    await index.close();
  }
}

const restoredLine = (lines: string[]) => lines.find((l) => l.includes('vector index restored from its snapshot'));
const notUsed = (lines: string[]) => lines.find((l) => l.includes('vector snapshot was not used'));

test('a start takes the vectors kept at close, reads only the changed atoms from the store, and answers as before', async () => {
  const dir = tempDir('vector-snapshot-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS);
  const file = join(dir, 'vectors.idx');
  const seal = sealWith('this machine');
  const first = await session(source, file, seal);
  assert.equal(first.atomTexts.length, ATOMS.length, 'the first session embeds every atom');
  assert.equal(restoredLine(first.lines), undefined);
  assert.ok(existsSync(file), 'the snapshot is written at close');

  const second = await session(source, file, seal);
  assert.match(restoredLine(second.lines) ?? '', /0 atoms read from the store/);
  assert.deepEqual(second.atomTexts, [], 'nothing embedded again');
  assert.deepEqual(second.answers, first.answers);
  const written = statSync(file).mtimeMs;

  // Changed while no index ran: one atom's text (its stored vector is now stale), one deleted, one new.
  const changed = source.upsert({ ...ATOMS[5]!, description: 'Polishes the nebula beacon' });
  source.delete(ATOMS[6]!.name);
  source.upsert(atom(5000));
  const third = await session(source, file, seal);
  assert.match(restoredLine(third.lines) ?? '', /2 atoms read from the store/);
  assert.deepEqual(third.atomTexts.sort(), [embeddingText(changed), embeddingText(source.get(atom(5000).name)!)].sort(), 'only the changed and the new atom go to the model');
  // The same answers as an index read from the store alone.
  const fromStore = await session(source, undefined, seal);
  assert.deepEqual(fromStore.atomTexts, []);
  assert.deepEqual(third.answers, fromStore.answers);
  assert.ok(statSync(file).mtimeMs >= written, 'written again after the changes');
  const fourth = await session(source, file, seal);
  assert.match(restoredLine(fourth.lines) ?? '', /0 atoms read from the store/);
  assert.deepEqual(fourth.answers, fromStore.answers);

  // An atom changed and embedded by a session that kept no snapshot: the next start reads its
  // current vector from the store (no model call), and writes the snapshot again for the one after.
  source.upsert({ ...ATOMS[7]!, description: 'Winds the brass clock' });
  assert.equal((await session(source, undefined, seal)).atomTexts.length, 1);
  const fifth = await session(source, file, seal);
  assert.match(restoredLine(fifth.lines) ?? '', /1 atoms read from the store/);
  assert.deepEqual(fifth.atomTexts, []);
  assert.match(restoredLine((await session(source, file, seal)).lines) ?? '', /0 atoms read from the store/);
});

test("a snapshot sealed elsewhere, damaged, another model's, or mostly stale is not used; the stored vectors are", async () => {
  const dir = tempDir('vector-snapshot-refused-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS);
  const file = join(dir, 'vectors.idx');
  const seal = sealWith('this machine');
  const reference = await session(source, file, seal);
  const ours = readFileSync(file);

  // Someone else's snapshot (a repository's, another machine's): well formed, sealed with another secret.
  const elsewhere = await session(source, file, sealWith('another machine'));
  assert.match(notUsed(elsewhere.lines) ?? '', /not sealed on this machine/);
  assert.deepEqual(elsewhere.answers, reference.answers);

  for (const at of [0, 20, Math.floor(ours.length / 2), ours.length - 40, ours.length - 1]) {
    const damaged = Buffer.from(ours);
    damaged[at]! ^= 0x41;
    writeFileSync(file, damaged);
    const s = await session(source, file, seal);
    assert.ok(notUsed(s.lines), `byte ${at} changed: ${s.lines.join(' | ')}`);
    assert.deepEqual(s.answers, reference.answers);
  }
  writeFileSync(file, ours.subarray(0, ours.length - 100));
  assert.ok(notUsed((await session(source, file, seal)).lines), 'cut short');

  // Another model: its vectors are never compared with this one's queries.
  writeFileSync(file, ours);
  const other = await session(source, file, seal, new FoldingProvider('folding-2'));
  assert.match(notUsed(other.lines) ?? '', /another model/);
  assert.equal(other.atomTexts.length, ATOMS.length, "another model's stored vectors are embedded again too");

  // Most atoms changed since: the store is read as before.
  await session(source, file, seal); // back to folding-1's vectors and snapshot
  for (const draft of ATOMS.slice(0, 200)) source.upsert({ ...draft, description: `${draft.description}, again` });
  const stale = await session(source, file, seal);
  assert.match(notUsed(stale.lines) ?? '', /200 of 1200 atoms changed since/);
  assert.equal(stale.atomTexts.length, 200);
});

/** A FoldingProvider that never answers for a text holding HOLD until it is disposed (a model behind). */
class BehindProvider extends FoldingProvider {
  private readonly waiting: Array<(err: Error) => void> = [];
  override async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.some((t) => t.includes('HOLD'))) return new Promise((_, reject) => this.waiting.push(reject));
    return super.embed(texts);
  }
  override async dispose(): Promise<void> {
    for (const reject of this.waiting.splice(0)) reject(new Error('disposed'));
  }
}

test('a vector the model had not caught up with at close is not kept: the next start embeds that atom again', async () => {
  const dir = tempDir('vector-snapshot-behind-');
  const source = new MemorySource(join(dir, '.atomic'), ATOMS);
  const file = join(dir, 'vectors.idx');
  const seal = sealWith('this machine');
  await session(source, file, seal);
  const { log } = linesLogger();
  const index = new SearchIndex(source, new BehindProvider(), { backlogDelayMs: 0, logger: log, vectorSnapshot: { file, seal } });
  await index.whenIdle();
  // Changed while this session runs; the model never gives its vector before the close.
  const changed = source.upsert({ ...ATOMS[9]!, description: 'HOLD the thimble still' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await index.close();
  const next = await session(source, file, seal);
  assert.match(restoredLine(next.lines) ?? '', /1 atoms read from the store/);
  assert.deepEqual(next.atomTexts, [embeddingText(changed)], 'its old vector was not kept as its new text’s');
});
