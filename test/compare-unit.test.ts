/**
 * Capture comparison on small hand-made Evidence (no browser): alignment (BS-72), the
 * normalization commitment (BS-73, OQ-43), network grouping and redirect fingerprints
 * (BS-74, BS-75, OQ-46), caller rules (BS-76, OQ-44), storage (BS-77, BS-71), timing
 * (BS-78), verdicts (BS-79), event families (BS-80) and the shared admission (BS-81).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalSha256, compareWebCaptures, type ComparisonResult } from '../src/compare/index.js';
import { readCapture } from '../src/compare/input.js';
import { networkBySendingStep } from '../src/compare/network.js';
import { readPolicy } from '../src/compare/policy.js';
import { admitRetainedScenario } from '../src/load/admission.js';
import { ScenarioReader } from '../src/load/scenario.js';
import { sha256Hex } from '../src/json/sha256.js';
import { CapstateError } from '../src/errors.js';
import { cli, tempDir } from './helpers.js';

type Json = Record<string, unknown>;
const ORIGIN = 'http://127.0.0.1:3000';
const dir = tempDir();

function step(step_id: string, captures: Json = {}, action = 'click', extra: Json = {}): Json {
  const all: Json = {
    screenshot: { state: 'not_requested' },
    dom: { state: 'not_requested' },
    accessibility: { state: 'not_requested' },
    url: { state: 'not_requested' },
    history: { state: 'not_requested' },
    storage: { state: 'not_requested' },
    ...captures,
  };
  return {
    step_id,
    action,
    status: 'completed',
    elapsed_ms: Math.random() * 100,
    url: `${ORIGIN}/`,
    event_bounds: { first: null, last: null },
    completeness: 'complete',
    captures: all,
    ...extra,
  };
}

function evidence(steps: Json[], events: Json[] = [], scenario: Json = {}): Json {
  return {
    schema_version: 1,
    scenario: {
      start_url: `${ORIGIN}/`,
      browser: { mode: 'launch', executable_path: '/usr/bin/chromium', headless: true },
      network_content: { request_body: false, response_body: true, header_values: false },
      event_families: ['network'],
      ...scenario,
    },
    initial_state: { status: 'completed', elapsed_ms: 5, url: `${ORIGIN}/`, captures: step('x').captures },
    steps,
    events,
    limitations: [],
    omissions: { by_kind: {}, network_transactions: [], network_transaction_range: null },
  };
}

const body = (text: string) => ({
  state: 'captured',
  base64: Buffer.from(text).toString('base64'),
  bytes: Buffer.byteLength(text),
  media_type: 'application/json',
  sha256: sha256Hex(text),
});

/** A transaction's events: request, response, finished, response content. */
function tx(seq: number, id: string, stepId: string | null, url: string, status: number, text: string, extra: Json = {}): Json[] {
  return [
    {
      sequence: seq,
      kind: 'request',
      step_id: stepId,
      transaction_id: id,
      redirected_from_transaction_id: null,
      redirected_from_transaction_state: 'root',
      method: 'GET',
      url,
      resource_type: 'fetch',
      observed_at: `2026-11-29T10:00:0${seq % 10}.000Z`,
      ...extra,
    },
    {
      sequence: seq + 1,
      kind: 'response',
      step_id: stepId,
      transaction_id: id,
      status,
      status_text: 'OK',
      observed_at: '2026-11-29T10:00:01.000Z',
    },
    {
      sequence: seq + 2,
      kind: 'request-finished',
      step_id: stepId,
      transaction_id: id,
      started_at: '2026-11-29T10:00:00.500Z',
      elapsed_ms: 12.5 + seq,
    },
    {
      sequence: seq + 3,
      kind: 'network-content',
      step_id: stepId,
      transaction_id: id,
      source_event_sequence: seq + 1,
      headers: { state: 'not_selected' },
      body: body(text),
    },
  ];
}

const cmp = (a: Json, b: Json, more: Json = {}): ComparisonResult => compareWebCaptures({ before: a, after: b, ...more });
const art = (r: ComparisonResult, stepId: string | null, kind: string) => {
  const s = stepId === null ? r.initial_state! : r.steps.find((x) => x.step_id === stepId)!;
  return s.artifacts.find((x) => x.kind === kind)!;
};

