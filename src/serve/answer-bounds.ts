/**
 * Every answer bounded (issue 42): an MCP tool result or an HTTP answer larger than the
 * operator's limit (`serve --max-answer-bytes`) becomes an `answer-too-large` error for
 * that one call, and the session goes on. Without a bound, a 20 MB answer passed the
 * official SDK client's 10 MiB read buffer: the client dropped the line, the caller waited
 * for its timeout, and the session was lost.
 */
import type { ServerResponse } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CapstateError } from '../errors.js';
import { plainError } from '../model/plan/words.js';
import { errorResult } from './results.js';

/**
 * The default limit: under the 10 MiB that the MCP SDK's stdio client reads in one line
 * (`STDIO_DEFAULT_MAX_BUFFER_SIZE`), with room for the JSON-RPC envelope, so a default
 * client never loses its session to an answer capstate sends.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** The smallest limit accepted: an answer-too-large error itself must fit under it. */
export const MIN_MAX_ANSWER_BYTES = 4 * 1024;
/** The largest: well under what one JavaScript string holds (about 512 MiB). */
export const MAX_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/**
 * The HTTP status of an answer over the limit: 507. A 5xx because the request was valid
 * and the limit is the operator's (413 is about a request's own content); 507, not 500,
 * so it is never mistaken for an internal error, and clients that do not know it read it
 * as 500 (RFC 9110 §15).
 */
export const ANSWER_TOO_LARGE_STATUS = 507;

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kib: 1024, m: 1024 * 1024, mib: 1024 * 1024 };

/** `--max-answer-bytes`: a whole number of bytes, or with KiB/MiB (`8MiB`, `512k`). */
export function parseMaxAnswerBytes(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ANSWER_BYTES;
  const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  const n = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(n) || n < MIN_MAX_ANSWER_BYTES || n > MAX_MAX_ANSWER_BYTES) {
    throw new CapstateError(
      'usage',
      `--max-answer-bytes takes a size from ${MIN_MAX_ANSWER_BYTES} bytes to ${MAX_MAX_ANSWER_BYTES / 1024 / 1024} MiB (for example 8388608 or 8MiB), not ${JSON.stringify(value)}`,
      {},
      2,
    );
  }
  return n;
}

/** How a caller of each tool asks for less. */
function howToAskForLess(tool: string): string {
  switch (tool) {
    case 'query_store':
      return 'select fewer or narrower rows (a LIMIT, a smaller max_rows, substr() of long columns)';
    case 'get_state':
    case 'inspect_analysis_view':
    case 'inspect_environment_manifest':
      return 'read the parts you need with query_store';
    case 'GET /__capstate/state':
      return "read the entities you need on the app's own paths";
    default:
      return 'ask for less (a narrower request, a smaller page)';
  }
}

/** The error of an answer of `bytes` bytes to `what`, over `maxBytes`. */
export function answerTooLarge(what: string, bytes: number, maxBytes: number, tool = what): CapstateError {
  return new CapstateError(
    'answer-too-large',
    `the answer to ${what} is ${bytes} bytes, ${bytes - maxBytes} over the server's limit of ${maxBytes} bytes, and was not sent; ` +
      `${howToAskForLess(tool)}, or start the server with a larger --max-answer-bytes`,
    { tool, bytes, max_bytes: maxBytes },
  );
}

/**
 * A tool result as sent, or, when its JSON passes `maxBytes`, the `answer-too-large` error
 * result in its place (`isError: true`): the call fails, the session does not.
 */
export function boundToolResult(result: CallToolResult, tool: string, maxBytes: number): CallToolResult {
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  return bytes <= maxBytes ? result : errorResult(answerTooLarge(tool, bytes, maxBytes));
}

/** Each HTTP answer's limit, set when its request arrives (the server's --max-answer-bytes). */
const httpLimits = new WeakMap<ServerResponse, number>();

/** Bounds every answer sent on `res` to `maxBytes`. */
export function limitAnswer(res: ServerResponse, maxBytes = DEFAULT_MAX_ANSWER_BYTES): void {
  httpLimits.set(res, maxBytes);
}

/**
 * An HTTP answer as given, or, when its body passes the limit set on `res`, a 507 with the
 * one error shape (`answer-too-large`, `x-capstate-error`) in its place.
 */
export function boundHttpAnswer(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string>,
): { status: number; body: string | Buffer; headers: Record<string, string> } {
  const maxBytes = httpLimits.get(res) ?? DEFAULT_MAX_ANSWER_BYTES;
  const bytes = Buffer.byteLength(body);
  if (bytes <= maxBytes) return { status, body, headers };
  const req = res.req;
  const what = req ? `${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0].slice(0, 256)}` : 'this request';
  const doc = plainError(answerTooLarge(what, bytes, maxBytes, headers['x-capstate-tool'] ?? what).toJSON());
  // The recorded answer's own headers (content-type, the record's) do not describe this one;
  // the server's CORS headers still apply.
  const kept = Object.fromEntries(Object.entries(headers).filter(([k]) => /^(access-control-|vary$)/i.test(k)));
  return {
    status: ANSWER_TOO_LARGE_STATUS,
    body: JSON.stringify(doc) + '\n',
    headers: { ...kept, 'content-type': 'application/json', 'x-capstate-error': doc.code },
  };
}
