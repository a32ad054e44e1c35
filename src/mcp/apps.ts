/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): views a client renders inside the chat
 * next to a tool call. Two apps, each one self-contained HTML page built by scripts/build.mjs from
 * media/apps/ into dist/apps/:
 * - the atom graph, shown for get_code_structure and query_graph: the editor's graph (layers, type colours,
 *   click to light up what an atom uses and what uses it, impact), drawn from the tool's own result, and
 *   reading an atom's code through the host (read_atoms) when it is clicked;
 * - the game, shown for upsert_atom and upsert_atoms: the bundle (atoms://bundle, read through the host)
 *   running in a sandboxed frame, with console output and runtime errors tied to atom and line.
 *
 * A tool names its app in `_meta.ui.resourceUri`; the client reads that `ui://` resource here. The pages
 * load nothing from any address: their own Content-Security-Policy allows inline code only and no
 * connection, and `_meta.ui.csp` declares no domain, so a host grants none. The tools' results stay
 * exactly the contract's texts (no structuredContent), for the model and for clients without apps.
 *
 * The `ui://` resources are read, not listed: resources/list keeps showing what a person or an agent may
 * want to read (the structure, the bundle), and hosts read an app by the URI its tool names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

/** The MIME type that marks an HTML resource as an MCP App (the extension's RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

export const GRAPH_APP_URI = 'ui://atomic/graph';
export const GAME_APP_URI = 'ui://atomic/game';

interface AppPage {
  /** The built page under dist/apps/. */
  file: string;
  title: string;
}

const APPS: Readonly<Record<string, AppPage>> = {
  [GRAPH_APP_URI]: { file: 'graph.html', title: 'Atom graph' },
  [GAME_APP_URI]: { file: 'game.html', title: 'Running game (latest.js)' },
};

/** Which tools show an app, by tool name. */
export const TOOL_APPS: Readonly<Record<string, string>> = {
  get_code_structure: GRAPH_APP_URI,
  query_graph: GRAPH_APP_URI,
  upsert_atom: GAME_APP_URI,
  upsert_atoms: GAME_APP_URI,
};

/** The `_meta` of a tool's `tools/list` entry: its app, if it has one. */
export function toolAppMeta(name: string): { ui: { resourceUri: string } } | undefined {
  const uri = TOOL_APPS[name];
  return uri ? { ui: { resourceUri: uri } } : undefined;
}

export function isAppUri(uri: string): boolean {
  return uri.startsWith('ui://');
}

/** Where the built pages are: beside the bundle (dist/apps/), or the repository's dist/ when run from source. */
export function appsDir(): string {
  return process.env.ATOMIC_BUNDLED === '1' ? join(__dirname, 'apps') : join(__dirname, '..', '..', 'dist', 'apps');
}

/** resources/read of a `ui://` URI: the app's page, with the extension's MIME type and its UI metadata. */
export function readApp(uri: string, dir = appsDir()): ReadResourceResult {
  const app = APPS[uri];
  if (!app) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown app ${uri}: the apps are ${Object.keys(APPS).join(' and ')}`);
  }
  const file = join(dir, app.file);
  if (!existsSync(file)) {
    throw new McpError(ErrorCode.InternalError, `The ${app.title} app is not built (${file} is missing): run "npm run build", then restart the server.`);
  }
  const text = readFileSync(file, 'utf8');
  return {
    contents: [
      {
        uri,
        mimeType: APP_MIME_TYPE,
        text,
        // No domain of any kind: the page loads and connects to nothing. A border sets it apart from the chat.
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ],
  };
}
