/**
 * Trusting `.atomic/server.json`. A running server announces itself there (url, token, pid), and a
 * `serve --stdio` for the same workspace bridges to it instead of opening a second store. But the file
 * sits in the workspace, so it may come from somewhere else (a clone, an archive, a copied folder) and
 * name somebody else's address: `inspectServerInfo` trusts it only when it is provably our own server's.
 * A refused file is reported and ignored: the stdio server opens the workspace itself.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readPlainFileSync, UnsafeFileError } from '../../util/safeFile.js';
import { readLock, writtenHere } from '../../store/lock.js';
import type { Logger } from '../../util/log.js';
import { isProcessAlive } from '../../util/process.js';
import { CHALLENGE_HEADER, healthProof, newChallenge, PROOF_HEADER, sameSecret } from './auth.js';

/** Where the running server listens and how to authenticate. */
export interface RemoteServer {
  url: string;
  headers: Record<string, string>;
}

export interface DiscoverOptions {
  /** How long `/health` may take; default one second. */
  timeoutMs?: number;
  /** Told why a server.json that is there was not trusted (not called for a merely stale one). */
  onRefused?: (reason: string) => void;
}

/** What `inspectServerInfo` made of server.json. */
export type ServerInfoVerdict =
  | { kind: 'trusted'; server: RemoteServer }
  /** No file, or a server that is gone (its process ended, its port closed): nothing to report. */
  | { kind: 'stale'; reason: string }
  /** A file that a server of ours did not write, or a server that is not ours: report it. */
  | { kind: 'refused'; reason: string };

/**
 * The server that `.atomic/server.json` in `workspaceDir` names, if it is alive and provably ours;
 * undefined otherwise. A refusal is told to `onRefused` (a stale file, VS Code killed, is not).
 */
export async function discoverServer(workspaceDir: string, options: DiscoverOptions = {}): Promise<RemoteServer | undefined> {
  const verdict = await inspectServerInfo(workspaceDir, options.timeoutMs);
  if (verdict.kind === 'trusted') return verdict.server;
  if (verdict.kind === 'refused') options.onRefused?.(verdict.reason);
  return undefined;
}

/**
 * Decides whether server.json may receive the agent's traffic. The file lives in the workspace, so
 * anything that can put files there (a git clone, an unpacked archive, a copied folder) can write
 * one naming its own address; the agent would then send its code and tool calls there and take the
 * answers (and the instructions in them) as ours. Each check below is one a planted file fails:
 *
 * 1. The file is a regular file owned by this user with no group or other permission bits. Our
 *    servers write it 0600; git checks files out 0644 or 0755 (under the usual umask), and an
 *    archive or a copy by another user does not belong to us.
 * 2. It names a pid, and that process is alive and runs as this user (on Linux, the owner of
 *    /proc/<pid>; elsewhere, whether this process may signal it). A file from elsewhere cannot know
 *    the pid of the server running here; a pid that is gone is just a stale file.
 * 3. The url is `http:` on a loopback IP literal (127.0.0.0/8 or [::1], never a name a resolver could
 *    map elsewhere), with an explicit port and no credentials in it.
 * 4. On Linux, the socket listening on that port belongs to this user and is held by that pid
 *    (/proc/net/tcp and /proc/<pid>/fd), so a pid that merely exists does not vouch for a port some
 *    other program listens on. Where /proc cannot tell, checks 1-3 and 5 stand.
 * 5. `GET /health` (no token: the server is not proven yet) with a fresh random challenge must be
 *    answered with `healthProof(token, challenge, real path of this workspace)`. Only a server that
 *    knows the file's token and serves this very folder can answer, so a server of ours for a copy
 *    of this folder elsewhere, or any other program on a port named by a stale file, is refused.
 *
 * Only then does the bridge send the token and the agent's messages. A refused file is left alone.
 */
