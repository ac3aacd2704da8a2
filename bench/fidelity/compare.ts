/**
 * The fidelity benchmark's judgement of one answer against the real app's (bench/README.md,
 * "Fidelity on held-out requests"): matched, wrong or declined, with the masking rules.
 * Pure functions, so test/fidelity-harness.test.ts checks them on hand-made pairs.
 */
import { isDeepStrictEqual } from 'node:util';

/** One HTTP answer as the benchmark keeps it: the app's (the truth) or the model's. */
export interface Answer {
  status: number;
  content_type: string | null;
  /** The body parsed as JSON, when it is JSON; otherwise absent and `text` holds it. */
  json?: unknown;
  text?: string;
  x_total_count: string | null;
  link: string | null;
  /** Only on the model's answers: capstate's provenance and error headers, kept to classify. */
  /** capstate's provenance headers: Capstate-Answer, X-Capstate-Source, X-Capstate-Error and, where one was used, Capstate-Convention. */
  capstate?: { source?: string | null; answer?: string | null; error?: string | null; convention?: string | null };
}

export type Verdict = 'matched' | 'wrong' | 'declined';

/** Per app: names of members whose values the app sets itself and that differ between runs. */
export interface MaskRules {
  fields: string[];
}

export const NO_MASK: MaskRules = { fields: [] };

/** Parses a body into the Answer's `json`/`text` pair: JSON when the text parses as JSON. */
export function bodyOf(text: string): { json?: unknown; text?: string } {
  if (text.trim() === '') return { text: '' };
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { text };
  }
}

/** Replaces the value of every member named in `rules.fields`, at any depth, by "<masked>". */
export function maskJson(value: unknown, rules: MaskRules): unknown {
  if (rules.fields.length === 0) return value;
  if (Array.isArray(value)) return value.map((v) => maskJson(v, rules));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rules.fields.includes(k) ? '<masked>' : maskJson(v, rules)]));
  }
  return value;
}

/**
 * A `Link` header as rel → path and query: the origin is masked (the app and the model listen
 * on different ports, and each names its own host), and the order of link-values is not
 * meaningful (RFC 8288).
 */
export function linkRels(link: string | null): Record<string, string> | null {
  if (link === null) return null;
  const rels: Record<string, string> = {};
  for (const m of link.matchAll(/<([^>]*)>\s*;\s*rel="?([^",;]+)"?/g)) {
    rels[m[2]] = m[1].replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+/i, '');
  }
  return rels;
}

/**
 * Declined: the model says it cannot answer, in a way no client takes for the app's answer.
 * Exactly one of: status 501; a `application/problem+json` body; a `Capstate-Answer: declined`
 * header (issue 44's provenance header); or a status of 500 or more carrying capstate's own
 * `x-capstate-error` (for example 502 `no-response`). capstate's 400 and 404 error documents
 * (`no-record`, `no-route`, `bad-arguments`) are not declines: they look like the app's own
 * answers, so they count as wrong unless the truth is the same.
 */
export function isDeclined(a: Answer): boolean {
  if (a.status === 501) return true;
  if (a.content_type && /^application\/problem\+json\b/i.test(a.content_type)) return true;
  if (a.capstate?.answer && /^declined\b/i.test(a.capstate.answer.trim())) return true;
  return a.status >= 500 && !!a.capstate?.error;
}

/**
 * Why the model declined, as its own error code says: the `x-capstate-error` header, else the
 * `code` of its problem document (a not-found the capture gave no body for: `default-not-found`),
 * else `declined`. Read from capstate's answer only, for the table of declines by reason.
 */
export function declineReason(a: Answer): string {
  if (a.capstate?.error) return a.capstate.error;
  const code = a.json !== null && typeof a.json === 'object' ? (a.json as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'declined';
}

/**
 * Matched when status and body (after masking) agree and, where the truth has them,
 * `X-Total-Count` and `Link` (origin masked) agree too; otherwise declined (isDeclined) or
 * wrong. `why` says what differed, for the raw results.
 */
export function judge(truth: Answer, model: Answer, rules: MaskRules = NO_MASK): { verdict: Verdict; why: string[] } {
  const why: string[] = [];
  if (truth.status !== model.status) why.push(`status ${model.status}, app ${truth.status}`);
  if (truth.json !== undefined) {
    if (model.json === undefined) why.push('body is not JSON');
    else if (!isDeepStrictEqual(maskJson(truth.json, rules), maskJson(model.json, rules))) why.push('JSON body differs');
  } else if ((truth.text ?? '').trim() !== (model.text ?? (model.json !== undefined ? JSON.stringify(model.json) : '')).trim()) {
    why.push('body differs');
  }
  if (truth.x_total_count !== null && truth.x_total_count !== model.x_total_count) {
    why.push(`X-Total-Count ${model.x_total_count ?? 'absent'}, app ${truth.x_total_count}`);
  }
  // An empty Link header and none both say "no links" (RFC 8288: a Link header is a list of links).
  if (truth.link !== null && !isDeepStrictEqual(linkRels(truth.link), linkRels(model.link) ?? {})) why.push('Link differs');
  if (why.length === 0) return { verdict: 'matched', why };
  return { verdict: isDeclined(model) ? 'declined' : 'wrong', why };
}
