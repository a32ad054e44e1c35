import { z } from 'zod';
import { formatSignature } from '../../atoms/signature.js';
import type { Atom } from '../../atoms/model.js';
import { defineTool } from '../tool.js';
import { toStructure } from '../format.js';
import { typeFilter } from '../schemas.js';

export const getCodeStructure = defineTool({
  name: 'get_code_structure',
  title: 'Map of all atoms',
  description:
    'The map, without code: every atom with its type, typed ports and dependencies (JSON). ' +
    'Use it first. detail summary: a line per atom with signature and description; minimal: names, types, edges.',
  input: {
    type_filter: typeFilter,
    detail: z.enum(['full', 'summary', 'minimal']).optional().describe('Default full'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ type_filter, detail = 'full' }, { workspace }) {
    const atoms = workspace.atoms.all().filter((a) => !type_filter || a.type === type_filter);
    const count = `${atoms.length} atom${atoms.length === 1 ? '' : 's'}`;
    if (detail === 'minimal') {
      return [`${count} (name type -> dependencies):`, ...atoms.map((a) => `${a.name} ${a.type}${edges(a)}`)].join('\n');
    }
    if (detail === 'summary') {
      const lines = atoms.map((a) => `${a.name} ${a.type} ${formatSignature(a)}${edges(a)}${a.description ? `: ${firstLine(a.description)}` : ''}`);
      return [`${count} (name type signature -> dependencies: description):`, ...lines].join('\n');
    }
    return JSON.stringify(atoms.map(toStructure), null, 2);
  },
});

function edges(atom: Atom): string {
  return atom.dependencies.length ? ` -> ${atom.dependencies.join(', ')}` : '';
}

/** A description's first sentence or line, at most 120 characters: enough to plan with. */
function firstLine(description: string): string {
  const line = description.split('\n')[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
