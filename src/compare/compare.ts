/**
 * `compare_web_captures` (BS-72 to BS-81): align two browser scenario captures by step,
 * normalize every artifact under one committed policy, and give each aligned step a
 * verdict of `changed`, `unchanged` or `unknown` with per-artifact digests and states
 * (OQ-41). The CLI command and the MCP tool both call `compareWebCaptures`.
 */
import { CapstateError } from '../errors.js';
import type { Obj } from '../load/fields.js';
import { alignSteps, type AlignmentFailure } from './align.js';
import { digestOf, normalizeCaptured, type Side } from './artifacts.js';
import { canonicalSha256 } from './canonical.js';
import { readCapture, type CaptureIn, type StepIn } from './input.js';
import { hopDifferences, INITIAL, NETWORK_KINDS, networkBySendingStep, stepKey, type Hop, type StepNetwork } from './network.js';
import { applyRulesDeep, commitment, readPolicy, type ArtifactKind, type Commitment, type Policy } from './policy.js';

export type Verdict = 'changed' | 'unchanged' | 'unknown';

export interface ArtifactResult {
  kind: ArtifactKind;
  verdict: Verdict;
  before: { digest: string | null; state: string };
  after: { digest: string | null; state: string };
  /** Why an `unknown` artifact could not be compared, and how to make it comparable. */
  reason?: string;
  recovery?: string;
  /** Network only: the transactions (hops) found on one side only. */
  only_before?: HopSummary[];
  only_after?: HopSummary[];
  /** Network only: request lines on both sides whose hops differ, naming the differing fields. */
  hop_changes?: HopChange[];
  /** Network only: hops found on both sides, but attributed to different steps. */
  moved_between_steps?: HopSummary[];
}

export interface HopSummary {
  method: string | null;
  url: string | null;
  status: number | null;
  fingerprint: string;
}

/** A request line found on both sides with different hops, and what differs. */
export interface HopChange {
  method: string | null;
  url: string | null;
  differences: string[];
}

export interface StepResult {
  step_id: string | null;
  verdict: Verdict;
  artifacts: ArtifactResult[];
}

export interface ComparisonResult {
  verdict: Verdict;
  before: { source: string; sha256: string | null };
  after: { source: string; sha256: string | null };
  normalization: Commitment;
  alignment_failures: AlignmentFailure[];
  initial_state: StepResult | null;
  steps: StepResult[];
  counts: { changed: number; unchanged: number; unknown: number };
}

/** The input object the CLI and the MCP tool share. */
export interface CompareInput {
  /** An Evidence file path or an Evidence object. */
  before: unknown;
  after: unknown;
  options?: unknown;
  rules?: unknown;
}

const STEP_ARTIFACTS = ['screenshot', 'dom', 'accessibility', 'url', 'history', 'storage'] as const;

