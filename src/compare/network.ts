/**
 * Network normalization (BS-68, BS-74, BS-75, OQ-46): events grouped by transaction
 * without their capture-local ids, attributed to the step that sent the request, each
 * hop fingerprinted with its redirect ancestry, and compared per step as an unordered set.
 */
import { CapstateError } from '../errors.js';
import { decodeBase64Strict } from '../load/bodies.js';
import { sha256Hex } from '../json/sha256.js';
import type { Obj } from '../load/fields.js';
import { canonicalSha256 } from './canonical.js';
import type { CaptureIn } from './input.js';
import { applyRules, applyRulesDeep, type Policy } from './policy.js';

export const NETWORK_KINDS = new Set([
  'request',
  'response',
  'request-finished',
  'request-failed',
  'request-unfinished',
  'network-content',
]);

/** The step key of `initial_state` (its events have `step_id: null`). */
export const INITIAL = '\u0000initial';
export const stepKey = (id: unknown): string => (typeof id === 'string' ? id : INITIAL);

/** BS-74: fields removed from every network event (capture-local ids, sequence/index, anchors). */
const LOCAL_FIELDS = [
  'sequence',
  'index',
  'step_id',
  'transaction_id',
  'redirected_from_transaction_id',
  'redirected_from_transaction_state',
  'source_event_sequence',
];
/** BS-58, BS-60: request timing, removed under `ignore_network_request_timing`. */
const TIMING_FIELDS = ['observed_at', 'started_at', 'elapsed_ms'];

/** One hop as the comparison sees it. */
export interface Hop {
  /** BS-75 fingerprint; for an `unknown` ancestry, the fingerprint with `redirected_from: "unknown"`. */
  fingerprint: string;
  /** Why the ancestry is unknown (BS-61, BS-75), or null. */
  ancestry_unknown: string | null;
  method: string | null;
  url: string | null;
  status: number | null;
  /** The hop's normalized events (for naming what differs; never hashed again). */
  normalized: Obj[];
}

/** A step's hops, and the ids of the transactions they come from (for omission reports, BS-36). */
export interface StepNetwork {
  hops: Hop[];
  transactions: string[];
}

/** A body's normalized form: caller rules applied to text bodies, then its SHA-256. */
function normalizeBody(body: Obj, p: Policy): Obj {
  const out: Obj = { ...body };
  if (typeof body.base64 === 'string') {
    const bytes = decodeBase64Strict(body.base64) ?? Buffer.from(body.base64, 'utf8');
    const text = bytes.toString('utf8');
    const isText = Buffer.from(text, 'utf8').equals(bytes);
    // BS-76: caller rules reach retained strings; a text body is one.
    out.sha256 = isText ? sha256Hex(Buffer.from(applyRules(p.rules, 'network', text), 'utf8')) : sha256Hex(bytes);
    delete out.base64;
    delete out.bytes;
  }
  return out;
}

/** One network event without capture-local fields; content keeps its phase instead of its anchor. */
function normalizeEvent(ev: Obj, phase: string | null, p: Policy): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(ev)) {
    if (LOCAL_FIELDS.includes(k)) continue;
    if (p.options.ignore_network_request_timing && TIMING_FIELDS.includes(k)) continue;
    out[k] = v;
  }
  if (ev.kind === 'network-content') {
    out.phase = phase;
    if (out.body && typeof out.body === 'object') out.body = normalizeBody(out.body as Obj, p);
  }
  return applyRulesDeep(p.rules, 'network', out) as Obj;
}

