/**
 * Checks on an atom's source: it parses as JavaScript and is exactly one top-level
 * function declaration named like the atom (comments aside). The bundle calls atoms by
 * name, and anything else at the top level would leak into every other atom's scope.
 */
import { tokenizer } from 'acorn';
import { codeNames, type CodeNames } from './calls.js';
import { AtomError } from './errors.js';

/** The 1-based line of an offset in `code`. */
function lineAt(code: string, offset: number): number {
  let line = 1;
  for (let i = code.indexOf('\n'); i !== -1 && i < offset; i = code.indexOf('\n', i + 1)) line++;
  return line;
}

interface AcornSyntaxError extends SyntaxError {
  loc?: { line: number; column: number };
}

export function checkAtomCode(name: string, code: string): void {
  let body: CodeNames['top'];
  try {
    // The parse the write's other checks read too (codeNames remembers it): one parse, not two.
    body = codeNames(code).top;
  } catch (err) {
    const e = err as AcornSyntaxError;
    const where = e.loc ? ` at line ${e.loc.line}, column ${e.loc.column + 1} of the code` : '';
    const reason = e.message.replace(/\s*\(\d+:\d+\)$/, '');
    throw new AtomError('syntax', `code does not parse as JavaScript${where}: ${reason}`);
  }
  const expected = `function ${name}(...) { ... }`;
  if (body.length === 0) {
    throw new AtomError('shape', `code is empty: write one top-level function declaration, ${expected}`);
  }
  const first = body[0]!;
  if (first.type !== 'FunctionDeclaration') {
    throw new AtomError(
      'shape',
      `code must be one top-level function declaration named "${name}" (found ${describe(first.type)} at line ${lineAt(code, first.start)} of the code); write ${expected}`,
    );
  }
  if (first.name !== name) {
    throw new AtomError(
      'shape',
      `the function is named "${first.name}" but the atom is "${name}": the bundle calls atoms by name, so write ${expected}`,
    );
  }
  if (body.length > 1) {
    const extra = body[1]!;
    throw new AtomError(
      'shape',
      `code must hold only the function "${name}": found ${describe(extra.type)} at line ${lineAt(code, extra.start)} of the code outside it. ` +
        'Move it inside the function, or into an atom of its own.',
    );
  }
}

function describe(nodeType: string): string {
  switch (nodeType) {
    case 'VariableDeclaration':
      return 'a variable declaration';
    case 'ClassDeclaration':
      return 'a class declaration';
    case 'ExpressionStatement':
      return 'an expression statement';
    case 'FunctionDeclaration':
      return 'another function declaration';
    default:
      return `a ${nodeType} statement`;
  }
}

/**
 * Line numbers (1-based) on which a line starts inside a template literal, so re-indenting
 * the code would change the string's value. Used by the bundler to indent safely.
 */
export function linesInsideTemplates(code: string): Set<number> {
  const lines = new Set<number>();
  let templateStart = -1;
  for (const token of tokenizer(code, { ecmaVersion: 'latest', locations: true })) {
    if (token.type.label === '`') {
      if (templateStart < 0) templateStart = token.start;
      else {
        markLines(code, templateStart, token.end, lines);
        templateStart = -1;
      }
    }
  }
  return lines;
}

function markLines(code: string, from: number, to: number, into: Set<number>): void {
  let line = 1;
  for (let i = 0; i < to; i++) {
    if (code.charCodeAt(i) === 10) {
      line++;
      if (i >= from) into.add(line);
    }
  }
}

/** Identifiers used in the code: names of called atoms, variables and properties, for search. */
export function codeIdentifiers(code: string): string[] {
  const seen = new Set<string>();
  try {
    for (const token of tokenizer(code, { ecmaVersion: 'latest' })) {
      const value = (token as { value?: unknown }).value;
      if (token.type.label === 'name' && typeof value === 'string') seen.add(value);
    }
  } catch {
    // Stored atoms always parse; a partial list is fine for search if one ever does not.
  }
  return [...seen];
}
