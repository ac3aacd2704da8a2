/**
 * HAR 1.2 entries → records, as Chrome and Firefox DevTools, Playwright `recordHar` and
 * proxy exports write them: plain or base64 `content.text`, cut bodies, `time` of -1 or
 * missing, `timings` phases, `startedDateTime` with any offset, `postData.text`/`params`.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { CapstateError, type ErrorContext } from '../errors.js';
import { decodeBase64Strict, type RetainedBody } from './bodies.js';
import { isOutputTooLarge, type InflateBudget } from './inflate-budget.js';
import { describe, FieldReader, type Obj } from './fields.js';
import { redactForMessage } from './secret-text.js';
import type { Quirk } from './quirks.js';
import type { HeaderIn, LoadedRecord } from './writer.js';

/** Timing phases whose sum is the entry's duration when `time` is absent (ssl is inside connect). */
const PHASES = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive'] as const;

export interface HarEntryOut {
  record: Omit<LoadedRecord, 'requestBodyId' | 'responseBodyId'>;
  requestBody: RetainedBody;
  responseBody: RetainedBody;
}

/**
 * Reads one `log.entries[index]` value. Throws CapstateError naming record and field.
 * `inflate` is the capture's decompression budget, charged with Content-Encoding bodies.
 */
export function readHarEntry(file: string, index: number, entry: unknown, inflate?: InflateBudget): HarEntryOut {
  const ordinal = index + 1;
  const f: FieldReader = new FieldReader(file, ordinal, ['log', 'entries', index]);
  // Producer quirks normalised in this entry (quirks.ts), counted for `capstate info`.
  const quirks: Quirk[] = [];
  const e = f.obj(entry, [], 'an entry');
  const req = f.obj(f.required(e, [], 'request'), ['request'], '"request"');
  const res = f.obj(f.required(e, [], 'response'), ['response'], '"response"');

  const method = f.string(req, ['request'], 'method', { required: true, nonEmpty: true })!;
  const rawUrl = f.string(req, ['request'], 'url', { required: true, nonEmpty: true })!;
  const url = parseUrl(f, rawUrl);
  const status = f.number(res, ['response'], 'status', { required: true, integer: true })!;

  const startedMs = f.instant(e, [], 'startedDateTime');
  const time = f.number(e, [], 'time');
  let durationMs = 0;
  if (time !== null && time >= 0) durationMs = time;
  else if (e.timings !== undefined && e.timings !== null) {
    const t = f.obj(e.timings, ['timings'], '"timings"');
    for (const p of PHASES) {
      const v = f.number(t, ['timings'], p);
      if (v !== null && v > 0) durationMs += v;
    }
  }

  // Request body: postData.text, else params encoded as a form (docs/decisions.md).
  let requestBody: RetainedBody = { mediaType: null, isCut: false };
  let requestMediaType: string | null = null;
  if (req.postData !== undefined && req.postData !== null) {
    const pd = f.obj(req.postData, ['request', 'postData'], '"postData"');
    requestMediaType = mediaType(f, pd, ['request', 'postData'], quirks);
    const text = f.string(pd, ['request', 'postData'], 'text');
    if (text !== null) requestBody = { text, mediaType: requestMediaType, isCut: false };
    else {
      const params = f.array(pd, ['request', 'postData'], 'params');
      if (params.length > 0) {
        const form = new URLSearchParams();
        params.forEach((p, i) => {
          const po = f.obj(p, ['request', 'postData', 'params', i], 'a param');
          const name = f.string(po, ['request', 'postData', 'params', i], 'name', { required: true })!;
          for (const v of paramValues(f, po, i, quirks)) form.append(name, v);
        });
        requestBody = { text: form.toString(), mediaType: requestMediaType, isCut: false };
      }
    }
  }

  // Response body.
  let responseBody: RetainedBody = { mediaType: null, isCut: false };
  let responseMediaType: string | null = null;
  if (res.content !== undefined && res.content !== null) {
    const path = ['response', 'content'];
    const c = f.obj(res.content, path, '"content"');
    responseMediaType = mediaType(f, c, path, quirks) || null;
    const text = f.string(c, path, 'text');
    const encoding = f.string(c, path, 'encoding');
    const size = f.number(c, path, 'size');
    const comment = f.string(c, path, 'comment');
    if (text !== null) {
      let bytes: Buffer | undefined;
      const chunks = wireChunks(text, encoding, c);
      if (chunks) {
        // The header reader's own reading (its quirks are counted where the record's headers are read).
        const coding = headers(f, res, ['response'], []).find((h) => h.name.toLowerCase() === 'content-encoding')?.value ?? null;
        const where = { file, record: ordinal, path: `log.entries[${index}].response.content.text` };
        bytes = decodeContentEncoding(chunks, coding === null ? null : coding.trim().toLowerCase(), inflate, where);
        quirks.push({ code: 'body-chunks', field: 'response.content.text' });
      } else if (encoding !== null && encoding !== '') {
        if (encoding.toLowerCase() !== 'base64')
          f.fail(
            [...path, 'encoding'],
            `unsupported content encoding ${JSON.stringify(encoding)}; capstate reads plain text and base64`,
            'bad-field',
          );
        const decoded = decodeBase64Strict(text);
        if (decoded === null)
          f.fail([...path, 'text'], 'content.text is declared base64 but is not valid base64; re-export the capture', 'invalid-base64');
        bytes = decoded;
      }
      // A producer that kept only part of the body says so by a comment or flag; a size larger
      // than the body as written and as decoded only suggests it (bodies.ts decides).
      const isCut = (comment !== null && /truncat/i.test(comment)) || c._truncated === true;
      const sizeExceeds = size !== null && size > Buffer.byteLength(text, 'utf8') && (!bytes || size > bytes.length);
      responseBody = bytes
        ? { bytes, mediaType: responseMediaType, isCut, sizeExceeds }
        : { text, mediaType: responseMediaType, isCut, sizeExceeds };
    }
  }

  return {
    record: {
      ordinal,
      method,
      url,
      rawUrl,
      startedMs,
      durationMs,
      status,
      statusText: f.string(res, ['response'], 'statusText'),
      httpVersion: f.string(res, ['response'], 'httpVersion') ?? f.string(req, ['request'], 'httpVersion'),
      pageId: f.string(e, [], 'pageref'),
      stepId: null,
      transactionId: null,
      redirectedFromTransactionId: null,
      redirectState: null,
      resourceType: typeof e._resourceType === 'string' ? e._resourceType : null,
      requestMediaType,
      responseMediaType,
      requestHeaders: headers(f, req, ['request'], quirks),
      responseHeaders: headers(f, res, ['response'], quirks),
      requestCookies: cookieNames(f, req, ['request'], quirks),
      responseCookies: cookieNames(f, res, ['response'], quirks),
      ...(quirks.length > 0 ? { quirks } : {}),
    },
    requestBody,
    responseBody,
  };
}

