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
const CREDENTIAL_NAME = /auth|token|secret|passw|api[-_]?key|csrf|xsrf|session|signature|credential|cookie/i;

export function isCredentialHeader(name: string): boolean {
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