interface Selection {
  families: { before: string[] | null; after: string[] | null };
  events: { unknown: { reason: string; recovery: string } | null; selected: [boolean, boolean] };
  network: { unknown: { reason: string; recovery: string } | null; selected: [boolean, boolean] };
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** BS-62, BS-80, BS-81, BS-39: whether event and network evidence can be compared at all. */
function selection(a: CaptureIn, b: CaptureIn): Selection {
  const fa = a.admitted.eventFamilies,
    fb = b.admitted.eventFamilies;
  let familyUnknown: Selection['events']['unknown'] = null;
  if (fa === null || fb === null)
    familyUnknown = {
      reason: `the ${fa === null ? 'before' : 'after'} capture does not record its event-family selection (scenario.event_families, BS-80)`,
      recovery: 'recapture both sides with this capstate, with the same capture.events',
    };
  else if (!same(fa, fb))
    familyUnknown = {
      reason: `the captures selected different event families (${fa.join(', ') || 'none'} and ${fb.join(', ') || 'none'}); more data does not prove a change (BS-80)`,
      recovery: 'recapture both sides with the same capture.events',
    };
  const nonNetwork = (f: string[] | null) => (f ?? []).some((x) => x !== 'network');
  const omitted = (c: CaptureIn, network: boolean) => c.omittedKinds.some((k) => NETWORK_KINDS.has(k) === network);
  let eventsUnknown = familyUnknown;
  if (!eventsUnknown && (omitted(a, false) || omitted(b, false)))
    eventsUnknown = {
      reason: 'events were omitted under capture.limits (omissions.by_kind), so event coverage is truncated',
      recovery: 'recapture both sides with larger capture.limits',
    };
  const content = (c: CaptureIn) => [c.admitted.requestBodies, c.admitted.responseBodies, c.admitted.headerValues];
  const ca = content(a),
    cb = content(b);
  let networkUnknown = familyUnknown;
  if (!networkUnknown && (ca.includes(null) || cb.includes(null)))
    networkUnknown = {
      reason: 'a capture does not record its network content selection (scenario.network_content, BS-62)',
      recovery: 'recapture both sides with this capstate, with the same capture.network',
    };
  else if (!networkUnknown && !same(ca, cb))
    networkUnknown = {
      reason: `the captures selected different network content (request_body, response_body, header_values: ${ca.join(', ')} and ${cb.join(', ')}); capturing more does not prove a change (BS-62)`,
      recovery: 'recapture both sides with the same capture.network selection',
    };
  const netSelected = (c: CaptureIn) => (c.admitted.eventFamilies ?? []).includes('network') || content(c).includes(true);
  return {
    families: { before: fa, after: fb },
    events: { unknown: eventsUnknown, selected: [nonNetwork(fa), nonNetwork(fb)] },
    network: { unknown: networkUnknown, selected: [netSelected(a), netSelected(b)] },
  };
}

/**
 * BS-36, BS-39: the steps whose network coverage omissions truncated — those that sent a
 * transaction named in `omissions.network_transactions` — or `all` when the omissions
 * cannot be placed (whole transactions beyond the limit, a lost request event, no rows).
 */
function truncatedNetworkSteps(c: CaptureIn, net: Map<string, StepNetwork>): Set<string> | 'all' {
  if (!c.omittedKinds.some((k) => NETWORK_KINDS.has(k))) return new Set();
  const rows = c.networkOmissions.transactions;
  if (c.networkOmissions.beyondLimit || rows.length === 0 || rows.some((r) => r.kinds.includes('request'))) return 'all';
  const out = new Set<string>();
  for (const r of rows) {
    const key = [...net].find(([, s]) => s.transactions.includes(r.id))?.[0];
    if (key === undefined) return 'all';
    out.add(key);
  }
  return out;
}

/** BS-73: other events keep their receipt order, without sequence/index fields and observation times. */
function otherEventsByStep(c: CaptureIn, p: Policy): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const ev of c.events) {
    if (NETWORK_KINDS.has(ev.kind as string)) continue;
    const o: Obj = {};
    for (const [k, v] of Object.entries(ev)) if (!['sequence', 'index', 'step_id', 'observed_at'].includes(k)) o[k] = v;
    const key = stepKey(ev.step_id);
    out.set(key, [...(out.get(key) ?? []), applyRulesDeep(p.rules, 'events', o)]);
  }
  return out;
}

function verdictOf(a: Side, b: Side): Pick<ArtifactResult, 'verdict' | 'reason' | 'recovery'> {
  const u = a.unknown ?? b.unknown;
  if (a.state === 'captured' && b.state === 'captured') {
    if (u) return { verdict: 'unknown', ...u };
    return { verdict: a.digest === b.digest ? 'unchanged' : 'changed' };
  }
  if (a.state === 'not_requested' && b.state === 'not_requested') return { verdict: 'unchanged' };
  if (a.state === 'not_requested' || b.state === 'not_requested') {
    return {
      verdict: 'unknown',
      reason: `captured on one side only (${a.state} / ${b.state})`,
      recovery: 'request the artifact for this step in both scenarios (capture.after_each_step or capture.at_end)',
    };
  }
  // BS-79: missing, truncated or mismatched coverage stays unknown, never equal.
  return {
    verdict: 'unknown',
    reason: `coverage is incomplete (${a.state} / ${b.state})`,
    recovery: 'recapture; the artifact was not captured on both sides',
  };
}

