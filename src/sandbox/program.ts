/**
 * The program a run evaluates: the atoms' code joined line by line, and the map back from a
 * line of that program to the atom it came from and the line inside the atom's own code.
 */
import type { SourceAtom } from './types.js';

/** The file name the engine reports in stacks for the atoms' code. */
export const PROGRAM_FILE = 'atoms.js';

export interface AtomSpan {
  name: string;
  /** First line of the atom in the program (1-based). */
  firstLine: number;
  lineCount: number;
}

export interface Program {
  text: string;
  spans: AtomSpan[];
}

export function joinAtoms(atoms: readonly SourceAtom[]): Program {
  const spans: AtomSpan[] = [];
  let line = 1;
  for (const atom of atoms) {
    const lineCount = countLines(atom.code);
    spans.push({ name: atom.name, firstLine: line, lineCount });
    line += lineCount;
  }
  return { text: atoms.map((a) => a.code).join('\n'), spans };
}

/** The atom and its own line for a line of the program, or null when the line is in none. */
export function locate(program: Program, line: number): { atom: string; line: number } | null {
  for (const span of program.spans) {
    if (line >= span.firstLine && line < span.firstLine + span.lineCount) {
      return { atom: span.name, line: line - span.firstLine + 1 };
    }
  }
  return null;
}

const FRAME = new RegExp(`${PROGRAM_FILE.replace('.', '\\.')}:(\\d+)(?::(\\d+))?`);

/**
 * The engine's stack (`    at b (atoms.js:5:7)`) rewritten frame by frame so each names the
 * atom and its own line (`at b (b:5:7)`); the first frame inside an atom is where the error is.
 */
export function mapStack(program: Program, stack: string): { frames: string[]; at: { atom: string; line: number } | null } {
  const frames: string[] = [];
  let at: { atom: string; line: number } | null = null;
  for (const raw of stack.split('\n')) {
    const frame = raw.trim();
    if (!frame) continue;
    const m = FRAME.exec(frame);
    if (!m) {
      frames.push(frame);
      continue;
    }
    const where = locate(program, Number(m[1]));
    if (!where) {
      frames.push(frame);
      continue;
    }
    at ??= where;
    const column = m[2] ? `:${m[2]}` : '';
    frames.push(frame.replace(m[0], `${where.atom}:${where.line}${column}`));
  }
  return { frames, at };
}

function countLines(code: string): number {
  let n = 1;
  for (let i = 0; i < code.length; i++) if (code.charCodeAt(i) === 10) n++;
  return n;
}
