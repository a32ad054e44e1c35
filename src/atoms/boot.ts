/**
 * Which atom starts the program: the bundle's Boot line calls it, get_status names it, the graph
 * shows it. One rule (BOOT_RULE) for the bundler, the tools and the views.
 */
import { topologicalOrder } from './graph.js';
import type { Atom } from './model.js';

/** The boot rule, as the instructions, get_status and upsert_atom's description say it. */
export const BOOT_RULE = 'the core atom named game_loop, else main, else the last core atom in dependency order';

/**
 * The atom the bundle boots (its Boot line calls it), by the one rule (`findEntryPoint`). Sorts
 * the graph only when the rule needs the order (no `game_loop` or `main` core atom and more than
 * one core atom) and `order`, the atoms' dependency order when the caller has it, is not given.
 */
export function bootAtom(atomList: readonly Atom[], order?: readonly string[]): string | null {
  // Only a core atom boots, so the rule looks up core atoms only: no map of every atom (50,000
  // entries cost about 80 ms at an open).
  const cores = new Map<string, Atom>();
  for (const a of atomList) if (a.type === 'core') cores.set(a.name, a);
  // One core atom or none: whatever the rule's order, that one (or nothing) boots.
  if (cores.size <= 1) return cores.keys().next().value ?? null;
  return findEntryPoint(cores, order ?? (() => topologicalOrder(new Map(atomList.map((a) => [a.name, a.dependencies]))).order));
}

/**
 * The boot rule (BOOT_RULE): `game_loop` or `main` among core atoms, else the last core atom in
 * topological order (`order`, or a function giving it, called only when the rule needs it).
 */
export function findEntryPoint(atoms: Pick<ReadonlyMap<string, Atom>, 'get'>, order: readonly string[] | (() => readonly string[])): string | null {
  for (const preferred of ['game_loop', 'main']) {
    if (atoms.get(preferred)?.type === 'core') return preferred;
  }
  // From the end: the core atoms that tie a program together come last in dependency order, so at
  // 50,000 atoms this looks up a few names where filtering them all cost ~35 ms per created atom.
  const names = typeof order === 'function' ? order() : order;
  for (let i = names.length - 1; i >= 0; i--) if (atoms.get(names[i]!)?.type === 'core') return names[i]!;
  return null;
}
