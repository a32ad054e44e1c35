/**
 * What the dependency graph shows, computed from atoms: nodes without code, the cycles, the atoms nothing
 * uses and the entry point. The host computes it from the store for the editor's graph; the graph app's
 * page (media/apps) from a tool's answer. Free of `vscode`, so both sides import it and it is unit-tested.
 */
import { findCycles, topologicalOrder } from '../atoms/graph.js';
import { GraphQueries } from '../atoms/graphQueries.js';
import type { Atom } from '../atoms/model.js';
import { formatSignature } from '../atoms/signature.js';
import { findEntryPoint } from '../atoms/boot.js';
import type { GraphSnapshot } from './webviewMessages.js';

export function graphSnapshot(atoms: readonly Atom[]): GraphSnapshot {
  const graph = new Map(atoms.map((a) => [a.name, a.dependencies]));
  const byName = new Map(atoms.map((a) => [a.name, a]));
  const entry = findEntryPoint(byName, topologicalOrder(graph).order);
  // One meaning of "unused" with query_graph: an atom nothing depends on that is not core (atoms/graphQueries.ts).
  const queries = new GraphQueries(graph, (name) => byName.get(name)?.type);
  return {
    atoms: atoms.map((a) => ({
      name: a.name,
      type: a.type,
      dependencies: a.dependencies.filter((d) => byName.has(d)),
      signature: formatSignature(a),
      description: a.description,
      version: a.version,
    })),
    cycles: findCycles(graph),
    unused: queries.unused(),
    entry,
  };
}
