/**
 * Rules that had no test naming them (issue 7 gaps): network-content reads (BS-41, BS-42,
 * BS-67), the header-value budget (BS-65), redirect predecessor states (BS-61), content
 * arriving in a later step (BS-68) — all against NetworkObserver with fake Playwright
 * objects, no browser — and, with Chromium, deadlines (BS-10, BS-12, BS-13), initiators
 * (BS-69) and the service-worker policy (BS-16, BS-17, BS-55).
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventLog, MAX_CONCURRENT_CONTENT_READS, PROVIDER_READ_TIMEOUT_MS } from '../src/browser/limits.js';
import { NetworkObserver, type ContentSelection } from '../src/browser/network.js';
import { Redaction, RedactionView } from '../src/browser/redaction.js';
import { DEFAULT_LIMITS, type Limits } from '../src/browser/schema.js';

// ---------------------------------------------------------------------------------------
// Fake Playwright request/response objects: only what NetworkObserver calls.

type H = { name: string; value: string }[];
class FakeRequest {
  constructor(readonly u: string, readonly from: FakeRequest | null = null, readonly hs: H = [], readonly post: Buffer | null = null) {}
  method() { return 'GET'; }
  url() { return this.u; }
  resourceType() { return 'fetch'; }
  redirectedFrom() { return this.from; }
  async headersArray() { return this.hs; }
  headers() { return Object.fromEntries(this.hs.map((h) => [h.name.toLowerCase(), h.value])); }
  postDataBuffer() { return this.post; }
  timing() { return { startTime: -1, responseEnd: -1 }; }
  failure() { return null; }
}
class FakeResponse {
  bodyCalls = 0;
  constructor(readonly req: FakeRequest, readonly bodyFn: () => Promise<Buffer>, readonly hs: H = [{ name: 'content-type', value: 'text/plain' }], readonly code = 200) {}
  request() { return this.req; }
  status() { return this.code; }
  statusText() { return 'OK'; }
  async headersArray() { return this.hs; }
  headers() { return Object.fromEntries(this.hs.map((h) => [h.name.toLowerCase(), h.value])); }
  body() { this.bodyCalls++; return this.bodyFn(); }
}

function harness(content: Partial<ContentSelection>, limits: Partial<Limits> = {}, accept: (r: FakeRequest) => boolean = () => true) {
  const l = { ...DEFAULT_LIMITS, ...limits };
  const log = new EventLog(l);
  const ctx = new EventEmitter();
  let step: string | null = 's1';
  const obs = new NetworkObserver({
    log, redaction: new Redaction(new Map()), limits: l, stepId: () => step,
    content: { request_body: false, response_body: false, header_values: false, ...content },
    accept: accept as never,
  });
  obs.attach(ctx as unknown as BrowserContext);
  /** One finished transaction whose response body comes from `bodyFn`. */
  const exchange = (url: string, bodyFn: () => Promise<Buffer>, opts: { from?: FakeRequest | null; reqHeaders?: H; resHeaders?: H } = {}) => {
    const req = new FakeRequest(url, opts.from ?? null, opts.reqHeaders);
    ctx.emit('request', req);
    const res = new FakeResponse(req, bodyFn, opts.resHeaders);
    ctx.emit('response', res);
    ctx.emit('requestfinished', req);
    return { req, res };
  };
  /** The response-phase content events of a transaction. */
  const contentOf = (txId: string) => {
    const res = log.events.find((e) => e.kind === 'response' && e.transaction_id === txId);
    return log.events.filter((e) => e.kind === 'network-content' && res && e.source_event_sequence === res.sequence);
  };
  return { log, ctx, obs, exchange, contentOf, setStep: (s: string) => { step = s; } };
}

const tick = () => new Promise((r) => setImmediate(r));
async function settle(n = 5) { for (let i = 0; i < n; i++) await tick(); }

