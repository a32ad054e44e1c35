/**
 * The bundle, pure: every atom, dependencies first (ties broken by name), wrapped in a strict
 * IIFE with the contract's header, a `// --- [type] name ---` line before each atom and a Boot
 * line for the entry point.
 */
import { linesInsideTemplates } from '../atoms/code.js';
import { topologicalOrder } from '../atoms/graph.js';
import type { Atom } from '../atoms/model.js';

export interface Bundle {
  code: string;
  order: string[];
  entry: string | null;
}

export class BundleError extends Error {}

/** `game_loop` or `main` among core atoms, else the last core atom in topological order. */
export function findEntryPoint(atoms: ReadonlyMap<string, Atom>, order: readonly string[]): string | null {
  for (const preferred of ['game_loop', 'main']) {
    if (atoms.get(preferred)?.type === 'core') return preferred;
  }
  const cores = order.filter((n) => atoms.get(n)?.type === 'core');
  return cores.length > 0 ? cores[cores.length - 1]! : null;
}

export function createBundle(atomList: readonly Atom[], generatedAt: Date = new Date()): Bundle {
  const atoms = new Map(atomList.map((a) => [a.name, a]));
  const { order, cyclic } = topologicalOrder(new Map(atomList.map((a) => [a.name, a.dependencies])));
  if (cyclic.length > 0) {
    throw new BundleError(`the atoms ${cyclic.join(', ')} depend on each other in a cycle; break the cycle and rebuild`);
  }
  const entry = findEntryPoint(atoms, order);
  const out: string[] = [
    '// === Atomic Coding Bundle ===',
    `// Generated: ${generatedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    `// Atoms: ${order.length}`,
    `// Order: ${order.join(' -> ')}`,
    '(function() {',
    '  "use strict";',
    '',
  ];
  for (const name of order) {
    const atom = atoms.get(name)!;
    out.push(`  // --- [${atom.type}] ${name} ---`, indent(atom.code.trimEnd()), '');
  }
  out.push('  // Boot');
  out.push(entry ? `  if (typeof ${entry} === 'function') ${entry}();` : '  // no core atom: nothing to start');
  out.push('})();', '');
  return { code: out.join('\n'), order, entry };
}

/** Indents by two spaces, except lines that start inside a template literal (their text would change). */
function indent(code: string): string {
  const keep = code.includes('`') ? linesInsideTemplates(code) : new Set<number>();
  return code
    .split('\n')
    .map((line, i) => (line.length === 0 || keep.has(i + 1) ? line : `  ${line}`))
    .join('\n');
}