function headers(f: FieldReader, o: Obj, path: (string | number)[], quirks: Quirk[]): HeaderIn[] {
  return f.array(o, path, 'headers').map((h, i) => {
    const at = [...path, 'headers', i];
    const ho = f.obj(h, at, 'a header');
    const name = f.string(ho, at, 'name', { required: true })!;
    // Polly.JS writes a repeated header as one entry whose value is an array: HTTP's own
    // spelling of a repeated header is its values joined with ", " (RFC 9110 §5.3).
    if (Array.isArray(ho.value)) {
      ho.value.forEach((v, j) => {
        if (typeof v !== 'string') f.fail([...at, 'value', j], `a header value must be a string, got ${describe(v)}`);
      });
      quirks.push({ code: 'header-value-array', field: `${path[0]}.headers[].value` });
      return { name, value: (ho.value as string[]).join(', ') };
    }
    return { name, value: f.string(ho, at, 'value') };
  });
}

/**
 * A `mimeType`: a string, or (Polly.JS, from a header kept as an array) an array of
 * strings, read as its first element: a message has one media type.
 */
function mediaType(f: FieldReader, o: Obj, path: (string | number)[], quirks: Quirk[]): string | null {
  const v = o.mimeType;
  if (Array.isArray(v)) {
    v.forEach((x, j) => {
      if (typeof x !== 'string') f.fail([...path, 'mimeType', j], `a media type must be a string, got ${describe(x)}`);
    });
    quirks.push({ code: 'mime-type-array', field: `${path.join('.')}.mimeType` });
    return (v[0] as string | undefined) ?? null;
  }
  return f.string(o, path, 'mimeType');
}

/**
 * A form parameter's values: a string, or what chrome-har writes from Node's
 * `querystring.parse`: an array for a repeated name (`a=1&a=2`, each value kept in order)
 * or another non-string value, kept as its JSON text.
 */
function paramValues(f: FieldReader, po: Obj, i: number, quirks: Quirk[]): string[] {
  const v = po.value;
  if (v !== null && v !== undefined && typeof v !== 'string') {
    quirks.push({ code: 'param-value-object', field: 'request.postData.params[].value' });
    return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [JSON.stringify(v)];
  }
  return [f.string(po, ['request', 'postData', 'params', i], 'value') ?? ''];
}

