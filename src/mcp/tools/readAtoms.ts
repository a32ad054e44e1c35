import { z } from 'zod';
import { errors } from '../../atoms/errors.js';
import type { Atom } from '../../atoms/model.js';
import { defineTool } from '../tool.js';
import { formatAtom } from '../format.js';
import { atomRef } from '../schemas.js';

export const readAtoms = defineTool({
  name: 'read_atoms',
  title: 'Read atoms',
  description:
    'Code, signature, description, version and dependencies of the named atoms. Use it before changing them.',
  input: { names: z.array(atomRef).min(1).max(100).describe('1 to 100 names') },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ names }, { workspace }) {
    const wanted = [...new Set(names)];
    const missing = wanted.filter((n) => !workspace.atoms.has(n));
    if (missing.length > 0) throw errors.namesNotFound(missing);
    return wanted.map((n) => formatAtom(workspace.atoms.get(n) as Atom)).join('\n\n');
  },
});
