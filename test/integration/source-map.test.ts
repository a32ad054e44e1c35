/**
 * latest.js.map maps every line of every atom back to its file, line for line (header included): to
 * atoms/<name>.js with the text tree, to the atom editor's `atom:/<name>.js` (embedded) without it.
 * The bundle's last line names the map; an incremental build's map is the full build's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import { AtomWorkspace } from '../../src/workspace.js';
import { wordsOnly } from '../support/inProcess.js';
import { tempDir } from '../support/tmp.js';

const example = join(__dirname, '..', '..', 'examples', 'jumping-cube');

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The mappings as [generated line, source index, source line] (0-based), decoded as any consumer does. */
export function decodeMappings(mappings: string): [number, number, number][] {
  const out: [number, number, number][] = [];
  let source = 0;
  let line = 0;
  mappings.split(';').forEach((group, genLine) => {
    if (!group) return;
    for (const segment of group.split(',')) {
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const c of segment) {
        const digit = BASE64.indexOf(c);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      if (values.length < 4) continue;
      source += values[1]!;
      line += values[2]!;
      out.push([genLine, source, line]);
    }
  });
  return out;
}

async function openExample(textTree: boolean) {
  const dir = tempDir('atomic-map-');
  mkdirSync(join(dir, 'atoms'));
  cpSync(join(example, 'atoms'), join(dir, 'atoms'), { recursive: true });
  const workspace = await AtomWorkspace.open(dir, { embeddings: wordsOnly, ...(textTree ? {} : { textTree: false }) });
  if (!textTree) {
    // Without a text tree the atoms come in through writes.
    const { readAtomSources } = await import('../../scripts/seed-example.js');
    await workspace.upsertMany(readAtomSources(example).map((s) => ({ ...s })));
  }
  await workspace.builder.rebuild();
  await workspace.builder.idle(); // the map is written after the build answers
  return { dir, workspace };
}

function checkEveryLine(bundlePath: string, fileText: (source: string, index: number) => string): number {
  const bundle = readFileSync(bundlePath, 'utf8').split('\n');
  const map = JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8')) as { version: number; file: string; sources: string[]; sourcesContent?: string[]; mappings: string };
  assert.equal(map.version, 3);
  assert.equal(map.file, 'latest.js');
  assert.equal(bundle.at(-2), '//# sourceMappingURL=latest.js.map', 'the last line names the map');
  let checked = 0;
  for (const [genLine, source, line] of decodeMappings(map.mappings)) {
    const generated = bundle[genLine]!;
    const original = fileText(map.sources[source]!, source).split('\n')[line]!;
    if (generated.trim().startsWith('// --- [')) {
      assert.equal(original, '/**', `a marker maps to the file's first line (${map.sources[source]})`);
      assert.ok(generated.includes(` ${map.sources[source]!.replace(/^.*\//, '').replace(/\.js$/, '')} ---`));
    } else assert.equal(generated.replace(/^ {2}/, ''), original, `latest.js line ${genLine + 1} is line ${line + 1} of ${map.sources[source]}`);
    checked++;
  }
  // Every line of an atom's code is mapped: only the header, blank lines and the Boot lines are not.
  const mapped = new Set(decodeMappings(map.mappings).map(([g]) => g));
  bundle.forEach((text, i) => {
    if (mapped.has(i)) return;
    assert.ok(i < 7 || text.trim() === '' || i >= bundle.length - 6, `line ${i + 1} is mapped: ${text}`);
  });
  return checked;
}