describe('OQ-43 canonical JSON', () => {
  it('sorts members by UTF-16 code units, writes no whitespace and shortest numbers', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], '\u20ac': 1e21, '\ud83d\ude00': 0.5, A: 10n })).toBe(
      '{"A":10,"a":[true,null,"x"],"b":1,"€":1e+21,"\ud83d\ude00":0.5}',
    );
    expect(canonicalSha256({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('BS-72 step alignment', () => {
  it('identical captures: every step unchanged, digests equal, no alignment failure', () => {
    const e = evidence([step('a', { dom: { state: 'captured', value: '<p>x</p>' } }), step('b')]);
    const r = cmp(e, structuredClone(e));
    expect(r.verdict).toBe('unchanged');
    expect(r.alignment_failures).toEqual([]);
    for (const s of r.steps) for (const x of s.artifacts) expect(x.before.digest).toBe(x.after.digest);
    expect(art(r, 'a', 'dom').before.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a duplicate step_id, a missing counterpart and a changed action kind are alignment failures that block "unchanged"', () => {
    const a = evidence([step('a'), step('a'), step('b'), step('c')]);
    const b = evidence([step('a'), step('b', {}, 'fill'), step('d')]);
    const r = cmp(a, b);
    expect(r.alignment_failures.map((f) => [f.code, f.step_id])).toEqual([
      ['duplicate-step-id', 'a'],
      ['action-kind-changed', 'b'],
      ['missing-counterpart', 'c'],
      ['missing-counterpart', 'd'],
    ]);
    expect(r.steps.map((s) => s.step_id)).toEqual(['b']);
    expect(r.steps[0].verdict).toBe('unknown');
    expect(art(r, 'b', 'action').verdict).toBe('unknown');
    expect(r.verdict).toBe('unknown');
  });

  it('incompatible origin or browser contexts are alignment failures; an observed difference still proves "changed"', () => {
    const a = evidence([step('a', { url: { state: 'captured', value: `${ORIGIN}/x` } })]);
    const b = evidence([step('a', { url: { state: 'captured', value: `${ORIGIN}/y` } })], [], {
      start_url: 'http://127.0.0.1:4000/',
      browser: { mode: 'connect', cdp_endpoint: 'http://127.0.0.1:9222' },
    });
    const r = cmp(a, b);
    expect(r.alignment_failures.filter((f) => f.code === 'incompatible-context')).toHaveLength(2);
    expect(r.steps[0].verdict).toBe('changed');
    expect(r.verdict).toBe('changed');
    const same = cmp(a, { ...structuredClone(a), scenario: { ...(a.scenario as Json), start_url: 'http://127.0.0.1:4000/' } });
    expect(same.steps[0].verdict).toBe('unknown');
  });
});

describe('BS-73 / BS-76 normalization commitment and caller rules (OQ-44)', () => {
  const rules = [
    { artifact_kinds: ['dom'], find: 'build-42', replace: 'BUILD' },
    { artifact_kinds: ['url', 'dom'], find: 'session=abc', replace: 'session=S' },
    { artifact_kinds: ['accessibility'], find: 'x', replace: '' },
  ];
  it('records the built-in rules, options and sorted caller rules with the SHA-256 of their canonical JSON', () => {
    const e = evidence([step('a')]);
    const r = cmp(e, e, { rules });
    const { sha256, ...body } = r.normalization;
    expect(sha256).toBe(canonicalSha256(body));
    expect(body.built_in).toEqual(
      expect.arrayContaining([
        'compare_network_transactions_unordered',
        'remove_capture_local_transaction_ids',
        'attribute_network_to_sending_step',
        'ignore_network_request_timing',
        'preserve_redirect_transaction_ancestry',
        'compare_storage_entries_as_unordered_collection',
      ]),
    );
    expect(body.rules.map((x) => x.artifact_kinds.join(','))).toEqual(['accessibility', 'dom', 'dom,url']);
  });

  it('the same policy gives the same commitment and digests whatever the input order of rules and kinds', () => {
    const a = evidence([step('a', { dom: { state: 'captured', value: '<p>build-42 session=abc</p>' } })]);
    const r1 = cmp(a, a, { rules });
    const r2 = cmp(a, a, { rules: [...rules].reverse().map((x) => ({ ...x, artifact_kinds: [...x.artifact_kinds].reverse() })) });
    expect(r2.normalization.sha256).toBe(r1.normalization.sha256);
    expect(art(r2, 'a', 'dom').before.digest).toBe(art(r1, 'a', 'dom').before.digest);
    expect(cmp(a, a).normalization.sha256).not.toBe(r1.normalization.sha256);
  });

  it('rules replace exact literals in the named kinds only, so a volatile value stops being a change', () => {
    const a = evidence([
      step('a', { dom: { state: 'captured', value: '<p>build-41</p>' }, url: { state: 'captured', value: `${ORIGIN}/?b=build-41` } }),
    ]);
    const b = evidence([
      step('a', { dom: { state: 'captured', value: '<p>build-42</p>' }, url: { state: 'captured', value: `${ORIGIN}/?b=build-42` } }),
    ]);
    const r = cmp(a, b, {
      rules: [
        { artifact_kinds: ['dom'], find: 'build-41', replace: 'BUILD' },
        { artifact_kinds: ['dom'], find: 'build-42', replace: 'BUILD' },
      ],
    });
    expect(art(r, 'a', 'dom').verdict).toBe('unchanged');
    expect(art(r, 'a', 'url').verdict).toBe('changed');
  });

  it('DOM and accessibility compare as normalized text: white space runs and line endings do not count; elapsed time never does', () => {
    const a = evidence([
      step('a', {
        dom: { state: 'captured', value: '<p>\r\n  a   b</p>' },
        accessibility: { state: 'captured', value: '- heading "A"\n' },
      }),
    ]);
    const b = evidence([
      step(
        'a',
        { dom: { state: 'captured', value: '<p>\n a b</p>' }, accessibility: { state: 'captured', value: '- heading "A"' } },
        'click',
        { elapsed_ms: 9999 },
      ),
    ]);
    expect(cmp(a, b).verdict).toBe('unchanged');
  });

  it('rules are bounded: at most 64, find 1..1024 characters, known kinds; bad policy is an error', () => {
    const e = evidence([step('a')]);
    const bad = (p: Json) => {
      try {
        cmp(e, e, p);
        return null;
      } catch (x) {
        return (x as CapstateError).code;
      }
    };
    expect(bad({ rules: Array.from({ length: 65 }, (_, i) => ({ artifact_kinds: ['dom'], find: `f${i}`, replace: '' })) })).toBe(
      'bad-comparison-policy',
    );
    expect(bad({ rules: [{ artifact_kinds: ['dom'], find: '', replace: '' }] })).toBe('bad-comparison-policy');
    expect(bad({ rules: [{ artifact_kinds: ['dom'], find: 'x'.repeat(1025), replace: '' }] })).toBe('bad-comparison-policy');
    expect(bad({ rules: [{ artifact_kinds: ['screenshot'], find: 'x', replace: '' }] })).toBe('bad-comparison-policy');
    expect(bad({ options: { ignore_network_request_timing: 'yes' } })).toBe('bad-comparison-policy');
    expect(bad({ options: { typo: true } })).toBe('bad-comparison-policy');
  });
});

describe('BS-74 network events: grouped, attributed to the sending step, unordered', () => {
  it('capture-local ids, sequences, anchors and timing do not count; concurrent responses in another order and later steps compare unchanged', () => {
    const a = evidence(
      [step('run'), step('ready')],
      [...tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'), ...tx(5, 't2', 'run', `${ORIGIN}/api/b`, 200, '[2]')],
    );
    const evB = [...tx(1, 'x9', 'run', `${ORIGIN}/api/b`, 200, '[2]'), ...tx(5, 'x3', 'run', `${ORIGIN}/api/a`, 200, '[1]')];
    // The second response and its content land in the next step.
    for (const ev of evB.slice(5)) ev.step_id = 'ready';
    const b = evidence([step('run'), step('ready')], evB);
    const r = cmp(a, b);
    expect(art(r, 'run', 'network')).toMatchObject({ verdict: 'unchanged' });
    expect(art(r, 'ready', 'network').before.digest).toBe(art(r, 'ready', 'network').after.digest);
    expect(r.verdict).toBe('unchanged');
  });

  it('a transaction the page sent during another step proves no change: unknown with a recovery note, never unchanged', () => {
    const a = evidence(
      [step('run'), step('ready')],
      [...tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'), ...tx(5, 't2', 'run', `${ORIGIN}/api/b`, 200, '[2]')],
    );
    const b = evidence(
      [step('run'), step('ready')],
      [...tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'), ...tx(5, 't2', 'ready', `${ORIGIN}/api/b`, 200, '[2]')],
    );
    const r = cmp(a, b);
    for (const id of ['run', 'ready'])
      expect(art(r, id, 'network')).toMatchObject({
        verdict: 'unknown',
        reason: expect.stringMatching(/sent during another step/),
        recovery: expect.stringMatching(/wait_for/),
      });
    expect(art(r, 'run', 'network').moved_between_steps!.map((h) => h.url)).toEqual([`${ORIGIN}/api/b`]);
    expect(r.verdict).toBe('unknown');
  });

  it('a changed response body is a change of the sending step, naming the transactions on each side only', () => {
    const a = evidence([step('run')], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'));
    const b = evidence([step('run')], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1,2]'));
    const n = art(cmp(a, b), 'run', 'network');
    expect(n.verdict).toBe('changed');
    expect(n.only_before).toEqual([expect.objectContaining({ method: 'GET', url: `${ORIGIN}/api/a`, status: 200 })]);
    expect(n.only_after).toHaveLength(1);
    expect(n.before.digest).not.toBe(n.after.digest);
  });

  it('caller rules reach text bodies before hashing', () => {
    const a = evidence([step('run')], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '{"at":"2026-01-01"}'));
    const b = evidence([step('run')], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '{"at":"2026-01-02"}'));
    const rules = [
      { artifact_kinds: ['network'], find: '2026-01-01', replace: 'D' },
      { artifact_kinds: ['network'], find: '2026-01-02', replace: 'D' },
    ];
    expect(art(cmp(a, b, { rules }), 'run', 'network').verdict).toBe('unchanged');
  });

  it('BS-62 different network content selections: network is unknown with a recovery note; DOM stays comparable', () => {
    const a = evidence([step('run', { dom: { state: 'captured', value: 'x' } })], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'));
    const b = evidence([step('run', { dom: { state: 'captured', value: 'x' } })], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'), {
      network_content: { request_body: true, response_body: true, header_values: true },
    });
    const r = cmp(a, b);
    expect(art(r, 'run', 'network')).toMatchObject({ verdict: 'unknown', recovery: expect.stringMatching(/same capture.network/) });
    expect(art(r, 'run', 'dom').verdict).toBe('unchanged');
    expect(r.verdict).toBe('unknown');
  });

  it('omitted network events make network coverage truncated: unknown', () => {
    const a = evidence([step('run')], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'));
    const b = {
      ...structuredClone(a),
      omissions: {
        by_kind: { response: { count: 1, reasons: { max_events: 1 } } },
        network_transactions: [],
        network_transaction_range: null,
      },
    };
    expect(art(cmp(a, b), 'run', 'network').verdict).toBe('unknown');
  });

  it('BS-36 omissions of named transactions make only the steps that sent them unknown', () => {
    const a = evidence(
      [step('first'), step('second')],
      [...tx(1, 't1', 'first', `${ORIGIN}/api/a`, 200, '[1]'), ...tx(5, 't2', 'second', `${ORIGIN}/api/b`, 200, '[2]')],
    );
    const omitted = (rows: Json[], range: Json | null = null, kind = 'network-content') => ({
      ...structuredClone(a),
      omissions: {
        by_kind: { [kind]: { count: 1, reasons: { max_network_body_bytes: 1 } } },
        network_transactions: rows,
        network_transaction_range: range,
      },
    });
    const named = cmp(a, omitted([{ transaction_id: 't2', omitted_kinds: ['network-content'] }]));
    expect(art(named, 'first', 'network').verdict).toBe('unchanged');
    expect(art(named, 'second', 'network')).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/this step's transactions were omitted/),
    });
    // What cannot be placed on a step leaves every step's network unknown.
    for (const b of [
      omitted([{ transaction_id: 't2', omitted_kinds: ['request'] }], null, 'request'),
      omitted([{ transaction_id: 't9', omitted_kinds: ['response'] }], null, 'response'),
      omitted([], { first: 't3', last: 't3', count: 1 }, 'request'),
    ]) {
      expect(['first', 'second'].map((id) => art(cmp(a, b), id, 'network').verdict)).toEqual(['unknown', 'unknown']);
    }
  });
});

describe('BS-75 redirect ancestry fingerprints (OQ-46)', () => {
  const chain = (newBody: string, state: Json = { redirected_from_transaction_state: 'root' }) => {
    const hopA = tx(1, 'tA', 'run', `${ORIGIN}/old`, 302, '');
    hopA[0] = { ...hopA[0], ...state };
    if (!('redirected_from_transaction_state' in state)) delete hopA[0].redirected_from_transaction_state;
    const hopB = tx(5, 'tB', 'run', `${ORIGIN}/new`, 200, newBody, { redirected_from_transaction_id: 'tA' });
    delete hopB[0].redirected_from_transaction_state;
    return evidence([step('run')], [...hopA, ...hopB]);
  };

  it('fp(B) = SHA-256(canonical {events: sorted digests of B, redirected_from: fp(A)}); a change in a hop is a change', () => {
    const a = chain('[1]');
    const r = cmp(a, chain('[1]'));
    expect(art(r, 'run', 'network').verdict).toBe('unchanged');
    // The step digest is that of the sorted hop fingerprints, and each hop carries its ancestry.
    const changed = art(cmp(a, chain('[2]')), 'run', 'network');
    expect(changed.verdict).toBe('changed');
    expect(changed.only_after!.map((h) => h.url)).toEqual([`${ORIGIN}/new`]);
  });

  it('the fingerprints recomputed by hand: fp(A) with redirected_from null, fp(B) from fp(A), the step digest over both sorted', () => {
    const a = chain('[1]');
    // An independent RFC 8785 for these values (strings, integers, null, arrays, objects).
    const jcs = (v: unknown): string =>
      Array.isArray(v)
        ? `[${v.map(jcs).join(',')}]`
        : v !== null && typeof v === 'object'
          ? `{${Object.keys(v)
              .sort()
              .map((k) => `${JSON.stringify(k)}:${jcs((v as Json)[k])}`)
              .join(',')}}`
          : JSON.stringify(v);
    const sha = (v: unknown) => createHash('sha256').update(jcs(v), 'utf8').digest('hex');
    const hops = networkBySendingStep(readCapture('before', a), readPolicy(undefined, undefined)).get('run')!.hops;
    const hop = (path: string) => hops.find((h) => h.url === `${ORIGIN}${path}`)!;
    const fpA = sha({ events: hop('/old').normalized.map(sha).sort(), redirected_from: null });
    const fpB = sha({ events: hop('/new').normalized.map(sha).sort(), redirected_from: fpA });
    expect(hop('/old').fingerprint).toBe(fpA);
    expect(hop('/new').fingerprint).toBe(fpB);
    // Temporary indexes and ids never enter a digest: the normalized events carry none.
    for (const h of hops) for (const ev of h.normalized) expect(Object.keys(ev)).not.toEqual(expect.arrayContaining(['sequence']));
    const run = art(cmp(a, structuredClone(a)), 'run', 'network');
    expect(run.before.digest).toBe(sha([fpA, fpB].sort()));
  });

  it('the same final hop under another predecessor is a different fingerprint', () => {
    const a = chain('[1]');
    const b = structuredClone(a);
    (b.events as Json[])[0].url = `${ORIGIN}/older`;
    const n = art(cmp(a, b), 'run', 'network');
    expect(n.verdict).toBe('changed');
    // Both hops differ: A by its URL, B by its ancestry.
    expect(n.only_after!.map((h) => h.url).sort()).toEqual([`${ORIGIN}/new`, `${ORIGIN}/older`]);
    // Without ancestry only hop A differs.
    const flat = art(cmp(a, b, { options: { preserve_redirect_transaction_ancestry: false } }), 'run', 'network');
    expect(flat.only_after!.map((h) => h.url)).toEqual([`${ORIGIN}/older`]);
  });

  it('a predecessor outside the capture, an older capture without the state field, or a cycle: unknown, never unchanged', () => {
    const outside = chain('[1]', { redirected_from_transaction_state: 'unknown' });
    expect(art(cmp(outside, structuredClone(outside)), 'run', 'network')).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/outside the capture/),
    });
    const legacy = chain('[1]', {});
    expect(art(cmp(legacy, structuredClone(legacy)), 'run', 'network')).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/redirected_from_transaction_state/),
    });
    const cyclic = chain('[1]', { redirected_from_transaction_id: 'tB' });
    expect(art(cmp(cyclic, structuredClone(cyclic)), 'run', 'network')).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/cyclic/),
    });
    const unseen = chain('[1]', { redirected_from_transaction_id: 'tZ' });
    expect(art(cmp(unseen, structuredClone(unseen)), 'run', 'network')).toMatchObject({
      verdict: 'unknown',
      reason: expect.stringMatching(/not observed/),
    });
  });
});