export async function inspectServerInfo(workspaceDir: string, timeoutMs = 1000): Promise<ServerInfoVerdict> {
  const file = join(workspaceDir, '.atomic', 'server.json');
  const stale = (reason: string): ServerInfoVerdict => ({ kind: 'stale', reason });
  const refused = (reason: string): ServerInfoVerdict => ({ kind: 'refused', reason });

  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return stale('no server.json');
  }
  const uid = process.getuid?.();
  if (uid !== undefined && process.platform !== 'win32') {
    if (!stat.isFile()) return refused('it is not a regular file');
    if (stat.uid !== uid) return refused(`it belongs to user ${stat.uid}, not to you (${uid})`);
    if ((stat.mode & 0o077) !== 0) {
      return refused(`its mode is ${(stat.mode & 0o777).toString(8)}, not 600: a server writes it readable by its owner only, so this one came from elsewhere (git, an archive, a copy)`);
    }
  }
  let info: { url?: unknown; token?: unknown; pid?: unknown };
  try {
    // Read without following a link, and bounded: the lstat above and this open may see different files.
    info = JSON.parse(readPlainFileSync(file, 64 * 1024).toString('utf8'));
  } catch (err) {
    if (err instanceof UnsafeFileError) return refused(`it is ${err.reason}`);
    return refused('it is not valid JSON');
  }
  if (typeof info.token !== 'string' || info.token.length === 0) return refused('it has no token');
  if (typeof info.pid !== 'number' || !Number.isInteger(info.pid) || info.pid <= 0) return refused('it names no process id (pid)');
  if (typeof info.url !== 'string') return refused('it has no url');
  const url = loopbackServerUrl(info.url);
  if (typeof url === 'string') return refused(url);

  const owner = processOwner(info.pid);
  if (owner === 'gone') return stale(`process ${info.pid} is gone`);
  if (owner === 'foreign') return refused(`process ${info.pid} runs as another user`);

  const listener = checkListener(info.pid, url);
  if (listener.kind === 'none') return stale(`nothing listens on ${url.host}`);
  if (listener.kind === 'refused') return refused(listener.reason);

  const challenge = newChallenge();
  let proof: string | null;
  try {
    const res = await fetch(new URL('/health', url), {
      headers: { [CHALLENGE_HEADER]: challenge },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status !== 200) return refused(`${url.origin}/health answered ${res.status}`);
    proof = res.headers.get(PROOF_HEADER);
  } catch {
    return stale(`${url.origin} does not answer`);
  }
  const expected = healthProof(info.token, challenge, realPath(workspaceDir));
  if (!proof || !sameSecret(proof, expected)) {
    return refused(`the server at ${url.origin} did not prove that it serves this workspace with the token of server.json`);
  }
  return { kind: 'trusted', server: { url: url.href, headers: { Authorization: `Bearer ${info.token}` } } };
}

/** The url if it is `http://<loopback IP literal>:<port>/…` without credentials; else why not. */
export function loopbackServerUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `its url "${text}" is not a URL`;
  }
  if (url.protocol !== 'http:') return `its url ${url.origin} is not http: on this machine`;
  if (url.username || url.password) return 'its url carries credentials';
  if (!isLoopbackIp(url.hostname)) return `its url names ${url.hostname}, not a loopback address (127.x.x.x or [::1])`;
  if (url.port === '') return 'its url has no explicit port';
  return url;
}

function isLoopbackIp(hostname: string): boolean {
  if (hostname === '[::1]') return true;
  const parts = hostname.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255) && parts[0] === '127';
}

function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** Whether `pid` runs as this user: on Linux from /proc, elsewhere by whether it may be signalled. */
function processOwner(pid: number): 'mine' | 'foreign' | 'gone' {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'foreign' : 'gone';
  }
  const uid = process.getuid?.();
  if (uid === undefined) return 'mine';
  try {
    return statSync(`/proc/${pid}`).uid === uid ? 'mine' : 'foreign';
  } catch {
    return 'mine'; // no /proc: being allowed to signal it is as far as Node can tell
  }
}

type ListenerCheck = { kind: 'ok' } | { kind: 'unknown' } | { kind: 'none' } | { kind: 'refused'; reason: string };

