import type { AtomDraft } from '../../atoms/model.js';
import { z } from 'zod';
import { formatSignature } from '../../atoms/signature.js';
import { atomNoteLines, writeNoteLines } from '../../atoms/writeChecks.js';
import { atomDraft, atomType } from '../schemas.js';
import { defineTool } from '../tool.js';
import { rebuildNote } from './upsertAtom.js';

/** Enough for a refactor across a feature; a larger change is better made (and reviewed) in steps. */
const MAX_BATCH = 50;

export const upsertAtoms = defineTool({
  name: 'upsert_atoms',
  title: 'Create or update several atoms at once',
  description:
    'upsert_atom for up to 50 atoms, all or nothing: use it for a new helper and its callers. One rebuild.',
  input: {
    atoms: z.array(z.object(atomDraft).strict()).min(1).max(MAX_BATCH).describe(`The atoms (1 to ${MAX_BATCH})`),
  },
  // Each item is exactly upsert_atom's arguments, checked as strictly; listing that schema again would double tools/list.
  listedInput: {
    atoms: z
      .array(z.object({ name: z.string(), type: atomType, code: z.string() }).passthrough())
      .min(1)
      .describe(`1 to ${MAX_BATCH} objects with upsert_atom's arguments (inputs, outputs, dependencies, description too)`),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run({ atoms }, { workspace }) {
    const { result, build, notes } = await workspace.upsertMany(atoms as AtomDraft[]);
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
