/**
 * "Connect Other Agents": writes the Atomic Coding MCP server into other agents' project-level MCP
 * configuration files, using the command line with `--stdio`. While VS Code runs, that command line
 * bridges to the extension's server (one writer per workspace); without VS Code it opens the store itself.
 *
 * Merging, not overwriting: every other server and every other setting in the file is kept; only our
 * entry is added or replaced. A file that is not valid JSON is left untouched and reported.
 *
 * Links are refused, not followed: a repository is someone else's text, and one whose `.mcp.json` is a
 * symbolic link to the user's `~/.claude.json` would otherwise get that file's secrets copied into a
 * regular file in the repository (read through the link, written back by the rename). So a config path
 * inside the workspace is used only when neither the file nor any folder on the way to it is a link and
 * it resolves inside the workspace; otherwise nothing is read or written and the error says what to do.
 * Pure Node (no `vscode`), so it is unit-tested and usable from scripts.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, win32 } from 'node:path';
import { SERVER_NAME } from '../version.js';
import { HUGE_PAGES_TUNABLE, NODE_FLAGS } from '../util/nodeFlags.js';

/** The server entry every agent gets: how to start our stdio MCP server. */
export interface StdioServer {
  command: string;
  args: string[];
}

export interface AgentTarget {
  id: string;
  label: string;
  /** The agent's MCP config file: `~/...` in the user's home (the user's own configuration), else relative to the project. */
  file: string;
  /** Where servers live in the file, e.g. ['mcpServers']; `<folder>` stands for the workspace folder's path. */
  key: string[];
  /**
   * What `--workspace` the entry passes: the folder itself (the default), a variable the agent fills in
   * (Cursor's `${workspaceFolder}`), or nothing (`null`: the folder the agent runs the server in).
   */
  workspace?: string | null;
  /** The entry as this agent spells it. */
  entry(server: StdioServer): Record<string, unknown>;
}

const standard = (server: StdioServer) => ({ command: server.command, args: server.args });

/**
 * Where Connect Other Agents writes by default: each agent's configuration in the user's home, never a
 * file in the repository (which teams commit: an entry there would carry this machine's paths to the
 * extension and the folder). None of these is VS Code's own configuration, so VS Code does not list the
 * server a second time beside the one its MCP provider gives it.
 */
export const USER_TARGETS: readonly AgentTarget[] = [
  {
    id: 'claude-user',
    label: 'Claude Code',
    // Claude Code's "local" scope: this user, this project; kept in ~/.claude.json under the project's path.
    file: '~/.claude.json',
    key: ['projects', '<folder>', 'mcpServers'],
    entry: (s) => ({ type: 'stdio', ...standard(s) }),
  },
  { id: 'cursor-user', label: 'Cursor', file: '~/.cursor/mcp.json', key: ['mcpServers'], workspace: '${workspaceFolder}', entry: standard },
  { id: 'gemini-user', label: 'Gemini CLI', file: '~/.gemini/settings.json', key: ['mcpServers'], workspace: null, entry: standard },
  { id: 'kiro-user', label: 'Kiro', file: '~/.kiro/settings/mcp.json', key: ['mcpServers'], workspace: null, entry: standard },
  { id: 'windsurf', label: 'Windsurf', file: '~/.codeium/windsurf/mcp_config.json', key: ['mcpServers'], workspace: null, entry: standard },
];

/**
 * Project files (in the repository): only on explicit request (scripts, the command line), because their
 * entries hold this machine's absolute paths. `vscode` (.vscode/mcp.json) is for other VS Code-based
 * editors; in VS Code it would duplicate the provider's server.
 */
export const PROJECT_TARGETS: readonly AgentTarget[] = [
  { id: 'claude', label: 'Claude Code', file: '.mcp.json', key: ['mcpServers'], entry: (s) => ({ type: 'stdio', ...standard(s) }) },
  { id: 'cursor', label: 'Cursor', file: '.cursor/mcp.json', key: ['mcpServers'], entry: standard },
  { id: 'gemini', label: 'Gemini CLI', file: '.gemini/settings.json', key: ['mcpServers'], entry: standard },
  { id: 'roo', label: 'Roo Code', file: '.roo/mcp.json', key: ['mcpServers'], entry: standard },
  { id: 'kiro', label: 'Kiro', file: '.kiro/settings/mcp.json', key: ['mcpServers'], entry: standard },
  {
    id: 'vscode',
    label: 'VS Code workspace file (.vscode/mcp.json, for other VS Code-based editors)',
    file: '.vscode/mcp.json',
    key: ['servers'],
    entry: (s) => ({ type: 'stdio', ...standard(s) }),
  },
];