describe('BS-77 / BS-71 storage inventories and legacy fingerprints', () => {
  const fp = (s: string) => ({ state: 'hashed', sha256: canonicalSha256(s) });
  const storage = (local: Json[], extra: Json = {}) => ({
    state: 'captured',
    value: { fingerprint_version: 2, url: `${ORIGIN}/`, origin: ORIGIN, cookies: [], local_storage: local, session_storage: [], ...extra },
  });
  const kv = (k: string, v: string) => ({ key: k, value: fp(v) });

  it('enumeration order alone is no change; a value or a duplicate entry is', () => {
    const a = evidence([step('s', { storage: storage([kv('a', '1'), kv('b', '2')]) })]);
    const reordered = evidence([step('s', { storage: storage([kv('b', '2'), kv('a', '1')]) })]);
    expect(art(cmp(a, reordered), 's', 'storage').verdict).toBe('unchanged');
    expect(art(cmp(a, reordered, { options: { compare_storage_entries_as_unordered_collection: false } }), 's', 'storage').verdict).toBe(
      'changed',
    );
    expect(art(cmp(a, evidence([step('s', { storage: storage([kv('a', '1'), kv('b', '3')]) })])), 's', 'storage').verdict).toBe('changed');
    expect(
      art(cmp(a, evidence([step('s', { storage: storage([kv('a', '1'), kv('b', '2'), kv('b', '2')]) })])), 's', 'storage').verdict,
    ).toBe('changed');
  });

  it('cookies keep scope and flags; their absolute expiry (a timing field) does not count', () => {
    const cookie = (path: string, expires: number) => ({
      name: 'sid',
      domain: '127.0.0.1',
      path,
      secure: false,
      http_only: true,
      same_site: 'Lax',
      expires,
      value: { state: 'redacted-secret', sha256: null },
    });
    const a = evidence([step('s', { storage: storage([], { cookies: [cookie('/', 1800000000)] }) })]);
    expect(
      art(cmp(a, evidence([step('s', { storage: storage([], { cookies: [cookie('/', 1800000100)] }) })])), 's', 'storage').verdict,
    ).toBe('unchanged');
    expect(
      art(cmp(a, evidence([step('s', { storage: storage([], { cookies: [cookie('/app', 1800000000)] }) })])), 's', 'storage').verdict,
    ).toBe('changed');
  });

  it('BS-71 legacy fingerprints compare as unknown, legacy against legacy too; hash-free storage keeps its semantics', () => {
    const legacy = (v: string) =>
      evidence([
        step('s', {
          storage: {
            state: 'captured',
            value: { url: `${ORIGIN}/`, origin: ORIGIN, cookies: [], local_storage: [kv('a', v)], session_storage: [] },
          },
        }),
      ]);
    expect(art(cmp(legacy('1'), legacy('1')), 's', 'storage')).toMatchObject({
      verdict: 'unknown',
      recovery: expect.stringMatching(/recapture both sides/),
    });
    expect(art(cmp(legacy('1'), evidence([step('s', { storage: storage([kv('a', '1')]) })])), 's', 'storage').verdict).toBe('unknown');
    const empty = evidence([
      step('s', {
        storage: { state: 'captured', value: { url: `${ORIGIN}/`, origin: ORIGIN, cookies: [], local_storage: [], session_storage: [] } },
      }),
    ]);
    expect(art(cmp(empty, evidence([step('s', { storage: storage([]) })])), 's', 'storage').verdict).toBe('unchanged');
  });
});

