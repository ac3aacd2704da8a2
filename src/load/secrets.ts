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
