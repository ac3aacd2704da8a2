/**
 * MCP results: an answer as structuredContent plus text content for text-only clients,
 * and the one error shape `{ok: false, code, message, context}` with `isError: true`.
 */
import { DECLINED_CODES, provenanceMeta } from '../model/served/provenance.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import { CapstateError } from '../errors.js';
import { plainError } from '../model/plan/words.js';
import { objectEntries, stringifyExact, type JsonValue } from '../json/exact.js';
import { toJson } from '../json/output.js';
import type { CallAnswer } from '../model/served/answer.js';
import { childPointer } from '../json/pointer.js';

/**
 * A JSON-safe copy for structuredContent: Maps become objects, Buffers `{base64}`, and
 * integers beyond 2^53 become decimal strings (JSON-RPC serialisers and most clients
 * would round them), listed by JSON pointer in `bigints` so nothing passes silently.
 */
export function toPlain(v: unknown, bigints: string[] = [], pointer = ''): unknown {
  if (typeof v === 'bigint') {
    bigints.push(pointer);
    return v.toString();
  }
  if (v === null || typeof v !== 'object') return v;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { base64: Buffer.from(v).toString('base64') };
  if (Array.isArray(v)) return v.map((x, i) => toPlain(x, bigints, `${pointer}/${i}`));
  const out: Record<string, unknown> = {};
  const entries = v instanceof Map ? [...v] : objectEntries(v as Record<string, JsonValue>);
  for (const [k, x] of entries)
    Object.defineProperty(out, k, {
      value: toPlain(x, bigints, childPointer(pointer, k)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

/** A request line or reason that echoes a caller's long value (a 9 MB id answered with a 404) is echoed in short. */
const echoed = (s: string) => (s.length > ECHO_MAX_CHARS * 4 ? shortEcho(s) : s);

/** A replay answer: status, body (exact text in content), which record answered and why. */
export function answerResult(answer: CallAnswer): CallToolResult {
  const a = { ...answer, request_line: echoed(answer.request_line), why: echoed(answer.why) };
  const bigints: string[] = [];
  const body = a.body;
  const structured: Record<string, unknown> = {
    status: a.status,
    body: body.value !== undefined && !body.is_rendered_oversize ? toPlain(body.value, bigints) : null,
    body_kind: body.kind,
    record_ordinal: a.record_ordinal,
    request_line: a.request_line,
    source: a.source,
    why: a.why,
    // Plain words in `why` and `body_note` (issue 19); the rules behind them here.
    rules: body.is_rendered_oversize ? [...new Set([...a.rules, 'DOC-4'])] : a.rules,
  };
  if (bigints.length) structured.integers_as_strings = bigints;
  if (a.headers) structured.headers = a.headers;
  if (body.is_rendered_oversize)
    structured.body_note = 'rendered-oversize: the JSON value renders to more than 256 KiB; the recorded body is in the text content';
  if (body.kind === 'text' && body.text !== undefined) structured.body_text = body.text;
  if (body.kind === 'base64' && body.base64 !== undefined) structured.body_base64 = body.base64;
  if (body.kind === 'cut') structured.body_note = 'the capture retained this body only in part';
  const head =
    a.source === 'state'
      ? `HTTP ${a.status} rendered from state (${a.request_line}); why: ${a.why}`
      : `HTTP ${a.status} replayed from record #${a.record_ordinal} (${a.request_line}); why: ${a.why}`;
  let text: string;
  switch (body.kind) {
    case 'none':
      text = '(no response body retained)';
      break;
    case 'base64':
      text = `(binary body, ${body.bytes} bytes, base64) ${body.base64 ?? ''}`;
      break;
    case 'cut':
      text = `(body retained only in part)\n${body.text ?? body.base64 ?? ''}`;
      break;
    default:
      text = body.text ?? '';
  }
  return {
    content: [
      { type: 'text', text: head },
      { type: 'text', text },
    ],
    structuredContent: structured,
    _meta: provenanceMeta(answer),
  };
}

/** A caller's value longer than this is echoed in an error as a prefix and a hash. */
export const ECHO_MAX_CHARS = 256;
/** Any other string of an error longer than this is cut the same way. */
const ERROR_STRING_MAX_CHARS = 4096;
const ECHO_PREFIX_CHARS = 64;

/** `abc…` plus the value's length and hash: enough to tell which value it was, never the value again. */
export function shortEcho(value: string): string {
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 16);
  return `${value.slice(0, ECHO_PREFIX_CHARS)}… (${Buffer.byteLength(value, 'utf8')} bytes, sha256 ${hash}…)`;
}

/** Strings (values and member names) of a call's arguments too long to echo, longest first. */
function longStrings(v: unknown, out: Set<string>, depth = 0): Set<string> {
  if (depth > 64) return out;
  if (typeof v === 'string') {
    if (v.length > ECHO_MAX_CHARS) out.add(v);
  } else if (Array.isArray(v)) for (const x of v) longStrings(x, out, depth + 1);
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (k.length > ECHO_MAX_CHARS) out.add(k);
      longStrings(x, out, depth + 1);
    }
  return out;
}

/**
 * An error document whose echoes of the caller's long values are short: each long argument
 * value (or its percent-encoded spelling in a request line) becomes `shortEcho`, and any
 * string still too long is cut. A 10 MB id once came back four times (message, context,
 * text and structured content), 40 MB that the SDK client refused.
 */
function withShortEchoes(v: unknown, long: string[]): unknown {
  if (typeof v === 'string') {
    let s = v;
    for (const l of long) {
      for (const spelling of [l, encodeURIComponent(l)]) if (s.includes(spelling)) s = s.split(spelling).join(shortEcho(l));
    }
    return s.length > ERROR_STRING_MAX_CHARS ? shortEcho(s) : s;
  }
  if (Array.isArray(v)) return v.map((x) => withShortEchoes(x, long));
  if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[withShortEchoes(k, long) as string] = withShortEchoes(x, long);
    return out;
  }
  return v;
}

/**
 * Any failure as the one error shape (DESIGN.md "Errors"), with `isError: true`. `args`,
 * the call's arguments, are echoed only in short (`shortEcho`).
 */
export function errorResult(e: unknown, args?: unknown): CallToolResult {
  const full =
    e instanceof CapstateError
      ? plainError(e.toJSON())
      : { ok: false as const, code: 'internal', message: String((e as Error)?.message ?? e), context: {} };
  const long = [...longStrings(args, new Set())].sort((a, b) => b.length - a.length);
  const doc = withShortEchoes(full, long) as typeof full;
  return {
    isError: true,
    content: [{ type: 'text', text: toJson(doc, 0) }],
    structuredContent: toPlain(doc) as Record<string, unknown>,
    ...(DECLINED_CODES.has(doc.code) ? { _meta: { 'capstate/answer': 'declined' } } : {}),
  };
}

/** A successful analysis result: the document as structuredContent and exact JSON text. */
export function documentResult(doc: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: toJson(doc) }], structuredContent: toPlain(doc) as Record<string, unknown> };
}

/** An analysis document holding exact JSON values (the state view): exact text, plain structuredContent. */
export function exactDocumentResult(doc: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: stringifyExact(doc as unknown as JsonValue, 2) }],
    structuredContent: toPlain(doc) as Record<string, unknown>,
  };
}
