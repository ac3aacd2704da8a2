/**
 * Credential values that sit under a credential *name* inside text (issue 15, BS-65,
 * OQ-2): JSON members (`"password": "…"`), form fields (`password=…`), GraphQL string
 * arguments (`login(password: "…")`), URL query and fragment parameters (`?code=…`,
 * `#access_token=…`), URL userinfo (`user:password@`) and authorization schemes
 * (`Bearer …`, a Digest header's `nonce=`/`response=`). Each function keeps the name and
 * the syntax, replaces the value with `[REDACTED]`, and hands the original value to
 * `found`, so the echo redaction (Redactor in secrets.ts) can replace it wherever else the
 * capture repeats it. Only strings are replaced: a number under a credential name stays.
 */
import { isUtf8 } from 'node:buffer';
import { decodeBase64Strict } from './bodies.js';

export const MARKER = '[REDACTED]';

/** Receives each credential value a function replaced (the first pass collects them). */
export type Found = (value: string) => void;

const isMarker = (v: string) => /^\[REDACTED/i.test(v) || /^%5BREDACTED/i.test(v);

/**
 * Names compare across camelCase, snake_case and kebab-case: `access_token`,
 * `accessToken`, `Access-Token` are one name. A bracketed form field (`user[password]`)
 * is named by its last segment.
 */
export function normaliseName(name: string): string {
  const last = /\[([^\][]*)\]$/.exec(name);
  return (last ? last[1] : name).replace(/[-_]/g, '').toLowerCase();
}

/** Member, field and argument names whose string value is a credential (normalised). */
const CREDENTIAL_MEMBERS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'token',
  'jwt',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'sessiontoken',
  'bearertoken',
  'clientsecret',
  'secret',
  'apikey',
  'apisecret',
  'secretkey',
  'privatekey',
  'secretaccesskey',
]);
/** Suffixes that make any name a credential (`newPassword`, `webhookSecret`, `x-api-key`). */
const CREDENTIAL_MEMBER_SUFFIX = /(password|passwd|secret|accesstoken|refreshtoken|idtoken|apikey)$/;

/**
 * True for body members, form fields and GraphQL arguments that hold credentials. Not
 * every `…Token` is one: `nextPageToken` is a cursor, and redacting it would mark the
 * next request's URL redacted (OQ-8) for nothing.
 */
export function isCredentialMemberName(name: string): boolean {
  const n = normaliseName(name);
  return CREDENTIAL_MEMBERS.has(n) || CREDENTIAL_MEMBER_SUFFIX.test(n);
}

/** Query and form parameter names that carry credentials beyond the member names (issue 15). */
const CREDENTIAL_PARAMS = new Set([
  'key',
  'code',
  'jwt',
  'sessionid',
  'session',
  'sig',
  'signature',
  'auth',
  'credential',
  'xamzcredential',
  'xamzsignature',
  'xamzsecuritytoken',
  'accesskey',
  'ticket',
]);

/**
 * OQ-2: the manifest's pattern for query parameters that carry credentials (an admitted
 * record with such a value is refused; see isSensitiveQueryParam in secrets.ts).
 */
export const SENSITIVE_QUERY = /(^|_|-)(token|access_token|api[-_]?key|secret|password|passwd|signature|sig|auth)($|_|-)/i;

/** OAuth's `token_type` (RFC 6749 §7.1: `bearer`) names a scheme, not a secret. */
const NOT_CREDENTIAL_PARAMS = new Set(['tokentype']);

/** True for URL query/fragment and form parameter names whose value is a credential. */
export function isCredentialParamName(name: string): boolean {
  const n = normaliseName(name);
  if (NOT_CREDENTIAL_PARAMS.has(n)) return false;
  return SENSITIVE_QUERY.test(name) || CREDENTIAL_PARAMS.has(n) || n.endsWith('sessionid') || isCredentialMemberName(name);
}

function decodeComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** `name=value` pairs of a query or fragment (after `?`, `&` or `#`). */
const URL_PARAM = /([?&#])([^=&#?\s"'<>]+)=([^&#\s"'<>]*)/g;
/** Matrix parameters in a path (`;jsessionid=…`): the value ends at `?`, `/` or `;`. */
const MATRIX_PARAM = /(;)([^=&#;?/\s"'<>]+)=([^&#;?/\s"'<>]*)/g;

/** Replaces credential-named query, fragment and matrix parameter values in text holding URLs. */
export function redactUrlParams(text: string, found?: Found): string {
  if (!/[?&#;][^=]*=/.test(text)) return text;
  const replace = (all: string, sep: string, name: string, value: string) => {
    if (value === '' || isMarker(value) || !isCredentialParamName(decodeComponent(name))) return all;
    found?.(value);
    found?.(decodeComponent(value));
    return `${sep}${name}=${MARKER}`;
  };
  return text.replace(MATRIX_PARAM, replace).replace(URL_PARAM, replace);
}

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s:@?#]*):([^/\s@?#]+)@/gi;

/** True when text holds a URL with a password (`scheme://user:password@`). */
export function carriesUserinfo(text: string): boolean {
  USERINFO.lastIndex = 0;
  return USERINFO.test(text);
}

/** Replaces the password of `scheme://user:password@` URLs in text; the user name stays. */
export function redactUserinfo(text: string, found?: Found): string {
  if (!text.includes('@')) return text;
  return text.replace(USERINFO, (all, scheme: string, user: string, password: string) => {
    if (isMarker(password) || /^%5BREDACTED/i.test(password)) return all;
    found?.(password);
    found?.(decodeComponent(password));
    return `${scheme}${user}:${MARKER}@`;
  });
}

/** `Bearer`/`Negotiate`/`NTLM` and a token (RFC 6750's b64token), `Digest` and its parameters. */
const TOKEN_SCHEME_VALUE = /^\s*(bearer|negotiate|ntlm)\s+[A-Za-z0-9\-._~+/]+=*\s*$/i;
const BASIC_VALUE = /^\s*basic\s+([A-Za-z0-9+/]+=*)\s*$/i;
const DIGEST_VALUE = /^\s*digest\s+[^=]+=/i;
/** A JSON Web Token (`eyJ….eyJ….sig`), whatever header carries it. */
const JWT = /^\s*eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\s*$/;

/** The `user:password` text of a Basic token (padding optional), or null. ES-5: bodies.ts decodes base64. */
function basicPair(token: string): string | null {
  return decodeBase64Strict(token.padEnd(Math.ceil(token.length / 4) * 4, '='))?.toString('utf8') ?? null;
}

/** A Basic credential: base64 of `user:password` (`Basic tier` is not one). */
function isBasicPair(token: string): boolean {
  return basicPair(token)?.includes(':') ?? false;
}

/**
 * True for a header value that is a credential by its form, whatever the header is called
 * (issue 15): an authorization scheme with its token or parameters, or a bare JWT.
 */
export function isCredentialValue(value: string): boolean {
  const basic = BASIC_VALUE.exec(value);
  return TOKEN_SCHEME_VALUE.test(value) || (basic !== null && isBasicPair(basic[1])) || DIGEST_VALUE.test(value) || JWT.test(value);
}

/** The parts of a Digest header that are secrets or single-use values tied to the password. */
const DIGEST_PART = /\b(response|nonce|cnonce|opaque|password)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/gi;

/** The secret values of an authorization value: a scheme's token, a Basic pair's password, a Digest header's parts. */
export function schemeSecrets(value: string): string[] {
  const m = /^\s*(\S+)\s+(.+?)\s*$/.exec(value);
  if (!m) return JWT.test(value) ? [value.trim()] : [];
  const scheme = m[1].toLowerCase();
  if (scheme === 'digest') return [...m[2].matchAll(DIGEST_PART)].map((p) => p[2] ?? p[3]).filter((v) => v !== '');
  const out = [m[2]];
  if (scheme === 'basic') {
    const pair = basicPair(m[2]) ?? '';
    const colon = pair.indexOf(':');
    if (colon > 0) out.push(pair.slice(colon + 1));
  }
  return out;
}

/** `Bearer <token>` / `Basic <token>` inside free text (a status text echoing the header). */
const SCHEME_IN_TEXT = /\b(bearer|basic|negotiate)(\s+)([A-Za-z0-9\-._~+/]+=*)(?![A-Za-z0-9\-._~+/="])/gi;

/**
 * A scheme's token in prose must look like one: at least 8 characters (`Bearer of bad
 * news` stays), and for Basic the base64 of a `user:password` pair.
 */
function isTokenInText(scheme: string, token: string): boolean {
  if (isMarker(token) || token.length < 8) return false;
  return scheme.toLowerCase() !== 'basic' || isBasicPair(token);
}

/** Replaces authorization tokens and Digest parts inside free text; the scheme and part names stay. */
export function redactSchemes(text: string, found?: Found): string {
  if (!/bearer|basic|negotiate|digest/i.test(text)) return text;
  let out = text.replace(SCHEME_IN_TEXT, (all, scheme: string, space: string, token: string) => {
    if (!isTokenInText(scheme, token)) return all;
    found?.(token);
    return `${scheme}${space}${MARKER}`;
  });
  if (/digest/i.test(out)) {
    out = out.replace(DIGEST_PART, (all, _name: string, quoted: string | undefined, bare: string | undefined) => {
      const v = quoted ?? bare ?? '';
      if (v === '' || isMarker(v)) return all;
      found?.(v);
      return quoted !== undefined ? all.replace(`"${quoted}"`, `"${MARKER}"`) : all.replace(bare!, MARKER);
    });
  }
  return out;
}

/** Everything above, for text that is not a body: page titles, status texts, header values, start URLs. */
export function redactFreeText(text: string, found?: Found): string {
  return redactSchemes(redactUserinfo(redactUrlParams(text, found), found), found);
}

/**
 * OQ-2 (revised): a value quoted in an error message, with every credential form above
 * replaced and any userinfo (`//user:password@`, with or without a scheme) dropped, so an
 * error never prints the value it refuses.
 */
export function redactForMessage(text: string): string {
  return redactFreeText(text).replace(/(^|\/\/)[^/\s@?#]+@/g, `$1${MARKER}@`);
}

/** A GraphQL string argument or input field: `name: "value"`. Block strings are not read. */
const GRAPHQL_ARG = /\b([A-Za-z_][A-Za-z0-9_]*)(\s*:\s*)"((?:[^"\\\n]|\\.)*)"/g;

function unescapeGraphqlString(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** Replaces string arguments named like credentials in GraphQL text (`login(password: "…")`). */
export function redactGraphqlArgs(text: string, found?: Found): string {
  if (!text.includes('"')) return text;
  return text.replace(GRAPHQL_ARG, (all, name: string, colon: string, raw: string) => {
    if (raw === '' || isMarker(raw) || !isCredentialMemberName(name)) return all;
    found?.(unescapeGraphqlString(raw));
    return `${name}${colon}"${MARKER}"`;
  });
}

/** Replaces credential-named fields of a form body (`password=…`); other bytes stay as written. */
export function redactFormText(text: string, found?: Found): string {
  let changed = false;
  const pairs = text.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) return pair;
    const value = pair.slice(eq + 1);
    if (value === '' || isMarker(value) || !isCredentialParamName(decodeComponent(pair.slice(0, eq)))) return pair;
    found?.(decodeComponent(value));
    found?.(value);
    changed = true;
    return `${pair.slice(0, eq + 1)}${MARKER}`;
  });
  return changed ? pairs.join('&') : text;
}

const isWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function parseJsonString(raw: string): string | null {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return null;
  }
}

/** A cheap test before walking a JSON body or reading a key: no credential-like name, nothing to replace. */
const MAY_HOLD_CREDENTIAL = /pass|pwd|token|secret|api[-_]?key|private[-_]?key|jwt/i;

/** The end (after the closing quote) of the JSON string opening at `at`, and whether it holds an escaped quote. */
function jsonStringEnd(text: string, at: number): { end: number; escapedQuote: boolean } {
  let escapedQuote = false;
  for (let q = text.indexOf('"', at + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return { end: q + 1, escapedQuote };
    escapedQuote = true;
  }
  return { end: text.length, escapedQuote };
}

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && isWhitespace(text.charCodeAt(at))) at++;
  return at;
}

/**
 * Replaces the string values of credential-named members anywhere in JSON text, and
 * credential-named GraphQL arguments inside string values (a `query` member). The text
 * is walked from string to string (between strings JSON has no quotes, so a string
 * followed by `:` is a key), so everything else keeps its bytes (and a body without
 * credentials its digest); the result stays valid JSON when the input was.
 */
export function redactJsonText(text: string, found?: Found): string {
  if (!MAY_HOLD_CREDENTIAL.test(text)) return text;
  const parts: string[] = [];
  let from = 0;
  const replace = (start: number, end: number, s: string) => {
    parts.push(text.slice(from, start), JSON.stringify(s));
    from = end;
  };
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i)) {
    const { end, escapedQuote } = jsonStringEnd(text, i);
    const colon = skipWhitespace(text, end);
    if (text.charCodeAt(colon) === 0x3a) {
      const keyRaw = text.slice(i, end);
      i = colon + 1;
      if (!MAY_HOLD_CREDENTIAL.test(keyRaw)) continue;
      const key = parseJsonString(keyRaw);
      const at = skipWhitespace(text, i);
      if (key === null || !isCredentialMemberName(key) || text.charCodeAt(at) !== 0x22) continue;
      const valueEnd = jsonStringEnd(text, at).end;
      const value = parseJsonString(text.slice(at, valueEnd));
      const replacement = value === null ? null : credentialReplacement(value, found);
      if (replacement !== null && replacement !== value) replace(at, valueEnd, replacement);
      i = valueEnd;
      continue;
    }
    // A GraphQL argument can be named like a credential only in a string that quotes.
    if (escapedQuote && MAY_HOLD_CREDENTIAL.test(text.slice(i, end))) {
      const value = parseJsonString(text.slice(i, end));
      const redacted = value === null ? null : redactGraphqlArgs(value, found);
      if (redacted !== null && redacted !== value) replace(i, end, redacted);
    }
    i = end;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}

/** The marker for a credential member's string value; empty strings and markers stay. */
function credentialReplacement(value: string, found: Found | undefined): string {
  if (value === '' || isMarker(value)) return value;
  found?.(value);
  return MARKER;
}

function essence(mediaType: string | null): string {
  return (mediaType ?? '').split(';')[0].trim().toLowerCase();
}

const FORM_LIKE = /^[^=&\s{[<]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/;

/**
 * A body's credential values by its form (OQ-34's JSON-likeness, a form media type or a
 * form-shaped generic body, `application/graphql`); other bodies are left to the echo
 * redaction.
 */
export function redactBodyText(text: string, mediaType: string | null): string;
export function redactBodyText(text: string, mediaType: string | null, found: Found): string;
export function redactBodyText(text: string, mediaType: string | null, found?: Found): string {
  const m = essence(mediaType);
  const first = /^\s*([{[])/.exec(text);
  if (m === 'application/json' || m === 'text/json' || m.endsWith('+json') || first) return redactJsonText(text, found);
  if (m === 'application/x-www-form-urlencoded') return redactFormText(text, found);
  if (m === 'application/graphql') return redactGraphqlArgs(text, found);
  if ((m === '' || m === 'text/plain' || m === 'application/octet-stream') && FORM_LIKE.test(text)) return redactFormText(text, found);
  return text;
}

/** The same for bytes: only UTF-8 bodies are read; other bytes are not decoded (BS-65). */
export function redactBodyBytes(bytes: Buffer, mediaType: string | null, found?: Found): Buffer {
  if (bytes.length === 0 || !isUtf8(bytes)) return bytes;
  const text = bytes.toString('utf8');
  const out = found ? redactBodyText(text, mediaType, found) : redactBodyText(text, mediaType);
  return out === text ? bytes : Buffer.from(out, 'utf8');
}
