import { z } from 'zod';
import { writeNoteLines } from '../../atoms/writeChecks.js';
import { defineTool } from '../tool.js';
import { atomName, atomRef } from '../schemas.js';
import { rebuildNote } from './upsertAtom.js';

export const renameAtom = defineTool({
  name: 'rename_atom',
  title: 'Rename an atom',
  description:
    'Renames an atom and rewrites its callers\' calls and dependencies, all or nothing. Use it instead of delete + create.',
  input: {
    name: atomRef,
    new_name: atomName,
    rewrite_descriptions: z.boolean().optional().describe('true: descriptions naming the old name too'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run({ name, new_name, rewrite_descriptions = false }, { workspace }) {
    const { result, build, notes } = await workspace.rename(name, new_name, { rewriteDescriptions: rewrite_descriptions });
    const callers = result.callers.length > 0 ? result.callers.join(', ') : 'none';
    const described = result.descriptions.join(', ');
    return [
      `Atom "${name}" renamed to "${new_name}" (v${result.atom.version}). Updated callers: ${callers}. ${rebuildNote(build)}`,
      `Renamed from "${name}" (v${result.from.version}): its history stays under that name (atom_history "${name}").`,
      ...(result.descriptions.length === 0
        ? []
        : rewrite_descriptions
          ? [`Descriptions rewritten to name "${new_name}": ${described}.`]
          : [
              `Descriptions that still name "${name}": ${described}. Fix them with upsert_atoms ` +
                '(or rename with rewrite_descriptions: true to rewrite them in the same change).',
            ]),
      ...writeNoteLines(notes),
    ].join('\n');
  },
});
