/** The errors a store's file writes end in, each saying what to do; nothing was changed. */
import { AtomError } from '../atoms/errors.js';

/** True for the errors of a folder that cannot be written (the store then opens read-only). */
export function isReadOnlyError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}

export function readOnlyError(reason: string): AtomError {
  return new AtomError('storage', `the workspace is read-only (${reason}): make it writable and open it again. Reading still works; nothing was changed.`);
}

export function storageError(file: string, err: unknown): AtomError {
  const code = (err as NodeJS.ErrnoException).code;
  const hint =
    code === 'ENOSPC'
      ? 'the disk is full: free some space and try again'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'the workspace is read-only: make .atomic/ writable and try again'
        : 'check that the workspace folder is writable and try again';
  return new AtomError('storage', `could not write ${file} (${code ?? (err as Error).message}): ${hint}. Nothing was changed.`);
}
