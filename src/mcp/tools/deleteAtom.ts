import { writeNoteLines } from '../../atoms/writeChecks.js';
import { defineTool } from '../tool.js';
import { atomName } from '../schemas.js';
import { rebuildNote } from './upsertAtom.js';

export const deleteAtom = defineTool({
  name: 'delete_atom',
  title: 'Delete an atom',
  description:
    'The eraser: removes an atom by name. Refused while other atoms depend on it or their code calls it (the error lists them: update or delete those first). ' +
    'Its history is kept, so atom_history can restore it. Rebuilds latest.js. ' +
    'Use it to remove code nothing needs any more (query_graph "unused" lists candidates).',
  input: { name: atomName.describe('Name of the atom to delete') },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run({ name }, { workspace }) {
    const { build, notes } = await workspace.delete(name);
    return [`Atom "${name}" deleted. ${rebuildNote(build)}`, ...writeNoteLines(notes)].join('\n');
  },
});
