import { z } from 'zod';
import { errors } from '../../atoms/errors.js';
import type { DependencyMap } from '../../atoms/graph.js';
import type { Atom } from '../../atoms/model.js';
import { formatSignature } from '../../atoms/signature.js';
import type { AtomReader } from '../../store/reader.js';
import { GraphQueries } from '../../atoms/graphQueries.js';
import { atomName } from '../schemas.js';
import { defineTool } from '../tool.js';

/**
 * The store hands out the same dependency map until an atom changes, so the reverse edges a
 * question derives (the bulk of its cost: ~15 ms at 10,000 atoms) are kept per map.
 */
const queriesByMap = new WeakMap<DependencyMap, GraphQueries>();

function graphQueries(store: AtomReader): GraphQueries {
  const map = store.dependencyMap();
  let queries = queriesByMap.get(map);
  if (!queries) {
    queries = new GraphQueries(map, (n) => store.get(n)?.type);
    queriesByMap.set(map, queries);
  }
  return queries;
}

const OPERATIONS = ['dependencies', 'dependents', 'impact', 'path', 'cycles', 'unused', 'entry_points'] as const;
type Operation = (typeof OPERATIONS)[number];

export const queryGraph = defineTool({
  name: 'query_graph',
  title: 'Query the dependency graph',
  description:
    'The dependency graph: dependencies / dependents of name, ' +
    'impact path (name to to), cycles, unused (non-core atoms nothing uses), entry_points.',
  input: {
    operation: z.enum(OPERATIONS),
    name: atomName.optional().describe('The atom asked about; start of a path'),
    to: atomName.optional().describe('End of a path'),
    transitive: z.boolean().optional(),
    limit: z.number().int().min(1).max(10_000).optional().describe('Most atoms listed (default 200)'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ operation, name, to, transitive = false, limit = 200 }, { workspace }) {
    const store = workspace.atoms;
    const graph = graphQueries(store);
    const line = (n: string, depth?: number): string => {
      const atom = store.get(n) as Atom;
      return `  ${depth !== undefined ? `${depth} ` : ''}${n} [${atom.type}] ${formatSignature(atom)}`;
    };
    const list = (names: { name: string; depth?: number }[]): string[] => {
      const shown = names.slice(0, limit).map((n) => line(n.name, n.depth));
      if (names.length > limit) shown.push(`  … ${names.length - limit} more (raise limit to see them)`);
      return shown;
    };
    const subject = (): string => {
      if (!name) throw errors.invalid(`query_graph operation "${operation}" needs name: the atom to ask about`);
      if (!graph.has(name)) throw errors.notFound(name);
      return name;
    };

    switch (operation as Operation) {
      case 'dependencies':
      case 'dependents': {
        const atom = subject();
        const found = operation === 'dependencies' ? graph.dependencies(atom, transitive) : graph.dependents(atom, transitive);
        const what = operation === 'dependencies' ? `${atom} depends on` : `depend${found.length === 1 ? 's' : ''} on ${atom}`;
        const scope = transitive ? 'transitively; number = distance' : 'directly';
        if (found.length === 0) return operation === 'dependencies' ? `${atom} depends on no atom.` : `No atom depends on ${atom}.`;
        const head = operation === 'dependencies' ? `${what} ${found.length} atom${plural(found)} (${scope}):` : `${found.length} atom${plural(found)} ${what} (${scope}):`;
        return [head, ...list(found.map((f) => (transitive ? f : { name: f.name })))].join('\n');
      }
      case 'impact': {
        const atom = subject();
        const { affected, entryPoints } = graph.impact(atom);
        if (affected.length === 0) {
          return `Changing ${atom} affects no other atom: nothing depends on it.${entryPoints.length ? ` It is an entry point itself.` : ''}`;
        }
        const direct = affected.filter((a) => a.depth === 1).length;
        return [
          `Changing ${atom} may change ${affected.length} atom${plural(affected)} (${direct} direct, ${affected.length - direct} indirect; number = distance).`,
          `Entry points affected: ${entryPoints.length ? entryPoints.join(', ') : 'none'}.`,
          ...list(affected),
        ].join('\n');
      }
      case 'path': {
        const from = subject();
        if (!to) throw errors.invalid('query_graph operation "path" needs to: the atom the path should end at');
        if (!graph.has(to)) throw errors.notFound(to);
        const path = graph.path(from, to);
        if (path) return [`${from} reaches ${to} in ${path.length - 1} step${path.length === 2 ? '' : 's'}: ${path.join(' -> ')}`, ...list(path.map((n) => ({ name: n })))].join('\n');
        const back = graph.path(to, from);
        if (back) return `${from} does not reach ${to}, but ${to} reaches ${from}: ${back.join(' -> ')}`;
        return `${from} and ${to} are not connected: neither reaches the other through dependencies.`;
      }
      case 'cycles': {
        const cycles = graph.cycles();
        if (cycles.length === 0) return 'No dependency cycles.';
        return [`${cycles.length} cycle${plural(cycles)}:`, ...cycles.slice(0, limit).map((c) => `  ${c.join(' -> ')}`)].join('\n');
      }
      case 'unused': {
        const unused = graph.unused();
        if (unused.length === 0) return 'No unused atoms: every non-core atom is used by another.';
        return [`${unused.length} atom${plural(unused)} nothing depends on and that are not core (never reached from an entry point):`, ...list(unused.map((n) => ({ name: n })))].join('\n');
      }
      case 'entry_points': {
        const entries = graph.entryPoints();
        if (entries.length === 0) return 'No entry points: there is no core atom that nothing depends on.';
        // The atom latest.js's Boot line calls (the builder's order): no sort of the graph per query.
        const boot = workspace.bootAtom();
        return [
          `${entries.length} entry point${plural(entries)} (core atoms nothing depends on); the bundle boots ${boot ?? 'none of them'}:`,
          ...list(entries.map((n) => ({ name: n }))),
        ].join('\n');
      }
    }
  },
});

function plural(items: readonly unknown[]): string {
  return items.length === 1 ? '' : 's';
}