/**
 * On Linux: the sockets listening on the url's port (on its address or on all addresses) must belong
 * to this user, and `pid` must hold one of them. 'unknown' when /proc cannot tell.
 */
function checkListener(pid: number, url: URL): ListenerCheck {
  const uid = process.getuid?.();
  const tables: [string, string, string][] = [];
  for (const [name, family] of [
    ['/proc/net/tcp', 'v4'],
    ['/proc/net/tcp6', 'v6'],
  ] as const) {
    try {
      tables.push([readFileSync(name, 'utf8'), family, name]);
    } catch {}
  }
  if (uid === undefined || tables.length === 0) return { kind: 'unknown' };
  const port = Number(url.port).toString(16).toUpperCase().padStart(4, '0');
  const accepting = acceptingAddresses(url.hostname);
  const sockets: { uid: number; inode: string }[] = [];
  for (const [text, family] of tables) {
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A: LISTEN
      const [address, p] = f[1]!.split(':');
      if (p !== port || !accepting[family as 'v4' | 'v6'].includes(address!)) continue;
      sockets.push({ uid: Number(f[7]), inode: f[9]! });
    }
  }
  if (sockets.length === 0) return { kind: 'none' };
  if (sockets.some((s) => s.uid !== uid)) return { kind: 'refused', reason: `port ${url.port} is held by another user` };
  let held: Set<string>;
  try {
    held = new Set(
      readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      }),
    );
  } catch {
    return { kind: 'unknown' }; // /proc/<pid>/fd hidden (hidepid): the socket is this user's at least
  }
  if (!sockets.some((s) => held.has(`socket:[${s.inode}]`))) {
    return { kind: 'refused', reason: `port ${url.port} is not held by process ${pid}, the one server.json names` };
  }
  return { kind: 'ok' };
}

/** The local addresses, as /proc/net/tcp{,6} spell them, of listeners that take a connection to `hostname`. */
function acceptingAddresses(hostname: string): { v4: string[]; v6: string[] } {
  const any6 = '0'.repeat(32);
  if (hostname === '[::1]') return { v4: [], v6: [any6, '00000000000000000000000001000000'] };
  const bytes = hostname.split('.').map((p) => Number(p).toString(16).toUpperCase().padStart(2, '0'));
  const v4 = [...bytes].reverse().join(''); // one 32-bit word in host (little-endian) order
  return { v4: [v4, '00000000'], v6: [any6, `0000000000000000FFFF0000${v4}`] };
}

/** True when another live process holds the workspace lock (it may still be starting its server). */
export function lockedByLiveProcess(dir: string): boolean {
  const owner = readLock(join(dir, '.atomic', 'lock'));
  return owner !== undefined && owner.pid !== process.pid && writtenHere(owner) && isProcessAlive(owner.pid);
}

/**
 * Finds the server for `dir` for a `serve --stdio` about to start: a trusted one now, or, when a
 * live process holds the lock (VS Code still starting its server), one announced within five seconds.
 * Each refusal is logged once (as a warning, on stderr in the command line).
 */
export class ServerFinder {
  private readonly reported = new Set<string>();

  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  find(): Promise<RemoteServer | undefined> {
    return discoverServer(this.dir, {
      onRefused: (reason) => {
        if (this.reported.has(reason)) return;
        this.reported.add(reason);
        this.log.warn(
          `ignoring ${join(this.dir, '.atomic', 'server.json')}: ${reason}. ` +
            'It does not name a running Atomic Coding server of yours for this folder; delete it if it came from git or a copy.',
        );
      },
    });
  }

  /** Waits up to five seconds for the lock holder to announce its server in server.json. */
  async waitForServer(): Promise<RemoteServer | undefined> {
    for (let i = 0; i < 50; i++) {
      const remote = await this.find();
      if (remote) return remote;
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  }

  async findAtStart(): Promise<RemoteServer | undefined> {
    return (await this.find()) ?? (lockedByLiveProcess(this.dir) ? await this.waitForServer() : undefined);
  }
}
