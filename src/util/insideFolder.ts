/**
 * Keeps paths that come from a workspace (its settings, written by whoever wrote the repository)
 * inside that workspace's folder. A path is judged as the operating system will follow it:
 * symbolic links anywhere along it (a linked parent folder, or a link at the file itself) are
 * resolved first, so `.atomic/latest.js` cannot reach `~/.bashrc` through a link either.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * The real path (symbolic links resolved) that `path` names, relative to `folder` or absolute,
 * when it lies inside `folder` (the folder itself counts). Use the returned path for reading and
 * writing, not `path`: it is the one that was checked. Parts that do not exist yet are fine (they
 * cannot be links); a link that points nowhere is refused, since writing through it would create
 * its target wherever it points.
 *
 * Throws an Error whose message names `what` (such as "The bundle path (atomicCoding.bundle.outputPath)")
 * and says what to do. Checks again on every call: call it right before each write.
 */
export function resolveInsideFolder(folder: string, path: string, what: string): string {
  if (typeof path !== 'string' || path.includes('\0')) {
    throw new Error(`${what} is not a valid path: use a path inside the workspace folder ${folder}.`);
  }
  let root: string;
  try {
    root = realpathSync(resolve(folder));
  } catch (err) {
    throw new Error(`${what} cannot be checked: the workspace folder ${folder} is not readable (${(err as NodeJS.ErrnoException).code ?? err}).`, { cause: err });
  }
  const wanted = resolve(folder, path);
  const real = realPathOf(wanted, path, what);
  if (!isWithin(root, real)) {
    const through = real === wanted ? '' : ` (it leads to ${real} through a symbolic link)`;
    throw new Error(
      `${what} "${path}" is outside the workspace folder ${root}${through}: ` +
        `nothing was written or read there. Use a path inside the workspace folder, relative to it (no absolute paths outside it, no "..", no links out).`,
    );
  }
  return real;
}

/** Whether `child` is `parent` or below it. Both absolute and already real. */
function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/**
 * `absolute` with links resolved: the real path of its deepest existing ancestor (or of itself),
 * then the parts below that do not exist yet. `resolve()` already removed every `..`, and a part
 * that does not exist cannot be a link, so nothing below the existing ancestor can lead elsewhere.
 */
function realPathOf(absolute: string, original: string, what: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    let exists = true;
    try {
      lstatSync(current);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new Error(`${what} "${original}" cannot be checked (${code ?? err}): use a readable path inside the workspace folder.`, { cause: err });
      }
      exists = false;
    }
    if (exists) {
      let real: string;
      try {
        real = realpathSync(current);
      } catch (err) {
        // Exists but does not resolve: a link pointing nowhere, or a loop of links.
        throw new Error(
          `${what} "${original}" goes through ${current}, a symbolic link that points nowhere (${(err as NodeJS.ErrnoException).code ?? err}): ` +
            `remove the link or use another path inside the workspace folder.`,
          { cause: err },
        );
      }
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    }
    const parent = dirname(current);
    if (parent === current) return absolute; // nothing exists, not even the root: nothing to resolve
    missing.push(basename(current));
    current = parent;
  }
}
