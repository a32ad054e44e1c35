/**
 * The graph app's data, pure: what get_code_structure answered (its JSON, or its "minimal" lines) turned
 * into the snapshot the editor's graph draws, and what a query_graph call should light up. Tested in Node.
 */
import { ATOM_TYPES, type Atom, type AtomType, type Port } from '../../src/atoms/model.js';
import { graphSnapshot } from '../../src/protocol/graphSnapshot.js';
import type { GraphSnapshot, GraphViewMode } from '../../src/protocol/webviewMessages.js';

interface Node {
  name: string;
  type: AtomType;
  inputs: Port[];
  outputs: Port[];
  dependencies: string[];
}

const isType = (t: unknown): t is AtomType => typeof t === 'string' && (ATOM_TYPES as readonly string[]).includes(t);
const MINIMAL_HEAD = /^\d+ atoms? \(name type -> dependencies\):$/;
const MINIMAL_LINE = /^([a-z][a-z0-9_]*) (\w+)(?: -> (.*))?$/;

/** The nodes of a get_code_structure answer, or null when the text is not one (an error, another tool's text). */
export function parseStructure(text: string): Node[] | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return null;
    }
    if (!Array.isArray(parsed)) return null;
    const nodes: Node[] = [];
    for (const item of parsed as Record<string, unknown>[]) {
      if (!item || typeof item.name !== 'string' || !isType(item.type)) return null;
      const deps = Array.isArray(item.depends_on) ? item.depends_on.filter((d): d is string => typeof d === 'string') : [];
      const ports = (p: unknown) => (Array.isArray(p) ? (p as Port[]) : []);
      nodes.push({ name: item.name, type: item.type, inputs: ports(item.inputs), outputs: ports(item.outputs), dependencies: deps });
    }
    return nodes;
  }
  const [head, ...lines] = trimmed.split('\n');
  if (!head || !MINIMAL_HEAD.test(head)) return null;
  const nodes: Node[] = [];
  for (const line of lines) {
    const m = MINIMAL_LINE.exec(line.trim());
    if (!m || !isType(m[2])) return null;
    nodes.push({ name: m[1]!, type: m[2], inputs: [], outputs: [], dependencies: m[3] ? m[3].split(', ').filter(Boolean) : [] });
  }
  return nodes;
}

/** The snapshot the graph page draws (src/views/graphSnapshot.ts, as the editor computes it). */
export function snapshotOf(nodes: readonly Node[]): GraphSnapshot {
  const atoms = nodes.map((n) => ({ ...n, description: null, version: 0, code: '' }) as unknown as Atom);
  return graphSnapshot(atoms);
}

/** What a query_graph call asked about: the atom to select, the tree to show and whether to light up its impact. */
export interface Focus {
  name: string;
  mode: GraphViewMode;
  impact: boolean;
}

export function focusOf(args: Record<string, unknown>): Focus | null {
  const name = typeof args.name === 'string' ? args.name : null;
  if (!name) return null;
  const transitive = args.transitive === true;
  switch (args.operation) {
    case 'impact':
      return { name, mode: 'graph', impact: true };
    case 'dependencies':
      return { name, mode: transitive ? 'needs' : 'graph', impact: false };
    case 'dependents':
      return { name, mode: transitive ? 'neededBy' : 'graph', impact: false };
    default:
      return { name, mode: 'graph', impact: false };
  }
}
