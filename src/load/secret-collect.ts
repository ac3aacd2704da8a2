/**
 * The loader's first pass (BS-65, issue 15): the credential values one capture carries,
 * so the second pass can replace their echoes anywhere else (a login response returning
 * the bearer token, a password echoed base64-encoded, a session id in a Referer). It reads
 * the same places the second pass redacts by name or form: credential headers and
 * cookies, headers by value, URLs, page titles, status texts and bodies.
 */
import { decodeBase64Strict } from './bodies.js';
import type { Obj } from './fields.js';
import { credentialValues, isCredentialHeader, isSearchedCredential, MIN_CREDENTIAL_LENGTH } from './secrets.js';
import {
  isCredentialParamName,
  isCredentialValue,
  redactBodyBytes,
  redactBodyText,
  redactFreeText,
  schemeSecrets,
  type Found,
} from './secret-text.js';

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A value found under a credential *name* (a body member, a form field, a query
 * parameter) is searched for elsewhere only if it looks like a secret: a single word of
 * fewer than 12 letters (`"apiKey": "disabled"`) would otherwise rewrite every
 * `"status": "disabled"` in the capture. It is still replaced where it was found.
 */
function looksLikeSecret(v: string): boolean {
  return v.length >= MIN_CREDENTIAL_LENGTH && !/^[A-Za-z]{1,11}$/.test(v);
}

export class SecretCollector {
  readonly values = new Set<string>();

  /** A value from a credential header, cookie or authorization scheme: searched for when isSearchedCredential says so. */
  private readonly strong: Found = (v) => {
    if (isSearchedCredential(v)) this.values.add(v);
  };

  /** A value found under a credential name: searched for when it looks like a secret. */
  private readonly named: Found = (v) => {
    if (looksLikeSecret(v)) this.values.add(v);
  };

  /** Values a body scan replaced since the count was last read (bodyText, bodyBytes). */
  private bodyFinds = 0;
  private readonly inBody: Found = (v) => {
    this.bodyFinds++;
    this.named(v);
  };

  header(name: unknown, value: unknown): void {
    if (typeof name !== 'string' || typeof value !== 'string') return;
    if (isCredentialHeader(name)) for (const v of credentialValues(name, value)) this.strong(v);
    else if (isCredentialValue(value)) for (const v of schemeSecrets(value)) this.strong(v);
    redactFreeText(value, this.named);
  }

  headers(list: unknown): void {
    if (Array.isArray(list)) for (const h of list) if (isObj(h)) this.header(h.name, h.value);
  }

  /** A HAR cookie is searched for like the same pair in a Cookie header. */
  cookies(list: unknown): void {
    if (!Array.isArray(list)) return;
    for (const c of list)
      if (isObj(c) && typeof c.name === 'string' && typeof c.value === 'string') this.header('cookie', `${c.name}=${c.value}`);
  }

  /** URLs, page titles, status texts, start URLs. */
  text(v: unknown): void {
    if (typeof v === 'string') redactFreeText(v, this.named);
  }

  /** Scans a body for credential-named values; true when it replaced none (the text is stored as it is by name). */
  bodyText(text: string | null, mediaType: string | null): boolean {
    const before = this.bodyFinds;
    if (text !== null) redactBodyText(text, mediaType, this.inBody);
    return text !== null && this.bodyFinds === before;
  }

  /** The same for bytes: true when a scan of them replaced nothing. */
  bodyBytes(bytes: Buffer | null, mediaType: string | null): boolean {
    const before = this.bodyFinds;
    if (bytes !== null) redactBodyBytes(bytes, mediaType, this.inBody);
    return bytes !== null && this.bodyFinds === before;
  }

