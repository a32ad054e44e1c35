/**
 * The first step of an open: `.atomic/` made ready before anything in it is read. Its files are
 * looked at without following links (stateFolder.ts), its .gitignore written, the workspace lock
 * taken (lock.ts) and a killed writer's half-written temp files removed. A folder that cannot be
 * written leaves the store read-only, never closed: a read-only checkout is still worth browsing.
 */
import { join } from 'node:path';
import { removeStaleTempFiles, writeFileAtomicSync } from '../util/atomicFile.js';
import type { Logger } from '../util/log.js';
import { readPlainFileSync } from '../util/safeFile.js';
import { isReadOnlyError } from './diskErrors.js';
import type { WorkspaceLock } from './lock.js';
import { secureStateFolder } from './stateFolder.js';

const GITIGNORE = `# Written by Atomic Coding. Nothing here is committed: the atoms are in git as text
# (atoms/<name>.js); the database, the journal, the vectors, the bundle and server.json are
# this machine's index, history and cache, rebuilt from the text when missing.
*
`;

/** The first line of every .gitignore this program wrote: an older one (that committed the database) is replaced. */
const GITIGNORE_MARK = '# Written by Atomic Coding.';

export interface PreparedFolder {
  /** What `.atomic/` held that was not trusted, and what was done with it (stateFolder.ts). */
  distrusted: string[];
  /** Why writes are refused, when the folder is not writable; undefined when it is. */
  readOnly: string | undefined;
}

/** Makes `atomicDir` ready for an open (see the module's comment); `lock` is taken unless `noLock`. */
export function prepareFolder(atomicDir: string, lock: WorkspaceLock, log: Logger, { noLock = false }: { noLock?: boolean } = {}): PreparedFolder {
  let distrusted: string[] = [];
  try {
    // A cloned repository's .atomic/ is input: links, devices and others' files in it are never followed.
    distrusted = secureStateFolder(atomicDir, log);
    const ignore = join(atomicDir, '.gitignore');
    const written = readTextIfPresent(ignore);
    if (written === undefined || (written.startsWith(GITIGNORE_MARK) && written !== GITIGNORE)) writeFileAtomicSync(ignore, GITIGNORE);
    if (!noLock) {
      lock.acquire();
      // The one writer now: what a killed writer left half-written here is litter.
      removeStaleTempFiles(atomicDir);
    }
  } catch (err) {
    if (!isReadOnlyError(err)) throw err;
    // Keep serving reads: a read-only checkout is still worth browsing.
    const readOnly = `${atomicDir} is not writable (${(err as NodeJS.ErrnoException).code})`;
    log.warn(`store: opened read-only: ${readOnly}`);
    return { distrusted, readOnly };
  }
  return { distrusted, readOnly: undefined };
}

/** A small text file of ours, read without following a link; undefined when there is none. */
function readTextIfPresent(file: string): string | undefined {
  try {
    return readPlainFileSync(file, 64 * 1024).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
