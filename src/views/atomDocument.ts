/**
 * The atom editor's text format lives in src/atoms/atomDocument.ts (pure: the text tree in
 * src/textTree/ writes and reads the same format without `vscode`). Re-exported for the views.
 */
export * from '../atoms/atomDocument.js';
