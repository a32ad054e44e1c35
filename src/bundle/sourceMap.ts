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
  /**
   * The source of an atom as the map names it, `prefix` + name + `.js` (`../atoms/player_jump.js`,
   * `atom:/player_jump.js`): written as three pieces, no string made per atom.
   */
  prefix: string;
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
 * line `firstLine` of the bundle (after the header, the order and the IIFE's opening lines). The
 * builder writes the same JSON through `SourceMapEncoder`, never holding it whole.
 */
export function bundleSourceMap(atoms: readonly Atom[], firstLine: number, sources: SourceMapSources, file = 'latest.js'): BundleSourceMap {
  const encoder = new SourceMapEncoder(atoms, firstLine, sources, file);
  const parts: Buffer[] = [];
  while (!encoder.done) {
    const buffer = Buffer.alloc(64 * 1024);
    parts.push(buffer.subarray(0, encoder.fill(buffer, 0)));
  }
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as BundleSourceMap;
}

/** `vlq(v)` for the small values a map is made of, made once. */
const VLQ_SMALL = 1024;
const vlqCache: (string | undefined)[] = [];

function vlqCached(value: number): string {
  if (value < -VLQ_SMALL || value > VLQ_SMALL) return vlq(value);
  return (vlqCache[value + VLQ_SMALL] ??= vlq(value));
}

/**
 * latest.js.map's JSON (as `bundleSourceMap` gives it, `JSON.stringify`ed), written into a buffer as
 * far as it goes, call after call, so the map is never a string or a buffer of its own: at every build
 * its mappings were one string per atom, joined, then stringified again (at 1,000 atoms a fifth of a
 * write's garbage along the path agents take, growing with the workspace). Inside an atom every
 * line after the first code line is the same `AACA;`, filled in as a run.
 */
export class SourceMapEncoder {
  /** 0: the head, 1: sources, 2: before the mappings, 3: the mappings, 4: sourcesContent, 5: the end, 6: done. */
  private phase = 0;
  /** The atom the phase is at. */
  private index = 0;
  /** Within an atom's mappings: 0 its head, 1 its run of `AACA;`, 2 the blank line after it. */
  private step = 0;
  /** What is left of a run (`pattern` repeated `count` times). */
  private run: { pattern: string; count: number } | undefined;
  /** A piece of text that did not fit, as bytes, and how much of it is written. */
  private bytes: Buffer | undefined;
  private bytesAt = 0;
  private previousSource = 0;
  private previousLine = 0;
  /** A source's JSON before the name (`"../atoms/`), made once. */
  private readonly quotedPrefix: string;
  /** Which piece of a source comes next (phase 11). */
  private parts = 0;

  constructor(
    private readonly atoms: readonly Atom[],
    private readonly firstLine: number,
    private readonly sources: SourceMapSources,
    private readonly file: string,
  ) {
    this.quotedPrefix = JSON.stringify(sources.prefix).slice(0, -1);
  }

  /** Whether every byte of the map has been written. */
  get done(): boolean {
    return this.phase === 6 && !this.bytes && !this.run;
  }

  /** Writes the map's next bytes into `buffer` (at least 64 bytes long) from `at`; returns where they end. */
  fill(buffer: Buffer, at: number): number {
    const size = buffer.length;
    while (at < size) {
      if (this.bytes) {
        const n = this.bytes.copy(buffer, at, this.bytesAt);
        at += n;
        this.bytesAt += n;
        if (this.bytesAt === this.bytes.length) this.bytes = undefined;
        continue;
      }
      if (this.run) {
        const length = this.run.pattern.length;
        const n = Math.min(this.run.count, Math.floor((size - at) / length));
        if (n === 0) break;
        buffer.fill(this.run.pattern, at, at + n * length, 'latin1');
        at += n * length;
        this.run.count -= n;
        if (this.run.count === 0) this.run = undefined;
        continue;
      }
      if (this.phase === 3) {
        // The mappings, ASCII only: written a byte at a time, no string made.
        if (this.index === this.atoms.length) {
          this.phase = 4;
          continue;
        }
        const i = this.index;
        const { header, code } = linesOf(this.atoms[i]!, this.sources);
        if (this.step === 0) {
          // The marker line (this atom's file, its first line), then the first code line, below the header.
          const a = vlqCached(i - this.previousSource);
          const b = vlqCached(-this.previousLine);
          const c = vlqCached(header);
          const need = a.length + b.length + c.length + 7;
          if (size - at < need) break;
          buffer[at++] = 65; // A
          at = ascii(buffer, at, a);
          at = ascii(buffer, at, b);
          buffer[at++] = 65; // A
          buffer[at++] = 59; // ;
          buffer[at++] = 65; // A
          buffer[at++] = 65; // A
          at = ascii(buffer, at, c);
          buffer[at++] = 65; // A
          buffer[at++] = 59; // ;
          this.step = 1;
          // Each next line of the same file.
          if (code > 1) this.run = { pattern: 'AACA;', count: code - 1 };
        } else {
          // The blank line after the chunk maps to nothing.
          buffer[at++] = 59;
          this.step = 0;
          this.index++;
          this.previousSource = i;
          this.previousLine = header + code - 1;
        }
        continue;
      }
      const text = this.next();
      if (text === undefined) break;
      const n = Buffer.byteLength(text);
      if (n <= size - at) at += buffer.write(text, at, 'utf8');
      else {
        this.bytes = Buffer.from(text);
        this.bytesAt = 0;
      }
    }
    return at;
  }

  /** The next piece of text outside the mappings; undefined when the map is done. */
  private next(): string | undefined {
    for (;;) {
      const piece = this.piece();
      if (piece !== undefined || this.phase === 6) return piece;
    }
  }

  /** `next`'s step: a piece, or undefined when the phase only moved on (or the map is done). */
  private piece(): string | undefined {
    switch (this.phase) {
      case 0:
        this.phase = 1;
        return `{"version":3,"file":${JSON.stringify(this.file)},"sources":[`;
      case 1: {
        if (this.index === this.atoms.length) {
          this.phase = 2;
          this.index = 0;
          return ']';
        }
        const i = this.index++;
        const name = this.atoms[i]!.name;
        // A stored name is a JavaScript name (nothing to escape); anything else is quoted whole.
        if (!PLAIN_NAME.test(name)) return (i > 0 ? ',' : '') + JSON.stringify(sourceOf(this.sources, name));
        this.parts = i > 0 ? 0 : 1;
        this.phase = 11;
        return undefined;
      }
      case 11: {
        // `,` `"prefix` `name` `.js"`, one piece at a time.
        const name = this.atoms[this.index - 1]!.name;
        const piece = this.parts === 0 ? ',' : this.parts === 1 ? this.quotedPrefix : this.parts === 2 ? name : '.js"';
        if (++this.parts === 4) this.phase = 1;
        return piece;
      }
      case 2:
        this.phase = 3;
        if (this.firstLine > 0) this.run = { pattern: ';', count: this.firstLine };
        return ',"names":[],"mappings":"';
      case 4:
        // The mappings' closing quote, then sourcesContent when the sources are embedded.
        this.index = 0;
        if (!this.sources.embed) {
          this.phase = 5;
          return '"';
        }
        this.phase = 41;
        return '","sourcesContent":[';
      case 41: {
        if (this.index === this.atoms.length) {
          this.phase = 5;
          return ']';
        }
        const i = this.index++;
        return (i > 0 ? ',' : '') + JSON.stringify(formatAtomDocument(this.atoms[i]!));
      }
      case 5:
        this.phase = 6;
        return '}';
      default:
        return undefined;
    }
  }
}

/** Writes ASCII `text` into `buffer` at `at`; returns where it ends. */
function ascii(buffer: Buffer, at: number, text: string): number {
  for (let k = 0; k < text.length; k++) buffer[at++] = text.charCodeAt(k);
  return at;
}

const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The source of the atom `name` as the map names it. */
export function sourceOf(sources: SourceMapSources, name: string): string {
  return `${sources.prefix}${name}.js`;
}

/** The last line of a bundle that has a map: it names the map next to it. */
export function sourceMappingLine(mapFileName: string): string {
  return `//# sourceMappingURL=${encodeURI(mapFileName)}\n`;
}
