import type { AtomDraft } from '../../atoms/model.js';
import { formatSignature } from '../../atoms/signature.js';
import { atomNoteLines, writeNoteLines } from '../../atoms/writeChecks.js';
import type { BuildRecord } from '../../store/builds.js';
import { defineTool } from '../tool.js';
import { atomDraft } from '../schemas.js';

export const upsertAtom = defineTool({
  name: 'upsert_atom',
  title: 'Create or update an atom',
  description:
    'Creates an atom or replaces the one of that name (omitted fields are cleared and named in the answer). ' +
    'A name the code uses must be a local, a browser global or an atom (a dependency, added if undeclared); no cycles. ' +
    'Rebuilds latest.js; the answer ends with how the examples and tests went. Use upsert_atoms for several.',
  input: atomDraft,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { workspace }) {
    const { result, build, notes } = await workspace.upsert(args as AtomDraft); // examples: checked by the domain
    const atom = result.atom;
    // The contract's line first, unchanged; what else the agent must know on lines of its own.
    return [
      `Atom "${atom.name}" saved (${atom.type}). Signature: ${formatSignature(atom)}. ` +
        `Dependencies: [${atom.dependencies.join(', ')}]. ${rebuildNote(build)}`,
      ...atomNoteLines(notes.atoms.get(atom.name)),
      ...writeNoteLines(notes),
    ].join('\n');
  },
});

/** The contract's "Rebuild triggered.", with the reason when the build failed. */
export function rebuildNote(build: BuildRecord): string {
  return build.status === 'error' ? `Rebuild triggered, but it failed: ${build.error_message}` : 'Rebuild triggered.';
}