function artifactSide(kind: (typeof STEP_ARTIFACTS)[number], step: StepIn, p: Policy): Side {
  const cap = step.captures?.[kind] as Obj | undefined;
  const state = cap && typeof cap.state === 'string' ? cap.state : 'missing';
  if (state !== 'captured') return { state, digest: null };
  const n = normalizeCaptured(kind, cap!.value, p);
  return { state, digest: digestOf(n.normalized), ...(n.unknown ? { unknown: n.unknown } : {}) };
}

function result(kind: ArtifactKind, a: Side, b: Side, extra: Partial<ArtifactResult> = {}): ArtifactResult {
  return { kind, ...verdictOf(a, b), before: { digest: a.digest, state: a.state }, after: { digest: b.digest, state: b.state }, ...extra };
}

function networkArtifact(sel: Selection, a: StepNetwork | undefined, b: StepNetwork | undefined, truncated: boolean): ArtifactResult {
  const side = (n: StepNetwork | undefined, selected: boolean): Side => {
    if (!selected) return { state: 'not_requested', digest: null };
    const hops = n?.hops ?? [];
    const unknown = hops.find((h) => h.ancestry_unknown);
    return {
      state: 'captured',
      digest: canonicalSha256(hops.map((h) => h.fingerprint)),
      ...(unknown
        ? {
            unknown: {
              reason: `redirect ancestry unknown for ${unknown.method ?? '?'} ${unknown.url ?? '?'}: ${unknown.ancestry_unknown} (BS-75)`,
              recovery: 'recapture with capture.events including network from the first navigation, so every redirect hop is observed',
            },
          }
        : {}),
    };
  };
  const sa = side(a, sel.network.selected[0]),
    sb = side(b, sel.network.selected[1]);
  const unknown =
    sel.network.unknown ??
    (truncated
      ? {
          reason:
            "network events of this step's transactions were omitted under capture.limits (omissions.network_transactions), so its network coverage is truncated",
          recovery: 'recapture both sides with larger capture.limits',
        }
      : null);
  if (unknown) {
    return {
      kind: 'network',
      verdict: 'unknown',
      before: { digest: sa.digest, state: sa.state },
      after: { digest: sb.digest, state: sb.state },
      ...unknown,
    };
  }
  const r = result('network', sa, sb);
  if (r.verdict !== 'unchanged' && sa.state === 'captured' && sb.state === 'captured') {
    const count = (hops: Hop[]) => {
      const m = new Map<string, number>();
      for (const h of hops) m.set(h.fingerprint, (m.get(h.fingerprint) ?? 0) + 1);
      return m;
    };
    const ca = count(a?.hops ?? []),
      cb = count(b?.hops ?? []);
    const only = (hops: Hop[], mine: Map<string, number>, other: Map<string, number>) =>
      hops
        .filter((h) => {
          const extra = (mine.get(h.fingerprint) ?? 0) - (other.get(h.fingerprint) ?? 0);
          if (extra <= 0) return false;
          mine.set(h.fingerprint, (mine.get(h.fingerprint) ?? 0) - 1);
          return true;
        })
        .map((h) => ({ method: h.method, url: h.url, status: h.status, fingerprint: h.fingerprint }));
    r.only_before = only(a?.hops ?? [], new Map(ca), cb);
    r.only_after = only(b?.hops ?? [], new Map(cb), ca);
    // Pair the hops of one request line, so the result can say what differs.
    const pool = [...(b?.hops ?? []).filter((h) => r.only_after!.some((o) => o.fingerprint === h.fingerprint))];
    r.hop_changes = [];
    for (const h of (a?.hops ?? []).filter((x) => r.only_before!.some((o) => o.fingerprint === x.fingerprint))) {
      const i = pool.findIndex((y) => y.method === h.method && y.url === h.url);
      if (i < 0) continue;
      r.hop_changes.push({ method: h.method, url: h.url, differences: hopDifferences(h, pool[i]) });
      pool.splice(i, 1);
    }
  }
  return r;
}

