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
export function formatAtom(atom: Atom, header = `=== ${atom.name} (${atom.type}) v${atom.version} ===`): string {
  const lines = [`// ${header}`];
  if (atom.description) lines.push(...atom.description.split('\n').map((l) => `// ${l}`));
  lines.push(`// Signature: ${formatSignature(atom)}`, `// Depends on: [${atom.dependencies.join(', ')}]`, atom.code);
  return lines.join('\n');
}
