/**
 * How an answer was made (issue 44: "every answer says how it was made"). A stand-in is used
 * for requests nobody recorded, so a caller must be able to tell the model's answers apart:
 *
 * - `state`: rendered from, or written to, the session's model by a plan the capture checked;
 * - `convention`: decided by a documented default or a convention the model applies where the
 *   capture holds no evidence of its own (`convention` names which, e.g. `default-not-found`);
 * - `replay`: a retained record, as recorded;
 * - `declined`: the model cannot answer; no answer is invented. Over HTTP a decline is a 501
 *   with `application/problem+json` (no client takes it for the app's own answer), never a
 *   400 or 404 that pretends to be the app.
 *
 * HTTP sends it as `Capstate-Answer` (with `Capstate-Rules` and `Capstate-Convention`), MCP
 * as the result's `_meta` (`capstate/answer`, `capstate/rules`, `capstate/convention`).
 */
import type { CallAnswer } from './answer.js';

export type AnswerKind = 'state' | 'convention' | 'replay' | 'declined';

/** Error codes that mean "the model cannot answer this call", as opposed to a caller's mistake. */
export const DECLINED_CODES: ReadonlySet<string> = new Set(['no-route', 'no-record', 'no-response', 'no-convention', 'stale-record']);

/** The status of a decline over HTTP: Not Implemented, which no app under test answers for a plain read or write. */
export const DECLINED_STATUS = 501;

/** How `a` was made. */
export function answerKind(a: Pick<CallAnswer, 'source' | 'convention'>): AnswerKind {
  return a.convention ? 'convention' : a.source;
}

/** The provenance of an answer as HTTP headers (lower-cased names). */
export function provenanceHeaders(a: Pick<CallAnswer, 'source' | 'convention' | 'rules'>): Record<string, string> {
  return {
    'capstate-answer': answerKind(a),
    ...(a.rules.length ? { 'capstate-rules': a.rules.join(', ') } : {}),
    ...(a.convention ? { 'capstate-convention': a.convention } : {}),
  };
}

/** The provenance of an answer as an MCP result's `_meta`. */
export function provenanceMeta(a: Pick<CallAnswer, 'source' | 'convention' | 'rules'>): Record<string, unknown> {
  return {
    'capstate/answer': answerKind(a),
    'capstate/rules': a.rules,
    ...(a.convention ? { 'capstate/convention': a.convention } : {}),
  };
}
