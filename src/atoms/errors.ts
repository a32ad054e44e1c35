/**
 * Domain errors. Each message is the user-facing text without the MCP `Error: ` prefix,
 * worded as the contract words it where the contract has a text.
 */
import { MAX_CODE_BYTES, PORT_TYPES } from './model.js';

export type AtomErrorCode =
  | 'invalid_argument'
  | 'too_large'
  | 'invalid_port_type'
  | 'dependencies_not_found'
  | 'unknown_names'
  | 'cycle'
  | 'syntax'
  | 'shape'
  | 'not_found'
  | 'in_use'
  | 'conflict'
  | 'storage';

export class AtomError extends Error {
  constructor(
    readonly code: AtomErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AtomError';
  }
}

export const errors = {
  codeTooLarge: (bytes: number) =>
    new AtomError(
      'too_large',
      `code is ${bytes} bytes (limit: ${MAX_CODE_BYTES}). Break the function into smaller atoms and compose them with dependencies.`,
    ),
  dependenciesNotFound: (names: string[]) =>
    new AtomError(
      'dependencies_not_found',
      `dependencies not found: ${names.join(', ')}. Create those atoms first, or check names with get_code_structure.`,
    ),
  invalidPortType: (kind: 'input' | 'output', portName: string, type: unknown) =>
    new AtomError(
      'invalid_port_type',
      `new row violates check constraint "chk_${kind}s_valid": ${kind} "${portName}" has type ${JSON.stringify(type)}; ` +
        `allowed types: ${PORT_TYPES.join(', ')}`,
    ),
  cycle: (path: string[]) =>
    new AtomError(
      'cycle',
      path.length === 2 && path[0] === path[1]
        ? `an atom cannot depend on itself: ${path.join(' -> ')}`
        : `dependency cycle: ${path.join(' -> ')}. Atoms must form a graph without cycles; move the shared part into a new atom.`,
    ),
  notFound: (name: string) =>
    new AtomError('not_found', `Atom "${name}" not found. Check the name with get_code_structure.`),
  namesNotFound: (names: string[]) => new AtomError('not_found', `No atoms found with names: ${names.join(', ')}`),
  inUse: (name: string, dependents: string[]) =>
    new AtomError(
      'in_use',
      `Cannot delete "${name}": used by [${dependents.join(', ')}]. Delete or update the dependents first.`,
    ),
  invalid: (message: string) => new AtomError('invalid_argument', message),
};
