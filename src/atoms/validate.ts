/**
 * Validation of an atom draft on its own (name, type, ports, size, code shape).
 * Checks that need the other atoms (dependencies exist, no cycle) live in graph.ts.
 */
import { checkAtomCode } from './code.js';
import { AtomError, errors } from './errors.js';
import {
  ATOM_TYPES,
  MAX_CODE_BYTES,
  MAX_DEPENDENCIES,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PORTS,
  NAME_PATTERN,
  codeBytes,
  isAtomType,
  isPortType,
  type AtomDraft,
  type AtomExample,
  type Port,
} from './model.js';
import { checkExamples } from './examples.js';

/** The draft with defaults applied: ports and dependencies present, dependencies sorted and unique. */
export interface NormalizedDraft {
  name: string;
  type: AtomDraft['type'];
  code: string;
  inputs: Port[];
  outputs: Port[];
  dependencies: string[];
  description: string | null;
  /** Checked against the ports (examples.ts); empty when none. */
  examples: AtomExample[];
}

export function checkName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw errors.invalid(`${what} is required: a snake_case name such as "player_jump"`);
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw errors.invalid(`${what} is ${name.length} characters long (limit: ${MAX_NAME_LENGTH})`);
  }
  if (!NAME_PATTERN.test(name)) {
    throw errors.invalid(
      `${what} ${JSON.stringify(name)} is not snake_case: use lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]*$), e.g. "player_jump"`,
    );
  }
  return name;
}

export function validateDraft(draft: AtomDraft): NormalizedDraft {
  const name = checkName(draft.name);
  if (!isAtomType(draft.type)) {
    throw errors.invalid(`type ${JSON.stringify(draft.type)} is not one of ${ATOM_TYPES.join(', ')}`);
  }
  if (typeof draft.code !== 'string') throw errors.invalid('code is required: the complete JavaScript function');
  const bytes = codeBytes(draft.code);
  if (bytes > MAX_CODE_BYTES) throw errors.codeTooLarge(bytes);

  const inputs = checkPorts('input', draft.inputs ?? []);
  const outputs = checkPorts('output', draft.outputs ?? []);

  const deps = draft.dependencies ?? [];
  if (!Array.isArray(deps)) throw errors.invalid('dependencies must be an array of atom names');
  if (deps.length > MAX_DEPENDENCIES) {
    throw errors.invalid(`an atom may declare at most ${MAX_DEPENDENCIES} dependencies (got ${deps.length})`);
  }
  for (const dep of deps) checkName(dep, 'dependency');
  if (deps.includes(name)) throw errors.cycle([name, name]);
  const dependencies = [...new Set(deps)].sort();

  let description: string | null = null;
  if (draft.description !== undefined && draft.description !== null) {
    if (typeof draft.description !== 'string') throw errors.invalid('description must be a string');
    if (draft.description.length > MAX_DESCRIPTION_LENGTH) {
      throw errors.invalid(`description is ${draft.description.length} characters (limit: ${MAX_DESCRIPTION_LENGTH})`);
    }
    description = draft.description.trim() || null;
  }

  if (draft.type === 'test' && inputs.some((p) => !p.optional && p.type !== 'void')) {
    throw errors.invalid(`${name} is a test atom: the checks call it with no arguments, so it takes no inputs (set up what it needs inside it)`);
  }
  const examples = checkExamples(name, draft.examples, inputs, outputs);
  checkAtomCode(name, draft.code);
  return { name, type: draft.type, code: draft.code, inputs, outputs, dependencies, description, examples };
}

function checkPorts(kind: 'input' | 'output', ports: unknown): Port[] {
  if (!Array.isArray(ports)) throw errors.invalid(`${kind}s must be an array of ports`);
  if (ports.length > MAX_PORTS) throw errors.invalid(`an atom may have at most ${MAX_PORTS} ${kind}s (got ${ports.length})`);
  const seen = new Set<string>();
  return ports.map((port: unknown, index): Port => {
    if (typeof port !== 'object' || port === null) {
      throw errors.invalid(`${kind}s[${index}] must be an object with a name and a type`);
    }
    const p = port as Record<string, unknown>;
    if (typeof p.name !== 'string' || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p.name) || p.name.length > MAX_NAME_LENGTH) {
      throw errors.invalid(`${kind}s[${index}].name must be a JavaScript identifier such as "velocity_y" (got ${JSON.stringify(p.name)})`);
    }
    if (seen.has(p.name)) throw errors.invalid(`${kind} "${p.name}" is declared twice`);
    seen.add(p.name);
    if (!isPortType(p.type)) throw errors.invalidPortType(kind, p.name, p.type);
    if (p.description !== undefined && typeof p.description !== 'string') {
      throw errors.invalid(`${kind} "${p.name}": description must be a string`);
    }
    if (p.optional !== undefined && typeof p.optional !== 'boolean') {
      throw errors.invalid(`${kind} "${p.name}": optional must be true or false`);
    }
    const out: Port = { name: p.name, type: p.type };
    if (p.description) out.description = p.description;
    if (p.optional) out.optional = true;
    return out;
  });
}

export { AtomError };
