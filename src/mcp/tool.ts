/**
 * How a tool is declared: its name, title, description, zod input shape and annotations sit
 * beside its handler, one file per tool. The server turns these into `tools/list` entries and
 * validates arguments itself, so every refusal reads as a clear `Error: ` text.
 */
import { z } from 'zod';
import type { AtomWorkspace } from '../workspace.js';
import { toolAppMeta } from './apps.js';
import { toolIcons } from './icons.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** What a tool may use. `connectedClients` counts the MCP client sessions (status reporting). */
export interface ToolContext {
  workspace: AtomWorkspace;
  connectedClients(): number;
  serverVersion: string;
}

/** A tool's answer: text, optionally with structured content matching an output schema. */
export interface ToolOutput {
  text: string;
  structured?: Record<string, unknown>;
  /** The answer is an error result (`isError: true`) with this text as it is, not a refusal: run_atom's thrown run, a failed check. */
  isError?: boolean;
}

export interface ToolDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  /**
   * The input schema as `tools/list` shows it, when it should say less than `input` checks: upsert_atoms
   * lists its items as "upsert_atom's arguments" instead of repeating that whole schema. Arguments are
   * always checked against `input`, so a refusal still says exactly what is wrong.
   */
  listedInput?: S | z.ZodRawShape;
  annotations: ToolAnnotations;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext): Promise<string | ToolOutput>;
}

export function defineTool<S extends z.ZodRawShape>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

/**
 * The `tools/list` entry: JSON Schema of the input (draft 2020-12, as MCP expects), the tool's icon
 * (icons.ts) and, for a tool with an MCP App, `_meta.ui.resourceUri` (apps.ts).
 */
export function describeTool(tool: ToolDefinition) {
  const schema = z.toJSONSchema(z.object(tool.listedInput ?? tool.input).strict(), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  const app = toolAppMeta(tool.name);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: lean(schema) as { type: 'object'; [key: string]: unknown },
    // destructiveHint and idempotentHint mean something only for a tool that writes (MCP's ToolAnnotations): left out for readers.
    annotations: tool.annotations.readOnlyHint ? { readOnlyHint: true, openWorldHint: tool.annotations.openWorldHint } : tool.annotations,
    icons: toolIcons(tool.name),
    ...(app ? { _meta: app } : {}),
  };
}

/**
 * Every agent reads `tools/list` at the start of every conversation, so it carries what an agent needs to
 * call a tool right and nothing else: length and count caps on strings and arrays are left out (they only
 * stop abuse; the server enforces them and its refusal names the limit), number ranges are kept.
 */
function lean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lean);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maxLength' || key === 'maxItems') continue;
    // What JSON Schema assumes anyway: any item, any further property, string keys, no upper bound on an integer.
    if ((key === 'items' || key === 'additionalProperties') && isEmptyObject(value)) continue;
    if (key === 'propertyNames' && isEmptyObject({ ...(value as object), type: undefined }) && (value as { type?: unknown }).type === 'string') continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = lean(value);
  }
  return out;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => v === undefined);
}