export const AGENT_TARGETS: readonly AgentTarget[] = [...USER_TARGETS, ...PROJECT_TARGETS];

/** The targets a user is offered first. */
export const DEFAULT_TARGET_IDS = ['claude-user', 'cursor-user'];

export function findTarget(id: string): AgentTarget {
  const target = AGENT_TARGETS.find((t) => t.id === id);
  if (!target) throw new Error(`unknown agent "${id}"; known: ${AGENT_TARGETS.map((t) => t.id).join(', ')}`);
  return target;
}

/**
 * The command line an agent runs: `node --max-semi-space-size=8 --heap-growing-percent=50 <cli.js>
 * serve --workspace <dir> --stdio` (the V8 options keep the server's heap small: util/nodeFlags.ts).
 * On Linux, through `/usr/bin/env GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (huge pages for what its
 * start reads: HUGE_PAGES_ENV), set on the command line rather than in the entry's `env`: some agents
 * start a server whose entry has an `env` with that environment alone, without PATH or HOME (the MCP
 * SDK's own client did in early 2025: typescript-sdk issue 216). `env` looks `node` up on the PATH
 * the agent gives, as the agent did for a bare `node`, and execs it in the same process. A
 * GLIBC_TUNABLES of the user's own is replaced for this process (glibc's tunables are rarely set).
 */
export function stdioServer(
  nodeCommand: string,
  cliPath: string,
  workspaceDir: string | null,
  platform: NodeJS.Platform = process.platform,
  exists: (file: string) => boolean = existsSync,
): StdioServer {
  const node = [nodeCommand, ...NODE_FLAGS, cliPath, 'serve', ...(workspaceDir === null ? [] : ['--workspace', workspaceDir]), '--stdio'];
  if (platform === 'linux' && exists(ENV_COMMAND)) return { command: ENV_COMMAND, args: [`GLIBC_TUNABLES=${HUGE_PAGES_TUNABLE}`, ...node] };
  return { command: node[0]!, args: node.slice(1) };
}

const ENV_COMMAND = '/usr/bin/env';

/** The entry's server for one target: its `--workspace` as the target wants it (see AgentTarget.workspace). */
export function serverFor(target: AgentTarget, nodeCommand: string, cliPath: string, workspaceDir: string): StdioServer {
  return stdioServer(nodeCommand, cliPath, target.workspace === undefined ? workspaceDir : target.workspace);
}

/**
 * The Node an agent's entry starts. On Windows a bare `node` may run a `node.exe` from the folder
 * the agent starts it in (the repository: Windows looks in the current folder before PATH), so there
 * the entry names the first `node.exe` on PATH that is outside the workspace, by its full path. On
 * other systems `node` is looked up on PATH only (an empty or relative PATH entry, which would mean the
 * current folder, is skipped by the same rule), so the portable bare name is kept.
 */
export function nodeCommand(
  workspaceDir: string,
  platform: NodeJS.Platform = process.platform,
  pathVariable = process.env.PATH ?? process.env.Path ?? '',
  exists: (file: string) => boolean = existsSync,
): string {
  const paths = platform === 'win32' ? win32 : posix;
  const dirs = pathVariable.split(paths.delimiter);
  const safe = (dir: string) => {
    if (!dir || !paths.isAbsolute(dir)) return false; // '' and '.' mean the current folder
    const rel = paths.relative(workspaceDir, dir);
    return rel.startsWith('..') || paths.isAbsolute(rel); // not inside the workspace
  };
  if (platform !== 'win32' && dirs.every(safe)) return 'node';
  const name = platform === 'win32' ? 'node.exe' : 'node';
  for (const dir of dirs.filter(safe)) if (exists(paths.join(dir, name))) return paths.join(dir, name);
  return 'node';
}