test('with the text tree, every atom line of latest.js maps to its line in atoms/<name>.js', async () => {
  const { dir, workspace } = await openExample(true);
  try {
    const bundlePath = join(dir, '.atomic', 'latest.js');
    const checked = checkEveryLine(bundlePath, (source) => readFileSync(resolve(dirname(bundlePath), source), 'utf8'));
    assert.ok(checked > 100, `checked ${checked} lines`);
    const map = JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    assert.ok(map.sources.includes('../atoms/player_jump.js'), map.sources.join());
    assert.equal(map.sourcesContent, undefined, 'the files are on disk: nothing embedded');

    // An edit (incremental build, chunks copied) keeps the map exact, the edited atom's lines included.
    const jump = workspace.atoms.get('draw_cube')!;
    await workspace.upsert({ ...jump, description: jump.description ?? undefined, code: jump.code.replace('ctx.fillRect(x, y, size, size);', 'ctx.fillRect(x, y, size, size);\n  // a new line\n  ctx.globalAlpha = 1;') });
    await workspace.builder.idle();
    await workspace.textTree!.written();
    const again = checkEveryLine(bundlePath, (source) => readFileSync(resolve(dirname(bundlePath), source), 'utf8'));
    assert.equal(again, checked + 2);
  } finally {
    await workspace.close();
  }
});

test('a build answers once latest.js is written; a reader of the map that waits for it gets the map of that bundle', async () => {
  const { dir, workspace } = await openExample(true);
  try {
    const bundlePath = join(dir, '.atomic', 'latest.js');
    const seen: Array<Promise<{ inBundle: boolean; inMap: boolean }>> = [];
    // As the preview does: on the event it serves latest.js, and latest.js.map once mapWritten() says so.
    const subscription = workspace.builder.onDidBuild(() => {
      seen.push(
        workspace.builder.mapWritten().then(() => ({
          inBundle: readFileSync(bundlePath, 'utf8').includes('function extra_helper('),
          inMap: (JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8')) as { sources: string[] }).sources.includes('../atoms/extra_helper.js'),
        })),
      );
    });
    try {
      const { build } = await workspace.upsert({ name: 'extra_helper', type: 'util', description: 'Doubles a number.', code: 'function extra_helper(x) {\n  return x * 2;\n}\n' });
      assert.equal(build.status, 'success');
      assert.ok(readFileSync(bundlePath, 'utf8').includes('function extra_helper('), 'the answer comes with the bundle written');
      assert.equal(seen.length, 1, 'the event came with the answer');
      assert.deepEqual(await seen[0], { inBundle: true, inMap: true });
    } finally {
      subscription.dispose();
    }
  } finally {
    await workspace.close();
  }
});

test('a map older than its bundle (the process ended between the two) is written again when the workspace opens', async () => {
  const { dir, workspace } = await openExample(true);
  const bundlePath = join(dir, '.atomic', 'latest.js');
  try {
    await workspace.upsert({ name: 'extra_helper', type: 'util', description: 'Doubles a number.', code: 'function extra_helper(x) {\n  return x * 2;\n}\n' });
  } finally {
    await workspace.close();
  }
  // As if the process had ended before the map of its last build: the map from a build before.
  const bundleTime = statSync(bundlePath).mtime;
  const stale = '{"version":3,"file":"latest.js","sources":[],"names":[],"mappings":""}';
  writeFileSync(`${bundlePath}.map`, stale);
  utimesSync(`${bundlePath}.map`, new Date(bundleTime.getTime() - 60_000), new Date(bundleTime.getTime() - 60_000));
  const again = await AtomWorkspace.open(dir, { embeddings: wordsOnly });
  try {
    await again.builder.idle();
    const checked = checkEveryLine(bundlePath, (source) => readFileSync(resolve(dirname(bundlePath), source), 'utf8'));
    assert.ok(checked > 100, `the map maps the bundle again (${checked} lines)`);
  } finally {
    await again.close();
  }
});

test('without the text tree, the map points at the atom editor and embeds its text', async () => {
  const { dir, workspace } = await openExample(false);
  try {
    const bundlePath = join(dir, '.atomic', 'latest.js');
    const map = JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8')) as { sources: string[]; sourcesContent: string[] };
    assert.ok(map.sources.includes('atom:/player_jump.js'));
    const checked = checkEveryLine(bundlePath, (_source, i) => map.sourcesContent[i]!);
    assert.ok(checked > 100);
    assert.equal(map.sourcesContent[map.sources.indexOf('atom:/player_jump.js')], formatAtomDocument(workspace.atoms.get('player_jump')!));
  } finally {
    await workspace.close();
  }
});
