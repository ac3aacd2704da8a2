/**
 * Credential values never reach the store (issue 2 "Secrets", BS-65, OQ-2): the loaders
 * pass every header and cookie through here and store the name with a NULL value.
 */

const ALWAYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/**
 * Header names that mark a credential: API keys, tokens, CSRF/XSRF tokens, sessions,
 * secrets, passwords, signatures (`X-Api-Key`, `X-Auth-Token`, `X-Redmine-API-Key`,
 * `X-CSRF-Token`, `X-CSRFToken`, `Private-Token`, `X-Amz-Security-Token`, …). Broad on
 * purpose: a redacted harmless value costs little, a stored credential costs a lot.
 */
const CREDENTIAL_NAME = /auth|token|secret|passw|api[-_]?key|access[-_]?key|(^|[-_])key$|csrf|xsrf|session|signature|credential|cookie/i;

/** Headers whose value is a URL that may carry a token-like query parameter (OQ-2). */
const URL_HEADERS = new Set(['referer', 'location', 'content-location', 'origin', 'link']);

export function isUrlHeader(name: string): boolean {
  return URL_HEADERS.has(name.toLowerCase());
}

export function isCredentialHeader(name: string): boolean {
  // HTTP/2 pseudo-headers (`:authority`, `:path`) are not credentials, whatever they spell.
  if (name.startsWith(':')) return false;
  return ALWAYS.has(name.toLowerCase()) || CREDENTIAL_NAME.test(name);
}

/** True when a URL carries a redaction marker (OQ-8): `[REDACTED` or its percent-encoding. */
export function isRedactedUrl(url: string): boolean {
  return /\[REDACTED|%5BREDACTED/i.test(url);
}

/** OQ-2: query parameter names that carry credentials. */
const SENSITIVE_QUERY = /(^|_|-)(token|access_token|api[-_]?key|secret|password|passwd|signature|sig|auth)($|_|-)/i;

/** True when a query parameter would put a credential in the store (OQ-2). */
export function isSensitiveQueryParam(name: string, value: string): boolean {
  return SENSITIVE_QUERY.test(name) && value !== '' && !/^\[REDACTED/i.test(value);
}

/**
 * Literals the user declares secret (`--sensitive VALUE`), searched as written and in
 * their URL-, form- and JSON-escaped spellings (as BS-65 does for declared secrets).
 */
export class SensitiveLiterals {
  private readonly needles: { literal: number; bytes: Buffer }[] = [];

  constructor(literals: string[]) {
    literals.forEach((lit, i) => {
      const spellings = new Set([lit, encodeURIComponent(lit), encodeURIComponent(lit).replace(/%20/g, '+'), JSON.stringify(lit).slice(1, -1)]);
      for (const s of spellings) if (s) this.needles.push({ literal: i, bytes: Buffer.from(s, 'utf8') });
    });
  }

  get size(): number {
    return this.needles.length;
  }

  /** The index of the first declared literal found in `haystack`, or -1. */
  find(haystack: string | Buffer | null | undefined): number {
    if (!haystack || this.needles.length === 0) return -1;
    const buf = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
    for (const n of this.needles) if (buf.includes(n.bytes)) return n.literal;
    return -1;
  }
}

/** Credential values shorter than this are not searched for elsewhere (`consent=1` would match everything). */
export const MIN_CREDENTIAL_LENGTH = 8;

/**
 * The values a credential header or cookie carries: the whole value, an Authorization
 * scheme's token, each cookie's value (`Cookie: a=b; c=d`), a Set-Cookie's value.
 */
export function credentialValues(name: string, value: string | null | undefined): string[] {
  if (!value) return [];
  const out = new Set<string>([value.trim()]);
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const m = /^\S+\s+(.+)$/.exec(value.trim());
    if (m) out.add(m[1].trim());
  }
  if (lower === 'cookie') {
    for (const part of value.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) out.add(part.slice(eq + 1).trim());
    }
  }
  if (lower === 'set-cookie') {
    const first = value.split(';')[0];
    const eq = first.indexOf('=');
    if (eq > 0) out.add(first.slice(eq + 1).trim());
  }
  return [...out].filter((v) => v.length >= MIN_CREDENTIAL_LENGTH);
}

/**
 * Replaces credential values found anywhere else in a capture (a token echoed in a login
 * response, a session id in a Referer) with `[REDACTED]`, as written and URL-, form- and
 * JSON-escaped (BS-65 does the same for declared secrets). Longest values first, so a
 * cookie header is replaced whole before the cookie value inside it.
 */
export class Redactor {
  static readonly MARKER = '[REDACTED]';
  private readonly needles: Buffer[];
  private readonly strings: string[];
  /** One alternation of all spellings, longest first: a single scan per string. */
  private readonly any: RegExp | null;
  private readonly all: RegExp | null;

  constructor(values: Iterable<string>) {
    const spellings = new Set<string>();
    for (const v of values) {
      for (const s of [v, encodeURIComponent(v), encodeURIComponent(v).replace(/%20/g, '+'), JSON.stringify(v).slice(1, -1)]) {
        if (s.length >= MIN_CREDENTIAL_LENGTH) spellings.add(s);
      }
    }
    this.strings = [...spellings].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.needles = this.strings.map((s) => Buffer.from(s, 'utf8'));
    const source = this.strings.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    this.any = source ? new RegExp(source) : null;
    this.all = source ? new RegExp(source, 'g') : null;
  }

  get size(): number {
    return this.strings.length;
  }

  text(s: string): string;
  text(s: string | null): string | null;
  text(s: string | null): string | null {
    if (s === null || this.any === null || !this.any.test(s)) return s;
    return s.replace(this.all!, Redactor.MARKER);
  }

  bytes(b: Buffer): Buffer {
    if (this.needles.length === 0) return b;
    let out = b;
    for (const n of this.needles) {
      if (!out.includes(n)) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(n); at !== -1; at = out.indexOf(n, from)) {
        parts.push(out.subarray(from, at), Buffer.from(Redactor.MARKER));
        from = at + n.length;
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }
}
