import { formatSignature } from '../../atoms/signature.js';
import { atomNoteLines, writeNoteLines } from '../../atoms/writeChecks.js';
import { BOOT_RULE } from '../../build/bundler.js';
import type { BuildRecord } from '../../store/builds.js';
import { defineTool } from '../tool.js';
import { atomDraft } from '../schemas.js';

export const upsertAtom = defineTool({
  name: 'upsert_atom',
  title: 'Create or update an atom',
  description:
    'The brush: creates an atom, or replaces the one with the same name (its version goes up by one; the old version is kept in history). ' +
    'The code must be exactly one function declaration named like the atom, at most 2,048 bytes; atoms it calls are its dependencies ' +
    '(they must exist and must not form a cycle; calls you do not declare are added, and the answer says so). Validates, saves durably, and rebuilds latest.js. ' +
    `The bundle boots ${BOOT_RULE}. ` +
    'Use it to create a function or change one atom; to change several that depend on each other, use upsert_atoms.',
  input: atomDraft,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { workspace }) {
    const { result, build, notes } = await workspace.upsert(args);
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
