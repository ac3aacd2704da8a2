/**
 * The action vocabulary (OQ-39) and the request step (BS-47 to BS-56). Actions run with
 * their own `timeout_ms` (BS-14: omitted means no deadline) and stop at cancellation.
 */
import type { BrowserContext, Locator as PwLocator, Page, Request, Route } from 'playwright-core';
import { objectEntries, parseExactJson, stringifyExact, type JsonValue } from '../json/exact.js';
import type { Redaction } from './redaction.js';
import { CONTROL, type Action, type HeaderSource, type Locator, type RequestAction, type UrlSpec } from './schema.js';
import { resolveValue } from './seed.js';
import { pointerTokens } from '../json/pointer.js';

/** The page globals that code evaluated in the page uses (the project compiles without the DOM library). */
export interface PageGlobals {
  location: { origin: string };
  localStorage: { getItem(key: string): string | null };
  navigator: { userAgent: string; serviceWorker?: { controller: object | null; getRegistrations(): Promise<unknown[]> } };
}

/** A failed action: `code` is stable, `message` says what happened (redacted by the caller). */
export class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ActionContext {
  page: Page;
  context: BrowserContext;
  secrets: Map<string, string>;
  redaction: Redaction;
  startOrigin: string;
  signal: AbortSignal;
  /** BS-50: reports a request step's redirect hop to the network evidence (when it is captured). */
  redirectHop?: (req: Request, status: number, statusText: string, headers: { name: string; value: string }[]) => void;
}

/** BS-26: a URL with its structured query entries appended, secrets resolved. */
export function resolveUrl(u: UrlSpec, secrets: Map<string, string>): string {
  const url = new URL(u.url);
  for (const q of u.query ?? []) url.searchParams.append(q.name, resolveValue(q.value, secrets));
  return url.href;
}

function locate(page: Page, l: Locator): PwLocator {
  if (l.kind === 'css') return page.locator(l.selector);
  if (l.kind === 'test_id') return page.getByTestId(l.test_id);
  // The role is validated as a string; Playwright checks it.
  return page.getByRole(l.role as any, {
    ...(l.name !== undefined ? { name: l.name } : {}),
    ...(l.exact !== undefined ? { exact: l.exact } : {}),
  });
}

