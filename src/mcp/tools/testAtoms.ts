import { z } from 'zod';
import { checkLines } from '../../atoms/checks.js';
import { errors } from '../../atoms/errors.js';
import { atomRef } from '../schemas.js';
import { defineTool } from '../tool.js';

export const testAtoms = defineTool({
  name: 'test_atoms',
  title: 'Run examples and test atoms',
  description: 'Runs the examples and test atoms reaching the named atoms (default: all); isError when any fails.',
  input: {
    names: z.array(atomRef).max(64).optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ names }, { workspace }) {
    for (const name of names ?? []) if (!workspace.atoms.has(name)) throw errors.notFound(name);
    const results = await workspace.verification.run(names);
    if (results.length === 0) {
      return names
        ? `No examples or test atoms reach ${names.join(', ')}: add examples to upsert_atom, or a test atom (type test) that calls them.`
        : 'No examples or test atoms yet: add examples to upsert_atom, or a test atom (type test) that calls atoms and asserts.';
    }
    const failed = results.filter((r) => !r.ok);
    const atoms = new Set(results.map((r) => r.atom)).size;
    const head = failed.length === 0 ? `All ${results.length} checks of ${atoms} atoms passed.` : `${failed.length} of ${results.length} checks FAILED (${atoms} atoms).`;
    // Text only: a client that shows structured content to the model instead of the text would lose the failures' words.
    return { text: [head, ...checkLines(results, 20)].join('\n'), isError: failed.length > 0 };
  },
});
