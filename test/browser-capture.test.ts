/**
 * Browser scenario capture against a local app with headless Chromium: the spec's
 * minimal, search-results, request-step and network-evidence examples, redaction,
 * limits and omissions, failed steps, storage seeding and fingerprints.
 */
import { createHash } from 'node:crypto';
import { chromium } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { captureBrowserScenario, type Evidence } from '../src/browser/index.js';
import { CHROMIUM, CSRF, describeBrowser, SESSION, startApp, startExternalBrowser, TOKEN, type ExternalBrowser } from './browser-app.js';

const app = startApp();
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function scenario(start: string, actions: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { browser: { mode: 'launch', executable_path: CHROMIUM }, start_url: { url: app.origin + start }, actions, ...extra };
}

const capture = (s: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => captureBrowserScenario(s, { env });

type Ev = Evidence['events'][number];
const ofKind = (e: Evidence, kind: string) => e.events.filter((ev) => ev.kind === kind);
function txByPath(e: Evidence, path: string): { request: Ev; events: Ev[] } {
  const request = e.events.find(
    (ev) => ev.kind === 'request' && new URL(ev.url as string).pathname + new URL(ev.url as string).search === path,
  );
  if (!request)
    throw new Error(
      `no request for ${path}: ${e.events
        .filter((x) => x.kind === 'request')
        .map((x) => x.url)
        .join(', ')}`,
    );
  return { request, events: e.events.filter((ev) => ev.transaction_id === request.transaction_id) };
}
function content(e: Evidence, path: string, side: 'request' | 'response'): Ev {
  const { request, events } = txByPath(e, path);
  const source = side === 'request' ? request.sequence : events.find((x) => x.kind === 'response')!.sequence;
  const c = events.find((x) => x.kind === 'network-content' && x.source_event_sequence === source);
  if (!c) throw new Error(`no ${side} content for ${path}`);
  return c;
}
const bodyText = (c: Ev) => Buffer.from((c.body as { base64: string }).base64, 'base64').toString('utf8');

describeBrowser('BS-3 / BS-21 minimal launch capture', () => {
  it('BS-3 the minimal request: one completed step, the default final URL, nothing else captured', async () => {
    const e = await capture(scenario('/', [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 100 }]));
    expect(e.schema_version).toBe(1);
    expect(e.initial_state.status).toBe('completed');
    expect(e.steps).toHaveLength(1);
    const [s] = e.steps;
    expect(s).toMatchObject({
      step_id: 'settle',
      action: 'wait_for_timeout',
      status: 'completed',
      url: `${app.origin}/`,
      completeness: 'complete',
    });
    expect(s.elapsed_ms).toBeGreaterThanOrEqual(99);
    expect(s.captures.url).toEqual({ state: 'captured', value: `${app.origin}/` });
    // BS-21: everything else is not_requested, which says capstate did not look.
    for (const a of ['screenshot', 'dom', 'accessibility', 'history', 'storage'] as const)
      expect(s.captures[a]).toEqual({ state: 'not_requested' });
    expect(e.scenario.network_content).toEqual({ request_body: false, response_body: false, header_values: false });
    expect(e.scenario.event_families).toEqual([]);
    expect(e.events).toEqual([]);
    // BS-11: an omitted command_timeout_ms stays out of the Evidence; BS-38: limits are included.
    expect('command_timeout_ms' in e.scenario).toBe(false);
    expect(e.scenario.limits.max_network_body_bytes).toBe(65_536);
    expect(e.equality).toEqual({ eligible: true, reasons: [] });
  });
});

