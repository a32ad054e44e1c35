/**
 * From a line of latest.js back to the atom it came from. The bundler writes `// --- [type] name ---`
 * before each atom's code, so the atom of a line is the last marker above it (until the `// Boot` line,
 * which belongs to no atom). Pure and free of Node imports: the preview webview uses it too.
 */
import type { BundleLocation } from '../protocol/webviewMessages.js';
import { escapeRegExp } from '../util/regexp.js';

export interface AtomSpan {
  name: string;
  type: string;
  /** 1-based line of the marker; the atom's code starts on the next line. */
  markerLine: number;
  /** 1-based last line that belongs to the atom. */
  endLine: number;
}

const MARKER = /^\s*\/\/ --- \[(\w+)\] ([a-z][a-z0-9_]*) ---\s*$/;
/** The Boot line, or the line the development form adds before it (hotSwap.ts SWAP_HOOK): no atom's. */
const BOOT = /^\s*(?:\/\/ Boot\s*|self\.__atomicEval = function \(__atomic_code, __atomic_value\) \{ return eval\(__atomic_code\); \};)$/;

/** The atoms of a bundle and the lines each occupies, in bundle order. */
export function atomSpans(bundle: string): AtomSpan[] {
  const lines = bundle.split('\n');
  const spans: AtomSpan[] = [];
  let current: AtomSpan | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = MARKER.exec(line);
    if (marker || BOOT.test(line)) {
      if (current) spans.push({ ...current, endLine: lastCodeLine(lines, current.markerLine, i) });
      current = marker ? { name: marker[2]!, type: marker[1]!, markerLine: i + 1, endLine: i + 1 } : undefined;
    }
  }
  if (current) spans.push({ ...current, endLine: lastCodeLine(lines, current.markerLine, lines.length) });
  return spans;
}

/** The last non-blank line before the 0-based index `before`, as a 1-based line number. */
function lastCodeLine(lines: string[], markerLine: number, before: number): number {
  let end = before; // 1-based number of the line just above index `before`
  while (end > markerLine && lines[end - 1]!.trim() === '') end--;
  return end;
}

/** A lookup from bundle lines to atoms, built once per bundle. */
export class BundleMap {
  private readonly spans: AtomSpan[];

  constructor(bundle: string) {
    this.spans = atomSpans(bundle);
  }

  get atoms(): readonly AtomSpan[] {
    return this.spans;
  }

  /** The atom whose code holds the 1-based `line`, with the line inside its code, or null. */
  atomAt(line: number): { atom: string; atomLine: number } | null {
    let lo = 0;
    let hi = this.spans.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const span = this.spans[mid]!;
      if (line <= span.markerLine) hi = mid - 1;
      else if (line > span.endLine) lo = mid + 1;
      else return { atom: span.name, atomLine: line - span.markerLine };
    }
    return null;
  }

  /**
   * Where a runtime error or a console call came from: the first frame of `stack` that is in the
   * bundle (a frame naming `file`, `latest.js` by default) and lies inside an atom; else `fallbackLine`.
   * `offset`: lines of `file` above the bundle's first line (a page that holds the bundle inline without
   * a `sourceURL`, page.ts bundleLineOffset); frames above the bundle are not the bundle's.
   */
  locate(stack: string | null | undefined, fallbackLine?: number | null, file = 'latest.js', offset = 0): BundleLocation {
    let firstLine: number | null = null;
    for (const frame of stackFrames(stack ?? '', file)) {
      // A function swapped in (hotSwap.ts) is its own script, named after its atom: its lines are the atom's.
      if (typeof frame !== 'number') return { atom: frame.atom, line: null, atomLine: frame.atomLine };
      const line = frame - offset;
      if (line < 1) continue;
      firstLine ??= line;
      const hit = this.atomAt(line);
      if (hit) return { atom: hit.atom, line, atomLine: hit.atomLine };
    }
    const line = firstLine ?? (fallbackLine && fallbackLine - offset > 0 ? fallbackLine - offset : null);
    const hit = line ? this.atomAt(line) : null;
    return { atom: hit?.atom ?? null, line, atomLine: hit?.atomLine ?? null };
  }
}

/** Line numbers of the stack frames that point into `file`, outermost last (V8, SpiderMonkey and JSC shapes). */
export function bundleLines(stack: string, file = 'latest.js'): number[] {
  const escaped = escapeRegExp(file);
  const frame = new RegExp(`${escaped}(?:\\?[^:\\s)]*)?:(\\d+)(?::\\d+)?`, 'g');
  const out: number[] = [];
  for (const m of stack.matchAll(frame)) out.push(Number(m[1]));
  return out;
}

/** The frames of `stack` in `file` (their lines) or in a swapped atom's script (`atomic-swap/<name>.js`), innermost first. */
function stackFrames(stack: string, file: string): (number | { atom: string; atomLine: number })[] {
  const frame = new RegExp(`(?:atomic-swap/([a-z][a-z0-9_]*)\\.js|${escapeRegExp(file)})(?:\\?[^:\\s)]*)?:(\\d+)(?::\\d+)?`, 'g');
  const out: (number | { atom: string; atomLine: number })[] = [];
  for (const m of stack.matchAll(frame)) out.push(m[1] ? { atom: m[1], atomLine: Number(m[2]) } : Number(m[2]));
  return out;
}

/** `player_jump:3` (the atom and the line in its code) or `latest.js:57`, for logs and the panel. */
export function describeLocation(location: BundleLocation): string {
  if (location.atom) return location.atomLine ? `${location.atom}:${location.atomLine}` : location.atom;
  return location.line ? `latest.js:${location.line}` : '';
}
