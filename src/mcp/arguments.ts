/**
 * Checks a tool's arguments against its zod shape and words every refusal so that an agent
 * knows what to send instead. Port types get the domain's message, naming the port.
 */
import { z } from 'zod';
import { AtomError, errors } from '../atoms/errors.js';
import { PORT_TYPES } from '../atoms/model.js';
import type { ToolDefinition } from './tool.js';

/**
 * Each tool's strict object schema, made once: zod compiles an object schema's parser on its first
 * use, so a schema made per call was compiled again at every call (new code and its garbage).
 */
const strictSchemas = new WeakMap<z.ZodRawShape, z.ZodObject>();

export function parseArguments<S extends z.ZodRawShape>(tool: ToolDefinition<S>, raw: unknown): z.infer<z.ZodObject<S>> {
  const args = raw ?? {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw errors.invalid(`arguments of ${tool.name} must be an object with ${describeKeys(tool)}`);
  }
  // A JSON "__proto__" key holding an object arrives as the arguments' prototype: refuse it,
  // so no argument can be supplied through the prototype chain.
  const proto = Object.getPrototypeOf(args);
  if (proto !== Object.prototype && proto !== null) {
    throw errors.invalid(`invalid arguments for ${tool.name}: "__proto__" is not an argument; send a plain JSON object with ${describeKeys(tool)}`);
  }
  // Own keys first, for one clear message naming every unknown argument.
  const unknown = Object.keys(args).filter((k) => !Object.prototype.hasOwnProperty.call(tool.input, k));
  if (unknown.length > 0) {
    throw errors.invalid(
      `invalid arguments for ${tool.name}: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; ${tool.name} takes ${describeKeys(tool)}`,
    );
  }
  let schema = strictSchemas.get(tool.input);
  if (!schema) strictSchemas.set(tool.input, (schema = z.object(tool.input).strict()));
  const parsed = (schema as z.ZodObject<S>).safeParse(args, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw explain(tool, args as Record<string, unknown>, parsed.error.issues);
}

function describeKeys(tool: ToolDefinition): string {
  const keys = Object.keys(tool.input);
  return keys.length ? `the keys ${keys.join(', ')}` : 'no keys';
}

function explain(tool: ToolDefinition, args: Record<string, unknown>, issues: z.core.$ZodIssue[]): AtomError {
  const issue = issues[0]!;
  const path = issue.path;
  // A port with a type outside the seven: the domain's wording, naming the port.
  if (path.length === 3 && (path[0] === 'inputs' || path[0] === 'outputs') && path[2] === 'type') {
    const port = (args[path[0]] as Record<string, unknown>[] | undefined)?.[path[1] as number];
    if (port && typeof port === 'object') {
      return errors.invalidPortType(path[0] === 'inputs' ? 'input' : 'output', String(port.name ?? `#${String(path[1])}`), port.type);
    }
  }
  const where = formatPath(path);
  let message: string;
  switch (issue.code) {
    case 'unrecognized_keys':
      message = `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${where ? ` in ${where}` : ''}; ${tool.name} takes ${describeKeys(tool)}`;
      break;
    case 'invalid_type':
      message =
        issueInput(issue) === undefined
          ? `${where} is required (${issue.expected})`
          : `${where} must be ${article(issue.expected)}, not ${typeName(issueInput(issue))}`;
      break;
    case 'invalid_value':
      message = `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
      if (where.endsWith('.type') && issue.values.length === PORT_TYPES.length) message += ` (the seven port types)`;
      break;
    case 'too_big':
      message = `${where} is too ${issue.origin === 'string' ? 'long' : 'large'}: at most ${String(issue.maximum)}${unit(issue.origin)}`;
      break;
    case 'too_small':
      message = `${where} is too ${issue.origin === 'string' ? 'short' : 'small'}: at least ${String(issue.minimum)}${unit(issue.origin)}`;
      break;
    default:
      message = `${where ? `${where}: ` : ''}${issue.message}`;
  }
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return errors.invalid(`invalid arguments for ${tool.name}: ${message}${more}`);
}

function issueInput(issue: z.core.$ZodIssue): unknown {
  return (issue as { input?: unknown }).input;
}

function formatPath(path: PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

function unit(origin: string): string {
  return origin === 'string' ? ' characters' : origin === 'array' ? ' items' : '';
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}
