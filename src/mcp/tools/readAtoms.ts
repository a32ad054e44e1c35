import { z } from 'zod';
import { errors } from '../../atoms/errors.js';
import type { Atom } from '../../atoms/model.js';
import { defineTool } from '../tool.js';
import { formatAtom } from '../format.js';
import { atomName } from '../schemas.js';

export const readAtoms = defineTool({
  name: 'read_atoms',
  title: 'Read atoms',
  description:
    'The magnifier: full source code, typed signature, description, version and dependencies of one or more atoms. ' +
    'Use it after get_code_structure or semantic_search has named the atoms you need, before you modify them.',
  input: { names: z.array(atomName).min(1).max(100).describe('Names of the atoms to read (1 to 100)') },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ names }, { workspace }) {
    const wanted = [...new Set(names)];
    const missing = wanted.filter((n) => !workspace.atoms.has(n));
    if (missing.length > 0) throw errors.namesNotFound(missing);
    return wanted.map((n) => formatAtom(workspace.atoms.get(n) as Atom)).join('\n\n');
  },
});
