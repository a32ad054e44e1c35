/**
 * The extension's heavy half, bundled on its own as dist/core.js: the store, the bundler, search and the
 * MCP server. extension.js requires it on first start (see lifecycle.ts), so activating the extension
 * parses only the light half; this file is several megabytes with the search libraries.
 */
export { AtomWorkspace } from './workspace.js';
export { McpHttpHost } from './mcp/hosts/http.js';
/** The run_atom tool, for the code lens's ▶ run in the editor (views/languageFeatures.ts). */
export { runAtom as runAtomTool } from './mcp/tools/runAtom.js';