/** A body whose read the test releases by hand; counts reads running at once. */
function gate() {
  let running = 0;
  let peak = 0;
  const releases: (() => void)[] = [];
  const fn = () => {
    running++;
    peak = Math.max(peak, running);
    return new Promise<Buffer>((r) => releases.push(() => { running--; r(Buffer.from('ok')); }));
  };
  return { fn, releases, get running() { return running; }, get peak() { return peak; } };
}

afterEach(() => { vi.useRealTimers(); vi.restoreAllMocks(); });

describe('BS-41 / BS-67 fixed content-read limits', () => {
  it('BS-41 at most 16 provider reads run at once; queued jobs wait and are not omitted', async () => {
    expect(MAX_CONCURRENT_CONTENT_READS).toBe(16);
    const h = harness({ response_body: true });
    const g = gate();
    for (let i = 0; i < 40; i++) h.exchange(`http://127.0.0.1/r${i}`, g.fn);
    await settle();
    expect(g.running).toBe(16);
    // Release them one at a time: the queue refills to 16, never above.
    while (g.releases.length) { g.releases.shift()!(); await settle(); expect(g.running).toBeLessThanOrEqual(16); }
    const finish = h.obs.finish();
    await finish;
    expect(g.peak).toBe(16);
    const bodies = h.log.events.filter((e) => e.kind === 'network-content').map((e) => (e.body as { state: string }).state);
    expect(bodies).toHaveLength(40);
    expect(new Set(bodies)).toEqual(new Set(['captured']));
    expect(h.log.omissions().by_kind).toEqual({});
  });

  it('BS-41 a body that never finishes is provider-timeout after 5 s of its own read, and coverage is incomplete', async () => {
    expect(PROVIDER_READ_TIMEOUT_MS).toBe(5000);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = harness({ response_body: true });
    const never = h.exchange('http://127.0.0.1/never', () => new Promise<Buffer>(() => {}));
    const fine = h.exchange('http://127.0.0.1/fine', async () => Buffer.from('fine'));
    await vi.advanceTimersByTimeAsync(4999);
    expect(h.contentOf('t1')).toHaveLength(0);
    expect((h.contentOf('t2')[0].body as { state: string }).state).toBe('captured');
    await vi.advanceTimersByTimeAsync(1);
    await h.obs.finish();
    expect(h.contentOf('t1')[0].body).toEqual({ state: 'provider-timeout', media_type: 'text/plain' });
    expect(never.res.bodyCalls).toBe(1);
    expect(fine.res.bodyCalls).toBe(1);
    expect(h.obs.incomplete).toBe(true);
  });

  it('BS-67 each read has its own 5 s deadline once it starts: queue waits add to the drain', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = harness({ response_body: true });
    // 17 reads that never finish: the 17th starts only when a slot frees at 5 s.
    const all = Array.from({ length: 17 }, (_, i) => h.exchange(`http://127.0.0.1/n${i}`, () => new Promise<Buffer>(() => {})));
    await vi.advanceTimersByTimeAsync(10);
    expect(all[16].res.bodyCalls).toBe(0);
    await vi.advanceTimersByTimeAsync(4990);
    expect(all[16].res.bodyCalls).toBe(1);
    expect(h.contentOf('t17')).toHaveLength(0); // its own 5 s has only just begun
    await vi.advanceTimersByTimeAsync(4999);
    expect(h.contentOf('t17')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await h.obs.finish();
    expect((h.contentOf('t17')[0].body as { state: string }).state).toBe('provider-timeout');
  });

  it('BS-67 cancellation: queued jobs are cancelled without calling their provider API; reads in progress are interrupted', async () => {
    const h = harness({ response_body: true, header_values: true });
    const all = Array.from({ length: 20 }, (_, i) => h.exchange(`http://127.0.0.1/c${i}`, () => new Promise<Buffer>(() => {})));
    await settle();
    expect(all.filter((x) => x.res.bodyCalls === 1)).toHaveLength(16);
    h.obs.cancel();
    const t0 = Date.now();
    await h.obs.finish();
    // Interrupted, not left to the 5 s provider deadline.
    expect(Date.now() - t0).toBeLessThan(PROVIDER_READ_TIMEOUT_MS);
    expect(all.slice(16).every((x) => x.res.bodyCalls === 0)).toBe(true);
    const res = Array.from({ length: 20 }, (_, i) => h.contentOf(`t${i + 1}`)[0]);
    for (const c of res.slice(16)) expect(c).toMatchObject({ headers: { state: 'cancelled' }, body: { state: 'cancelled' } });
    for (const c of res.slice(0, 16)) expect((c.body as { state: string }).state).toBe('cancelled');
    expect(h.obs.incomplete).toBe(true);
  });

  it('BS-67 admitted reads are drained: a response that ended just before the last step did still gets its content', async () => {
    const h = harness({ response_body: true });
    h.exchange('http://127.0.0.1/late', async () => Buffer.from('late'));
    await h.obs.finish(); // no tick in between
    expect(h.contentOf('t1')[0].body).toMatchObject({ state: 'captured', bytes: 4 });
  });

  it('BS-67 queued work is bounded by the transaction limit and by whether its event was admitted', async () => {
    const h = harness({ response_body: true }, { max_network_transactions: 3 });
    const all = Array.from({ length: 5 }, (_, i) => h.exchange(`http://127.0.0.1/q${i}`, async () => Buffer.from('x')));
    await h.obs.finish();
    expect(all.map((x) => x.res.bodyCalls)).toEqual([1, 1, 1, 0, 0]);
    expect(h.log.omissions().network_transaction_range).toEqual({ first: 't4', last: 't5', count: 2 });
    // A response event that was not retained gets no content read.
    const h2 = harness({ response_body: true }, { max_events: 1 });
    const one = h2.exchange('http://127.0.0.1/only', async () => Buffer.from('x'));
    await h2.obs.finish();
    expect(one.res.bodyCalls).toBe(0);
  });
});

