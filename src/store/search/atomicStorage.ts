/**
 * vectra storage whose writes are crash-safe. vectra rewrites its whole index file on every
 * save with a plain writeFile: a process killed mid-save leaves the index file empty. Here every
 * write goes to a temp file that is fsynced and renamed over the target, so the file on disk
 * is always either the previous or the next complete index.
 */
import { promises as fsp } from 'node:fs';
import { writeFileAtomic } from '../../util/atomicFile.js';
import { LocalFileStorage } from './vectra.js';

export class AtomicFileStorage extends LocalFileStorage {
  override async upsertFile(filePath: string, content: Buffer | string): Promise<void> {
    await writeFileAtomic(filePath, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  }

  override async createFile(filePath: string, content: Buffer | string): Promise<void> {
    // vectra's createFile fails when the file exists; keep that contract.
    const exists = await fsp.access(filePath).then(
      () => true,
      () => false,
    );
    if (exists) throw new Error(`file already exists: ${filePath}`);
    await this.upsertFile(filePath, content);
  }
}
