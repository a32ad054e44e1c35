import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import type { Atom } from '../../src/atoms/model.js';
import { SourceMapEncoder, sourceOf, vlq, type SourceMapSources } from '../../src/bundle/sourceMap.js';

const atom = (name: string, code: string, description: string | null, dependencies: string[] = []): Atom => ({
  name, type: 'util', code, dependencies, inputs: [{ name: 'x', type: 'number' }], outputs: [{ name: 'y', type: 'number' }], description, version: 1, created_at: 't', updated_at: 't',
});

/** The map as the builder wrote it before the encoder: one string per atom, joined, then stringified. */
function reference(atoms: readonly Atom[], firstLine: number, sources: SourceMapSources, file: string): string {
  const parts: string[] = [';'.repeat(firstLine)];
  let previousSource = 0;
  let previousLine = 0;
  const counts = (a: Atom) => {
    const code = a.code.trimEnd();
    const description = a.description ? a.description.split('\n').length - 1 + 2 : 0;
    const header = 3 + description + a.inputs.length + a.outputs.length + a.dependencies.length + (a.examples?.length ?? 0);
    return { header, code: code.split('\n').length - 1 + 1 };
  };
  atoms.forEach((a, i) => {
    const { header, code } = counts(a);
    let chunk = `A${vlq(i - previousSource)}${vlq(-previousLine)}A;`;
    chunk += `AA${vlq(header)}A;`;
    if (code > 1) chunk += 'AACA;'.repeat(code - 1);
    parts.push(chunk + ';');
    previousSource = i;
    previousLine = header + code - 1;
  });
  const map: Record<string, unknown> = { version: 3, file, sources: atoms.map((a) => sourceOf(sources, a.name)), names: [], mappings: parts.join('') };
  if (sources.embed) map.sourcesContent = atoms.map((a) => formatAtomDocument(a));
  return JSON.stringify(map);
}

function encoded(atoms: readonly Atom[], firstLine: number, sources: SourceMapSources, file: string, bufferBytes: number): string {
  const encoder = new SourceMapEncoder(atoms, firstLine, sources, file);
  const parts: Buffer[] = [];
  // The buffer is filled, "written" and used again, as the builder does.
  const buffer = Buffer.alloc(bufferBytes);
  while (!encoder.done) parts.push(Buffer.from(buffer.subarray(0, encoder.fill(buffer, 0))));
  return Buffer.concat(parts).toString('utf8');
}

test('the source map written through a buffer is, byte for byte, the JSON of the map built whole', () => {
  const atoms: Atom[] = [];
  for (let i = 0; i < 120; i++) {
    const lines = 1 + ((i * 7) % 40);
    const body = Array.from({ length: lines }, (_, k) => `  const v${k} = ${k}; // «${'é'.repeat(k % 3)}»`).join('\n');
    const description = i % 4 === 0 ? null : i % 4 === 1 ? `Déplace le joueur ${i} — “vite”.` : `Line one\nline two of ${i}\nthree`;
    atoms.push(atom(`a_${String(i).padStart(3, '0')}`, `function a_${i}(x) {\n${body}\n  return x;\n}\n`, description, i > 0 ? [`a_${String(i - 1).padStart(3, '0')}`] : []));
  }
  // One atom of 1,800 lines: its run of `AACA;` and its embedded text are longer than the small buffers.
  atoms.push(atom('not a \u2028 "name"', 'function f() {}\n', null));
  atoms.push(atom('long_one', `function long_one(x) {\n${'  x++;\n'.repeat(1800)}  return x;\n}\n`, 'A long one "quoted" \\ with a backslash'));
  const inFolder: SourceMapSources = { prefix: '../at"oms/', embed: false };
  const embedded: SourceMapSources = { prefix: 'atom:/', embed: true };
  for (const sources of [inFolder, embedded]) {
    for (const firstLine of [0, 5, 300]) {
      const expected = reference(atoms, firstLine, sources, 'latest.js');
      for (const bytes of [64, 100, 4096, 64 * 1024]) {
        assert.equal(encoded(atoms, firstLine, sources, 'latest.js', bytes), expected, `embed ${sources.embed}, first line ${firstLine}, a buffer of ${bytes} bytes`);
      }
    }
  }
  assert.equal(encoded([], 3, inFolder, 'x "1".js', 64), reference([], 3, inFolder, 'x "1".js'), 'no atoms');
});