describe('BS-78 request timing', () => {
  it('captures with and without request timing compare the same; the rule is in the commitment', () => {
    const a = evidence([step('run')], tx(1, 't1', 'run', `${ORIGIN}/api/a`, 200, '[1]'));
    const b = structuredClone(a);
    for (const ev of b.events as Json[]) {
      delete ev.observed_at;
      delete ev.started_at;
      delete ev.elapsed_ms;
    }
    const r = cmp(a, b);
    expect(art(r, 'run', 'network').verdict).toBe('unchanged');
    const off = cmp(a, b, { options: { ignore_network_request_timing: false } });
    expect(art(off, 'run', 'network').verdict).toBe('changed');
    expect(off.normalization.sha256).not.toBe(r.normalization.sha256);
    expect(r.normalization.built_in).toContain('ignore_network_request_timing');
    expect(off.normalization.built_in).not.toContain('ignore_network_request_timing');
  });
});

describe('BS-79 step verdicts and capture states', () => {
  it('missing or unavailable coverage stays unknown; an artifact requested on one side only is unknown; not requested on both is unchanged', () => {
    const a = evidence([
      step('a', { dom: { state: 'unavailable', error: 'x' }, url: { state: 'captured', value: 'u' }, history: { state: 'missing' } }),
    ]);
    const b = evidence([
      step('a', { dom: { state: 'unavailable', error: 'x' }, url: { state: 'not_requested' }, history: { state: 'missing' } }),
    ]);
    const r = cmp(a, b);
    expect(art(r, 'a', 'dom')).toMatchObject({ verdict: 'unknown', before: { state: 'unavailable', digest: null } });
    expect(art(r, 'a', 'url')).toMatchObject({ verdict: 'unknown', before: { state: 'captured' }, after: { state: 'not_requested' } });
    expect(art(r, 'a', 'history').verdict).toBe('unknown');
    expect(art(r, 'a', 'screenshot').verdict).toBe('unchanged');
    expect(r.steps[0].verdict).toBe('unknown');
    expect(r.steps[0].artifacts.map((x) => x.kind)).toEqual([
      'action',
      'screenshot',
      'dom',
      'accessibility',
      'url',
      'history',
      'storage',
      'network',
      'events',
    ]);
  });

  it('a failed step against a completed one is a changed action', () => {
    const a = evidence([step('a')]);
    const b = evidence([step('a', {}, 'click', { status: 'failed', error: { code: 'action-failed', message: 'timeout' } })]);
    expect(art(cmp(a, b), 'a', 'action').verdict).toBe('changed');
  });
});

