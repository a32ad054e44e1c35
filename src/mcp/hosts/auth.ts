/**
 * The gate in front of the MCP endpoint: loopback Host and Origin only (DNS rebinding), and a
 * bearer token compared in constant time; and the secrets beside it (session ids, the health proof
 * the stdio bridge asks for). Pure functions over header values.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The hostname of a Host header value, lowercased, without the port. */
function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.split(':')[0]!;
}

export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOSTS.has(hostnameOf(host));
}

/** An absent Origin (non-browser clients) is fine; a present one must be a loopback http(s) origin. */
export function isAllowedOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

export function hasValidToken(authorization: string | undefined, token: string): boolean {
  if (!authorization) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return false;
  return sameSecret(match[1]!, token);
}

/**
 * A session id: 128 random bits. All clients share one token, and HTTP gives a server no other
 * identity for the client that opened a session (connections are not sticky, and every header is
 * the client's own choice), so the id itself is the session's secret: unguessable, sent only to its
 * creator in the initialize answer, and never logged, listed or returned by a tool.
 */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}

/** The header in which the bridge sends a fresh challenge to `GET /health`. */
export const CHALLENGE_HEADER = 'x-atomic-challenge';
/** The header in which the server answers it with `healthProof`. */
export const PROOF_HEADER = 'x-atomic-proof';

export function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/** A challenge as `newChallenge` makes it (the server answers nothing else). */
export function isChallenge(value: string | undefined): value is string {
  return value !== undefined && /^[A-Za-z0-9_-]{22,128}$/.test(value);
}

/**
 * The answer to a health challenge: an HMAC keyed with the token over the challenge and the real path
 * of the workspace served. It proves, without the token ever travelling, that the server knows the
 * token of server.json and serves that very folder (not a copy of it elsewhere). Being keyed with a
 * secret, it tells nobody without the token which folder is served.
 */
export function healthProof(token: string, challenge: string, workspaceRealPath: string): string {
  return createHmac('sha256', token).update(`atomic-coding health proof\n${challenge}\n${workspaceRealPath}`).digest('base64url');
}

/** Compares two secrets in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
