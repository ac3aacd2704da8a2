/**
 * Browser capture limits and deadlines. Without a browser: network-content
 * reads (BS-41, BS-42, BS-67), listener owners (BS-41), the header-value budget (BS-65),
 * redirect predecessor states (BS-61) and late content (BS-68), against NetworkObserver
 * with fake Playwright objects and the comparison's network normalization. With Chromium:
 * deadline families (BS-10 to BS-13), a held-open response behind the read queue (BS-67),
 * initiators (BS-69) and the service-worker policy (BS-16, BS-17, BS-55).
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureBrowserScenario } from '../src/browser/index.js';
import {
  EventLog,
  ListenerOwners,
  MAX_CONCURRENT_CONTENT_READS,
  MAX_LISTENER_OWNERS,
  PROVIDER_READ_TIMEOUT_MS,
} from '../src/browser/limits.js';
import { NetworkObserver, type ContentSelection } from '../src/browser/network.js';
import { Redaction, RedactionView } from '../src/browser/redaction.js';
import { DEFAULT_LIMITS, type Limits } from '../src/browser/schema.js';
import type { CaptureIn } from '../src/compare/input.js';
import { networkBySendingStep } from '../src/compare/network.js';
import { DEFAULT_OPTIONS } from '../src/compare/policy.js';
import { CapstateError } from '../src/errors.js';
import { CHROMIUM, describeBrowser, startExternalBrowser, type ExternalBrowser } from './browser-app.js';

// ---------------------------------------------------------------------------------------
// Fake Playwright request/response objects: only what NetworkObserver calls.

type H = { name: string; value: string }[];
class FakeRequest {
  constructor(
    readonly u: string,
    readonly from: FakeRequest | null = null,
    readonly hs: H = [],
    readonly post: Buffer | null = null,
  ) {}
  method() {
    return 'GET';
  }
  url() {
    return this.u;
  }
  resourceType() {
    return 'fetch';
  }
  redirectedFrom() {
    return this.from;
  }
  async headersArray() {
    return this.hs;
  }
  headers() {
    return Object.fromEntries(this.hs.map((h) => [h.name.toLowerCase(), h.value]));
  }
  postDataBuffer() {
    return this.post;
  }
  timing() {
    return { startTime: -1, responseEnd: -1 };
  }
  failure() {
    return null;
  }
}
class FakeResponse {
  bodyCalls = 0;
  constructor(
    readonly req: FakeRequest,
    readonly bodyFn: () => Promise<Buffer>,
    readonly hs: H = [{ name: 'content-type', value: 'text/plain' }],
    readonly code = 200,
  ) {}
  request() {
    return this.req;
  }
  status() {
    return this.code;
  }
  statusText() {
    return 'OK';
  }
  async headersArray() {
    return this.hs;
  }
  headers() {
    return Object.fromEntries(this.hs.map((h) => [h.name.toLowerCase(), h.value]));
  }
  body() {
    this.bodyCalls++;
    return this.bodyFn();
  }
}

function harness(content: Partial<ContentSelection>, limits: Partial<Limits> = {}, accept: (r: FakeRequest) => boolean = () => true) {
  const l = { ...DEFAULT_LIMITS, ...limits };
  const log = new EventLog(l);
  const ctx = new EventEmitter();
  let step: string | null = 's1';
  const obs = new NetworkObserver({
    log,
    redaction: new Redaction(new Map()),
    limits: l,
    stepId: () => step,
    content: { request_body: false, response_body: false, header_values: false, ...content },
    accept: accept as never,
  });
  obs.attach(ctx as unknown as BrowserContext);
  /** One finished transaction whose response body comes from `bodyFn`. */
  const exchange = (
    url: string,
    bodyFn: () => Promise<Buffer>,
    opts: { from?: FakeRequest | null; reqHeaders?: H; resHeaders?: H } = {},
  ) => {
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
  return {
    log,
    ctx,
    obs,
    exchange,
    contentOf,
    setStep: (s: string) => {
      step = s;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));
async function settle(n = 5) {
  for (let i = 0; i < n; i++) await tick();
}

/** A body whose read the test releases by hand; counts reads running at once. */
function gate() {
  let running = 0;
  let peak = 0;
  const releases: (() => void)[] = [];
  const fn = () => {
    running++;
    peak = Math.max(peak, running);
    return new Promise<Buffer>((r) =>
      releases.push(() => {
        running--;
        r(Buffer.from('ok'));
      }),
    );
  };
  return {
    fn,
    releases,
    get running() {
      return running;
    },
    get peak() {
      return peak;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('BS-41 / BS-67 fixed content-read limits', () => {
  it('BS-41 at most 16 provider reads run at once; queued jobs wait and are not omitted', async () => {
    expect(MAX_CONCURRENT_CONTENT_READS).toBe(16);
    const h = harness({ response_body: true });
    const g = gate();
    for (let i = 0; i < 40; i++) h.exchange(`http://127.0.0.1/r${i}`, g.fn);
    await settle();
    expect(g.running).toBe(16);
    // Release them one at a time: the queue refills to 16, never above.
    while (g.releases.length) {
      g.releases.shift()!();
      await settle();
      expect(g.running).toBeLessThanOrEqual(16);
    }
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

describe('BS-41 listener-owner capacity', () => {
  it('BS-41 2,048 active owners at most; one more is an event-kind omission count; a closed owner frees its slot', () => {
    expect(MAX_LISTENER_OWNERS).toBe(2048);
    const log = new EventLog(DEFAULT_LIMITS);
    const owners = new ListenerOwners(log);
    const releases = Array.from({ length: 2048 }, () => owners.admit('websocket-open'));
    expect(releases.every((r) => r !== null)).toBe(true);
    expect(owners.admit('websocket-open')).toBeNull();
    expect(owners.admit('worker-created')).toBeNull();
    expect(log.omissions().by_kind).toEqual({
      'websocket-open': { count: 1, reasons: { max_listener_owners: 1 } },
      'worker-created': { count: 1, reasons: { max_listener_owners: 1 } },
    });
    releases[0]!();
    releases[0]!(); // releasing twice frees one slot only
    expect(owners.admit('popup-opened')).not.toBeNull();
    expect(owners.admit('popup-opened')).toBeNull();
    expect(owners.size).toBe(2048);
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
    expect(h2.contentOf('t1')[0].body as { state: string; bytes: number }).toMatchObject({ state: 'captured', bytes: 3000 });
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
    const cookie: H = [
      { name: 'Cookie', value: 'c'.repeat(10_000) },
      { name: 'Set-Cookie', value: 's'.repeat(10_000) },
    ];
    // Cost after dropping: (6 + 4) × 2 + (10 + 4) × 2 = 48 bytes.
    const fits = harness({ header_values: true }, { max_header_value_bytes: 48 });
    fits.exchange('http://127.0.0.1/c', async () => Buffer.from(''), { resHeaders: cookie });
    await fits.obs.finish();
    expect(fits.contentOf('t1')[0].headers).toEqual({
      state: 'captured',
      values: [
        { name: 'Cookie', value: null, redacted: true },
        { name: 'Set-Cookie', value: null, redacted: true },
      ],
    });
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

describe('BS-68 comparison attribution', () => {
  const policy = { options: DEFAULT_OPTIONS, rules: [] };
  const cap = (events: Record<string, unknown>[]) => ({ side: 'before', source: 'inline', events }) as unknown as CaptureIn;
  const content = {
    headers: { state: 'not_selected' },
    body: { state: 'captured', base64: Buffer.from('ok').toString('base64'), bytes: 2, media_type: 'text/plain', sha256: 'x' },
  };
  const req = {
    kind: 'request',
    transaction_id: 't1',
    redirected_from_transaction_id: null,
    redirected_from_transaction_state: 'root',
    method: 'GET',
    url: 'http://127.0.0.1/a',
    resource_type: 'fetch',
  };

  it('BS-68 content received during a later step or the drain belongs to the step that sent the request; sequence references are not compared', () => {
    const late = networkBySendingStep(
      cap([
        { sequence: 1, step_id: 's1', ...req },
        { sequence: 2, step_id: 's1', kind: 'response', transaction_id: 't1', status: 200, status_text: 'OK' },
        { sequence: 3, step_id: 's2', kind: 'request-finished', transaction_id: 't1' },
        { sequence: 4, step_id: 's2', kind: 'network-content', transaction_id: 't1', source_event_sequence: 2, ...content },
      ]),
      policy,
    );
    const early = networkBySendingStep(
      cap([
        { sequence: 1, step_id: 's1', kind: 'console', text: 'unrelated' },
        { sequence: 2, step_id: 's1', ...req },
        { sequence: 3, step_id: 's1', kind: 'response', transaction_id: 't1', status: 200, status_text: 'OK' },
        { sequence: 4, step_id: 's1', kind: 'request-finished', transaction_id: 't1' },
        { sequence: 5, step_id: 's1', kind: 'network-content', transaction_id: 't1', source_event_sequence: 3, ...content },
      ]),
      policy,
    );
    expect([...late.keys()]).toEqual(['s1']);
    expect(late.get('s1')!.hops).toHaveLength(1);
    // Same transaction, different receipt steps and sequence numbers: the same fingerprint.
    expect(late.get('s1')!.hops[0].fingerprint).toBe(early.get('s1')!.hops[0].fingerprint);
    expect(late.get('s1')!.hops[0].normalized.find((e) => e.kind === 'network-content')).toMatchObject({ phase: 'response' });
  });

  it('BS-68 without an observed request, content goes to the step that received it', () => {
    const m = networkBySendingStep(
      cap([{ sequence: 1, step_id: 's2', kind: 'response', transaction_id: 't9', status: 200, status_text: 'OK' }]),
      policy,
    );
    expect([...m.keys()]).toEqual(['s2']);
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

// ---------------------------------------------------------------------------------------
// With Chromium: a small local app for deadlines and service workers.

const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
/** Registers /sw.js (which claims its clients) and reports the outcome in #sw and the title. */
const SW_PAGE = html(
  'sw',
  `<p id="sw"></p><script>
  const say = (s) => { document.getElementById('sw').dataset.state = s; document.title = s; };
  if (!navigator.serviceWorker) say('blocked');
  else if (navigator.serviceWorker.controller) say('controlled');
  else {
    navigator.serviceWorker.addEventListener('controllerchange', () => say('controlled'));
    // Playwright's block makes register() resolve without registering anything.
    navigator.serviceWorker.register('/sw.js').then(async () => {
      if ((await navigator.serviceWorker.getRegistrations()).length === 0) say('blocked');
      else if (!navigator.serviceWorker.controller) say('registered');
    }, () => say('blocked'));
  }
</script>`,
);
const SW_SCRIPT = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', () => {});`;

function startServer(routes: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer(routes);
  const s = { origin: '', server };
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    s.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return s;
}

const site = startServer((req, res) => {
  const p = new URL(req.url!, 'http://x').pathname;
  if (p === '/sw.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    return res.end(SW_SCRIPT);
  }
  if (p === '/api/ping') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"ok":true}');
  }
  if (p === '/api/n') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ n: new URL(req.url!, 'http://x').searchParams.get('i') }));
  }
  if (p === '/api/held') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    return;
  } // held open
  if (p === '/favicon.ico') {
    res.writeHead(204);
    return res.end();
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  if (p === '/never-loads') {
    res.write('<!doctype html><p>loading');
    return;
  } // load never fires
  if (p === '/many') {
    return res.end(
      html(
        'many',
        `<script>fetch('/api/held');
      Promise.all(Array.from({ length: 40 }, (_, i) => fetch('/api/n?i=' + i).then((r) => r.text()))).then(() => { document.body.dataset.state = 'ready'; });</script>`,
      ),
    );
  }
  if (p === '/sw') return res.end(SW_PAGE);
  // #late appears after 1.5 s; #never never does.
  if (p === '/late')
    return res.end(
      html(
        'late',
        `<script>setTimeout(() => { const e = document.createElement('p'); e.id = 'late'; e.textContent = 'late'; document.body.append(e); }, 5000); console.log('a'); console.log('b');</script>`,
      ),
    );
  return res.end(html('plain', '<p id="plain">plain</p>'));
});
/** A second origin, so a page there is not in the service worker's scope. */
const other = startServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(html('other', '<p>other</p>'));
});

const launch = (start: string, actions: unknown[], extra: Record<string, unknown> = {}) =>
  captureBrowserScenario(
    { browser: { mode: 'launch', executable_path: CHROMIUM }, start_url: { url: start }, actions, ...extra },
    { env: {} },
  );

describeBrowser('BS-10 / BS-13 deadline families', () => {
  it('BS-10 BS-13 actions keep their own timeouts: not bounded by command_timeout_ms, not changed by capture.limits; a failed wait_for cancels the rest', async () => {
    const e = await launch(
      `${site.origin}/late`,
      [
        // No timeout_ms: pending until #late appears at 5 s, past command_timeout_ms (4,000). The
        // command deadline also bounds the launch, so it is kept wide enough for a loaded machine.
        { step_id: 'late', action: 'wait_for', locator: { kind: 'css', selector: '#late' }, state: 'attached' },
        // Never matches: fails at its own 400 ms.
        { step_id: 'never', action: 'wait_for', locator: { kind: 'css', selector: '#never' }, state: 'attached', timeout_ms: 400 },
        { step_id: 'after', action: 'wait_for_timeout', duration_ms: 10 },
      ],
      { command_timeout_ms: 4000, capture: { events: ['console'], limits: { max_events: 1, max_retained_event_bytes: 2048 } } },
    );
    expect(e.scenario.command_timeout_ms).toBe(4000);
    expect(e.initial_state.status).toBe('completed');
    const [late, never, after] = e.steps;
    expect(late.status).toBe('completed');
    expect(late.elapsed_ms).toBeGreaterThan(4000);
    expect(never.status).toBe('failed');
    expect(never.error!.message).toMatch(/400\s*ms/);
    expect(never.elapsed_ms).toBeGreaterThanOrEqual(390);
    expect(never.elapsed_ms).toBeLessThan(4000);
    // BS-35: the remaining step is cancelled, not executed.
    expect(after).toMatchObject({ status: 'cancelled', error: { code: 'not-executed' }, url: null, completeness: 'missing' });
    // BS-13: the tiny limits only omitted events.
    expect(e.omissions.by_kind.console.reasons.max_events).toBeGreaterThanOrEqual(1);
  });
});

describeBrowser('BS-67 draining content reads against a held-open response', () => {
  it('BS-67 40 bodies behind the 16-read queue are all captured; the held-open stream is not waited for or refetched', async () => {
    const t0 = Date.now();
    const e = await launch(
      `${site.origin}/many`,
      [
        {
          step_id: 'ready',
          action: 'wait_for',
          locator: { kind: 'css', selector: "body[data-state='ready']" },
          state: 'attached',
          timeout_ms: 10000,
        },
      ],
      { capture: { network: { response_body: true } } },
    );
    expect(Date.now() - t0).toBeLessThan(PROVIDER_READ_TIMEOUT_MS + 3000);
    const reqs = e.events.filter((x) => x.kind === 'request');
    const txOf = (path: string) => reqs.filter((r) => (r.url as string).includes(path)).map((r) => r.transaction_id);
    const bodyOf = (tx: unknown) =>
      e.events.find(
        (x) => x.kind === 'network-content' && x.transaction_id === tx && (x.body as { state: string }).state !== 'not_selected',
      )?.body as { state: string } | undefined;
    const many = txOf('/api/n?i=');
    expect(many).toHaveLength(40);
    for (const tx of many) expect(bodyOf(tx)?.state).toBe('captured');
    const [held] = txOf('/api/held');
    expect(e.events.filter((x) => x.transaction_id === held).map((x) => x.kind)).toEqual([
      'request',
      'response',
      'request-unfinished',
      'network-content',
    ]);
    expect(bodyOf(held)?.state).toBe('unavailable');
    expect(e.equality.reasons).toContain('network-content-incomplete');
  });
});

describeBrowser('BS-10 / BS-11 the initial navigation is a command deadline', () => {
  it("BS-10 BS-11 a start_url whose load never fires fails at command_timeout_ms, not at the steps' timeouts; every step is cancelled", async () => {
    const t0 = Date.now();
    const e = await launch(
      `${site.origin}/never-loads`,
      [
        { step_id: 'a', action: 'wait_for_timeout', duration_ms: 10 },
        { step_id: 'b', action: 'wait_for', locator: { kind: 'css', selector: 'p' }, state: 'attached', timeout_ms: 30000 },
        // command_timeout_ms bounds the launch too (BS-11): leave a loaded 2-core machine room to start.
      ],
      { command_timeout_ms: 4000, capture: { after_each_step: ['url'] } },
    );
    expect(Date.now() - t0).toBeLessThan(25_000);
    expect(e.initial_state).toMatchObject({ status: 'failed', error: { code: 'navigation-failed' } });
    expect(e.initial_state.error!.message).toMatch(/4000\s*ms/);
    expect(e.initial_state.elapsed_ms).toBeGreaterThanOrEqual(3990);
    expect(e.steps.map((x) => [x.status, x.error?.code])).toEqual([
      ['cancelled', 'not-executed'],
      ['cancelled', 'not-executed'],
    ]);
    expect(e.equality.reasons).toContain('steps-not-completed');
  });
});

describeBrowser('BS-12 fixed CDP discovery deadline', () => {
  // Discovery answers at once, but the WebSocket it names never completes its handshake.
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((sock) => {
    sockets.add(sock); /* accept and say nothing */
  });
  const discovery = startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ webSocketDebuggerUrl: `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/devtools/browser/x` }));
  });
  beforeAll(() => new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r())));
  afterAll(
    () =>
      new Promise<void>((r) => {
        for (const sock of sockets) sock.destroy();
        silent.close(() => r());
      }),
  );

  it('BS-12 the WebSocket handshake after discovery uses command_timeout_ms, not the discovery deadline', async () => {
    const t0 = Date.now();
    const err = await captureBrowserScenario(
      {
        browser: { mode: 'connect', cdp_endpoint: discovery.origin },
        start_url: { url: `${site.origin}/` },
        actions: [{ step_id: 'x', action: 'wait_for_timeout', duration_ms: 1 }],
        command_timeout_ms: 300,
      },
      { env: {} },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CapstateError);
    expect((err as CapstateError).code).toBe('cdp-connect-failed');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  const hang = startServer(() => {
    /* never answers /json/version */
  });
  it('BS-12 endpoint discovery keeps its fixed 5 s deadline, whatever command_timeout_ms says', async () => {
    const attempt = async (commandTimeout: number) => {
      const t0 = Date.now();
      const err = await captureBrowserScenario(
        {
          browser: { mode: 'connect', cdp_endpoint: hang.origin },
          start_url: { url: `${site.origin}/` },
          actions: [{ step_id: 'x', action: 'wait_for_timeout', duration_ms: 1 }],
          command_timeout_ms: commandTimeout,
        },
        { env: {} },
      ).then(
        () => null,
        (e: unknown) => e,
      );
      return { err, ms: Date.now() - t0 };
    };
    const [short, long] = await Promise.all([attempt(50), attempt(600_000)]);
    for (const r of [short, long]) {
      expect(r.err).toBeInstanceOf(CapstateError);
      expect((r.err as CapstateError).code).toBe('cdp-unreachable');
      expect(r.ms).toBeGreaterThanOrEqual(4900);
      expect(r.ms).toBeLessThan(8000);
    }
  }, 15_000);
});

describeBrowser('BS-69 initiators', () => {
  it('BS-69 a capture with network events states the no-initiators limitation and carries no initiator fields', async () => {
    const e = await launch(`${site.origin}/`, [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 20 }], {
      capture: { events: ['network'] },
    });
    expect(e.limitations).toContainEqual(expect.objectContaining({ code: 'no-initiators', rule: 'BS-69' }));
    const requests = e.events.filter((x) => x.kind === 'request');
    expect(requests.length).toBeGreaterThan(0);
    for (const ev of e.events) expect(Object.keys(ev).some((k) => /initiator/i.test(k))).toBe(false);
    const plain = await launch(`${site.origin}/`, [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 20 }]);
    expect(plain.limitations.map((l) => l.code)).not.toContain('no-initiators');
  });
});

describeBrowser('BS-16 / BS-55 service workers in launch mode', () => {
  const swState = (e: Awaited<ReturnType<typeof launch>>) =>
    /data-state="(\w+)"/.exec((e.steps.at(-1)!.captures.dom as { value: string }).value)?.[1];

  it('BS-16 by default a page on 127.0.0.1 cannot register a service worker; with "allow" it can', async () => {
    const actions = [
      { step_id: 'sw', action: 'wait_for', locator: { kind: 'css', selector: '#sw[data-state]' }, state: 'attached', timeout_ms: 10000 },
    ];
    const [blocked, allowed] = await Promise.all([
      launch(`${site.origin}/sw`, actions, { capture: { at_end: ['dom'] } }),
      launch(`${site.origin}/sw`, actions, { capture: { at_end: ['dom'] }, environment: { service_workers: 'allow' } }),
    ]);
    expect(blocked.scenario.service_workers).toBe('block');
    expect(blocked.steps[0].status).toBe('completed');
    expect(swState(blocked)).toBe('blocked');
    expect(allowed.scenario.service_workers).toBe('allow');
    expect(['registered', 'controlled']).toContain(swState(allowed));
  });

  it('BS-55 a request step on a page controlled by a service worker is rejected; the next step is cancelled', async () => {
    const e = await launch(
      `${site.origin}/sw`,
      [
        {
          step_id: 'controlled',
          action: 'wait_for',
          locator: { kind: 'css', selector: "#sw[data-state='controlled']" },
          state: 'attached',
          timeout_ms: 10000,
        },
        { step_id: 'ping', action: 'request', method: 'GET', path: '/api/ping', timeout_ms: 10000 },
        { step_id: 'after', action: 'wait_for_timeout', duration_ms: 10 },
      ],
      { environment: { service_workers: 'allow' } },
    );
    expect(e.steps[0].status).toBe('completed');
    expect(e.steps[1]).toMatchObject({ status: 'failed', error: { code: 'service-worker' } });
    expect(e.steps[1].error!.message).toMatch(/blocked service-worker policy/);
    expect(e.steps[2].status).toBe('cancelled');
  });
});

describeBrowser('BS-17 service workers in connect mode', () => {
  let external: ExternalBrowser | null = null;
  let endpoint = '';
  beforeAll(async () => {
    // The caller's browser, where service workers are allowed; its page becomes controlled.
    external = await startExternalBrowser({ url: `${site.origin}/sw` });
    endpoint = external.endpoint;
    for (let i = 0; i < 100; i++) {
      try {
        const tabs = (await (await fetch(`${endpoint}/json/list`)).json()) as { title: string }[];
        if (tabs.some((t) => t.title === 'controlled')) break;
      } catch {
        /* not up yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 20_000);
  afterAll(async () => {
    await external?.stop();
  });
  const tabs = async () => (await (await fetch(`${endpoint}/json/list`)).json()) as { type: string; url: string; title: string }[];

  it('BS-17 "block" rejects a selected page controlled by a service worker; the caller\'s registration stays', async () => {
    expect((await tabs()).map((t) => t.title)).toContain('controlled');
    const err = await captureBrowserScenario(
      {
        browser: { mode: 'connect', cdp_endpoint: endpoint, target: { url_prefix: `${site.origin}/sw` } },
        start_url: { url: `${site.origin}/sw` },
        actions: [{ step_id: 'x', action: 'wait_for_timeout', duration_ms: 1 }],
      },
      { env: {} },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CapstateError);
    expect((err as CapstateError).code).toBe('service-worker-policy');
    // Never removed: the caller's page is still there and still controlled.
    expect((await tabs()).filter((t) => t.type === 'page').map((t) => t.title)).toContain('controlled');
  });

  it('BS-17 the check also follows a navigation: a step that lands on a controlled page rejects the capture before its artifacts are taken', async () => {
    const err = await captureBrowserScenario(
      {
        browser: { mode: 'connect', cdp_endpoint: endpoint },
        start_url: { url: `${other.origin}/` },
        actions: [{ step_id: 'go', action: 'goto', destination: { url: `${site.origin}/plain` }, timeout_ms: 10000 }],
        capture: { after_each_step: ['url'] },
      },
      { env: {} },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CapstateError);
    expect((err as CapstateError).code).toBe('service-worker-policy');
    // The check before the step's artifact capture hit: nothing of that capture was collected.
    expect(
      ((err as CapstateError).context.details as { diagnostics: { collected_artifacts: unknown } }).diagnostics.collected_artifacts,
    ).toBeNull();
    // The page capstate opened is closed again; the caller's tab remains.
    expect((await tabs()).filter((t) => t.type === 'page').map((t) => t.url)).toEqual([`${site.origin}/sw`]);
  });
});
