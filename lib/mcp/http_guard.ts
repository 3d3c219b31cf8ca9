/**
 * What the HTTP listener checks before a request reaches MCP: the listen address (loopback unless
 * told otherwise), the bearer token (read from its file or generated into it, mode 0600, compared in
 * constant time) and the browser's `Origin` and `Host` against DNS rebinding, as the MCP
 * specification asks of Streamable HTTP servers. Main thread.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { errValue, okValue, type Result } from '../core/result.ts';

export const DEFAULT_PORT = 8431;
/** A token shorter than this is refused: 32 random bytes in base64url are 43 characters. */
const MIN_TOKEN = 32;
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export interface ListenAddress {
  host: string;
  port: number;
  loopback: boolean;
}

/** `HOST:PORT`, `[V6]:PORT`, `HOST` or `PORT`; the host defaults to 127.0.0.1. */
export function parseListen(text: string | undefined): Result<ListenAddress, string> {
  const spec = text ?? `127.0.0.1:${DEFAULT_PORT}`;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*))(?::(\d+))?$/.exec(spec);
  const bare = /^\d+$/.test(spec);
  const host = bare ? '127.0.0.1' : (m?.[1] ?? m?.[2] ?? '');
  const port = Number(bare ? spec : (m?.[3] ?? DEFAULT_PORT));
  if ((!bare && !m) || host === '' || !Number.isInteger(port) || port > 65535)
    return errValue(`--listen ${JSON.stringify(spec)} is not HOST:PORT (e.g. 127.0.0.1:${DEFAULT_PORT}).`);
  return okValue({ host, port, loopback: isLoopback(host) });
}

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Where the token lives when no --token-file is given. */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share');
  return path.join(data, 'mewcode', 'mcp-http.token');
}

/**
 * The token in `file` (trimmed), or a new one generated into it (mode 0600, never over an existing
 * file). A file others may read, or one too short to be a secret, is refused.
 */
export function loadToken(file: string): Result<{ token: string; created: boolean }, string> {
  const token = randomBytes(32).toString('base64url');
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Never through a link planted at the path: O_EXCL does not follow one.
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeSync(fd, `${token}\n`);
    } finally {
      closeSync(fd);
    }
    return okValue({ token, created: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      return errValue(`Cannot create the token file ${file}: ${(e as Error).message}`);
  }
  return readToken(file);
}

const uid = () => process.geteuid?.() ?? process.getuid?.();

/**
 * An existing token file, taken only when it is the serving user's own regular file that nobody else
 * may read: not a symbolic link (O_NOFOLLOW), not a FIFO that would hang the start (O_NONBLOCK), not
 * a file another user planted with a token they know. The token is one word of 32 characters or more.
 */
function readToken(file: string): Result<{ token: string; created: boolean }, string> {
  const fix = '(remove it to get a new one)';
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return errValue(`The token file ${file} is a symbolic link: name the file itself ${fix}.`);
    return errValue(`Cannot read the token file ${file}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return errValue(`The token file ${file} is not a regular file ${fix}.`);
    const me = uid();
    if (me !== undefined && st.uid !== me)
      return errValue(
        `The token file ${file} belongs to uid ${st.uid}, not to this user: anyone who made it knows the token ${fix}.`,
      );
    if ((st.mode & 0o077) !== 0) return errValue(`The token file ${file} may be read by others: chmod 600 it ${fix}.`);
    const read = readFileSync(fd, 'utf8').trim();
    if (read.length < MIN_TOKEN)
      return errValue(`The token in ${file} is shorter than ${MIN_TOKEN} characters: put a longer secret there.`);
    if (/\s/.test(read))
      return errValue(`The token in ${file} has a space or a line break in it: a token is one word.`);
    return okValue({ token: read, created: false });
  } catch (e) {
    return errValue(`Cannot read the token file ${file}: ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether an Authorization header carries the token; digests of equal length compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/**
 * Why a browser's request must be refused (undefined: it may pass). No Origin is a non-browser
 * client. An Origin must be a loopback page, the listen host's, or one allowed by --allowed-origin; on a
 * loopback listener the Host must name loopback too, which a rebound DNS name does not.
 */
export function originRefusal(
  origin: string | undefined,
  host: string | undefined,
  listen: ListenAddress,
  allowed: readonly string[],
): string | undefined {
  if (listen.loopback) {
    const hostName = hostnameOf(`http://${host ?? ''}`);
    if (hostName === undefined || !isLoopback(hostName)) return `Host ${JSON.stringify(host ?? '')} is not loopback`;
  }
  if (origin === undefined) return undefined;
  if (allowed.includes(origin)) return undefined;
  const name = hostnameOf(origin);
  if (name !== undefined && (isLoopback(name) || name === listen.host)) return undefined;
  return `Origin ${JSON.stringify(origin)} is not allowed (--allowed-origin adds one)`;
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