describe('BS-42 precheck', () => {
  it('BS-42 when the event budget already rejects a body, no redaction or base64 copy is made', async () => {
    const bytes = vi.spyOn(RedactionView.prototype, 'bytes');
    const h = harness({ response_body: true }, { max_retained_event_bytes: 4000 });
    const body = Buffer.alloc(3000, 0x61);
    h.exchange('http://127.0.0.1/big', async () => body);
    await h.obs.finish();
    expect(h.contentOf('t1')[0].body).toEqual({ state: 'unavailable', media_type: 'text/plain' });
    expect(bytes).not.toHaveBeenCalled();
    expect(h.obs.incomplete).toBe(true);
    // Control: the same body under a budget that fits is copied and captured.
    const h2 = harness({ response_body: true });
    h2.exchange('http://127.0.0.1/big', async () => body);
    await h2.obs.finish();
    expect((h2.contentOf('t1')[0].body as { state: string; bytes: number })).toMatchObject({ state: 'captured', bytes: 3000 });
    expect(bytes).toHaveBeenCalledTimes(1);
  });
});

describe('BS-65 header-value budget', () => {
  it('BS-65 many large header values exhaust max_header_value_bytes: later phases are unavailable with the reason, coverage incomplete', async () => {
    const big: H = Array.from({ length: 10 }, (_, i) => ({ name: `x-h${i}`, value: 'v'.repeat(100) }));
    // One phase costs 10 × (5 + 100) × 2 = 2,100 bytes; the budget holds two phases.
    const h = harness({ header_values: true }, { max_header_value_bytes: 4500 });
    for (let i = 0; i < 3; i++) h.exchange(`http://127.0.0.1/h${i}`, async () => Buffer.from(''), { resHeaders: big });
    await h.obs.finish();
    const states = ['t1', 't2', 't3'].map((t) => h.contentOf(t)[0].headers as { state: string; reason?: string; values?: H });
    expect(states[0].state).toBe('captured');
    expect(states[0].values).toEqual(big); // order and values kept
    expect(states[1].state).toBe('captured');
    expect(states[2]).toEqual({ state: 'unavailable', reason: 'max_header_value_bytes' });
    expect(h.obs.incomplete).toBe(true);
  });

  it('BS-65 credential values are dropped before accounting; their names and null projections still count', async () => {
    const cookie: H = [{ name: 'Cookie', value: 'c'.repeat(10_000) }, { name: 'Set-Cookie', value: 's'.repeat(10_000) }];
    // Cost after dropping: (6 + 4) × 2 + (10 + 4) × 2 = 48 bytes.
    const fits = harness({ header_values: true }, { max_header_value_bytes: 48 });
    fits.exchange('http://127.0.0.1/c', async () => Buffer.from(''), { resHeaders: cookie });
    await fits.obs.finish();
    expect(fits.contentOf('t1')[0].headers).toEqual({ state: 'captured', values: [
      { name: 'Cookie', value: null, redacted: true }, { name: 'Set-Cookie', value: null, redacted: true },
    ] });
    const tight = harness({ header_values: true }, { max_header_value_bytes: 47 });
    tight.exchange('http://127.0.0.1/c', async () => Buffer.from(''), { resHeaders: cookie });
    await tight.obs.finish();
    expect(tight.contentOf('t1')[0].headers).toEqual({ state: 'unavailable', reason: 'max_header_value_bytes' });
  });
});

