import { writeNoteLines } from '../../atoms/writeChecks.js';
import { defineTool } from '../tool.js';
import { atomName } from '../schemas.js';
import { rebuildNote } from './upsertAtom.js';

export const renameAtom = defineTool({
  name: 'rename_atom',
  title: 'Rename an atom',
  description:
    'Renames an atom and rewrites its callers\' calls and dependencies, all or nothing. Use it instead of delete + create.',
  input: {
    name: atomName,
    new_name: atomName,
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
