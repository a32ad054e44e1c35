/**
 * latest.js's source map (Source Map v3), pure: every line of an atom's chunk maps back to the atom it
 * came from, line for line, in the atom's file as the text tree writes it (`atoms/<name>.js`) or as the
 * atom editor shows it (the same format, atoms/atomDocument.ts: a JSDoc header, then the code). The
 * chunk's `// --- [type] name ---` line maps to the file's first line (the header's `/**`), each line of
 * the code to its line below the header; blank lines, the bundle's header and its Boot lines map to
 * nothing.
 *
 * Cheap enough for every build: the segments are relative (VLQ), and inside an atom every line after
 * the first code line is the same `AACA` (same source, next line, column 0), so an atom's mappings
 * are a short head and a repeated string; its line counts are kept per atom object (the store
 * replaces an atom's object on every change).
 */
import { formatAtomDocument } from '../atoms/atomDocument.js';
import type { Atom } from '../atoms/model.js';

/** Where a map's sources live: a path (relative to the map) or a URI per atom, and whether to embed the text. */
export interface SourceMapSources {
  /** The source of an atom as the map names it (`../atoms/player_jump.js`, `atom:/player_jump.js`). */
  source(name: string): string;
  /** Embed each atom's file text (`sourcesContent`): for sources no one can read from disk (the editor's). */
  embed: boolean;
  /**
   * The atom's file as it is, when it may differ from the editor's format (a file written by hand keeps
   * its own header layout): its code's lines are counted from where the code starts in it.
   */
  fileText?(atom: Atom): string | undefined;
}

interface AtomLines {
  /** Lines of the file's header before the code (the `/**` … ` *\/` block). */
  header: number;
  /** Lines of the code as the bundle holds it (trimmed at the end). */
  code: number;
}

/**
 * Line counts per atom object, per way of reading files (`fileText`): a count taken while no file could
 * be read (the editor's format) must not stand for the file once the text tree reads it.
 */
const lineCounts = new WeakMap<object, WeakMap<Atom, AtomLines>>();
const EDITOR_FORMAT = {};

function linesOf(atom: Atom, sources: SourceMapSources): AtomLines {
  const key = sources.fileText ?? EDITOR_FORMAT;
  let counted = lineCounts.get(key);
  if (!counted) lineCounts.set(key, (counted = new WeakMap()));
  let counts = counted.get(atom);
  if (!counts) {
    const code = atom.code.trimEnd();
    const file = sources.fileText?.(atom);
    const at = file?.lastIndexOf(code) ?? -1;
    counts = { header: file && at >= 0 ? countLines(file.slice(0, at)) : headerLines(atom), code: countLines(code) + 1 };
    // Kept only when read from the editor's format or a file: per atom object (a change makes a new one).
    counted.set(atom, counts);
  }
  return counts;
}

/**
 * The lines of the editor's header above the code (formatAtomDocument), counted without formatting it:
 * `/**`, the description's lines and a blank line when there is one, `@kind`, a line per port,
 * dependency and example, ` *\/`. (A description's line breaks stay line breaks there; everything else
 * it escapes stays on its line.)
 */
function headerLines(atom: Atom): number {
  const description = atom.description ? countLines(atom.description) + 2 : 0;
  return 3 + description + atom.inputs.length + atom.outputs.length + atom.dependencies.length + (atom.examples?.length ?? 0);
}

/** Number of `\n` in `text`. */
function countLines(text: string): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** One value as a Base64 VLQ (the sign in the lowest bit). */
export function vlq(value: number): string {
  let v = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    out += BASE64[digit];
  } while (v > 0);
  return out;
}

export interface BundleSourceMap {
  version: 3;
  file: string;
  sources: string[];
  sourcesContent?: string[];
  names: string[];
  mappings: string;
}

/**
 * The map of a bundle whose chunks are `atoms` in order, the first chunk's marker line being 0-based
 * line `firstLine` of the bundle (after the header, the order and the IIFE's opening lines).
 */
export function bundleSourceMap(atoms: readonly Atom[], firstLine: number, sources: SourceMapSources, file = 'latest.js'): BundleSourceMap {
  const parts: string[] = [';'.repeat(firstLine)];
  let previousSource = 0;
  let previousLine = 0;
  for (let i = 0; i < atoms.length; i++) {
    const { header, code } = linesOf(atoms[i]!, sources);
    // The marker line: this atom's file, its first line.
    let chunk = `A${vlq(i - previousSource)}${vlq(-previousLine)}A;`;
    // The first code line, below the header; then each next line of the same file.
    chunk += `AA${vlq(header)}A;`;
    if (code > 1) chunk += 'AACA;'.repeat(code - 1);
    // The blank line after the chunk maps to nothing.
    parts.push(chunk + ';');
    previousSource = i;
    previousLine = header + code - 1;
  }
  const map: BundleSourceMap = { version: 3, file, sources: atoms.map((a) => sources.source(a.name)), names: [], mappings: parts.join('') };
  if (sources.embed) map.sourcesContent = atoms.map((a) => formatAtomDocument(a));
  return map;
}

/** The last line of a bundle that has a map: it names the map next to it. */
export function sourceMappingLine(mapFileName: string): string {
  return `//# sourceMappingURL=${encodeURI(mapFileName)}\n`;
}