export type MergeOutcome = 'added' | 'updated' | 'unchanged';

/**
 * Returns the file's new text with our entry merged in, and what changed. `existing` is the current
 * text or undefined when the file does not exist. Throws when the text is not a JSON object.
 */
export function mergeAgentConfig(target: AgentTarget, existing: string | undefined, server: StdioServer, workspaceDir = ''): { text: string; outcome: MergeOutcome } {
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
  for (const key of target.key.map((k) => (k === '<folder>' ? workspaceDir : k))) {
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
 * The file is replaced atomically (write to a temporary file, then rename). A workspace path that a link
 * could redirect is refused before anything is read (see checkWorkspacePath).
 */
export function writeAgentConfig(target: AgentTarget, workspaceDir: string, server: StdioServer, homeDir: string): WriteResult {
  const inHome = target.file.startsWith('~/');
  const path = inHome ? join(homeDir, target.file.slice(2)) : join(workspaceDir, target.file);
  if (!inHome) checkWorkspacePath(target, workspaceDir);
  const existing = readIfExists(path, !inHome);
  const { text, outcome } = mergeAgentConfig(target, existing, server, workspaceDir);
  if (outcome !== 'unchanged') {
    mkdirSync(dirname(path), { recursive: true });
    // A fresh name, created exclusively: an existing file or link of that name is never written through.
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, path);
  }
  return { target, path, outcome };
}

/**
 * Refuses a config path in the workspace that is not plainly the workspace's own file: the file or a
 * folder on the way to it is a symbolic link (or junction), the file is not a regular file or has other
 * hard links, or it resolves outside the workspace. Parts that do not exist yet are fine: they are
 * created as real folders. Throws an error naming the path and what to do.
 */
export function checkWorkspacePath(target: AgentTarget, workspaceDir: string): void {
  const parts = target.file.split('/');
  let current = workspaceDir;
  for (let i = 0; i < parts.length; i++) {
    current = join(current, parts[i]!);
    const shown = parts.slice(0, i + 1).join('/');
    const where = shown === target.file ? shown : `${shown} (on the way to ${target.file})`;
    let stat;
    try {
      stat = lstatSync(current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const last = i === parts.length - 1;
    if (stat.isSymbolicLink()) {
      throw new Error(
        `${where} is a symbolic link. Connect Other Agents does not follow links in the workspace (one could point at a file with secrets, ` +
          `such as ~/.claude.json, and copy it into the repository), so nothing was read or written. ` +
          `Replace the link with a regular ${last ? 'file' : 'folder'}, or add the "${SERVER_NAME}" server to ${target.file} by hand, then connect again.`,
      );
    }
    if (!last && !stat.isDirectory()) throw new Error(`${where} is not a folder; rename or remove it, then connect again. Nothing was read or written.`);
    if (last && !stat.isFile()) throw new Error(`${where} is not a regular file; rename or remove it, then connect again. Nothing was read or written.`);
    if (last && stat.nlink > 1) {
      throw new Error(
        `${where} is a hard link shared with another file, which may lie outside the workspace, so nothing was read or written. ` +
          `Replace it with a copy of its own (e.g. copy it, delete it, rename the copy back), then connect again.`,
      );
    }
  }
  const root = realpathSync(workspaceDir);
  const real = realpathSync(current);
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new Error(`${target.file} resolves to ${real}, outside the workspace ${root}; nothing was read or written. Make it a regular file in the workspace, then connect again.`);
  }
}

/**
 * The file's text, or undefined when it does not exist. `noFollow`: opened with O_NOFOLLOW where the
 * platform has it, so a link put in place after the check is not read through either.
 */
function readIfExists(path: string, noFollow: boolean): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, noFollow ? constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) : 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new Error(`${path} is a symbolic link; nothing was read or written. Replace it with a regular file, then connect again.`, { cause: err });
    throw err;
  }
  try {
    if (noFollow && !fstatSync(fd).isFile()) throw new Error(`${path} is not a regular file; rename or remove it, then connect again. Nothing was read or written.`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
