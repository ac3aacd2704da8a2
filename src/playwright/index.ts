/**
 * `capstate/playwright` (issue 47): a Playwright route that answers a page's requests from the
 * served model of a capture — stateful where `page.routeFromHAR` replays: a POST takes effect,
 * and the GET after it shows the created entity. The requests are answered in this process by
 * the same HTTP handler `capstate serve --http` uses (bound to a loopback port only this
 * process talks to), so writes, conventions, not-found answers and declines are exactly those
 * of `serve --http`, each answer with its provenance (`Capstate-Answer`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { CapstateError } from '../errors.js';
import { loadCaptures } from '../ingest/load-captures.js';
import type { ServedStateDocument } from '../model/served/model.js';
import { closeServeContext, openServeContext } from '../model/served/context.js';
import { listenHttp } from '../http/server.js';

/** The part of Playwright's `Route` this uses (structural, so @playwright/test's and playwright-core's both fit). */
export interface RouteLike {
  request(): {
    method(): string;
    url(): string;
    headers(): Record<string, string>;
    postDataBuffer(): Buffer | null;
  };
  fulfill(response: { status: number; headers: Record<string, string>; body: Buffer }): Promise<void>;
  continue(): Promise<void>;
}

/** A Playwright `Page` or `BrowserContext` (what `route` and `unroute` need of it). */
export interface Routable {
  route(url: string | RegExp | ((url: URL) => boolean), handler: (route: RouteLike) => Promise<void> | void): Promise<unknown>;
  unroute(url: string | RegExp | ((url: URL) => boolean), handler?: (route: RouteLike) => Promise<void> | void): Promise<unknown>;
}

export interface RouteFromCaptureOptions {
  /** Which requests the model answers (Playwright's URL glob, RegExp or predicate); default every request. */
  url?: string | RegExp | ((url: URL) => boolean);
  /** The capture in a store holding several (default: the only one). */
  capture?: number;
  /**
   * What a request the model declines gets: `decline` (default) fulfils it with the model's
   * 501 problem document; `continue` lets it go to the network.
   */
  unanswered?: 'decline' | 'continue';
}

/** One request the route saw, and how the model answered it. */
export interface RoutedAnswer {
  method: string;
  url: string;
  status: number;
  /** `state`, `convention`, `replay` or `declined` (the `Capstate-Answer` header). */
  answer: string;
  /** What a decline's problem document names as its code (`no-route`, `stale-record`, …). */
  error?: string;
  /** Whether the request was let through to the network (`unanswered: 'continue'`). */
  continued?: true;
}

/** The handle `routeFromCapture` returns. */
export interface CaptureRoute {
  /** Every request answered so far, in order. */
  readonly answers: RoutedAnswer[];
  /** Back to the capture's initial state (the writes so far forgotten). */
  reset(): void;
  /** The model's state now: every entity and document, as `get_state` gives it. */
  state(): Promise<ServedStateDocument>;
  /** Removes the route and frees the model (and the temporary store of a loaded HAR). */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'origin', 'referer']);

/** Loads a capture file (not a store) into a temporary store; returns the store and how to remove it. */
async function storeOf(capture: string, wanted?: number): Promise<{ db: string; captureId?: number; remove: () => void }> {
  if (['.sqlite', '.sqlite3', '.db'].includes(extname(capture).toLowerCase())) return { db: capture, captureId: wanted, remove: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'capstate-route-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const [loaded] = await loadCaptures({ db: join(dir, 'capstate.sqlite'), files: [capture] });
    return { db: join(dir, 'capstate.sqlite'), captureId: loaded.capture_id, remove };
  } catch (e) {
    remove();
    throw e;
  }
}

/**
 * Routes `target`'s matching requests to the served model of `capture` (a store file, or a
 * capture file: HAR, scenario Evidence, loaded first). One model per call.
 */
export async function routeFromCapture(target: Routable, capture: string, options: RouteFromCaptureOptions = {}): Promise<CaptureRoute> {
  const unanswered = options.unanswered ?? 'decline';
  if (unanswered !== 'decline' && unanswered !== 'continue')
    throw new CapstateError('usage', `routeFromCapture: unanswered is 'decline' or 'continue', not ${JSON.stringify(unanswered)}`, {}, 2);
  const store = await storeOf(capture, options.capture);
  let ctx: Awaited<ReturnType<typeof openServeContext>>;
  try {
    ctx = await openServeContext(store.db, store.captureId);
  } catch (e) {
    store.remove();
    throw e;
  }
  const { server, url: base, model } = await listenHttp(ctx, '127.0.0.1', 0);
  const answers: RoutedAnswer[] = [];
  const handler = async (route: RouteLike) => {
    const request = route.request();
    const u = new URL(request.url());
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers())) if (!HOP_BY_HOP.has(k.toLowerCase())) headers[k] = v;
    const body = request.postDataBuffer();
    const res = await fetch(base + u.pathname + u.search, {
      method: request.method(),
      headers,
      body: body && request.method() !== 'GET' && request.method() !== 'HEAD' ? new Uint8Array(body) : undefined,
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const answer = res.headers.get('capstate-answer') ?? 'declined';
    const seen: RoutedAnswer = { method: request.method(), url: request.url(), status: res.status, answer };
    const error = res.headers.get('x-capstate-error');
    if (error) seen.error = error;
    answers.push(seen);
    if (answer === 'declined' && unanswered === 'continue') {
      seen.continued = true;
      return route.continue();
    }
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!HOP_BY_HOP.has(k)) out[k] = v;
    });
    await route.fulfill({ status: res.status, headers: out, body: bytes });
  };
  const pattern = options.url ?? '**/*';
  await target.route(pattern, handler);
  let closed = false;
  return {
    answers,
    reset: () => model.reset(),
    state: () => model.snapshot(),
    close: async () => {
      if (closed) return;
      closed = true;
      await target.unroute(pattern, handler).catch(() => {});
      await new Promise<void>((r) => server.close(() => r()));
      await closeServeContext(ctx);
      store.remove();
    },
  };
}
