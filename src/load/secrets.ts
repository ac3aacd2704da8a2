/**
 * Credential values never reach the store (issue 2 "Secrets", issue 15, BS-65, OQ-2): the
 * loaders pass every header and cookie through here and store the name with a NULL value;
 * the Redactor replaces credential values under credential names (secret-text.ts) and
 * their echoes everywhere else with `[REDACTED]`, before hashing.
 */
import { CapstateError, type ErrorContext } from '../errors.js';
import type { RetainedBody } from './bodies.js';
import { TokenFinder } from './token-finder.js';
import {
  carriesUserinfo,
  isCredentialValue,
  MARKER,
  redactBodyBytes,
  redactBodyText,
  redactFreeText,
  redactUrlParams,
  schemeSecrets,
  SENSITIVE_QUERY,
} from './secret-text.js';

const ALWAYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** BS-65: the headers whose values a producer never retains (`null`, `redacted: true`). */
export function isAlwaysRedactedHeader(name: string): boolean {
  return ALWAYS.has(name.toLowerCase());
}

/**
 * Header names that mark a credential: API keys, tokens, CSRF/XSRF tokens, sessions,
 * secrets, passwords, signatures (`X-Api-Key`, `X-Auth-Token`, `X-Redmine-API-Key`,
 * `X-CSRF-Token`, `X-CSRFToken`, `Private-Token`, `X-Amz-Security-Token`, …), and short
 * words that name one only as a whole segment (`X-Access`, `X-Pass`, `X-Pin`, `X-OTP`,
 * `X-Sid`, `X-Sig`, `X-Ticket`; issue 42: `X-Access: <token>` reached the store), where
 * a substring test would catch `Accessibility` or `Pinned`. `Access-Control-*` is CORS,
 * not a credential. Broad on purpose: a redacted harmless value costs little, a stored
 * credential costs a lot.
 */
const CREDENTIAL_NAME =
  /auth|token|secret|passw|api[-_]?key|access[-_]?key|(^|[-_])key$|csrf|xsrf|session|signature|credential|cookie|jwt|bearer|assertion|hmac|(^|[-_])(access|pass|passcode|pwd|pin|otp|sid|sig|ticket)($|[-_](?!control))/i;

/** Standard headers the pattern would catch that carry no secret (Fetch Metadata's `active`/`inactive`). */
const NOT_CREDENTIAL_NAME = new Set(['sec-fetch-storage-access']);

/** Headers whose value is a URL that may carry a token-like query parameter (OQ-2). */
const URL_HEADERS = new Set(['referer', 'location', 'content-location', 'origin', 'link']);

export function isUrlHeader(name: string): boolean {
  return URL_HEADERS.has(name.toLowerCase());
}

export function isCredentialHeader(name: string): boolean {
  // HTTP/2 pseudo-headers (`:authority`, `:path`) are not credentials, whatever they spell.
  if (name.startsWith(':') || NOT_CREDENTIAL_NAME.has(name.toLowerCase())) return false;
  return ALWAYS.has(name.toLowerCase()) || CREDENTIAL_NAME.test(name);
}

/** True when a URL carries a redaction marker (OQ-8): `[REDACTED` or its percent-encoding. */
export function isRedactedUrl(url: string): boolean {
  return /\[REDACTED|%5BREDACTED/i.test(url);
}

/**
 * True when a query parameter would put a credential in the store and, on an admitted
 * record, refuses the capture (OQ-2's pattern, as written). Broader names (`accessToken`,
 * `code`, `key`, issue 15) are redacted, not refused: see isCredentialParamName.
 */
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
      const spellings = new Set([
        lit,
        encodeURIComponent(lit),
        encodeURIComponent(lit).replace(/%20/g, '+'),
        JSON.stringify(lit).slice(1, -1),
      ]);
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

/** Credential values at least this long are searched for elsewhere whatever they spell. */
export const MIN_CREDENTIAL_LENGTH = 8;

/** Shorter credential values are searched for from this length when they look generated (isSearchedCredential). */
export const MIN_SHORT_CREDENTIAL_LENGTH = 4;

/**
 * Whether a credential header's or cookie's value is searched for (and replaced) wherever
 * else the capture repeats it. From 8 characters, always. Shorter values (issue 42: a
 * 7-character session cookie echoed in a body reached the store) when they mix character
 * kinds as generated tokens do (`Ab3xY9z`, `k7-q2`): two of lower case, upper case, digits
 * and other characters, and not a capitalised word (`Dark`).
 *
 * Not searched: a value of 1-3 characters, and a value of 4-7 that is a plain number or a
 * plain word (`1`, `true`, `2024`, `dark`). Those are the capture's own numbers and words
 * as well (ids, flags, statuses): replacing every whole-token `1` or `true` would rewrite
 * unrelated values and make JSON bodies invalid. Such a value is still never stored as the
 * cookie or header itself (Cookie, Set-Cookie and credential headers are stored NULL, HAR
 * cookie arrays as names only); only an echo of it elsewhere is kept, and at most 62^3
 * (about 238,000) or 10^7 values of that form exist, so it protects little anyway.
 */
export function isSearchedCredential(v: string): boolean {
  if (v.length >= MIN_CREDENTIAL_LENGTH) return true;
  if (v.length < MIN_SHORT_CREDENTIAL_LENGTH || /^[A-Z]?[a-z]+$/.test(v)) return false;
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z\d]/].filter((k) => k.test(v)).length;
  return kinds >= 2;
}