function eventsArtifact(sel: Selection, a: unknown[] | undefined, b: unknown[] | undefined): ArtifactResult {
  const side = (list: unknown[] | undefined, selected: boolean): Side =>
    selected ? { state: 'captured', digest: canonicalSha256(list ?? []) } : { state: 'not_requested', digest: null };
  const sa = side(a, sel.events.selected[0]),
    sb = side(b, sel.events.selected[1]);
  if (sel.events.unknown)
    return {
      kind: 'events',
      verdict: 'unknown',
      before: { digest: sa.digest, state: sa.state },
      after: { digest: sb.digest, state: sb.state },
      ...sel.events.unknown,
    };
  return result('events', sa, sb);
}

function actionArtifact(a: StepIn, b: StepIn, p: Policy): ArtifactResult {
  const side = (s: StepIn): Side => {
    if (s.status === null) return { state: 'missing', digest: null };
    const err = s.error ? { code: s.error.code ?? null, message: s.error.message ?? null } : null;
    return {
      state: 'captured',
      digest: canonicalSha256(applyRulesDeep(p.rules, 'action', { action: s.action, status: s.status, error: err })),
    };
  };
  const sa = side(a),
    sb = side(b);
  if (a.action !== b.action) {
    return {
      kind: 'action',
      verdict: 'unknown',
      before: { digest: sa.digest, state: sa.state },
      after: { digest: sb.digest, state: sb.state },
      reason: `the action kind changed (${a.action} / ${b.action}): the scenarios differ, which is an alignment failure, not a site change`,
      recovery: 'compare captures of the same scenario',
    };
  }
  return result('action', sa, sb);
}

function stepVerdict(artifacts: ArtifactResult[], blocked: boolean): Verdict {
  if (artifacts.some((x) => x.verdict === 'changed')) return 'changed';
  return blocked || artifacts.some((x) => x.verdict === 'unknown') ? 'unknown' : 'unchanged';
}

/**
 * A request the page sends from asynchronous code may be sent before or after a step
 * boundary, so the same transaction (same fingerprint) can be attributed to one step in
 * one capture and to another step in the other. That is a difference of timing, not of
 * the site: such hops prove no change, and a network artifact whose only differences are
 * moved hops is `unknown` (BS-79: mismatched coverage is never equal), naming them.
 */
function settleMovedHops(all: { artifacts: ArtifactResult[] }[]): void {
  const nets = all.map((s) => s.artifacts.find((x) => x.kind === 'network')!);
  const where = (side: 'only_before' | 'only_after') => {
    const m = new Map<string, Set<number>>();
    nets.forEach((n, i) => {
      for (const h of n[side] ?? []) m.set(h.fingerprint, new Set([...(m.get(h.fingerprint) ?? []), i]));
    });
    return m;
  };
  const ob = where('only_before'),
    oa = where('only_after');
  nets.forEach((n, i) => {
    if (n.verdict !== 'changed') return;
    const movedOut = (n.only_before ?? []).filter((h) => [...(oa.get(h.fingerprint) ?? [])].some((j) => j !== i));
    const movedIn = (n.only_after ?? []).filter((h) => [...(ob.get(h.fingerprint) ?? [])].some((j) => j !== i));
    const moved = [...movedOut, ...movedIn];
    if (moved.length === 0) return;
    n.moved_between_steps = moved;
    if (moved.length === (n.only_before?.length ?? 0) + (n.only_after?.length ?? 0)) {
      n.verdict = 'unknown';
      n.reason = `${moved.length} transaction(s) identical on both sides were sent during another step (the page sent them asynchronously across a step boundary): ${moved.map((h) => `${h.method ?? '?'} ${h.url ?? '?'}`).join(', ')}`;
      n.recovery = 'add a wait_for step that waits until the page has sent its requests before the next action, then recapture both sides';
      delete n.hop_changes;
    }
  });
}

