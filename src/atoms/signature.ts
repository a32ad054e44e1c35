/** How an atom's typed interface is written for people and agents. */
import type { Atom, Port } from './model.js';

/** `(velocity_y: number, is_grounded: boolean, force_multiplier: number?) => number` */
export function formatSignature(atom: Pick<Atom, 'inputs' | 'outputs'>): string {
  const params = atom.inputs.map((p) => `${p.name}: ${p.type}${p.optional ? '?' : ''}`).join(', ');
  return `(${params}) => ${formatOutputs(atom.outputs)}`;
}

function formatOutputs(outputs: Port[]): string {
  if (outputs.length === 0) return 'void';
  if (outputs.length === 1) return outputs[0]!.type;
  return `{ ${outputs.map((p) => `${p.name}: ${p.type}${p.optional ? '?' : ''}`).join(', ')} }`;
}

/** The text embedded for semantic search: `name(inputs) => outputs: description`, then the code. */
export function embeddingText(atom: Pick<Atom, 'name' | 'inputs' | 'outputs' | 'description' | 'code'>): string {
  const params = atom.inputs.map((p) => `${p.name}: ${p.type}`).join(', ');
  return `${atom.name}(${params}) => ${formatOutputs(atom.outputs)}: ${atom.description ?? ''}\n${atom.code}`;
}
