/**
 * Which folder's atoms a window works on. One atom store per window, chosen predictably:
 * 1. the folder named by the `atomicCoding.workspaceFolder` setting (by folder name or path), if set;
 * 2. else the first folder, in the workspace's order, that already has an `.atomic/` store;
 * 3. else the first folder.
 * Pure (no `vscode`), unit-tested.
 */
export interface FolderCandidate {
  name: string;
  fsPath: string;
}

export interface FolderChoice<F extends FolderCandidate> {
  folder: F;
  reason: 'setting' | 'store' | 'first';
}

export function chooseFolder<F extends FolderCandidate>(
  folders: readonly F[],
  configured: string,
  hasStore: (fsPath: string) => boolean,
): FolderChoice<F> | undefined {
  if (folders.length === 0) return undefined;
  const wanted = configured.trim();
  if (wanted) {
    const match = folders.find((f) => f.name === wanted || f.fsPath === wanted);
    if (match) return { folder: match, reason: 'setting' };
  }
  const withStore = folders.find((f) => hasStore(f.fsPath));
  if (withStore) return { folder: withStore, reason: 'store' };
  return { folder: folders[0]!, reason: 'first' };
}