/** Races `p` against the step's cancellation. */
export function cancellable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new StepFailure('cancelled', 'the capture was cancelled'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new StepFailure('cancelled', 'the capture was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export async function runAction(a: Action, x: ActionContext): Promise<void> {
  const { page } = x;
  const timeout = 'timeout_ms' in a && a.timeout_ms !== undefined ? a.timeout_ms : 0; // Playwright: 0 = no deadline
  switch (a.action) {
    case 'goto': {
      await cancellable(page.goto(resolveUrl(a.destination, x.secrets), { timeout, waitUntil: a.wait_until ?? 'load' }), x.signal);
      return;
    }
    case 'click':
      return cancellable(locate(page, a.locator).click({ timeout }), x.signal);
    case 'fill':
      return cancellable(locate(page, a.locator).fill(resolveValue(a.value, x.secrets), { timeout }), x.signal);
    case 'press':
      return cancellable(locate(page, a.locator).press(a.key, { timeout }), x.signal);
    case 'select_option':
      await cancellable(
        locate(page, a.locator).selectOption(
          a.values.map((v) => resolveValue(v, x.secrets)),
          { timeout },
        ),
        x.signal,
      );
      return;
    case 'check':
      return cancellable(locate(page, a.locator).check({ timeout }), x.signal);
    case 'uncheck':
      return cancellable(locate(page, a.locator).uncheck({ timeout }), x.signal);
    case 'wait_for':
      return cancellable(locate(page, a.locator).waitFor({ state: a.state ?? 'visible', timeout }), x.signal);
    case 'wait_for_timeout': {
      let timer: NodeJS.Timeout | undefined;
      try {
        await cancellable(
          new Promise<void>((r) => {
            timer = setTimeout(r, a.duration_ms);
          }),
          x.signal,
        );
      } finally {
        clearTimeout(timer);
      }
      return;
    }
    case 'request':
      return requestStep(a, x);
  }
}

/** RFC 6901 lookup in an exact JSON value. */
function pointerGet(v: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return v;
  let cur: JsonValue | undefined = v;
  for (const k of pointerTokens(pointer)) {
    if (Array.isArray(cur)) cur = /^(0|[1-9]\d*)$/.test(k) ? cur[Number(k)] : undefined;
    else if (cur !== null && typeof cur === 'object') cur = objectEntries(cur).find(([key]) => key === k)?.[1];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** BS-51: a header value and, for page sources, its stored form (to redact, BS-52). */
async function headerValue(
  h: { name: string; value: HeaderSource },
  url: string,
  x: ActionContext,
): Promise<{ value: string; stored: string | null }> {
  const v = h.value;
  switch (v.source) {
    case 'literal':
    case 'secret':
      return { value: resolveValue(v, x.secrets), stored: null };
    case 'cookie': {
      // The browser's cookie jar for the request URL, HttpOnly cookies included.
      const c = (await x.context.cookies(url)).find((k) => k.name === v.name);
      if (!c)
        throw new StepFailure(
          'missing-page-value',
          `header ${h.name}: the browser holds no cookie ${JSON.stringify(v.name)} for ${new URL(url).origin}`,
        );
      return { value: c.value, stored: c.value };
    }
    case 'local_storage': {
      const stored = await x.page.evaluate((key) => (globalThis as unknown as PageGlobals).localStorage.getItem(key), v.key);
      if (stored === null)
        throw new StepFailure(
          'missing-page-value',
          `header ${h.name}: local storage on ${x.startOrigin} has no key ${JSON.stringify(v.key)}`,
        );
      if (v.json_pointer === undefined) return { value: stored, stored };
      // The stored value is JSON: parsed by the one exact parser (src/load/bodies.ts).
      const parsed = parseExactJson(stored);
      if (!parsed.ok)
        throw new StepFailure(
          'missing-page-value',
          `header ${h.name}: local storage ${JSON.stringify(v.key)} is not JSON (${parsed.reason}), so ${v.json_pointer} cannot be read`,
        );
      const target = pointerGet(parsed.value, v.json_pointer);
      if (target === undefined)
        throw new StepFailure(
          'missing-page-value',
          `header ${h.name}: local storage ${JSON.stringify(v.key)} has nothing at ${v.json_pointer}`,
        );
      if (typeof target === 'string') return { value: target, stored: target };
      if (typeof target === 'number' || typeof target === 'bigint')
        return { value: stringifyExact(target), stored: stringifyExact(target) };
      throw new StepFailure(
        'missing-page-value',
        `header ${h.name}: ${v.json_pointer} in local storage ${JSON.stringify(v.key)} is not a string or number`,
      );
    }
  }
}

/**
 * BS-47 to BS-56: one request through the page's own fetch, in the main world, without
 * following redirects; a temporary route rechecks cancellation at dispatch (BS-55).
 */
async function requestStep(a: RequestAction, x: ActionContext): Promise<void> {
  const deadline = new AbortController();
  const timer = a.timeout_ms !== undefined ? setTimeout(() => deadline.abort(), a.timeout_ms) : undefined;
  const stop = AbortSignal.any([deadline.signal, x.signal]);
  let dispatched = false;
  let sent: Request | null = null;
  const url = resolveUrl({ url: new URL(a.path.split('#')[0], x.startOrigin).href, query: a.query }, x.secrets);
  const gate = (route: Route) => {
    if (dispatched) return route.continue(); // not ours: the step's request already went out
    if (stop.aborted) return route.abort('aborted');
    dispatched = true;
    sent = route.request();
    return route.continue();
  };
  const matches = (u: URL) => u.href === url;
  const work = (async () => {
    // BS-49: the page must be on the start origin when the step runs.
    const here = (() => {
      try {
        return new URL(x.page.url()).origin;
      } catch {
        return x.page.url();
      }
    })();
    if (here !== x.startOrigin)
      throw new StepFailure('off-origin', `the page is on ${here}, not the start origin ${x.startOrigin}; add a goto step first`);
    const headers: [string, string][] = [];
    for (const h of a.headers ?? []) {
      const { value, stored } = await headerValue(h, url, x);
      if (stored !== null) x.redaction.addPageValue(a.step_id, h.name, stored, value);
      if (CONTROL.test(value))
        throw new StepFailure(
          'invalid-header-value',
          `header ${h.name}: the value contains a newline or another control character; nothing was sent`,
        );
      headers.push([h.name, (h.prefix ?? '') + value]);
    }
    let body: string | undefined;
    if (a.json !== undefined) {
      body = stringifyExact(a.json as JsonValue);
      // BS-48: JSON unless a header of the step sets the content type.
      if (!headers.some(([n]) => n.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
    }
    if (stop.aborted) throw new StepFailure('timeout', 'the step timed out before its request was sent; nothing was sent');
    await x.page.route(matches, gate);
    const hop = x.redirectHop ? await watchRedirectHop(x, url, a.method, () => sent, x.redirectHop) : null;
    try {
      const r = await x.page.evaluate(
        async ({ url, method, headers, body, origin }) => {
          const g = globalThis as unknown as PageGlobals;
          if (g.location.origin !== origin) return { error: 'off-origin', detail: g.location.origin };
          // BS-55: a service worker's fetch could bypass the dispatch gate.
          if (g.navigator.serviceWorker && g.navigator.serviceWorker.controller) return { error: 'service-worker', detail: '' };
          try {
            const res = await fetch(url, { method, headers, body, redirect: 'manual', credentials: 'include' });
            await res.arrayBuffer();
            return { status: res.status, type: res.type };
          } catch (e) {
            return { error: 'network', detail: String(e) };
          }
        },
        { url, method: a.method, headers, body, origin: x.startOrigin },
      );
      if ('error' in r) {
        if (r.error === 'off-origin')
          throw new StepFailure('off-origin', `the page is on ${r.detail}, not the start origin ${x.startOrigin}; add a goto step first`);
        if (r.error === 'service-worker')
          throw new StepFailure(
            'service-worker',
            'the page is controlled by a service worker, whose fetch could bypass the dispatch gate; use the default blocked service-worker policy',
          );
        throw new StepFailure(
          stop.aborted && !dispatched ? 'timeout' : 'network-error',
          stop.aborted && !dispatched
            ? 'the step timed out before its request was sent; nothing was sent'
            : `the request failed: ${r.detail}`,
        );
      }
      if (r.type === 'opaqueredirect')
        throw new StepFailure(
          'redirect',
          `${a.method} ${a.path} answered with a redirect; request steps do not follow redirects (set "path" to the redirect's target)`,
        );
      if (a.expected_status && !a.expected_status.includes(r.status)) {
        throw new StepFailure(
          'unexpected-status',
          `${a.method} ${a.path} answered ${r.status}; expected ${a.expected_status.join(' or ')}`,
        );
      }
    } finally {
      await hop?.detach();
      await x.page.unroute(matches, gate).catch(() => {});
    }
  })();
  try {
    await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        const fail = () =>
          reject(
            x.signal.aborted
              ? new StepFailure('cancelled', 'the capture was cancelled')
              : new StepFailure(
                  'timeout',
                  `the request step exceeded timeout_ms ${a.timeout_ms}${dispatched ? '; the request had been sent and may still reach the application' : '; nothing was sent'}`,
                ),
          );
        if (stop.aborted) fail();
        else stop.addEventListener('abort', fail, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}

/**
 * BS-50: under the dispatch route Chromium handles a redirect inside its interception and
 * Playwright sees no response for the hop (its request just fails). A CDP session of the
 * step's own reads the hop's status line and headers (`Network.responseReceivedExtraInfo`)
 * for the step's request and reports a 3xx to the network evidence.
 */
async function watchRedirectHop(
  x: ActionContext,
  url: string,
  method: string,
  request: () => Request | null,
  report: NonNullable<ActionContext['redirectHop']>,
): Promise<{ detach(): Promise<void> }> {
  let cdp: Awaited<ReturnType<BrowserContext['newCDPSession']>>;
  try {
    cdp = await x.context.newCDPSession(x.page);
  } catch {
    return { detach: async () => {} }; // no CDP here: the hop stays unreported, as before
  }
  type ExtraInfo = { statusCode: number; headers: Record<string, string>; headersText?: string };
  let id: string | null = null;
  const early = new Map<string, ExtraInfo>();
  let done = false;
  const hop = (p: ExtraInfo) => {
    const req = request();
    if (done || !req || p.statusCode < 300 || p.statusCode >= 400) return;
    done = true;
    report(req, p.statusCode, statusLine(p.headersText), headerList(p));
  };
  cdp.on('Network.requestWillBeSent', (p) => {
    if (id !== null || p.redirectResponse || p.request.method !== method || p.request.url !== url) return;
    id = p.requestId;
    const e = early.get(id);
    if (e) hop(e);
  });
  // ExtraInfo events may come before or after the request's own event.
  cdp.on('Network.responseReceivedExtraInfo', (p) => {
    if (p.requestId === id) hop(p);
    else early.set(p.requestId, p);
  });
  await cdp.send('Network.enable').catch(() => {});
  return { detach: () => cdp.detach().catch(() => {}) };
}

/** The reason phrase of an HTTP/1 status line (`HTTP/1.1 302 Found`); HTTP/2 has none. */
function statusLine(headersText: string | undefined): string {
  const first = headersText?.split('\r\n')[0] ?? '';
  return /^HTTP\/\S+ \d{3} ?(.*)$/.exec(first)?.[1] ?? '';
}

/** The hop's headers in producer order with duplicates (from the raw text when there is one). */
function headerList(p: { headers: Record<string, string>; headersText?: string }): { name: string; value: string }[] {
  if (p.headersText) {
    return p.headersText
      .split('\r\n')
      .slice(1)
      .filter((l) => l.includes(':'))
      .map((l) => {
        const i = l.indexOf(':');
        return { name: l.slice(0, i), value: l.slice(i + 1).trim() };
      });
  }
  return Object.entries(p.headers).flatMap(([name, v]) => v.split('\n').map((value) => ({ name, value })));
}