describe('BS-80 event-family selection', () => {
  const con = (seq: number, text: string, stepId = 'a') => ({
    sequence: seq,
    kind: 'console',
    step_id: stepId,
    type: 'log',
    text,
    observed_at: '2026-11-29T10:00:00.000Z',
  });
  it('other events keep their receipt order without sequence and observation time', () => {
    const a = evidence([step('a')], [con(1, 'x'), con(2, 'y')], { event_families: ['console'] });
    const b = evidence([step('a')], [con(7, 'x'), con(9, 'y')], { event_families: ['console'] });
    expect(art(cmp(a, b), 'a', 'events').verdict).toBe('unchanged');
    expect(art(cmp(a, evidence([step('a')], [con(1, 'y'), con(2, 'x')], { event_families: ['console'] })), 'a', 'events').verdict).toBe(
      'changed',
    );
  });

  it('different selections report events as unknown even when no event was emitted; a missing selection too (BS-81)', () => {
    const a = evidence([step('a', { url: { state: 'captured', value: 'u' } })], [], { event_families: ['console', 'network'] });
    const b = evidence([step('a', { url: { state: 'captured', value: 'u' } })], [], { event_families: ['network'] });
    const r = cmp(a, b);
    expect(art(r, 'a', 'events')).toMatchObject({ verdict: 'unknown', recovery: expect.stringMatching(/same capture.events/) });
    const legacy = structuredClone(b);
    delete (legacy.scenario as Json).event_families;
    const r2 = cmp(b, legacy);
    expect(art(r2, 'a', 'events').verdict).toBe('unknown');
    expect(art(r2, 'a', 'network').verdict).toBe('unknown');
    // BS-81: the other artifact families remain comparable.
    expect(art(r2, 'a', 'url').verdict).toBe('unchanged');
  });
});

