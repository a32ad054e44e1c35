import { writeNoteLines } from '../../atoms/writeChecks.js';
import { defineTool } from '../tool.js';
import { atomName } from '../schemas.js';
import { rebuildNote } from './upsertAtom.js';

export const renameAtom = defineTool({
  name: 'rename_atom',
  title: 'Rename an atom',
  description:
    'Renames an atom and rewrites every atom whose code calls it (their calls and dependencies), all or nothing; ' +
    'refused, changing nothing, if new_name is taken or a rewritten atom would exceed 2,048 bytes. The old name\'s history stays under the old name. Rebuilds latest.js.',
  input: {
    name: atomName.describe('Name of the atom to rename'),
    new_name: atomName.describe('Its new name, snake_case and not taken'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ name, new_name }, { workspace }) {
    const { result, build, notes } = await workspace.rename(name, new_name);
    const callers = result.callers.length > 0 ? result.callers.join(', ') : 'none';
    return [
      `Atom "${name}" renamed to "${new_name}" (v${result.atom.version}). Updated callers: ${callers}. ${rebuildNote(build)}`,
      `Renamed from "${name}" (v${result.from.version}): its history stays under that name (atom_history "${name}").`,
      ...writeNoteLines(notes),
    ].join('\n');
  },
});
