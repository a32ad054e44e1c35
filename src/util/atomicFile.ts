/**
 * Crash-safe file replacement: write a temp file beside the target, fsync it, rename it over
 * the target, fsync the folder. A process killed at any moment leaves the old or the new file.
 */
import {
  close,
  closeSync,
  constants,
  fstatSync,
  fsync,
  fsyncSync,
  open,
  openSync,
  promises as fsp,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { isProcessAlive } from './process.js';

/**
 * A new temp name beside `target`. Its 8 hex digits come from randomUUID, which Node draws from a
 * cached pool: randomBytes asked OpenSSL at every call (~40 µs between writes here, ~9 µs this way),
 * and a write to an agent's workspace names two or three temp files.
 */
function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
}

const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * How a temp file is opened: created afresh (O_EXCL: never an existing file, nor a link planted at
 * its name, which O_EXCL refuses even when it points nowhere), never through a link (O_NOFOLLOW,
 * 0 where the platform has none). The rename then replaces whatever is at the target's name (a link
 * there is replaced, not followed).
 */
const TEMP_FLAGS = constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Removes the temp files a killed process left in `folder` (only ours, by their name, and only
 * of a process that no longer runs): the file they were replacing is whole, old or new, and the
 * temp file is litter, in the atoms folder even a file git would show. `listing`: the folder's
 * names, when the caller has them. Returns how many.
 */
export function removeStaleTempFiles(folder: string, listing?: readonly string[]): number {
  let removed = 0;
  let names: readonly string[];
  try {
    // A caller that lists the folder anyway hands its listing over (50,000 atom files: 50 ms a listing).
    names = listing ?? readdirSync(folder);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    try {
      unlinkSync(join(folder, name));
      removed++;
    } catch {
      // gone already, or not ours to remove: leave it
    }
  }
  return removed;
}

/**
 * `removeStaleTempFiles` for the temp files of one file only: for a folder that holds files of
 * others (the configured bundle path may be anywhere in the workspace).
 */