  /**
   * One `log.entries[]` value. Says, per side, whether its body was scanned exactly as the
   * second pass reads it (readHarEntry: the same text or decoded bytes, the same media
   * type) and no credential-named value was found in it: the name redaction of that body
   * (Redactor.body) would then return it unchanged, and the second pass skips it.
   */
  entry(e: Obj): { requestBodyClean: boolean; responseBodyClean: boolean } {
    const req = isObj(e.request) ? e.request : {};
    const res = isObj(e.response) ? e.response : {};
    for (const side of [req, res]) {
      this.headers(side.headers);
      this.cookies(side.cookies);
    }
    this.text(req.url);
    this.text(res.statusText);
    let requestBodyClean = false;
    let responseBodyClean = false;
    if (isObj(req.postData)) requestBodyClean = this.postData(req.postData) && !Array.isArray(req.postData.mimeType);
    if (isObj(res.content)) {
      const text = str(res.content.text);
      const mediaType = str(res.content.mimeType);
      // An array of media types is read as its first by readHarEntry, as none here: not the same scan.
      const sameMediaType = !Array.isArray(res.content.mimeType);
      if (str(res.content.encoding)?.toLowerCase() === 'base64' && text !== null)
        responseBodyClean = this.bodyBytes(decodeBase64Strict(text), mediaType) && sameMediaType;
      else responseBodyClean = this.bodyText(text, mediaType) && sameMediaType;
    }
    return { requestBodyClean, responseBodyClean };
  }

  /** True when `postData.text` was scanned and held no credential-named value (params are read otherwise by the second pass). */
  private postData(pd: Obj): boolean {
    if (typeof pd.text === 'string') return this.bodyText(pd.text, str(pd.mimeType));
    if (!Array.isArray(pd.params)) return false;
    for (const p of pd.params)
      if (isObj(p) && typeof p.name === 'string' && typeof p.value === 'string' && isCredentialParamName(p.name)) this.named(p.value);
    return false;
  }

  /** One scenario Evidence event (docs/evidence-format.md). */
  event(ev: Obj): void {
    if (ev.kind === 'request') this.text(ev.url);
    else if (ev.kind === 'response') this.text(ev.status_text);
    else if (ev.kind === 'network-content') {
      if (isObj(ev.headers)) this.headers(ev.headers.values);
      if (isObj(ev.body) && typeof ev.body.base64 === 'string') this.bodyBytes(decodeBase64Strict(ev.body.base64), str(ev.body.media_type));
    }
  }

  /** `log.pages`: titles are often the page's URL, with an OAuth fragment or a token query. */
  pages(v: unknown): void {
    if (Array.isArray(v)) for (const p of v) if (isObj(p)) this.text(p.title);
  }

  /** Scenario Evidence's `scenario` root member: its start URL. */
  scenario(v: unknown): void {
    if (!isObj(v)) return;
    this.text(v.start_url);
    if (isObj(v.start_url)) this.text(v.start_url.url);
  }
}

/**
 * Which entries' bodies the first pass scanned as the second pass reads them and found no
 * credential-named value in (SecretCollector.entry): two bits per entry, so it stays small
 * whatever the capture's size (19,010 entries at 500 MB: 5 KB).
 */
export class CleanBodies {
  private bits = new Uint8Array(1024);

  note(index: number, side: 'request' | 'response', clean: boolean): void {
    const bit = index * 2 + (side === 'request' ? 0 : 1);
    if (bit >> 3 >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (bit >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    if (clean) this.bits[bit >> 3] |= 1 << (bit & 7);
    else this.bits[bit >> 3] &= ~(1 << (bit & 7));
  }

  /** Another share's bits (collectCredentials' `share`): its entries are not this one's, so the bits are OR-ed. */
  merge(bits: Uint8Array): void {
    if (bits.length > this.bits.length) {
      const grown = new Uint8Array(bits.length);
      grown.set(this.bits);
      this.bits = grown;
    }
    for (let i = 0; i < bits.length; i++) this.bits[i] |= bits[i];
  }

  /** The bits themselves, to hand to another thread. */
  get bytes(): Uint8Array {
    return this.bits;
  }

  has(index: number, side: 'request' | 'response'): boolean {
    const bit = index * 2 + (side === 'request' ? 0 : 1);
    return bit >> 3 < this.bits.length && (this.bits[bit >> 3] & (1 << (bit & 7))) !== 0;
  }
}