describe('BS-81 one admission rule for retained captures', () => {
  it('the loader and the comparison refuse the same capture with the same error and keep the same missing facts', () => {
    const bad = { ...evidence([step('a')]), schema_version: 2 };
    const viaLoader = (() => {
      try {
        ScenarioReader.readMeta('f.json', new Map(Object.entries(bad)));
      } catch (e) {
        return e as CapstateError;
      }
    })();
    const viaCompare = (() => {
      try {
        compareWebCaptures({ before: bad, after: bad });
      } catch (e) {
        return e as CapstateError;
      }
    })();
    expect(viaLoader?.code).toBe('unsupported-format');
    expect(viaCompare?.code).toBe(viaLoader?.code);
    expect(viaCompare?.context.path).toBe(viaLoader?.context.path);
    const legacy = evidence([step('a')]);
    delete (legacy.scenario as Json).event_families;
    delete (legacy.scenario as Json).network_content;
    const meta = ScenarioReader.readMeta('f.json', new Map(Object.entries(legacy)));
    expect(meta).toEqual(admitRetainedScenario('f.json', (k) => legacy[k]));
    expect(meta).toMatchObject({ eventFamilies: null, requestBodies: null, responseBodies: null, headerValues: null });
  });

  it('the loader accepts a capture without scenario.event_families ', () => {
    const e = evidence([step('a')], tx(1, 't1', 'a', `${ORIGIN}/api/a`, 200, '[1]'));
    delete (e.scenario as Json).event_families;
    const f = join(dir, 'no-families.json');
    writeFileSync(f, JSON.stringify(e));
    const r = cli(['load', f, '--db', join(dir, 'nf.sqlite'), '--json']);
    expect(r.status, r.stderr).toBe(0);
  });
});