export function removeStaleTempFilesOf(target: string): number {
  const prefix = `.${basename(target)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(target)).filter((n) => n.startsWith(prefix));
  } catch {
    return 0;
  }
  return removeStaleTempFiles(dirname(target), names);
}

export interface AtomicWriteOptions {
  /**
   * true: the file's reads, writes and stats run on the calling thread (InlineFile). For files small
   * enough that such a call takes microseconds: an atom's file, a bundle of a few MiB.
   */
  inline?: boolean;
  /**
   * false: skip both fsyncs. The file is still replaced atomically (readers and a killed process
   * see the old or the new file), but a power loss may leave it empty or short. Only for files
   * that can be derived again, and whose reader checks that they are whole.
   */
  durable?: boolean;
  /**
   * Frees the replaced file after the write resolves instead of in the rename, and does not
   * rename over it. A rename over a file frees that file's pages before it returns (~25 ms of a
   * 50 MB latest.js's ~60 ms replacement at 50,000 atoms), and on ext4 it starts writing the new
   * file out at once (see `swapInPlace`). With this, the old file is first moved to a temp name
   * (readers that have it open read it unchanged, as ever), the new one takes the name, and the old
   * file is unlinked in the background; `freed` gets that unlink, which never rejects. A process
   * killed before it leaves a temp file that `removeStaleTempFiles` takes away; killed between the
   * two renames, no file at all: only for files derived again when missing (the bundle).
   */
  freeOldLater?: (freed: Promise<void>) => void;
}

/**
 * What replaceFile's writer and its caller do with an open file: node's FileHandle, or an
 * InlineFile, which makes the same calls on the calling thread.
 */
export interface OpenFile {
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  writeFile(data: string | Uint8Array): Promise<void>;
  stat(): Promise<Stats>;
  /** Flushes the file to the disk. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An open file whose reads, writes and stats are system calls on the calling thread. A FileHandle's
 * call goes to libuv's thread pool and back, ~130 µs on this project's machines, where such a call
 * takes a few (a page-cache write of an atom's file, the stat of an open file): most of a small
 * write's time. Only for small files, then: a call blocks the event loop while it runs. What can
 * wait on the disk or on the file system's journal still goes through the pool: opening (creating
 * a file waits for a journal commit in progress, up to milliseconds: measured 1.3 ms an atom file
 * beside the store's fsyncs), flushing (`sync`), closing (closed inline, creations were 7-14%
 * slower in alternated runs, for a reason not found: DEVELOPERS.md, "Memory along the write path").
 */
export class InlineFile implements OpenFile {
  private closing: Promise<void> | undefined;

  private constructor(private readonly descriptor: number) {}

  /** Opens `path` through the thread pool (see the class's comment). */
  static async open(path: string, flags: number, mode: number): Promise<InlineFile> {
    return new InlineFile(await new Promise<number>((resolve, reject) => open(path, flags, mode, (err, fd) => (err ? reject(err) : resolve(fd)))));
  }

  /** The descriptor while the file is open: once closed, its number may be another file's. */
  private get fd(): number {
    if (this.closing) throw Object.assign(new Error('EBADF: the file is closed'), { code: 'EBADF' });
    return this.descriptor;
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    return { bytesWritten: writeSync(this.fd, buffer, offset, length, position) };
  }

  async read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    return { bytesRead: readSync(this.fd, buffer, offset, length, position) };
  }

  async writeFile(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let done = 0; done < bytes.length; ) done += writeSync(this.fd, bytes, done, bytes.length - done, done);
  }

  async stat(): Promise<Stats> {
    return fstatSync(this.fd);
  }

  sync(): Promise<void> {
    const fd = this.fd;
    return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  }

  /** Closes once; a second close gets the first's promise. */
  close(): Promise<void> {
    this.closing ??= new Promise((resolve, reject) => close(this.descriptor, (err) => (err ? reject(err) : resolve())));
    return this.closing;
  }
}

/** `data` as the file `target`, replaced atomically (see the module's comment and `AtomicWriteOptions`). */
export async function writeFileAtomic(target: string, data: string | Uint8Array, mode = 0o644, options: AtomicWriteOptions = {}): Promise<void> {
  await (await replaceFile(target, (handle) => handle.writeFile(data), mode, options)).close();
}

/**
 * `writeFileAtomic` with the content written by `write` into the open temp file. Resolves to the
 * new file, still open for reading (its caller closes it), so that what was written can be read
 * back even after someone else replaced or removed the name.
 */
export async function replaceFile(
  target: string,
  write: (handle: OpenFile) => Promise<void>,
  mode = 0o644,
  options: AtomicWriteOptions = {},
): Promise<OpenFile> {
  const durable = options.durable ?? true;
  const temp = tempPathFor(target);
  const flags = TEMP_FLAGS | constants.O_RDWR;
  const handle: OpenFile = options.inline ? await InlineFile.open(temp, flags, mode) : await fsp.open(temp, flags, mode);
  const fail = async (err: unknown): Promise<never> => {
    await handle.close().catch(() => {});
    await fsp.unlink(temp).catch(() => {});
    throw err;
  };
  try {
    await write(handle);
    if (durable) await handle.sync();
  } catch (err) {
    return fail(err);
  }
  let old: string | undefined;
  try {
    if (options.freeOldLater) old = swapInPlace(temp, target);
    else await fsp.rename(temp, target);
  } catch (err) {
    return fail(err);
  }
  try {
    if (durable) await syncFolder(dirname(target));
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  } finally {
    if (old) options.freeOldLater!(fsp.unlink(old).catch(() => {}));
  }
  return handle;
}

/**
 * Puts `temp` in the place of `target` with the file that was there moved aside first, to a temp name
 * (returned; undefined when there was none), both synchronously, back to back: no reader on this
 * thread can see the name missing, another process only for the microseconds between the two calls.
 * Why not one rename over it: that frees the old file's pages in the call, and on ext4 (auto_da_alloc)
 * it starts writing the new file's data out at once, so the next fsync on the disk waits for it. At
 * 50,000 atoms the store's journal fsync of the next write waited 32-40 ms for the 53 MB bundle.
 * When the second rename fails, the old file is put back.
 */
function swapInPlace(temp: string, target: string): string | undefined {
  let old: string | undefined = tempPathFor(target);
  try {
    renameSync(target, old);
  } catch {
    old = undefined; // nothing there yet
  }
  try {
    renameSync(temp, target);
  } catch (err) {
    if (old) renameSync(old, target);
    throw err;
  }
  return old;
}

/** The synchronous twin, for exit paths where the event loop will not run again. */
export function writeFileAtomicSync(target: string, data: string | Uint8Array, mode = 0o644): void {
  const temp = tempPathFor(target);
  const fd = openSync(temp, TEMP_FLAGS | constants.O_WRONLY, mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, target);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {}
    throw err;
  }
}

export async function syncFolder(folder: string): Promise<void> {
  // Makes the rename itself durable. Some platforms (Windows) cannot open folders: nothing to do there.
  try {
    const handle = await fsp.open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}
