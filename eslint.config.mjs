import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_VSCODE = { name: 'vscode', message: 'Only src/extension.ts, src/lifecycle.ts and src/views/ import vscode.' };
const NO_VIEWS = {
  group: ['**/views/*', '**/views/**'],
  message: 'src/views/ is the VS Code side and imports these, not the other way round: share webview messages through src/protocol/.',
};

/**
 * The house's fences (DEVELOPERS.md): which part may import which. A relative import that leaves a
 * part is matched by its first folder under src/; an arrow against the design fails lint.
 */
const parts = (...names) => `^(\\.\\./)+(${names.join('|')})(/|\\.js$)`;
const TOP = ['workspace', 'lifecycle', 'core', 'cli', 'cliEntry', 'extension'];
const fence = (message, names, extra = {}) => ({ regex: parts(...names), message, ...extra });
const DOMAIN_FENCE = [
  fence('src/atoms/ is the pure domain: it imports only src/util/.', ['store', 'search', 'bundle', 'textTree', 'mcp', 'views', 'sandbox', 'preview', 'protocol', 'agents', ...TOP]),
];
const STORE_FENCE = [
  fence('src/store/ keeps what it stores: it imports the domain and src/util/, never search, the bundle, the text tree, MCP or the views (they react to its announcements).', [
    'search', 'bundle', 'textTree', 'mcp', 'views', 'sandbox', 'preview', 'protocol', 'agents', ...TOP,
  ]),
];
const SEARCH_FENCE = [
  fence('src/search/ imports the domain, src/util/ and the store\'s read types only.', ['bundle', 'textTree', 'mcp', 'views', 'sandbox', 'preview', 'protocol', 'agents', ...TOP]),
  fence('src/search/ reads the store through its types (SearchStore, AtomReader): import type only.', ['store'], { allowTypeImports: true }),
];
const BUNDLE_FENCE = [
  fence('src/bundle/ imports the domain, the store\'s read types and src/util/.', ['search', 'textTree', 'mcp', 'views', 'sandbox', 'preview', 'protocol', 'agents', ...TOP]),
];
/** The MCP content (tools, resources, prompts, apps, the session) is served by the hosts in src/mcp/hosts/, never reaches for them. */
const MCP_CONTENT_FENCE = [
  {
    regex: '^(\\./|(\\.\\./)+)(mcp/)?hosts(/|\\.js$)',
    message: 'src/mcp/hosts/ (the HTTP and stdio hosts, the bridge, auth) serves the MCP content; tools, resources, prompts, apps and the session do not import it.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.e2e/**', 'bench-results/**', '**/.atomic/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', Buffer: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', __dirname: 'readonly',
        window: 'readonly', document: 'readonly', performance: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly',
        structuredClone: 'readonly', fetch: 'readonly', AbortController: 'readonly', queueMicrotask: 'readonly', require: 'readonly', module: 'writable',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-empty-function': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // The examples' atom sources: one function per file, calling other atoms by name (they meet in the bundle).
    files: ['examples/**/atoms/*.js'],
    languageOptions: { sourceType: 'script' },
    rules: { 'no-undef': 'off', 'no-unused-vars': 'off', '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // Only the composition root, the workspace's lifecycle and the views may talk to VS Code.
    files: ['src/**/*.ts'],
    ignores: ['src/extension.ts', 'src/lifecycle.ts', 'src/views/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE] }] },
  },
  {
    files: ['src/atoms/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: DOMAIN_FENCE }] },
  },
  {
    files: ['src/store/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: STORE_FENCE }] },
  },
  {
    files: ['src/search/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: SEARCH_FENCE }] },
  },
  {
    files: ['src/bundle/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: BUNDLE_FENCE }] },
  },
  {
    files: ['src/mcp/**/*.ts'],
    ignores: ['src/mcp/hosts/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: MCP_CONTENT_FENCE }] },
  },
  {
    // The webview protocol, the preview server and the pages sit below the views: they import downward only.
    files: ['src/protocol/**/*.ts', 'src/preview/**/*.ts', 'media/**/*.ts', 'media/**/*.mts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: [NO_VIEWS] }] },
  },
);
