import { writeNoteLines } from '../../atoms/writeChecks.js';
import { defineTool } from '../tool.js';
import { atomRef } from '../schemas.js';
import { rebuildNote } from './upsertAtom.js';

export const deleteAtom = defineTool({
  name: 'delete_atom',
  title: 'Delete an atom',
  description:
    'Deletes an atom when nothing uses it: refused while any atom depends on it or calls it (listed).',
  input: { name: atomRef },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run({ name }, { workspace }) {
    const { build, notes } = await workspace.delete(name);
    return [`Atom "${name}" deleted. ${rebuildNote(build)}`, ...writeNoteLines(notes)].join('\n');
  },
});
