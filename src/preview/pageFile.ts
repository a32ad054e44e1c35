/**
 * Which HTML file the preview shows: the setting atomicCoding.preview.page, else `preview.html` at the
 * folder's root, else the built-in page. Both come from the repository, so the file must lie inside the
 * workspace folder once links are resolved: otherwise a cloned repository could show any file of the
 * user's (`/home/me/.ssh/id_rsa`, or `preview.html` linked there) in the preview, which the loopback
 * server hands to local processes. A page that may not be shown is refused with a message saying why.
 */
import { lstat, readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { resolveInsideFolder } from '../util/insideFolder.js';

export const PAGE_SETTING = 'atomicCoding.preview.page';

/** The page to show: the file's HTML, the built-in page, or a refusal with its reason. */
export type PageSource = { kind: 'page'; html: string } | { kind: 'builtin'; warning?: string } | { kind: 'refused'; message: string };

/** Where the page is as written (links not resolved): for watching it. */
export function pagePath(folder: string, setting: string): string {
  if (!setting) return join(folder, 'preview.html');
  return isAbsolute(setting) ? setting : join(folder, setting);
}

/** Reads the page named by `setting` (empty: `preview.html` if there is one) from inside `folder` only. */
export async function readPageFile(folder: string, setting: string): Promise<PageSource> {
  if (!setting && !(await present(join(folder, 'preview.html')))) return { kind: 'builtin' };
  const what = setting ? `The preview page (${PAGE_SETTING})` : 'The preview page preview.html';
  let real: string;
  try {
    real = resolveInsideFolder(folder, setting || 'preview.html', what);
  } catch (err) {
    const message = (err as Error).message;
    return { kind: 'refused', message: setting ? `${message} Change the setting ${PAGE_SETTING}, or clear it to use preview.html or the built-in page.` : message };
  }
  try {
    return { kind: 'page', html: await readFile(real, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { kind: 'builtin', warning: `could not read the page ${real} (${code}); using the built-in page` };
  }
}

/** Whether anything (a file, a folder, a link, even a broken one) is at `path`. */
async function present(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
