/**
 * Who may drive a model served over HTTP (issue 42): only its user. A served model can be read
 * whole and rewritten through its data plane, so a web page the user happens to have open on
 * another origin must not reach it, directly (CORS) or by renaming itself (DNS rebinding).
 *
 * - **Origins.** A request that carries an `Origin` (every cross-origin fetch, every POST a
 *   browser sends) is answered only for an allowed origin: the loopback origins by default
 *   (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`, and https), or the ones
 *   `--cors ORIGIN` names; the server's own origin always. Others get 403 and no CORS header,
 *   so the browser shows the page nothing. Allowed origins get their own origin back (never
 *   `*`) with every header the model sends exposed (`X-Total-Count`, `Link`, `Capstate-Answer`
 *   and the other provenance headers: issue 46, a frontend reads them), and preflights echo
 *   the headers they ask for.
 * - **Host.** The `Host` header must name this server: its bound address or, bound to a
 *   loopback or wildcard address, a loopback name (and on a wildcard, any IP literal and the
 *   machine's name), or a name `--allowed-host` gives — with the bound port. A rebinding page's
 *   requests carry its own host name and are refused (403).
 * - **Bodies.** JSON request bodies are read only under a JSON content type (a cross-origin
 *   page may send `text/plain` without a preflight): 415 otherwise (server.ts).
 */
import { hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { CapstateError } from '../errors.js';

export interface HttpGuard {
  /** Origins allowed besides the server's own; null: the loopback origins. */
  origins: ReadonlySet<string> | null;
  /** Host names (without port) allowed besides the bound address's. */
  hosts: ReadonlySet<string>;
  /** The bound address and port, set once the server listens. */
  bound?: { host: string; port: number };
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

const isLoopbackHost = (host: string): boolean =>
  LOOPBACK_NAMES.has(host) || /^127(\.\d{1,3}){3}$/.test(host) || host.endsWith('.localhost');
const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '[::]';

/** `http://HOST[:PORT]` with its host case-folded; null for anything that is not an http(s) origin. */
export function normalOrigin(origin: string): string | null {
  try {
    const u = new URL(origin);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.pathname !== '/' || u.search || u.hash || u.username) return null;
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * The guard from `--cors ORIGIN…` and `--allowed-host NAME…`; a value that is not an origin
 * (or `*`, which would hand the model to every page on the web) is a usage error.
 */
export function httpGuard(cors: readonly string[] = [], allowedHosts: readonly string[] = []): HttpGuard {
  const origins = new Set<string>();
  for (const value of cors
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)) {
    const origin = value === '*' ? null : normalOrigin(value);
    if (!origin) {
      throw new CapstateError(
        'usage',
        `--cors takes an origin such as http://localhost:5173, not ${JSON.stringify(value)}` +
          (value === '*' ? ' (any origin would let every web page read and rewrite the served model)' : ''),
        {},
        2,
      );
    }
    origins.add(origin);
  }
  const hosts = new Set(
    allowedHosts
      .flatMap((v) => v.split(','))
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const h of hosts) {
    if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(h))
      throw new CapstateError('usage', `--allowed-host takes a host name such as app.internal, not ${JSON.stringify(h)}`, {}, 2);
  }
  return { origins: origins.size ? origins : null, hosts };
}

/** Whether the `Host` header (`name[:port]`) names this server. No header (HTTP/1.0): yes. */
function hostAllowed(guard: HttpGuard, header: string | undefined): boolean {
  if (header === undefined || !guard.bound) return true;
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:]+)(?::(\d+))?$/.exec(header.trim());
  if (!m) return false;
  const name = m[1].toLowerCase();
  const port = m[2] === undefined ? 80 : Number(m[2]);
  if (port !== guard.bound.port) return false;
  const bound = guard.bound.host.toLowerCase();
  const bare = name.replace(/^\[|\]$/g, '');
  if (name === bound || bare === bound || guard.hosts.has(name)) return true;
  if (isLoopbackHost(bound) || isWildcard(bound)) {
    if (isLoopbackHost(name)) return true;
    if (isWildcard(bound) && (isIP(bare) !== 0 || name === hostname().toLowerCase())) return true;
  }
  return false;
}

/** Whether `origin` may drive the model: an allowed one, or the server's own (same origin). */
export function originAllowed(guard: HttpGuard, origin: string, hostHeader: string | undefined): boolean {
  const o = normalOrigin(origin);
  if (!o) return false;
  if (hostHeader && (o === `http://${hostHeader.toLowerCase()}` || o === `https://${hostHeader.toLowerCase()}`)) return true;
  if (guard.origins) return guard.origins.has(o);
  return isLoopbackHost(new URL(o).hostname.toLowerCase());
}

/**
 * Checks a request before it is read: throws 403 (`bad-host`, `cross-origin`) for a request
 * the guard refuses, and returns the CORS headers its answer carries (none without an Origin).
 */
export function admit(guard: HttpGuard, req: IncomingMessage): { origin: string | null } {
  const host = req.headers.host;
  if (!hostAllowed(guard, host)) {
    throw new CapstateError(
      'bad-host',
      `the Host header ${JSON.stringify(host)} does not name this server (${guard.bound?.host}:${guard.bound?.port}); ` +
        'a page that renamed itself to reach it is refused. Serving under a name of your own? Start the server with --allowed-host NAME',
      { host },
    );
  }
  const origin = req.headers.origin;
  if (origin === undefined) {
    // A browser sends no Origin on a cross-site GET it makes without CORS (an image, a link):
    // it says where the request comes from in Sec-Fetch-Site instead.
    if (req.headers['sec-fetch-site'] === 'cross-site')
      throw new CapstateError('cross-origin', 'requests from other sites are refused', {});
    return { origin: null };
  }
  if (!originAllowed(guard, origin, host)) {
    throw new CapstateError(
      'cross-origin',
      `requests from ${origin} are refused: this server answers the loopback origins` +
        `${guard.origins ? ` and ${[...guard.origins].join(', ')}` : ''}; start it with --cors ${origin} to let that page use the model`,
      { origin },
    );
  }
  return { origin };
}

/** The CORS headers of an answer to an allowed `origin`, exposing every header it sends. */
export function corsHeaders(origin: string | null, sent: Record<string, string>): Record<string, string> {
  if (origin === null) return {};
  const exposed = Object.keys(sent).filter((h) => !SAFELISTED.has(h.toLowerCase()));
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    vary: 'Origin',
    ...(exposed.length ? { 'access-control-expose-headers': exposed.join(', ') } : {}),
  };
}

/** Headers a page reads without their being exposed (the CORS-safelisted response headers). */
const SAFELISTED = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);

/** The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin. */
export function preflightHeaders(origin: string, req: IncomingMessage): Record<string, string> {
  const asked = req.headers['access-control-request-headers'];
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    ...(asked ? { 'access-control-allow-headers': asked } : {}),
    'access-control-max-age': '600',
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}

/** Whether a request's content type is JSON (`application/json`, `application/*+json`). */
export function isJsonContentType(value: string | undefined): boolean {
  const type = (value ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type);
}
