/**
 * "Connect Other Agents": writes the Atomic Coding MCP server into other agents' project-level MCP
 * configuration files, using the command line with `--stdio`. While VS Code runs, that command line
 * bridges to the extension's server (one writer per workspace); without VS Code it opens the store itself.
 *
 * Merging, not overwriting: every other server and every other setting in the file is kept; only our
 * entry is added or replaced. A file that is not valid JSON is left untouched and reported.
 * Pure Node (no `vscode`), so it is unit-tested and usable from scripts.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The server entry every agent gets: how to start our stdio MCP server. */
export interface StdioServer {
  command: string;
  args: string[];
}

export interface AgentTarget {
  id: string;
  label: string;
  /** Project-relative path of the agent's MCP config file. */
  file: string;
  /** Where servers live in the file, e.g. ['mcpServers']. */
  key: string[];
  /** The entry as this agent spells it. */
  entry(server: StdioServer): Record<string, unknown>;
}

/** The entry name in every config file. */
export const SERVER_NAME = 'atomic-coding';

const standard = (server: StdioServer) => ({ command: server.command, args: server.args });

export const AGENT_TARGETS: readonly AgentTarget[] = [
  { id: 'claude', label: 'Claude Code', file: '.mcp.json', key: ['mcpServers'], entry: (s) => ({ type: 'stdio', ...standard(s) }) },
  { id: 'cursor', label: 'Cursor', file: '.cursor/mcp.json', key: ['mcpServers'], entry: standard },
  { id: 'gemini', label: 'Gemini CLI', file: '.gemini/settings.json', key: ['mcpServers'], entry: standard },
  { id: 'roo', label: 'Roo Code', file: '.roo/mcp.json', key: ['mcpServers'], entry: standard },
  { id: 'kiro', label: 'Kiro', file: '.kiro/settings/mcp.json', key: ['mcpServers'], entry: standard },
  { id: 'windsurf', label: 'Windsurf (global: ~/.codeium/windsurf/mcp_config.json)', file: '~/.codeium/windsurf/mcp_config.json', key: ['mcpServers'], entry: standard },
  {
    id: 'vscode',
    label: 'VS Code workspace file (.vscode/mcp.json, for other VS Code-based editors)',
    file: '.vscode/mcp.json',
    key: ['servers'],
    entry: (s) => ({ type: 'stdio', ...standard(s) }),
  },
];

/** The targets a user is offered first. */
export const DEFAULT_TARGET_IDS = ['claude', 'cursor'];

export function findTarget(id: string): AgentTarget {
  const target = AGENT_TARGETS.find((t) => t.id === id);
  if (!target) throw new Error(`unknown agent "${id}"; known: ${AGENT_TARGETS.map((t) => t.id).join(', ')}`);
  return target;
}

/** The command line an agent runs: `node <cli.js> serve --workspace <dir> --stdio`. */
export function stdioServer(nodeCommand: string, cliPath: string, workspaceDir: string): StdioServer {
  return { command: nodeCommand, args: [cliPath, 'serve', '--workspace', workspaceDir, '--stdio'] };
}

export type MergeOutcome = 'added' | 'updated' | 'unchanged';

/**
 * Returns the file's new text with our entry merged in, and what changed. `existing` is the current
 * text or undefined when the file does not exist. Throws when the text is not a JSON object.
 */
export function mergeAgentConfig(target: AgentTarget, existing: string | undefined, server: StdioServer): { text: string; outcome: MergeOutcome } {
  let config: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(existing);
    } catch (err) {
      throw new Error(`${target.file} is not valid JSON (${(err as Error).message}); fix or remove it, then connect again. It was not changed.`, { cause: err });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${target.file} does not hold a JSON object; it was not changed.`);
    }
    config = parsed as Record<string, unknown>;
  }
  let holder = config;
  for (const key of target.key) {
    const next = holder[key];
    if (next === undefined) holder[key] = {};
    else if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      throw new Error(`"${target.key.join('.')}" in ${target.file} is not an object; it was not changed.`);
    }
    holder = holder[key] as Record<string, unknown>;
  }
  const entry = target.entry(server);
  const before = holder[SERVER_NAME];
  const outcome: MergeOutcome = before === undefined ? 'added' : JSON.stringify(before) === JSON.stringify(entry) ? 'unchanged' : 'updated';
  holder[SERVER_NAME] = entry;
  const indent = existing ? detectIndent(existing) : 2;
  return { text: JSON.stringify(config, null, indent) + '\n', outcome };
}

function detectIndent(text: string): number | string {
  const m = /\n([ \t]+)"/.exec(text);
  if (!m) return 2;
  return m[1]!.startsWith('\t') ? '\t' : m[1]!.length;
}

export interface WriteResult {
  target: AgentTarget;
  path: string;
  outcome: MergeOutcome;
}

/**
 * Writes our entry into one agent's config under `workspaceDir` (or the home folder for a `~/` path).
 * The file is replaced atomically (write to a temporary file, then rename).
 */
export function writeAgentConfig(target: AgentTarget, workspaceDir: string, server: StdioServer, homeDir: string): WriteResult {
  const path = target.file.startsWith('~/') ? join(homeDir, target.file.slice(2)) : join(workspaceDir, target.file);
  let existing: string | undefined;
  try {
    existing = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const { text, outcome } = mergeAgentConfig(target, existing, server);
  if (outcome !== 'unchanged') {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  }
  return { target, path, outcome };
}