/** Cookie arrays keep names only: their values are credentials. IE11 writes a lone cookie as an object. */
function cookieNames(f: FieldReader, o: Obj, path: (string | number)[], quirks: Quirk[]): string[] {
  let list: unknown[];
  if (o.cookies !== null && typeof o.cookies === 'object' && !Array.isArray(o.cookies)) {
    quirks.push({ code: 'cookie-object', field: `${path.join('.')}.cookies` });
    list = [o.cookies];
  } else list = f.array(o, path, 'cookies');
  return list.map((c, i) => {
    const co = f.obj(c, [...path, 'cookies', i], 'a cookie');
    return f.string(co, [...path, 'cookies', i], 'name', { required: true })!;
  });
}

/**
 * Parses an absolute URL. Userinfo (`user:password@`) is not refused here: OQ-2 (revised)
 * refuses it only on admitted records, after the manifest (Redactor.refuseAdmitted); the
 * stored URL never keeps it (Redactor.url). An error never prints a credential value.
 */
export function parseUrl(f: FieldReader, raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    return f.fail(
      ['request', 'url'],
      `not an absolute URL: ${JSON.stringify(redactForMessage(raw).slice(0, 80))}; capstate needs the scheme and host of every request (re-export the capture)`,
      'bad-field',
    );
  }
}

/** `log.pages[]` → page rows. `"pages": null` (Fiddler) is absent, as HAR 1.2 allows (the caller notes the quirk). */
export function readHarPages(file: string, pages: unknown): { id: string; title: string | null; startedMs: number | null }[] {
  const f: FieldReader = new FieldReader(file, undefined, ['log', 'pages']);
  if (pages === null) return [];
  if (!Array.isArray(pages)) throw new CapstateError('bad-field', '"pages" must be an array', { file, path: 'log.pages' });
  return pages.map((p, i) => {
    const po = f.obj(p, [i], 'a page');
    return {
      id: f.string(po, [i], 'id', { required: true })!,
      title: f.string(po, [i], 'title'),
      startedMs: f.instant(po, [i], 'startedDateTime'),
    };
  });
}

/**
 * Polly.JS keeps a body it could not read as text as the bytes on the wire, split into
 * chunks written as a JSON array: base64 strings under `encoding: "base64"` (Polly 6), or
 * hex strings flagged `_isBinary` (older versions). Returns the joined bytes, else null
 * (a body in any other shape is read as HAR 1.2 says).
 */
function wireChunks(text: string, encoding: string | null, c: Obj): Buffer | null {
  const base64 = encoding !== null && encoding.toLowerCase() === 'base64';
  if (!(base64 || c._isBinary === true) || !text.startsWith('[')) return null;
  let parts: unknown;
  try {
    parts = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every((p) => typeof p === 'string')) return null;
  const strings = parts as string[];
  if (base64) {
    const decoded = strings.map((p) => decodeBase64Strict(p));
    return decoded.every((d) => d !== null) ? Buffer.concat(decoded as Buffer[]) : null;
  }
  return strings.every((p) => /^(?:[0-9a-fA-F]{2})*$/.test(p)) ? Buffer.concat(strings.map((p) => Buffer.from(p, 'hex'))) : null;
}

/** The most one body inflates to; a body that would pass it stays as recorded (not usable JSON). */
const MAX_INFLATED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Wire bytes decompressed as Content-Encoding says, at most a usable body's worth beyond;
 * left as they are when that fails. Each body is also charged to the capture's budget
 * (issue 42: twenty bodies under the per-body cap inflated to 1.26 GB): zlib stops at what
 * is left of it, so memory never holds more before the error naming `where`.
 */
function decodeContentEncoding(bytes: Buffer, coding: string | null, inflate: InflateBudget | undefined, where: ErrorContext): Buffer {
  if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== 'br' && coding !== 'deflate') return bytes;
  const cap = Math.min(MAX_INFLATED_BODY_BYTES, inflate ? inflate.remaining : Infinity);
  const limit = { maxOutputLength: Math.max(1, cap) };
  const site = {
    subject: `the body (Content-Encoding: ${coding})`,
    context: where,
    advice: 'If the capture is genuine, remove its oversized bodies',
  };
  let out: Buffer;
  try {
    if (coding === 'br') out = brotliDecompressSync(bytes, limit);
    else if (coding === 'deflate') {
      try {
        out = inflateSync(bytes, limit);
      } catch (e) {
        if (isOutputTooLarge(e)) throw e;
        out = inflateRawSync(bytes, limit);
      }
    } else out = gunzipSync(bytes, limit);
  } catch (e) {
    // Past what the budget has left: the load stops. Past one body's worth, or not what the
    // header says: the bytes stay as recorded (not UTF-8, so not usable JSON).
    if (inflate && isOutputTooLarge(e) && cap < MAX_INFLATED_BODY_BYTES) throw inflate.exceeded(site);
    return bytes;
  }
  inflate?.charge(out.length, site);
  return out;
}
