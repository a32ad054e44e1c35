import { z } from 'zod';
import { defineTool } from '../tool.js';
import { toStructure } from '../format.js';
import { typeFilter } from '../schemas.js';

export const getCodeStructure = defineTool({
  name: 'get_code_structure',
  title: 'Map of all atoms',
  description:
    'The map: every atom with its type, typed inputs and outputs and dependency edges, without code. ' +
    'Use it first when exploring, before creating an atom (to see what exists) and before editing (to see what depends on what). ' +
    'Returns a JSON array of {name, type, inputs, outputs, depends_on}; with detail "minimal", one line per atom with only its name, type and dependencies ' +
    '(for mapping a large workspace without flooding your context).',
  input: {
    type_filter: typeFilter,
    detail: z
      .enum(['minimal', 'full'])
      .optional()
      .describe('full (default): the JSON structure with typed ports; minimal: "name type -> dependencies" lines'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ type_filter, detail = 'full' }, { workspace }) {
    const atoms = workspace.atoms.all().filter((a) => !type_filter || a.type === type_filter);
    if (detail === 'minimal') {
      const lines = atoms.map((a) => (a.dependencies.length ? `${a.name} ${a.type} -> ${a.dependencies.join(', ')}` : `${a.name} ${a.type}`));
      return [`${atoms.length} atom${atoms.length === 1 ? '' : 's'} (name type -> dependencies):`, ...lines].join('\n');
    }
    return JSON.stringify(atoms.map(toStructure), null, 2);
  },
});
