/**
 * The loader's first pass (BS-65, issue 15): the credential values one capture carries,
 * so the second pass can replace their echoes anywhere else (a login response returning
 * the bearer token, a password echoed base64-encoded, a session id in a Referer). It reads
 * the same places the second pass redacts by name or form: credential headers and
 * cookies, headers by value, URLs, page titles, status texts and bodies.
 */
import { decodeBase64Strict } from './bodies.js';
import type { Obj } from './fields.js';
import { credentialValues, isCredentialHeader, MIN_CREDENTIAL_LENGTH } from './secrets.js';
import { isCredentialParamName, isCredentialValue, redactBodyBytes, redactBodyText, redactFreeText, schemeSecrets, type Found } from './secret-text.js';

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

  /** A value from a credential header, cookie or authorization scheme: always searched for (≥ 8 characters). */
  private readonly strong: Found = (v) => {
    if (v.length >= MIN_CREDENTIAL_LENGTH) this.values.add(v);
  };

  /** A value found under a credential name: searched for when it looks like a secret. */
  private readonly named: Found = (v) => {
    if (looksLikeSecret(v)) this.values.add(v);
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
    for (const c of list) if (isObj(c) && typeof c.name === 'string' && typeof c.value === 'string') this.header('cookie', `${c.name}=${c.value}`);
  }

  /** URLs, page titles, status texts, start URLs. */
  text(v: unknown): void {
    if (typeof v === 'string') redactFreeText(v, this.named);
  }

  bodyText(text: string | null, mediaType: string | null): void {
    if (text !== null) redactBodyText(text, mediaType, this.named);
  }

  bodyBytes(bytes: Buffer | null, mediaType: string | null): void {
    if (bytes !== null) redactBodyBytes(bytes, mediaType, this.named);
  }

  /** One `log.entries[]` value. */
  entry(e: Obj): void {
    const req = isObj(e.request) ? e.request : {};
    const res = isObj(e.response) ? e.response : {};
    for (const side of [req, res]) {
      this.headers(side.headers);
      this.cookies(side.cookies);
    }
    this.text(req.url);
    this.text(res.statusText);
    if (isObj(req.postData)) this.postData(req.postData);
    if (isObj(res.content)) {
      const text = str(res.content.text);
      const mediaType = str(res.content.mimeType);
      if (str(res.content.encoding)?.toLowerCase() === 'base64' && text !== null) this.bodyBytes(decodeBase64Strict(text), mediaType);
      else this.bodyText(text, mediaType);
    }
  }

  private postData(pd: Obj): void {
    if (typeof pd.text === 'string') return this.bodyText(pd.text, str(pd.mimeType));
    if (!Array.isArray(pd.params)) return;
    for (const p of pd.params) if (isObj(p) && typeof p.name === 'string' && typeof p.value === 'string' && isCredentialParamName(p.name)) this.named(p.value);
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