describe('BS-61 redirect predecessor states', () => {
  it('BS-61 observed predecessor → linked id with no state; none → root; one outside the scope → unknown', async () => {
    const outside = new FakeRequest('http://127.0.0.1/other-tab');
    const h = harness({}, {}, (r) => r !== outside);
    const root = new FakeRequest('http://127.0.0.1/old');
    h.ctx.emit('request', root);
    h.ctx.emit('request', new FakeRequest('http://127.0.0.1/new', root));
    h.ctx.emit('request', outside);
    h.ctx.emit('request', new FakeRequest('http://127.0.0.1/after-outside', outside));
    const [a, b, c] = h.log.events.filter((e) => e.kind === 'request');
    expect(a).toMatchObject({ transaction_id: 't1', redirected_from_transaction_id: null, redirected_from_transaction_state: 'root' });
    expect(b).toMatchObject({ transaction_id: 't2', redirected_from_transaction_id: 't1' });
    expect('redirected_from_transaction_state' in b).toBe(false);
    expect(c).toMatchObject({ transaction_id: 't3', redirected_from_transaction_id: null, redirected_from_transaction_state: 'unknown' });
  });

  it('BS-61 requests that share a URL are distinct transactions', async () => {
    const h = harness({});
    h.ctx.emit('request', new FakeRequest('http://127.0.0.1/same'));
    h.ctx.emit('request', new FakeRequest('http://127.0.0.1/same'));
    expect(h.log.events.filter((e) => e.kind === 'request').map((e) => e.transaction_id)).toEqual(['t1', 't2']);
  });
});

describe('BS-68 content arriving in a later step', () => {
  it('BS-68 a body read that completes during the next step carries that step in step_id, and its source reference points at the earlier response', async () => {
    const h = harness({ response_body: true });
    const g = gate();
    h.exchange('http://127.0.0.1/slow', g.fn);
    await settle();
    const response = h.log.events.find((e) => e.kind === 'response')!;
    expect(response.step_id).toBe('s1');
    h.setStep('s2');
    g.releases.shift()!();
    await h.obs.finish();
    const c = h.contentOf('t1')[0];
    expect(c.step_id).toBe('s2'); // event bounds: receipt during s2
    expect(c.source_event_sequence).toBe(response.sequence); // the transaction phase: s1's response
    expect(c.sequence).toBeGreaterThan(response.sequence);
  });
});
