/** Loads sql.js once per process, finding its wasm beside the bundle or in node_modules. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

export function wasmPath(): string {
  const bundled = join(__dirname, 'sql-wasm.wasm');
  if (existsSync(bundled)) return bundled;
  // From source (tests run through tsx): the copy in node_modules.
  return createRequire(__filename).resolve('sql.js/dist/sql-wasm.wasm');
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= initSqlJs({ locateFile: () => wasmPath() });
  return loading;
}
