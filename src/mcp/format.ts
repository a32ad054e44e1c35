/** The contract's text formats for atoms, shared by tools and resources. */
import type { Atom, AtomType, Port } from '../atoms/model.js';
import { formatSignature } from '../atoms/signature.js';

export interface AtomStructure {
  name: string;
  type: AtomType;
  inputs: Port[];
  outputs: Port[];
  depends_on: string[];
}

export function toStructure(atom: Atom): AtomStructure {
  return { name: atom.name, type: atom.type, inputs: atom.inputs, outputs: atom.outputs, depends_on: atom.dependencies };
}

/** The read_atoms block: a metadata header, then the code. */
export function formatAtom(atom: Atom, header = `=== ${atom.name} (${atom.type}) v${atom.version} ===`, usedBy?: readonly string[]): string {
  return `${formatAtomHeader(atom, header, usedBy)}\n${atom.code}`;
}

/**
 * The block's comment lines without the code: the header, the description, the signature, the
 * dependencies and, given `usedBy`, a `// Used by:` line (semantic_search's summary is these alone).
 */
export function formatAtomHeader(atom: Atom, header: string, usedBy?: readonly string[]): string {
  const lines = [`// ${header}`];
  if (atom.description) lines.push(...atom.description.split('\n').map((l) => `// ${l}`));
  lines.push(`// Signature: ${formatSignature(atom)}`, `// Depends on: [${atom.dependencies.join(', ')}]`);
  if (usedBy) lines.push(formatUsedBy(usedBy));
  return lines.join('\n');
}

/** Most names a `// Used by:` line lists; query_graph lists them all. */
export const USED_BY_SHOWN = 12;

/**
 * `// Used by: [game_loop, player_update]`: the atoms that list this one as a dependency (sorted), the
 * other direction of `Depends on`. A widely used util lists the first USED_BY_SHOWN and how many more.
 */
export function formatUsedBy(users: readonly string[]): string {
  const more = users.length - USED_BY_SHOWN;
  return `// Used by: [${users.slice(0, USED_BY_SHOWN).join(', ')}]${more > 0 ? ` and ${more} more (query_graph dependents lists them)` : ''}`;
}
