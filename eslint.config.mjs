import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_VSCODE = { name: 'vscode', message: 'Only src/extension.ts, src/lifecycle.ts and src/views/ import vscode.' };
const NO_VIEWS = {
  group: ['**/views/*', '**/views/**'],
  message: 'src/views/ is the VS Code side and imports these, not the other way round: share webview messages through src/protocol/.',
};

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
    // The webview protocol, the preview server and the pages sit below the views: they import downward only.
    files: ['src/protocol/**/*.ts', 'src/preview/**/*.ts', 'media/**/*.ts', 'media/**/*.mts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE], patterns: [NO_VIEWS] }] },
  },
);
