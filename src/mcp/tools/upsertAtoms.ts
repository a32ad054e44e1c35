import { z } from 'zod';
import { formatSignature } from '../../atoms/signature.js';
import { atomNoteLines, writeNoteLines } from '../../atoms/writeChecks.js';
import { atomDraft } from '../schemas.js';
import { defineTool } from '../tool.js';
import { rebuildNote } from './upsertAtom.js';

/** Enough for a refactor across a feature; a larger change is better made (and reviewed) in steps. */
const MAX_BATCH = 50;

export const upsertAtoms = defineTool({
  name: 'upsert_atoms',
  title: 'Create or update several atoms at once',
  description:
    'Like upsert_atom for up to 50 atoms in one call, all or nothing: every atom is validated against the graph as it will be after the whole batch, ' +
    'so a new helper and the atoms that start calling it go in together, and if any atom is refused nothing is saved. ' +
    'Use it for refactors that touch several atoms (extracting a helper, renaming a dependency); one rebuild follows.',
  input: {
    atoms: z.array(z.object(atomDraft).strict()).min(1).max(MAX_BATCH).describe(`The atoms, each with the upsert_atom fields (1 to ${MAX_BATCH})`),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run({ atoms }, { workspace }) {
    const { result, build, notes } = await workspace.upsertMany(atoms);
    const lines = result.flatMap((r) => {
      const state = r.created ? 'created' : r.atom === r.previous ? 'unchanged' : `updated to v${r.atom.version}`;
      return [
        `  ${r.atom.name} (${r.atom.type}) ${state}. Signature: ${formatSignature(r.atom)}. Dependencies: [${r.atom.dependencies.join(', ')}].`,
        ...atomNoteLines(notes.atoms.get(r.atom.name)).map((line) => `    ${line}`),
      ];
    });
    const changed = result.filter((r) => r.atom !== r.previous).length;
    return [
      `${result.length} atom${result.length === 1 ? '' : 's'} saved together (${changed} changed). ${rebuildNote(build)}`,
      ...lines,
      ...writeNoteLines(notes),
    ].join('\n');
  },
});
