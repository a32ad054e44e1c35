import { defineTool } from '../tool.js';
import { toStructure } from '../format.js';
import { typeFilter } from '../schemas.js';

export const getCodeStructure = defineTool({
  name: 'get_code_structure',
  title: 'Map of all atoms',
  description:
    'The map: every atom with its type, typed inputs and outputs and dependency edges, without code. ' +
    'Use it first when exploring, before creating an atom (to see what exists) and before editing (to see what depends on what). ' +
    'Returns a JSON array of {name, type, inputs, outputs, depends_on}.',
  input: { type_filter: typeFilter },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ type_filter }, { workspace }) {
    const atoms = workspace.store.all().filter((a) => !type_filter || a.type === type_filter);
    return JSON.stringify(atoms.map(toStructure), null, 2);
  },
});