/** Per step key, the hops attributed to it (by sending step, BS-68). */
export function networkBySendingStep(c: CaptureIn, p: Policy): Map<string, StepNetwork> {
  const txs = new Map<string, { events: Obj[]; request: Obj | null; first: Obj }>();
  const bySeq = new Map<unknown, Obj>();
  c.events.forEach((ev, i) => {
    if (!NETWORK_KINDS.has(ev.kind as string)) return;
    const id = ev.transaction_id;
    // BS-61: a network event without its transaction id is malformed capture data.
    if (typeof id !== 'string' || id === '')
      throw new CapstateError('missing-field', `${c.side}: a ${String(ev.kind)} event has no transaction_id; the capture is malformed`, {
        file: c.source,
        path: `events[${i}].transaction_id`,
        side: c.side,
      });
    bySeq.set(ev.sequence, ev);
    const t = txs.get(id) ?? { events: [], request: null, first: ev };
    t.events.push(ev);
    if (ev.kind === 'request') t.request = ev;
    txs.set(id, t);
  });
  const digests = new Map<string, string[]>();
  const normalized = new Map<string, Obj[]>();
  for (const [id, t] of txs) {
    const list = t.events.map((ev) => {
      const src = ev.kind === 'network-content' ? bySeq.get(ev.source_event_sequence) : undefined;
      const phase =
        ev.kind !== 'network-content'
          ? null
          : src && src.transaction_id === id && (src.kind === 'request' || src.kind === 'response')
            ? (src.kind as string)
            : 'unknown';
      return normalizeEvent(ev, phase, p);
    });
    normalized.set(id, list);
    digests.set(id, list.map((ev) => canonicalSha256(ev)).sort());
  }
  // BS-75: fp(hop) = SHA-256(canonical {events: sorted digests, redirected_from: fp(predecessor) | null}).
  const memo = new Map<string, { fp: string; unknown: string | null }>();
  const fingerprint = (id: string, visiting: Set<string>): { fp: string; unknown: string | null } => {
    const hit = memo.get(id);
    if (hit) return hit;
    const t = txs.get(id)!;
    const events = digests.get(id)!;
    let result: { fp: string; unknown: string | null };
    if (!p.options.preserve_redirect_transaction_ancestry) {
      result = { fp: canonicalSha256({ events }), unknown: null };
    } else {
      let from: string | null = null;
      let unknown: string | null = null;
      const req = t.request;
      if (!req) unknown = 'the request event was not retained';
      else if (typeof req.redirected_from_transaction_id === 'string') {
        const pred = req.redirected_from_transaction_id;
        if (!txs.has(pred)) unknown = 'the redirect predecessor was not observed';
        else if (visiting.has(pred)) unknown = 'the redirect ancestry is cyclic';
        else {
          visiting.add(id);
          const up = fingerprint(pred, visiting);
          visiting.delete(id);
          from = up.fp;
          unknown = up.unknown;
        }
      } else if (req.redirected_from_transaction_state !== 'root') {
        // BS-61: `unknown`, or an older capture without the state field: a null predecessor proves nothing.
        unknown =
          req.redirected_from_transaction_state === 'unknown'
            ? 'the redirect predecessor lies outside the capture'
            : 'the capture does not say whether the request was redirected (no redirected_from_transaction_state)';
      }
      result = { fp: canonicalSha256({ events, redirected_from: unknown ? 'unknown' : from }), unknown };
    }
    memo.set(id, result);
    return result;
  };
  // BS-68: a transaction belongs to the step that sent its request. A redirect hop is sent by
  // the browser, not by a step, whenever it follows the redirect: it belongs to the step
  // that sent the chain's first observed request.
  const sender = (id: string): unknown => {
    const seen = new Set<string>();
    let t = txs.get(id)!;
    while (
      t.request &&
      typeof t.request.redirected_from_transaction_id === 'string' &&
      txs.has(t.request.redirected_from_transaction_id) &&
      !seen.has(t.request.redirected_from_transaction_id)
    ) {
      seen.add(t.request.redirected_from_transaction_id);
      t = txs.get(t.request.redirected_from_transaction_id)!;
    }
    return (t.request ?? t.first).step_id;
  };
  const out = new Map<string, StepNetwork>();
  for (const [id, t] of txs) {
    const f = fingerprint(id, new Set());
    const key = stepKey(sender(id));
    const response = t.events.find((e) => e.kind === 'response');
    const s = out.get(key) ?? { hops: [], transactions: [] };
    s.transactions.push(id);
    s.hops.push({
      fingerprint: f.fp,
      ancestry_unknown: f.unknown,
      method: typeof t.request?.method === 'string' ? t.request.method : null,
      url: typeof t.request?.url === 'string' ? t.request.url : null,
      status: typeof response?.status === 'number' ? response.status : null,
      normalized: normalized.get(id)!,
    });
    out.set(key, s);
  }
  for (const s of out.values()) s.hops.sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  return out;
}

/**
 * What differs between two hops of the same request line: `kind.field` names of their
 * normalized events (`response.status`, `network-content(response).body`), and header
 * names for headers (`network-content(response).headers[date]`). For people, not digests.
 */
export function hopDifferences(a: Hop, b: Hop): string[] {
  const label = (ev: Obj) => (ev.kind === 'network-content' ? `network-content(${String(ev.phase)})` : String(ev.kind));
  const index = (h: Hop) => new Map(h.normalized.map((ev) => [label(ev), ev]));
  const ia = index(a),
    ib = index(b);
  const out: string[] = [];
  for (const k of [...new Set([...ia.keys(), ...ib.keys()])].sort()) {
    const x = ia.get(k),
      y = ib.get(k);
    if (!x || !y) {
      out.push(`${k} ${x ? 'only before' : 'only after'}`);
      continue;
    }
    for (const f of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
      if (canonicalSha256(x[f] ?? null) === canonicalSha256(y[f] ?? null)) continue;
      const hx = (x[f] as Obj | undefined)?.values,
        hy = (y[f] as Obj | undefined)?.values;
      if (f === 'headers' && Array.isArray(hx) && Array.isArray(hy)) {
        const names = (l: unknown[]) => l.map((h) => canonicalSha256(h));
        const nx = names(hx),
          ny = names(hy);
        const changed = [...hx.filter((_, i) => !ny.includes(nx[i])), ...hy.filter((_, i) => !nx.includes(ny[i]))].map((h) =>
          String((h as Obj).name).toLowerCase(),
        );
        out.push(...[...new Set(changed)].sort().map((n) => `${k}.headers[${n}]`));
      } else out.push(`${k}.${f}`);
    }
  }
  return out;
}