/**
 * Compares two browser scenario captures. Throws CapstateError for input that is not
 * admissible Evidence or a malformed policy.
 *
 * @example
 * const r = compareWebCaptures({ before: 'a.json', after: 'b.json', rules: [{ artifact_kinds: ['dom'], find: 'v1.2', replace: 'VERSION' }] });
 * r.steps.filter((s) => s.verdict === 'changed');
 */
export function compareWebCaptures(input: CompareInput): ComparisonResult {
  if (!input || typeof input !== 'object')
    throw new CapstateError('bad-arguments', 'compare_web_captures takes {before, after, options?, rules?}');
  if (input.before === undefined || input.after === undefined)
    throw new CapstateError('bad-arguments', 'both before and after are required: an Evidence file path or an Evidence object each', {
      argument: input.before === undefined ? 'before' : 'after',
    });
  const policy = readPolicy(input.options, input.rules);
  const a = readCapture('before', input.before);
  const b = readCapture('after', input.after);
  const { aligned, failures } = alignSteps(a, b);
  const sel = selection(a, b);
  const na = networkBySendingStep(a, policy),
    nb = networkBySendingStep(b, policy);
  const ea = otherEventsByStep(a, policy),
    eb = otherEventsByStep(b, policy);
  const ta = truncatedNetworkSteps(a, na),
    tb = truncatedNetworkSteps(b, nb);
  const truncated = (key: string) => [ta, tb].some((t) => t === 'all' || t.has(key));
  const contextBlocked = failures.some((f) => f.code === 'incompatible-context');
  const compareArtifacts = (id: string | null, x: StepIn, y: StepIn) => {
    const key = id === null ? INITIAL : stepKey(id);
    return {
      step_id: id,
      artifacts: [
        actionArtifact(x, y, policy),
        ...STEP_ARTIFACTS.map((k) => result(k, artifactSide(k, x, policy), artifactSide(k, y, policy))),
        networkArtifact(sel, na.get(key), nb.get(key), truncated(key)),
        eventsArtifact(sel, ea.get(key), eb.get(key)),
      ],
    };
  };
  const compared = aligned.map((s) => compareArtifacts(s.step_id, s.before, s.after));
  const comparedInitial = a.initial && b.initial ? compareArtifacts(null, a.initial, b.initial) : null;
  settleMovedHops([...(comparedInitial ? [comparedInitial] : []), ...compared]);
  // Each step's verdict once its artifacts are settled.
  const judged = ({ step_id, artifacts }: { step_id: string | null; artifacts: ArtifactResult[] }): StepResult => ({
    step_id,
    verdict: stepVerdict(artifacts, contextBlocked || (step_id !== null && failures.some((f) => f.step_id === step_id))),
    artifacts,
  });
  const steps = compared.map(judged);
  const initial = comparedInitial && judged(comparedInitial);
  const all = [...(initial ? [initial] : []), ...steps];
  const counts = { changed: 0, unchanged: 0, unknown: 0 };
  for (const s of all) counts[s.verdict]++;
  const verdict: Verdict =
    counts.changed > 0
      ? 'changed'
      : counts.unknown > 0 || failures.length > 0 || (!initial && (a.initial || b.initial))
        ? 'unknown'
        : 'unchanged';
  return {
    verdict,
    before: { source: a.source, sha256: a.sha256 },
    after: { source: b.source, sha256: b.sha256 },
    normalization: commitment(policy),
    alignment_failures: failures,
    initial_state: initial,
    steps,
    counts,
  };
}