/** Cookie names that hold credentials (sessions, tokens, CSRF, remember-me). */
const CREDENTIAL_COOKIE = /sess|sid|token|auth|csrf|xsrf|jwt|key|secret|pass|remember|login|connect/i;

/** A value that looks like a generated token: long, letters mixed with digits. */
function looksLikeToken(v: string): boolean {
  return v.length >= 16 && /[A-Za-z]/.test(v) && /\d/.test(v);
}

function unquote(v: string): string {
  const t = v.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

function decoded(v: string): string | null {
  try {
    const d = decodeURIComponent(v);
    return d === v ? null : d;
  } catch {
    return null;
  }
}

/**
 * The secret values a credential header or cookie carries, to be searched for elsewhere:
 * an Authorization scheme's token (and a Basic pair's password), a credential-named
 * header's value, and the values of cookies that hold credentials (by name, or because
 * they look like generated tokens). Non-credential cookies (`consent=accepted`,
 * `ts=1700000000`) are not searched for: their values occur innocently everywhere.
 */
export function credentialValues(name: string, value: string | null | undefined): string[] {
  if (!value) return [];
  const out = new Set<string>();
  const lower = name.toLowerCase();
  const cookie = (cookieName: string, cookieValue: string) => {
    const v = unquote(cookieValue);
    if (!CREDENTIAL_COOKIE.test(cookieName) && !looksLikeToken(v)) return;
    out.add(v);
    const d = decoded(v);
    if (d) out.add(d);
  };
  // A pair without a name (`Cookie: abc123`, RFC 6265 §5.2 allows a nameless cookie) is
  // read as a credential cookie: nothing says it is not.
  const pair = (text: string) => {
    const eq = text.indexOf('=');
    if (eq === -1) cookie('session', text);
    else cookie(eq === 0 ? 'session' : text.slice(0, eq).trim(), text.slice(eq + 1));
  };
  if (lower === 'cookie') {
    for (const part of value.split(';')) if (part.trim() !== '') pair(part);
  } else if (lower === 'set-cookie') {
    // Several Set-Cookie headers in one HAR header value are joined by newlines (Chrome,
    // Node's fetch); each line's first pair is a cookie, the rest are its attributes.
    for (const line of value.split('\n')) {
      const first = line.split(';')[0];
      if (first.trim() !== '') pair(first);
    }
  } else {
    const v = value.trim();
    const m = /^(\S+)\s+(.+)$/.exec(v);
    if ((lower === 'authorization' || lower === 'proxy-authorization') && m) out.add(m[2].trim());
    else out.add(v);
    // A scheme's token, a Basic pair's password and a Digest header's parts (issue 15).
    if (m && (lower === 'authorization' || lower === 'proxy-authorization' || isCredentialValue(v)))
      for (const x of schemeSecrets(v)) out.add(x);
  }
  return [...out].filter(isSearchedCredential);
}

/**
 * The spellings a value may take where it is echoed: as is, URL-encoded (either hex case),
 * form-encoded, JSON-escaped (with or without `\/`), and HTML-escaped (BS-28).
 */
export function spellingsOf(v: string): string[] {
  const url = encodeURIComponent(v);
  const json = JSON.stringify(v).slice(1, -1);
  return [
    v,
    url,
    url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    url.replace(/%20/g, '+'),
    json,
    json.replace(/\//g, '\\/'),
    ...htmlSpellingsOf(v),
  ];
}

/**
 * BS-28: a value holding `<`, `>`, `&`, `"`, `'` or a no-break space appears HTML-escaped
 * in a serialised DOM: in text (`&amp;`, `&lt;`, `&gt;`, `&nbsp;`), in attribute values
 * (`&quot;` beside those, or only `&amp;`/`&quot;` from older serialisers) and in markup
 * written by hand or by templates (`&#39;`, `&#x27;`).
 */
export function htmlSpellingsOf(v: string): string[] {
  if (!/[<>&"'\u00a0]/.test(v)) return [];
  const amp = v.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;');
  const text = amp.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const attribute = text.replace(/"/g, '&quot;');
  return [...new Set([text, amp.replace(/"/g, '&quot;'), attribute, attribute.replace(/'/g, '&#39;'), attribute.replace(/'/g, '&#x27;')])];
}

/**
 * The loader also searches a credential's base64 spellings (padded, unpadded, base64url):
 * an app that echoes a token base64-encoded (issue 15). Only the loader: BS-65 says a
 * producer interprets no other encodings.
 */
function base64SpellingsOf(v: string): string[] {
  if (!isSearchedCredential(v)) return [];
  const b64 = Buffer.from(v, 'utf8').toString('base64');
  return [b64, b64.replace(/=+$/, ''), Buffer.from(v, 'utf8').toString('base64url')];
}

const TOKEN_CHAR = /[A-Za-z0-9]/;

/**
 * Replaces credential values found anywhere else in a capture (a token echoed in a login
 * response, a session id in a URL) with `[REDACTED]`, in every spelling of spellingsOf
 * (BS-65 does the same for declared secrets). Only whole tokens are replaced: a match
 * touching a letter or digit on either side is part of something else and stays.
 * Longest spellings first.
 */
export class Redactor {
  static readonly MARKER = MARKER;
  private readonly needles: Buffer[];
  private readonly strings: string[];
  /** All spellings as whole tokens, longest first: one scan per string (token-finder.ts). */
  private readonly tokens: TokenFinder;

  constructor(values: Iterable<string>) {
    const spellings = new Set<string>();
    // Every spelling is at least as long as the value: the value alone decides (isSearchedCredential).
    for (const v of values) if (isSearchedCredential(v)) for (const s of [...spellingsOf(v), ...base64SpellingsOf(v)]) spellings.add(s);
    this.strings = [...spellings].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.needles = this.strings.map((s) => Buffer.from(s, 'utf8'));
    this.tokens = new TokenFinder(this.strings);
  }

  get size(): number {
    return this.strings.length;
  }

  /**
   * A body as stored: credential values under credential names (secret-text.ts) and echoes
   * of the capture's credentials replaced, before classification and hashing (BS-65).
   * `namesClean`: the first pass ran this very name scan over this body and it replaced
   * nothing (CleanBodies in secret-collect.ts), so only the echoes are looked for.
   */
  body(retained: RetainedBody, namesClean = false): RetainedBody {
    if (retained.bytes !== undefined) {
      const bytes = this.bytes(namesClean ? retained.bytes : redactBodyBytes(retained.bytes, retained.mediaType));
      return bytes === retained.bytes ? retained : { ...retained, bytes };
    }
    if (retained.text !== undefined) {
      const text = this.text(namesClean ? retained.text : redactBodyText(retained.text, retained.mediaType));
      return text === retained.text ? retained : { ...retained, text };
    }
    return retained;
  }

  /**
   * A record's URL as stored: after the authority (hosts may be spelled in any case),
   * credential-named query, fragment and matrix parameters and echoed credentials are
   * replaced, so the URL stays a URL (issue 15, OQ-2, OQ-8).
   */
  url(rawUrl: string): string {
    const slashes = rawUrl.indexOf('//');
    const authority = slashes + 2;
    const rest = rawUrl.slice(authority).search(/[/?#]/);
    const at = rest === -1 ? rawUrl.length : authority + rest;
    // Only a URL with an authority (`scheme://…`) has userinfo; `data:`/`mailto:` do not.
    const host = slashes === -1 ? rawUrl.slice(authority, at) : redactAuthority(rawUrl.slice(authority, at));
    return rawUrl.slice(0, authority) + host + this.text(redactUrlParams(rawUrl.slice(at)));
  }

  /** Text that is not a body (page titles, status texts, header values, start URLs): credentials by form, then echoes. */
  freeText(s: string | null): string | null {
    return s === null ? null : this.text(redactFreeText(s));
  }

  /** OQ-2: records whose URL carries a credential by the manifest's pattern; refused only if admitted. */
  private readonly refusable: { what: string; where: ErrorContext }[] = [];

  /** Notes an OQ-2 credential in a record's URL (userinfo, or a query parameter by the pattern); `where` names the URL. */
  noteRefusable(url: URL, where: ErrorContext): void {
    if (url.username || url.password) {
      this.refusable.push({ what: 'the URL carries credentials (user:password@)', where });
      return;
    }
    for (const [name, value] of url.searchParams) {
      if (isSensitiveQueryParam(name, value)) {
        this.refusable.push({ what: `the URL's query parameter "${name}" carries a credential`, where });
        return;
      }
    }
  }

  /**
   * OQ-2 (revised 2026-12-01): an admitted record whose URL carries a credential refuses
   * the capture, unless the user chose `--redact`; the stored URL holds the marker either
   * way (url()), and on records that are not admitted that is all that happens. The
   * message names the record and the parameter, never the value.
   */
  refuseAdmitted(admittedOrdinals: ReadonlySet<number>, redact = false): void {
    if (redact) return;
    const hit = this.refusable.find((r) => r.where.record !== undefined && admittedOrdinals.has(r.where.record));
    if (!hit) return;
    throw new CapstateError(
      'sensitive-value',
      `${hit.what}; load with --redact to store such values as [REDACTED], or remove them from the capture and load again`,
      hit.where,
    );
  }

  text(s: string): string;
  text(s: string | null): string | null;
  text(s: string | null): string | null {
    if (s === null || this.strings.length === 0) return s;
    return this.tokens.replaceAll(s, Redactor.MARKER);
  }

  bytes(b: Buffer): Buffer {
    if (this.needles.length === 0) return b;
    let out = b;
    for (const n of this.needles) {
      if (!out.includes(n)) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(n); at !== -1; at = out.indexOf(n, at + 1)) {
        const before = at > 0 ? String.fromCharCode(out[at - 1]) : '';
        const after = at + n.length < out.length ? String.fromCharCode(out[at + n.length]) : '';
        if (at < from || TOKEN_CHAR.test(before) || TOKEN_CHAR.test(after)) continue;
        parts.push(out.subarray(from, at), Buffer.from(Redactor.MARKER));
        from = at + n.length;
      }
      if (parts.length === 0) continue;
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }
}

/**
 * A URL's authority as stored (OQ-2): userinfo becomes the marker (`user:[REDACTED]@`,
 * or `[REDACTED]@` for a lone user name, which may be a token), the host stays.
 */
function redactAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  if (at === -1) return authority;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  const kept = colon === -1 ? MARKER : `${userinfo.slice(0, colon)}:${MARKER}`;
  return /\[REDACTED\]$/i.test(userinfo) ? authority : `${kept}${authority.slice(at)}`;
}

/**
 * Whether a header is stored with a NULL value (BS-65, OQ-2, issue 15): a credential name,
 * a credential by its form whatever the name (`Bearer …`, `Basic …`, `Digest …`, a JWT),
 * or a URL-valued header (`Referer`, `Location`) with a password or a credential parameter.
 */
export function isRedactedHeader(name: string, value: string | null): boolean {
  if (isCredentialHeader(name)) return true;
  if (value === null || name.startsWith(':')) return false;
  return isCredentialValue(value) || (isUrlHeader(name) && urlCarriesCredential(value));
}

/** A URL (or a `Link` header's text) with userinfo or a query/fragment credential (OQ-2's pattern or issue 15's names). */
export function urlCarriesCredential(value: string): boolean {
  if (carriesUserinfo(value)) return true;
  try {
    const u = new URL(value);
    for (const [name, v] of u.searchParams) if (isSensitiveQueryParam(name, v)) return true;
  } catch {
    // Not an absolute URL (e.g. `Link: <…>; rel=next`): look for the pattern in the text.
    if (/[?&][^=&]*(token|api[-_]?key|secret|passw|signature|sig|auth)[^=&]*=[^&\s[]/i.test(value)) return true;
  }
  return redactUrlParams(value) !== value;
}
