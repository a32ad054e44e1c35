import { formatSignature } from '../../atoms/signature.js';
import type { BuildRecord } from '../../store/builds.js';
import { defineTool } from '../tool.js';
import { atomDraft } from '../schemas.js';

export const upsertAtom = defineTool({
  name: 'upsert_atom',
  title: 'Create or update an atom',
  description:
    'The brush: creates an atom, or replaces the one with the same name (its version goes up by one; the old version is kept in history). ' +
    'The code must be exactly one function declaration named like the atom, at most 2,048 bytes; declare every atom it calls in dependencies ' +
    '(they must exist and must not form a cycle). Validates, saves durably, and rebuilds latest.js. ' +
    'Use it to create a function or change one atom; to change several that depend on each other, use upsert_atoms.',
  input: atomDraft,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, { workspace }) {
    const { result, build } = await workspace.upsert(args);
    const atom = result.atom;
    return (
      `Atom "${atom.name}" saved (${atom.type}). Signature: ${formatSignature(atom)}. ` +
      `Dependencies: [${atom.dependencies.join(', ')}]. ${rebuildNote(build)}`
    );
  },
});

/** The contract's "Rebuild triggered.", with the reason when the build failed. */
export function rebuildNote(build: BuildRecord): string {
  return build.status === 'error' ? `Rebuild triggered, but it failed: ${build.error_message}` : 'Rebuild triggered.';
}