describe('BS-72 compare-web-captures CLI', () => {
  it('prints a one-screen summary by default and one JSON document with format_version under --json; a HAR is refused', () => {
    const a = join(dir, 'a.json'),
      b = join(dir, 'b.json');
    writeFileSync(a, JSON.stringify(evidence([step('a', { dom: { state: 'captured', value: '<p>1</p>' } })])));
    writeFileSync(b, JSON.stringify(evidence([step('a', { dom: { state: 'captured', value: '<p>2</p>' } })])));
    const text = cli(['compare-web-captures', a, b]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^CHANGED: 1 changed, 1 unchanged, 0 unknown step\(s\)/);
    expect(text.stdout).toMatch(/a: changed — changed: dom/);
    const json = cli([
      'compare-web-captures',
      a,
      b,
      '--json',
      '--policy',
      '{"rules": [{"artifact_kinds": ["dom"], "find": "2", "replace": "1"}]}',
    ]);
    expect(json.status, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ format_version: 1, ok: true, verdict: 'unchanged', normalization: { rules: [{ find: '2' }] } });
    expect(doc.before.sha256).toMatch(/^[0-9a-f]{64}$/);
    const har = cli(['compare-web-captures', join(__dirname, '..', 'fixtures', 'grafana-mini', 'capture.har'), b, '--json']);
    expect(har.status).toBe(1);
    expect(JSON.parse(har.stdout)).toMatchObject({ ok: false, code: 'not-scenario-evidence' });
  });
});

describe('broken Evidence JSON is reported as load reports it (issue 15: one reading of bad input)', () => {
  it('compare names the byte, line and column of the error in the file, the same message load prints', () => {
    const file = join(tempDir(), 'broken-evidence.json');
    writeFileSync(file, '{"format":"capstate-web-capture",\n "events":[{"a":1,}]}');
    const compare = cli(['compare-web-captures', file, file]);
    const load = cli(['load', file, '--db', join(tempDir(), 'broken.sqlite')]);
    expect(compare.status).toBe(1);
    expect(load.status).toBe(1);
    const message = (s: string) => /not valid JSON: .*$/m.exec(s)?.[0];
    expect(message(compare.stderr)).toBe('not valid JSON: Expected double-quoted property name at byte 52 of the file (line 2, column 19)');
    expect(message(compare.stderr)).toBe(message(load.stderr));
    expect(compare.stderr).not.toMatch(/\n\s+at /);
  });
});
