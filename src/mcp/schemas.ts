/** Zod pieces shared by several tools' input shapes. */
import { z } from 'zod';
import { ATOM_TYPES, MAX_CODE_BYTES, MAX_NAME_LENGTH, PORT_TYPES } from '../atoms/model.js';

/** Loose on purpose: the domain checks the pattern and says what a good name looks like. */
export const atomName = z.string().max(MAX_NAME_LENGTH * 4).describe('Atom name, snake_case (^[a-z][a-z0-9_]*$)');

export const atomType = z.enum(ATOM_TYPES);

export const typeFilter = atomType.optional().describe('Only atoms of this category: core, feature or util');

export const port = z
  .object({
    name: z.string().max(256).describe('Parameter or return value name, e.g. "velocity_y"'),
    type: z.enum(PORT_TYPES).describe('One of the seven primitive types'),
    description: z.string().max(1024).optional().describe('What the value means'),
    optional: z.boolean().optional().describe('True when callers may omit it (default false)'),
  })
  .strict();

export const atomDraft = {
  name: atomName,
  code: z
    .string()
    .max(MAX_CODE_BYTES * 8)
    .describe(`Complete JavaScript source: exactly one function declaration named like the atom (max ${MAX_CODE_BYTES} bytes of UTF-8)`),
  type: atomType.describe('core: entry points, game loop; feature: player-facing mechanics; util: helpers, configs, pure functions'),
  inputs: z.array(port).max(64).optional().describe('Typed input parameters, in call order (default [])'),
  outputs: z.array(port).max(64).optional().describe('Typed return values (default [])'),
  dependencies: z.array(atomName).max(128).optional().describe('Names of the atoms this code calls (default [])'),
  description: z.string().max(8192).optional().describe('Brief explanation; improves search'),
};
