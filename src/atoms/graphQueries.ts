/**
 * The questions query_graph answers, pure over the dependency map: who an atom calls and who
 * calls it (direct or transitive, with the distance), the impact of changing it, a path
 * between two atoms, cycles, entry points and atoms nothing uses.
 *
 * Entry points are core atoms nothing depends on: they start work rather than serve it. The
 * bundle boots one of them (see findEntryPoint in atoms/boot.ts). An atom nothing depends on
 * that is not core is unused: nothing can reach it at run time.
 */
import { dependentsMap, findCycles, shortestPath, type DependencyMap } from './graph.js';
import type { AtomType } from './model.js';

/** Each reachable atom with its distance (1 = direct), nearest first, then by name. */
export function withDistance(edges: ReadonlyMap<string, readonly string[]>, start: string, transitive: boolean): { name: string; depth: number }[] {
  const depth = new Map<string, number>([[start, 0]]);
  let frontier = [start];
  for (let d = 1; frontier.length > 0 && (transitive || d === 1); d++) {
    const next: string[] = [];
    for (const n of frontier) {
      for (const m of edges.get(n) ?? []) {
        if (depth.has(m)) continue;
        depth.set(m, d);
        next.push(m);
      }
    }
    frontier = next;
  }
  depth.delete(start);
  return [...depth.entries()].map(([name, d]) => ({ name, depth: d })).sort((a, b) => a.depth - b.depth || cmp(a.name, b.name));
}

/**
 * Questions over one dependency map. What they derive from it (the reverse edges, the entry
 * points) is computed once, so the map and the types must not change while this is in use: the
 * store hands out a new map whenever an atom changes.
 */
export class GraphQueries {
  private reverse: Map<string, string[]> | undefined;
  private entries: string[] | undefined;

  constructor(
    private readonly graph: DependencyMap,
    private readonly typeOf: (name: string) => AtomType | undefined,
  ) {}

  has(name: string): boolean {
    return this.graph.has(name);
  }

  dependencies(name: string, transitive: boolean): { name: string; depth: number }[] {
    return withDistance(this.graph, name, transitive);
  }

  dependents(name: string, transitive: boolean): { name: string; depth: number }[] {
    return withDistance(this.dependentsOf(), name, transitive);
  }

  /** Everything whose behaviour may change with `name`, and the entry points among or above it. */
  impact(name: string): { affected: { name: string; depth: number }[]; entryPoints: string[] } {
    const affected = this.dependents(name, true);
    const entries = new Set(this.entryPoints());
    const entryPoints = [name, ...affected.map((a) => a.name)].filter((n) => entries.has(n)).sort(cmp);
    return { affected, entryPoints };
  }

  /** The shortest chain of depends-on edges from `from` to `to`, or null. */
  path(from: string, to: string): string[] | null {
    return shortestPath(this.graph, from, to);
  }

  cycles(): string[][] {
    return findCycles(this.graph);
  }

  /** Core atoms nothing depends on, sorted. */
  entryPoints(): readonly string[] {
    const users = this.dependentsOf();
    this.entries ??= [...this.graph.keys()].filter((n) => this.typeOf(n) === 'core' && !this.usedByProgram(users.get(n))).sort(cmp);
    return this.entries;
  }

  /** Atoms nothing of the program depends on that are not entry points (not core) nor tests, sorted. */
  unused(): string[] {
    const users = this.dependentsOf();
    return [...this.graph.keys()].filter((n) => this.typeOf(n) !== 'core' && this.typeOf(n) !== 'test' && !this.usedByProgram(users.get(n))).sort(cmp);
  }

  /** Whether an atom among `users` is part of the program: a test atom's call is no use (it is never bundled). */
  private usedByProgram(users: readonly string[] | undefined): boolean {
    return (users ?? []).some((u) => this.typeOf(u) !== 'test');
  }

  private dependentsOf(): Map<string, string[]> {
    this.reverse ??= dependentsMap(this.graph);
    return this.reverse;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
