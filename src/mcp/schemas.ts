/** Zod pieces shared by several tools' input shapes. */
import { z } from 'zod';
import { ATOM_TYPES, MAX_CODE_BYTES, MAX_NAME_LENGTH, PORT_TYPES } from '../atoms/model.js';

/** Loose on purpose: the domain checks the pattern and says what a good name looks like. */
export const atomName = z.string().max(MAX_NAME_LENGTH * 4).describe('snake_case atom name');
/** An atom's name where the tool or field already says it is one: listed without a description (tools/list stays small). */
export const atomRef = z.string().max(MAX_NAME_LENGTH * 4);

export const atomType = z.enum(ATOM_TYPES);

export const typeFilter = atomType.optional().describe('Only atoms of this type');

/** A port's fields speak for themselves; the array that holds ports says what they are. */
export const port = z
  .object({
    name: z.string().max(256),
    type: z.enum(PORT_TYPES),
    description: z.string().max(1024).optional(),
    optional: z.boolean().optional(),
  })
  .strict();

export const atomDraft = {
  name: atomName,
  code: z
    .string()
    .max(MAX_CODE_BYTES * 8)
    .describe(`One function declaration named like the atom, at most ${MAX_CODE_BYTES} bytes`),
  type: atomType.describe('core: entry points; feature: mechanics; util: helpers; test: never bundled'),
  inputs: z.array(port).max(64).optional().describe('Parameters in call order; optional: true if callers may omit one'),
  outputs: z.array(port).max(64).optional().describe('Return values'),
  dependencies: z.array(atomRef).max(128).optional().describe('Atoms this code calls'),
  description: z.string().max(8192).optional().describe('What it does (search reads it)'),
  examples: z
    // The shape is in the description (and checked by the domain, with what to do): the listing stays small.
    .array(z.record(z.string(), z.unknown()))
    .max(16)
    .optional()
    .describe('{args, returns} or {args, throws: text}; run after every change'),
};
