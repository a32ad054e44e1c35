/**
 * Files a cloned repository may have planted: opened without following a link, and used only when
 * the open descriptor is a regular file of this user with one name and a bounded size.
 *
 * Why: a repository can commit a link (`.atomic/atoms.journal` -> `~/.bashrc`, `atoms/x.js` ->
 * `/dev/zero`), a FIFO, or a large sparse file. Checking the path and then opening it leaves a gap;
 * the checks here are made on the descriptor that is then read or written (`fstat`), and the open
 * itself refuses a link as the last part of the path (`O_NOFOLLOW`) and never blocks (`O_NONBLOCK`:
 * a FIFO opens at once and is then refused as not a regular file).
 */
import { constants, promises as fsp, closeSync, fstatSync, ftruncateSync, openSync, readSync, type BigIntStats, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_APPEND } = constants;
/** 0 where the platform has no such flag (Windows): there a link is refused by the lstat a caller makes first. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A file that is not a plain file of this user: what it is, in words for a log line or a refusal. */
export class UnsafeFileError extends Error {
  readonly code = 'EUNSAFE';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file} is ${reason}; it is not opened`);
  }
}

/** This process's user id, or undefined where there is none (Windows). */
const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/**
 * Why a file with these stats may not be used, or undefined when it may: it must be a regular file
 * (not a link, directory, FIFO, socket or device), have one name (a hard link shares a file outside
 * the folder), belong to this user, and be at most `maxBytes` long when a bound is given. Takes an
 * `lstat` too (then a link is named as one, never followed), and bigint stats.
 */
export function unsafeReason(stat: Stats | BigIntStats, maxBytes?: number): string | undefined {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (!stat.isFile()) return 'not a regular file';
  if (stat.nlink > 1) return `a hard link (one of ${stat.nlink} names of one file)`;
  if (uid !== undefined && Number(stat.uid) !== uid) return `owned by another user (uid ${stat.uid})`;
  if (maxBytes !== undefined && stat.size > maxBytes) return `${stat.size} bytes, more than the ${maxBytes} allowed`;
  return undefined;
}

function flagsFor(mode: 'read' | 'append' | 'write' | 'update'): number {
  const base = O_NOFOLLOW | O_NONBLOCK;
  switch (mode) {
    case 'read':
      return base | O_RDONLY;
    case 'append':
      return base | O_WRONLY | O_APPEND | O_CREAT;
    case 'write': // truncated after the check, on the descriptor (openPlainFile)
      return base | O_WRONLY | O_CREAT;
    case 'update':
      return base | O_RDWR;
  }
}

function refused(file: string, err: unknown): never {
  // ELOOP: the last part of the path is a link (O_NOFOLLOW). Named as what it is.
  if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeFileError(file, 'a symbolic link');
  throw err;
}

/**
 * Opens `file` without following a link and checks what it opened: `read` and `update` (read and
 * write) an existing file, `append` and `write` create it when missing. `write` empties it only after
 * the check (O_TRUNC is never given to open: a device is never truncated, the descriptor is cut).
 * Throws UnsafeFileError for anything but a plain file of this user.
 */
export async function openPlainFile(file: string, mode: 'read' | 'append' | 'write' | 'update', fileMode = 0o644, maxBytes?: number): Promise<fsp.FileHandle> {
  const truncate = mode === 'write';
  const handle = await fsp.open(file, flagsFor(mode), fileMode).catch((err) => refused(file, err));
  try {
    const reason = unsafeReason(await handle.stat(), maxBytes);
    if (reason) throw new UnsafeFileError(file, reason);
    if (truncate) await handle.truncate(0);
    return handle;
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/** openPlainFile, synchronously: returns a descriptor. */
export function openPlainFileSync(file: string, mode: 'read' | 'append' | 'write' | 'update', fileMode = 0o644, maxBytes?: number): number {
  let fd: number;
  try {
    fd = openSync(file, flagsFor(mode), fileMode);
  } catch (err) {
    refused(file, err);
  }
  try {
    const reason = unsafeReason(fstatSync(fd), maxBytes);
    if (reason) throw new UnsafeFileError(file, reason);
    if (mode === 'write') ftruncateSync(fd, 0); // on the checked descriptor, never on the path
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Reads a plain file of at most `maxBytes` (checked on the descriptor, and the read stops there even
 * if the file grows meanwhile). Throws UnsafeFileError for anything else; ENOENT as fs does.
 */
export async function readPlainFile(file: string, maxBytes: number): Promise<Buffer> {
  const handle = await openPlainFile(file, 'read', 0o644, maxBytes);
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    const read = await readFully(handle, buffer, 0);
    return read === buffer.length ? buffer : buffer.subarray(0, read);
  } finally {
    await handle.close();
  }
}

/** Fills `buffer` from the file's `position` on, or as much of it as the file holds; the bytes read. */
export async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let read = 0;
  while (read < buffer.length) {
    const { bytesRead } = await handle.read(buffer, read, buffer.length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read;
}

/** readPlainFile, synchronously. */
export function readPlainFileSync(file: string, maxBytes: number): Buffer {
  return readPlainFileHeadSync(file, maxBytes, maxBytes);
}

/** The first `length` bytes of a plain file (all of it when shorter), opened as readPlainFileSync opens it: refused past `maxBytes`. */
export function readPlainFileHeadSync(file: string, length: number, maxBytes: number): Buffer {
  const fd = openPlainFileSync(file, 'read', 0o644, maxBytes);
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, maxBytes, length));
    let read = 0;
    while (read < buffer.length) {
      const bytesRead = readSync(fd, buffer, read, buffer.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return read === buffer.length ? buffer : buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