describeBrowser('BS-19 / BS-20 search results rendered in place', () => {
  it('BS-19 click Search, wait for #results[data-state=ready], final DOM/accessibility/URL hold the results', async () => {
    const e = await capture(
      scenario(
        '/',
        [
          { step_id: 'search', action: 'click', locator: { kind: 'css', selector: '#search' }, timeout_ms: 10000 },
          {
            step_id: 'results-ready',
            action: 'wait_for',
            locator: { kind: 'css', selector: "#results[data-state='ready']" },
            state: 'visible',
            timeout_ms: 10000,
          },
        ],
        { capture: { at_end: ['dom', 'accessibility', 'url', 'screenshot', 'history'] } },
      ),
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
    // at_end artifacts belong to the last step only.
    expect(e.steps[0].captures.dom).toEqual({ state: 'not_requested' });
    const last = e.steps[1].captures;
    expect(last.dom.state).toBe('captured');
    expect((last.dom as { value: string }).value).toContain('<li>Lamp</li>');
    expect((last.accessibility as { value: string }).value).toMatch(/listitem: Lamp/);
    expect((last.url as { value: string }).value).toBe(`${app.origin}/`);
    const shot = (last.screenshot as { value: { base64: string; bytes: number; sha256: string; media_type: string } }).value;
    expect(shot.media_type).toBe('image/png');
    expect(sha256(Buffer.from(shot.base64, 'base64'))).toBe(shot.sha256);
    const history = (last.history as { value: { entries: { url: string }[] } }).value;
    expect(history.entries.map((h) => h.url)).toContain(`${app.origin}/`);
    expect(e.steps[1].completeness).toBe('complete');
  });
});

describeBrowser('BS-57 / BS-58 / BS-61 / BS-63 / BS-65 / BS-66 network evidence', () => {
  it('BS-57 network content: transactions, timing fields, bodies with SHA-256, headers in order with credentials null', async () => {
    const e = await capture(
      scenario(
        '/app',
        [
          {
            step_id: 'ready',
            action: 'wait_for',
            locator: { kind: 'css', selector: "body[data-state='ready']" },
            state: 'attached',
            timeout_ms: 10000,
          },
        ],
        { capture: { network: { request_body: true, response_body: true, header_values: true } } },
      ),
    );
    // BS-57: selecting content enables network metadata; BS-62: the selection is recorded.
    expect(e.scenario.event_families).toEqual(['network']);
    expect(e.scenario.network_content).toEqual({ request_body: true, response_body: true, header_values: true });
    const requests = ofKind(e, 'request');
    // BS-58: capture-scoped transaction ids, each request with observed_at.
    expect(new Set(requests.map((r) => r.transaction_id)).size).toBe(requests.length);
    for (const r of requests) {
      expect(r.observed_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      // BS-61: no predecessor observed → root.
      expect(r).toMatchObject({ redirected_from_transaction_id: null, redirected_from_transaction_state: 'root' });
    }
    const list = txByPath(e, '/api/items');
    expect(list.request).toMatchObject({ method: 'GET', resource_type: 'fetch' });
    const finished = list.events.find((x) => x.kind === 'request-finished')!;
    expect(Date.parse(finished.started_at as string)).toBeGreaterThan(0);
    expect(finished.elapsed_ms).toBeGreaterThanOrEqual(0);
    // BS-63: the body keeps base64 bytes, byte count, media type and the SHA-256 of the bytes.
    const res = content(e, '/api/items', 'response');
    const body = res.body as { state: string; base64: string; bytes: number; media_type: string; sha256: string };
    const bytes = Buffer.from(body.base64, 'base64');
    expect(body.state).toBe('captured');
    expect(JSON.parse(bytes.toString('utf8'))).toEqual([
      { id: 'it-01', name: 'Lamp' },
      { id: 'it-02', name: 'Desk' },
    ]);
    expect(body.bytes).toBe(bytes.length);
    expect(body.sha256).toBe(sha256(bytes));
    expect(body.media_type).toBe('application/json');
    // BS-65: producer order kept; Set-Cookie keeps its name, value null, redacted: true.
    const headers = (res.headers as { state: string; values: { name: string; value: string | null; redacted?: boolean }[] }).values;
    const names = headers.map((h) => h.name.toLowerCase());
    expect(names.indexOf('content-type')).toBeLessThan(names.indexOf('set-cookie'));
    expect(headers.find((h) => h.name.toLowerCase() === 'set-cookie')).toEqual({
      name: expect.stringMatching(/set-cookie/i),
      value: null,
      redacted: true,
    });
    expect(headers.find((h) => h.name.toLowerCase() === 'content-type')!.value).toBe('application/json');
    // The request side: a GET exposes no body (BS-64 not_exposed proves nothing).
    expect((content(e, '/api/items', 'request').body as { state: string }).state).toBe('not_exposed');
    // BS-64: the provenance limitation is stated once bodies were captured.
    expect(e.limitations.map((l) => l.rule)).toContain('BS-64');
  });

  it('BS-61 / BS-25 a navigation redirect links the hop to its observed predecessor; launch mode sends the locale', async () => {
    const hitsBefore = app.hits.length;
    const e = await capture(
      scenario('/', [{ step_id: 'old', action: 'goto', destination: { url: `${app.origin}/api/old` } }], {
        environment: { locale: 'de-DE' },
        capture: { network: { response_body: true } },
      }),
    );
    expect(e.steps[0].status).toBe('completed');
    const old = txByPath(e, '/api/old');
    const next = e.events.find((x) => x.kind === 'request' && x.redirected_from_transaction_id === old.request.transaction_id)!;
    expect(new URL(next.url as string).pathname).toBe('/api/items');
    expect('redirected_from_transaction_state' in next).toBe(false);
    expect(old.request.redirected_from_transaction_state).toBe('root');
    // A 3xx has no body to read; that is not missing coverage.
    expect((content(e, '/api/old', 'response').body as { state: string }).state).toBe('unavailable');
    expect(e.equality.reasons).not.toContain('network-content-incomplete');
    // BS-25: launch mode sets Accept-Language from environment.locale.
    expect(app.hits.slice(hitsBefore).find((h) => h.url === '/api/old')!.headers['accept-language']).toMatch(/^de-DE/);
  });

  it('BS-66 a request still in flight at the end is request-unfinished and its body is unavailable', async () => {
    const e = await capture(
      scenario('/hang', [{ step_id: 'wait', action: 'wait_for_timeout', duration_ms: 300 }], {
        capture: { network: { response_body: true } },
      }),
    );
    const hang = txByPath(e, '/api/hang');
    expect(hang.events.map((x) => x.kind)).toContain('request-unfinished');
    expect(hang.events.map((x) => x.kind)).not.toContain('request-finished');
    expect((content(e, '/api/hang', 'response').body as { state: string }).state).toBe('unavailable');
    expect(txByPath(e, '/api/items').events.map((x) => x.kind)).toContain('request-finished');
  });
});

describeBrowser('BS-47 to BS-56 request steps', () => {
  it('BS-47 / BS-51 / BS-52 the spec example: cookie and local-storage header values, JSON body, page values redacted after the read', async () => {
    const hitsBefore = app.hits.length;
    const e = await capture(
      scenario(
        '/login',
        [
          {
            step_id: 'create-item',
            action: 'request',
            method: 'POST',
            path: '/api/echo',
            query: [{ name: 'notify', value: { source: 'literal', value: 'false' } }],
            headers: [
              { name: 'X-CSRFToken', value: { source: 'cookie', name: 'csrftoken' } },
              { name: 'Authorization', value: { source: 'local_storage', key: 'auth', json_pointer: '/token' }, prefix: 'Bearer ' },
              { name: 'X-Session', value: { source: 'cookie', name: 'session' } },
              { name: 'X-Num', value: { source: 'local_storage', key: 'auth', json_pointer: '/n' } },
            ],
            json: { title: 'Scratch item 1' },
            expected_status: [200],
            timeout_ms: 10000,
          },
        ],
        { capture: { network: { request_body: true, response_body: true, header_values: true } } },
      ),
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed']);
    // What the app received: the page's fetch with the declared headers and body.
    const hit = app.hits.slice(hitsBefore).find((h) => h.url.startsWith('/api/echo'))!;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/api/echo?notify=false');
    expect(hit.headers['x-csrftoken']).toBe(CSRF);
    expect(hit.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(hit.headers['x-session']).toBe(SESSION); // HttpOnly cookie (BS-51)
    expect(hit.headers['x-num']).toBe('12345678901');
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.body).toBe('{"title":"Scratch item 1"}');
    // BS-52: records after the read carry the markers; the login page recorded before keeps the token.
    const echo = bodyText(content(e, '/api/echo?notify=false', 'response'));
    expect(echo).toContain('[REDACTED:page:create-item.X-CSRFToken]');
    expect(echo).toContain('[REDACTED:page:create-item.X-Session]');
    expect(echo).toContain('[REDACTED:page:create-item.Authorization]');
    expect(echo).not.toContain(CSRF);
    expect(echo).not.toContain(TOKEN);
    expect(bodyText(content(e, '/login', 'response'))).toContain(TOKEN);
    // BS-65: the request's Authorization value is never retained.
    const reqHeaders = (content(e, '/api/echo?notify=false', 'request').headers as { values: { name: string; value: string | null }[] })
      .values;
    expect(reqHeaders.find((h) => h.name.toLowerCase() === 'authorization')).toMatchObject({ value: null, redacted: true });
    expect(reqHeaders.find((h) => h.name.toLowerCase() === 'x-csrftoken')!.value).toBe('[REDACTED:page:create-item.X-CSRFToken]');
    expect(bodyText(content(e, '/api/echo?notify=false', 'request'))).toBe('{"title":"Scratch item 1"}');
    // BS-56: the limitation is stated.
    expect(e.limitations.find((l) => l.rule === 'BS-56')).toBeTruthy();
  });

  it('BS-52 / OQ-47 after a 32-character X-CSRFToken was read, a 44 KiB body is kept and a 50 KiB body is body-allocation-limit', async () => {
    const e = await capture(
      scenario(
        '/login',
        [
          {
            step_id: 'read',
            action: 'request',
            method: 'GET',
            path: '/api/items',
            headers: [{ name: 'X-CSRFToken', value: { source: 'cookie', name: 'csrftoken' } }],
            timeout_ms: 10000,
          },
          { step_id: 'small', action: 'request', method: 'GET', path: `/api/big?n=${44 * 1024}`, timeout_ms: 10000 },
          { step_id: 'large', action: 'request', method: 'GET', path: `/api/big?n=${50 * 1024}`, timeout_ms: 10000 },
        ],
        { capture: { network: { response_body: true } } },
      ),
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
    expect((content(e, `/api/big?n=${44 * 1024}`, 'response').body as { state: string }).state).toBe('captured');
    const big = content(e, `/api/big?n=${50 * 1024}`, 'response').body as { state: string; observed_bytes: number; allowed_bytes: number };
    expect(big.state).toBe('body-allocation-limit');
    expect(big.allowed_bytes).toBe(1_048_576);
    expect(big.observed_bytes).toBeGreaterThan(1_048_576);
    // The estimate applies to bodies redacted after the read; the login page, recorded before it, is kept.
    expect((content(e, '/login', 'response').body as { state: string }).state).toBe('captured');
  });

  it('BS-50 / BS-51 / BS-54 a redirect, a missing page value and an unexpected status fail the step', async () => {
    const hitsBefore = app.hits.length;
    const redirect = await capture(
      scenario('/', [
        { step_id: 'old', action: 'request', method: 'GET', path: '/api/old', timeout_ms: 10000 },
        { step_id: 'after', action: 'wait_for_timeout', duration_ms: 1 },
      ]),
    );
    expect(redirect.steps[0]).toMatchObject({ status: 'failed', error: { code: 'redirect' } });
    expect(redirect.steps[1]).toMatchObject({ status: 'cancelled', error: { code: 'not-executed' } });
    // Nothing was sent to the redirect's target.
    expect(app.hits.slice(hitsBefore).filter((h) => h.url === '/api/items')).toHaveLength(0);

    const missing = await capture(
      scenario('/', [
        {
          step_id: 'needs-cookie',
          action: 'request',
          method: 'POST',
          path: '/api/items',
          json: { name: 'x' },
          headers: [{ name: 'X-CSRFToken', value: { source: 'cookie', name: 'csrftoken-nope' } }],
          timeout_ms: 10000,
        },
      ]),
    );
    expect(missing.steps[0]).toMatchObject({ status: 'failed', error: { code: 'missing-page-value' } });
    expect(app.hits.slice(hitsBefore).filter((h) => h.method === 'POST')).toHaveLength(0);

    // BS-49: when the step runs the page must be on the start origin (localhost ≠ 127.0.0.1).
    const off = await capture(
      scenario('/', [
        { step_id: 'leave', action: 'goto', destination: { url: app.origin.replace('127.0.0.1', 'localhost') + '/' } },
        { step_id: 'post', action: 'request', method: 'POST', path: '/api/items', json: { name: 'y' }, timeout_ms: 10000 },
      ]),
    );
    expect(off.steps[1]).toMatchObject({
      status: 'failed',
      error: { code: 'off-origin', message: expect.stringMatching(/add a goto step first/) },
    });
    // BS-53: a secret value with a newline fails the step before sending.
    const control = await capture(
      scenario(
        '/',
        [
          {
            step_id: 'bad',
            action: 'request',
            method: 'POST',
            path: '/api/items',
            json: { name: 'z' },
            headers: [{ name: 'X-Api-Key', value: { source: 'secret', secret_id: 'k' } }],
            timeout_ms: 10000,
          },
        ],
        { secrets: [{ secret_id: 'k', environment_variable: 'CAPSTATE_TEST_NL' }] },
      ),
      { CAPSTATE_TEST_NL: 'line1\nline2' },
    );
    expect(control.steps[0]).toMatchObject({ status: 'failed', error: { code: 'invalid-header-value' } });
    expect(app.hits.slice(hitsBefore).filter((h) => h.method === 'POST')).toHaveLength(0);

    // BS-54: timeout_ms covers sending and reading; a sent request may still reach the app.
    // /api/hang never answers, so the step ends at its timeout; 4 s leaves a busy machine time
    // to send the request first (at 500 ms a loaded CI machine sometimes had not).
    const slow = await capture(scenario('/', [{ step_id: 'slow', action: 'request', method: 'GET', path: '/api/hang', timeout_ms: 4000 }]));
    expect(slow.steps[0]).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', message: expect.stringMatching(/timeout_ms 4000; the request had been sent/) },
    });

    const status = await capture(
      scenario('/', [
        { step_id: 'get-missing', action: 'request', method: 'GET', path: '/api/items/it-99', expected_status: [200], timeout_ms: 10000 },
      ]),
    );
    expect(status.steps[0]).toMatchObject({
      status: 'failed',
      error: { code: 'unexpected-status', message: expect.stringContaining('404') },
    });
  });
});

describeBrowser('BS-35 a failed step cancels the rest', () => {
  it('BS-35 later actions are cancelled with a not-executed error; the end artifacts go to the failed step', async () => {
    const e = await capture(
      scenario(
        '/',
        [
          { step_id: 'ok', action: 'click', locator: { kind: 'css', selector: '#search' }, timeout_ms: 5000 },
          { step_id: 'broken', action: 'click', locator: { kind: 'css', selector: '#does-not-exist' }, timeout_ms: 300 },
          { step_id: 'never', action: 'click', locator: { kind: 'css', selector: '#search' }, timeout_ms: 5000 },
          { step_id: 'never-either', action: 'wait_for_timeout', duration_ms: 1 },
        ],
        { capture: { at_end: ['url', 'dom'] } },
      ),
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'failed', 'cancelled', 'cancelled']);
    expect(e.steps[1].error?.message).toMatch(/300ms/);
    expect(e.steps[1].captures.url.state).toBe('captured');
    expect(e.steps[1].captures.dom.state).toBe('captured');
    for (const s of e.steps.slice(2)) {
      expect(s.error).toEqual({ code: 'not-executed', message: 'not executed: step "broken" did not complete' });
      expect(s.elapsed_ms).toBe(0);
    }
    expect(e.steps[3].captures.url.state).toBe('missing');
    expect(e.equality.eligible).toBe(false);
  });
});

describeBrowser('BS-11 / BS-35 a failed initial navigation', () => {
  it('BS-11 an unreachable start_url fails the initial state and cancels every action', async () => {
    const e = await captureBrowserScenario(
      {
        browser: { mode: 'launch', executable_path: CHROMIUM },
        start_url: { url: 'http://127.0.0.1:1/' },
        command_timeout_ms: 5000,
        actions: [
          { step_id: 'a', action: 'wait_for_timeout', duration_ms: 1 },
          { step_id: 'b', action: 'wait_for_timeout', duration_ms: 1 },
        ],
      },
      { env: {} },
    );
    expect(e.initial_state).toMatchObject({
      status: 'failed',
      error: { code: 'navigation-failed', message: expect.stringMatching(/net::ERR_/) },
    });
    expect(e.steps.map((s) => [s.status, s.error?.code])).toEqual([
      ['cancelled', 'not-executed'],
      ['cancelled', 'not-executed'],
    ]);
    expect(e.steps[1].captures.url.state).toBe('missing');
    expect(e.scenario.command_timeout_ms).toBe(5000);
  });
});

describeBrowser('BS-36 to BS-40 limits and omission reports', () => {
  it('BS-38 / BS-39 / BS-40 max_events, max_network_transactions and max_network_body_bytes omit and report', async () => {
    const e = await capture(
      scenario(
        '/app',
        [
          {
            step_id: 'ready',
            action: 'wait_for',
            locator: { kind: 'css', selector: "body[data-state='ready']" },
            state: 'attached',
            timeout_ms: 10000,
          },
        ],
        { capture: { network: { response_body: true }, limits: { max_network_transactions: 2, max_network_body_bytes: 20 } } },
      ),
    );
    // BS-38: the effective limits are in the Evidence.
    expect(e.scenario.limits).toMatchObject({ max_network_transactions: 2, max_network_body_bytes: 20, max_events: 10_000 });
    // /app (t1) and /api/items (t2) are kept; /api/items/it-01 (t3) is beyond the limit.
    const urls = ofKind(e, 'request').map((r) => new URL(r.url as string).pathname);
    expect(urls).toEqual(['/app', '/api/items']);
    expect(e.omissions.network_transaction_range).toEqual({ first: 't3', last: 't3', count: 1 });
    expect(e.omissions.by_kind.request).toEqual({ count: 1, reasons: { max_network_transactions: 1 } });
    // BS-40: an oversized body has an explicit state with the observed and allowed values.
    const body = content(e, '/api/items', 'response').body as Record<string, unknown>;
    expect(body).toMatchObject({ state: 'body-size-limit', allowed_bytes: 20, media_type: 'application/json' });
    expect(body.observed_bytes).toBeGreaterThan(20);
    expect(body.base64).toBeUndefined();
    expect(e.equality.eligible).toBe(false);
  });

  it('BS-36 / BS-39 console and page-error events within max_events; the rest counted by kind', async () => {
    const e = await capture(
      scenario('/console', [{ step_id: 'wait', action: 'wait_for_timeout', duration_ms: 200 }], {
        capture: { events: ['console', 'page-errors'], limits: { max_events: 3 } },
      }),
    );
    expect(e.events).toHaveLength(3);
    expect(e.events.map((x) => x.sequence)).toEqual([1, 2, 3]);
    expect(e.events[0]).toMatchObject({ kind: 'console', text: 'line 0', type: 'log' });
    expect(e.omissions.by_kind.console).toEqual({ count: 2, reasons: { max_events: 2 } });
    expect(e.omissions.by_kind['page-error']).toEqual({ count: 1, reasons: { max_events: 1 } });
    // BS-80: the selection is recorded sorted.
    expect(e.scenario.event_families).toEqual(['console', 'page-errors']);
  });
});

describeBrowser('BS-28 / BS-65 declared secrets never reach the Evidence', () => {
  it('BS-28 a secret in a URL query entry, a fill value and a storage seed is replaced by its reference everywhere', async () => {
    const secret = 'sekrit/value 123';
    const e = await capture(
      scenario(
        '/echo-query',
        [
          {
            step_id: 'fill',
            action: 'fill',
            locator: { kind: 'css', selector: '#field' },
            value: { source: 'secret', secret_id: 'api-key' },
          },
          {
            step_id: 'again',
            action: 'goto',
            destination: { url: `${app.origin}/echo-query`, query: [{ name: 'key', value: { source: 'secret', secret_id: 'api-key' } }] },
          },
        ],
        {
          start_url: { url: `${app.origin}/echo-query`, query: [{ name: 'key', value: { source: 'secret', secret_id: 'api-key' } }] },
          secrets: [{ secret_id: 'api-key', environment_variable: 'CAPSTATE_TEST_KEY' }],
          storage: {
            local_storage: [
              {
                origin: app.origin,
                entries: [
                  { key: 'apiKey', value: { source: 'secret', secret_id: 'api-key' } },
                  { key: 'plain', value: { source: 'literal', value: 'visible' } },
                ],
              },
            ],
          },
          capture: {
            after_each_step: ['url', 'dom', 'history', 'storage'],
            events: ['console', 'frames'],
            network: { response_body: true, header_values: true, request_body: true },
          },
        },
      ),
      { CAPSTATE_TEST_KEY: secret },
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
    const text = JSON.stringify(e);
    for (const spelling of [secret, encodeURIComponent(secret), 'sekrit%2Fvalue+123', 'sekrit']) expect(text).not.toContain(spelling);
    expect(text).toContain('[REDACTED:secret:api-key]');
    expect(e.scenario.start_url).toBe(`${app.origin}/echo-query?key=[REDACTED:secret:api-key]`);
    expect((e.steps[1].captures.dom as { value: string }).value).toContain('<p id="q">[REDACTED:secret:api-key]</p>');
    // BS-70: a storage value holding a secret has no digest; others are hashed.
    const storage = (
      e.steps[0].captures.storage as { value: { local_storage: { key: string; value: { state: string; sha256: string | null } }[] } }
    ).value;
    expect(storage.local_storage.find((x) => x.key === 'apiKey')!.value).toEqual({ state: 'redacted-secret', sha256: null });
    expect(storage.local_storage.find((x) => x.key === 'plain')!.value).toEqual({
      state: 'hashed',
      sha256: sha256(Buffer.from('visible')),
    });
  });
});

describeBrowser('BS-30 / BS-29 / BS-70 storage seeding and fingerprints', () => {
  it("BS-30 seeds apply once per origin; the app's updates and deletions persist across navigations", async () => {
    const e = await capture(
      scenario(
        '/count',
        [
          { step_id: 'second', action: 'goto', destination: { url: `${app.origin}/count` } },
          { step_id: 'third', action: 'goto', destination: { url: `${app.origin}/count` } },
        ],
        {
          storage: {
            cookies: [{ name: 'pref', value: { source: 'literal', value: 'dark' }, url: app.origin }],
            local_storage: [
              {
                origin: app.origin,
                entries: [
                  { key: 'counter', value: { source: 'literal', value: '10' } },
                  { key: 'temp', value: { source: 'literal', value: 'x' } },
                ],
              },
            ],
            session_storage: [{ origin: app.origin, entries: [{ key: 'visits', value: { source: 'literal', value: '100' } }] }],
          },
          capture: { after_each_step: ['dom'], at_end: ['storage'] },
        },
      ),
    );
    const out = (s: Evidence['steps'][number]) => /<p id="out">([^<]*)<\/p>/.exec((s.captures.dom as { value: string }).value)![1];
    // Initial load: 10→11, 100→101; each later navigation counts on from the app's value.
    expect(out(e.steps[0])).toBe('12/102/pref=dark');
    expect(out(e.steps[1])).toBe('13/103/pref=dark');
    const storage = (e.steps[1].captures.storage as { value: Record<string, any> }).value;
    expect(storage.fingerprint_version).toBe(2);
    expect(storage.local_storage).toEqual([{ key: 'counter', value: { state: 'hashed', sha256: sha256(Buffer.from('13')) } }]);
    expect(storage.session_storage).toEqual([{ key: 'visits', value: { state: 'hashed', sha256: sha256(Buffer.from('103')) } }]);
    // BS-29: the cookies scoped to the page URL at capture time.
    expect(storage.cookies.map((c: { name: string }) => c.name)).toEqual(['pref']);
  });

  it('BS-70 a page string with an unpaired surrogate is fingerprinted as 0xff + UTF-16LE', async () => {
    const e = await capture(
      scenario('/surrogates', [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1 }], { capture: { at_end: ['storage'] } }),
    );
    const ls = (e.steps[0].captures.storage as { value: { local_storage: { key: string; value: { sha256: string } }[] } }).value
      .local_storage;
    expect(ls.find((x) => x.key === 'lone')!.value.sha256).toBe('172fcd3b5d6c36011a53b052b214564195ad29c51a9fec3b1accf10826cdace1');
    expect(ls.find((x) => x.key === 'ab')!.value.sha256).toBe('fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603');
  });
});

describeBrowser('BS-33 / BS-44 / BS-45 / BS-46 popups', () => {
  it('BS-44 / BS-45 a popup is observed (network, lifecycle); BS-33 / BS-46 its storage and early-event gaps are limitations', async () => {
    const e = await capture(
      scenario(
        '/popup',
        [
          { step_id: 'open', action: 'click', locator: { kind: 'css', selector: '#open' }, timeout_ms: 5000 },
          { step_id: 'settle', action: 'wait_for_timeout', duration_ms: 500 },
        ],
        {
          storage: { local_storage: [{ origin: app.origin, entries: [{ key: 'counter', value: { source: 'literal', value: '1' } }] }] },
          capture: { events: ['popups', 'frames', 'network'] },
        },
      ),
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
    expect(ofKind(e, 'popup-opened')).toHaveLength(1);
    // BS-45: launch mode observes the owned context, so the popup's document request is there once.
    expect(ofKind(e, 'request').filter((r) => new URL(r.url as string).pathname === '/count')).toHaveLength(1);
    const rules = e.limitations.map((l) => `${l.rule} ${l.code}`);
    expect(rules).toEqual(expect.arrayContaining(['BS-33 popup-storage-seeds', 'BS-46 popup-early-frames']));
    expect(e.equality.eligible).toBe(false);
  });
});

describeBrowser('BS-45 network scope in a connected context', () => {
  let external: ExternalBrowser | null = null;
  afterAll(async () => {
    await external?.stop();
  });

  it("BS-45 a connected capture keeps the root page's and its popup's requests, not an unrelated tab's in the same context", async () => {
    external = await startExternalBrowser();
    const caller = await chromium.connectOverCDP(external.endpoint);
    try {
      // The caller's own tab, in the default context capstate opens its page in.
      const unrelated = await caller.contexts()[0].newPage();
      await unrelated.goto(`${app.origin}/count?unrelated-tab`);
      const capture = captureBrowserScenario({
        browser: { mode: 'connect', cdp_endpoint: external.endpoint },
        start_url: { url: `${app.origin}/popup?to=/app%3Fdelay%3D300` },
        actions: [
          { step_id: 'open', action: 'click', locator: { kind: 'css', selector: '#open' }, timeout_ms: 5000 },
          { step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1500 },
        ],
        capture: { events: ['network', 'popups'] },
      });
      // While capstate waits, the unrelated tab sends its own request.
      await new Promise((r) => setTimeout(r, 700));
      await unrelated.evaluate(() =>
        (globalThis as unknown as { fetch(u: string): Promise<unknown> }).fetch('/api/items?from=unrelated-tab'),
      );
      const e = await capture;
      expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
      expect(app.hits.some((h) => h.url === '/api/items?from=unrelated-tab')).toBe(true);
      const urls = ofKind(e, 'request').map((r) => {
        const u = new URL(r.url as string);
        return u.pathname + u.search;
      });
      expect(urls).toContain('/popup?to=/app%3Fdelay%3D300');
      // The discovered popup's requests are kept (it fetches 300 ms after loading); its first
      // document request precedes the popup's discovery and may be omitted (BS-45).
      expect(urls).toEqual(expect.arrayContaining(['/api/items', '/api/items/it-01']));
      expect(urls.filter((u) => u.includes('unrelated'))).toEqual([]);
      expect(e.limitations.map((l) => l.rule)).toContain('BS-43');
    } finally {
      await caller.close();
    }
  });
});
