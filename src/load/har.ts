/**
 * HAR 1.2 entries → records, as Chrome and Firefox DevTools, Playwright `recordHar` and
 * proxy exports write them: plain or base64 `content.text`, cut bodies, `time` of -1 or
 * missing, `timings` phases, `startedDateTime` with any offset, `postData.text`/`params`.
 */
import { CapstateError } from '../errors.js';
import { decodeBase64Strict, type RetainedBody } from './bodies.js';
import { FieldReader, type Obj } from './fields.js';
import type { HeaderIn, LoadedRecord } from './writer.js';

/** Timing phases whose sum is the entry's duration when `time` is absent (ssl is inside connect). */
const PHASES = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive'] as const;

export interface HarEntryOut {
  record: Omit<LoadedRecord, 'requestBodyId' | 'responseBodyId'>;
  requestBody: RetainedBody;
  responseBody: RetainedBody;
}

/** Reads one `log.entries[index]` value. Throws CapstateError naming record and field. */
export function readHarEntry(file: string, index: number, entry: unknown): HarEntryOut {
  const ordinal = index + 1;
  const f: FieldReader = new FieldReader(file, ordinal, ['log', 'entries', index]);
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
    requestMediaType = f.string(pd, ['request', 'postData'], 'mimeType');
    const text = f.string(pd, ['request', 'postData'], 'text');
    if (text !== null) requestBody = { text, mediaType: requestMediaType, isCut: false };
    else {
      const params = f.array(pd, ['request', 'postData'], 'params');
      if (params.length > 0) {
        const form = new URLSearchParams();
        params.forEach((p, i) => {
          const po = f.obj(p, ['request', 'postData', 'params', i], 'a param');
          form.append(f.string(po, ['request', 'postData', 'params', i], 'name', { required: true })!,
            f.string(po, ['request', 'postData', 'params', i], 'value') ?? '');
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
    responseMediaType = f.string(c, path, 'mimeType') || null;
    const text = f.string(c, path, 'text');
    const encoding = f.string(c, path, 'encoding');
    const size = f.number(c, path, 'size');
    const comment = f.string(c, path, 'comment');
    if (text !== null) {
      let bytes: Buffer | undefined;
      if (encoding !== null && encoding !== '') {
        if (encoding.toLowerCase() !== 'base64') f.fail([...path, 'encoding'], `unsupported content encoding ${JSON.stringify(encoding)}; capstate reads plain text and base64`, 'bad-field');
        const decoded = decodeBase64Strict(text);
        if (decoded === null) f.fail([...path, 'text'], 'content.text is declared base64 but is not valid base64; re-export the capture', 'invalid-base64');
        bytes = decoded;
      }
      const retained = bytes ? bytes.length : Buffer.byteLength(text, 'utf8');
      // A producer that kept only part of the body says so by size or by a comment/flag.
      const isCut = (size !== null && size > retained) || (comment !== null && /truncat/i.test(comment)) || c._truncated === true;
      responseBody = bytes ? { bytes, mediaType: responseMediaType, isCut } : { text, mediaType: responseMediaType, isCut };
    }
  }

  return {
    record: {
      ordinal, method, url, rawUrl, startedMs, durationMs, status,
      statusText: f.string(res, ['response'], 'statusText'),
      httpVersion: f.string(res, ['response'], 'httpVersion') ?? f.string(req, ['request'], 'httpVersion'),
      pageId: f.string(e, [], 'pageref'),
      stepId: null, transactionId: null, redirectedFromTransactionId: null, redirectState: null,
      resourceType: typeof e._resourceType === 'string' ? e._resourceType : null,
      requestMediaType, responseMediaType,
      requestHeaders: headers(f, req, ['request']),
      responseHeaders: headers(f, res, ['response']),
      requestCookies: cookieNames(f, req, ['request']),
      responseCookies: cookieNames(f, res, ['response']),
    },
    requestBody,
    responseBody,
  };
}

function headers(f: FieldReader, o: Obj, path: (string | number)[]): HeaderIn[] {
  return f.array(o, path, 'headers').map((h, i) => {
    const ho = f.obj(h, [...path, 'headers', i], 'a header');
    return { name: f.string(ho, [...path, 'headers', i], 'name', { required: true })!, value: f.string(ho, [...path, 'headers', i], 'value') };
  });
}

/** Cookie arrays keep names only: their values are credentials. */
function cookieNames(f: FieldReader, o: Obj, path: (string | number)[]): string[] {
  return f.array(o, path, 'cookies').map((c, i) => {
    const co = f.obj(c, [...path, 'cookies', i], 'a cookie');
    return f.string(co, [...path, 'cookies', i], 'name', { required: true })!;
  });
}

/** Parses an absolute URL; rejects userinfo, which would carry a credential into the store. */
export function parseUrl(f: FieldReader, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return f.fail(['request', 'url'], `not an absolute URL: ${JSON.stringify(raw.slice(0, 80))}`, 'bad-field');
  }
  if (url.username || url.password) {
    f.fail(['request', 'url'], 'the URL carries credentials (user:password@); remove them from the capture and load it again', 'sensitive-value');
  }
  return url;
}

/** `log.pages[]` → page rows. */
export function readHarPages(file: string, pages: unknown): { id: string; title: string | null; startedMs: number | null }[] {
  const f: FieldReader = new FieldReader(file, undefined, ['log', 'pages']);
  if (!Array.isArray(pages)) throw new CapstateError('bad-field', '"pages" must be an array', { file, path: 'log.pages' });
  return pages.map((p, i) => {
    const po = f.obj(p, [i], 'a page');
    return { id: f.string(po, [i], 'id', { required: true })!, title: f.string(po, [i], 'title'), startedMs: f.instant(po, [i], 'startedDateTime') };
  });
}
