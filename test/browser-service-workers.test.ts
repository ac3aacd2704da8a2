/**
 * The connect-mode service-worker policy holder (src/browser/service-workers.ts): its
 * fixed deadlines (BS-12), blocking, checking and restoring in an external Chromium
 * (BS-17), and its one retained CDP transport with the primary diagnostic kept (BS-18).
 * Unit tests use a fake CDP session; browser tests start their own Chromium with
 * --remote-debugging-port and give every test a fresh origin, so registrations do not leak.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureBrowserScenario } from '../src/browser/index.js';
import { keepPrimary, SERVICE_WORKER_DEADLINES, ServiceWorkerBlock } from '../src/browser/service-workers.js';
import { CapstateError } from '../src/errors.js';
import { describeBrowser, startExternalBrowser, type ExternalBrowser } from './browser-app.js';

// ---------------------------------------------------------------------------------------
// A fake CDP session and page: only what the holder calls.

type Reply = (params: Record<string, unknown>) => unknown;
class FakeSession extends EventEmitter {
  calls: string[] = [];
  detaches = 0;
  replies: Record<string, Reply> = {};
  failDetach = 0;
  async send(method: string, params: Record<string, unknown> = {}) {
    this.calls.push(method);
    if (method === 'Runtime.enable') this.emit('Runtime.executionContextCreated', { context: { id: 1, auxData: { isDefault: true } } });
    const r = this.replies[method];
    if (r) return r(params);
    return method === 'Page.addScriptToEvaluateOnNewDocument' ? { identifier: 'script-1' } : {};
  }
  async detach() {
    this.detaches++;
    if (this.failDetach-- > 0) throw new Error('socket close failed');
  }
}
const never = () => new Promise<never>(() => {});
function fakes(probe: () => Promise<boolean> = async () => false) {
  const session = new FakeSession();
  let sessions = 0;
  const context = {
    newCDPSession: async () => {
      sessions++;
      return session;
    },
  } as unknown as BrowserContext;
  const page = { frames: () => [{ evaluate: probe, isDetached: () => false }], isClosed: () => false } as unknown as Page;
  return { session, context, page, sessions: () => sessions };
}
const rejection = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as CapstateError,
  );

// ---------------------------------------------------------------------------------------
// Browser support: an app per test, and an external Chromium per describe.

const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const TRY_REGISTER = `<script>window.tryRegister = () => navigator.serviceWorker.register('/sw.js').then(() => 'ok', (e) => 'rejected:' + e.name);</script>`;
/** Registers /sw.js on load (it claims its clients) and reports the outcome in the title. */
const SW_PAGE = html(
  'sw',
  `<script>
  const say = (s) => { document.title = s; };
  if (navigator.serviceWorker.controller) say('controlled');
  else {
    navigator.serviceWorker.addEventListener('controllerchange', () => say('controlled'));
    navigator.serviceWorker.register('/sw.js').then(() => say('registered'), (e) => say('rejected:' + e.name));
  }
</script>`,
);
const SW_SCRIPT = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', () => {});`;

function route(req: http.IncomingMessage, res: http.ServerResponse) {
  const u = new URL(req.url!, 'http://x');
  if (u.pathname === '/sw.js') {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    return res.end(SW_SCRIPT);
  }
  if (u.pathname === '/favicon.ico') {
    res.writeHead(204);
    return res.end();
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  if (u.pathname === '/sw') return res.end(SW_PAGE);
  // #reg tries to register; the frame does too on load when ?auto=1.
  if (u.pathname === '/idle') {
    return res.end(
      html(
        'idle',
        `${TRY_REGISTER}<button id="reg" onclick="tryRegister().then((r) => { document.getElementById('out').dataset.state = r; })">register</button>
      <p id="out"></p><p id="fout"></p><iframe src="/frame${u.searchParams.get('auto') ? '?auto=1' : ''}"></iframe>`,
      ),
    );
  }
  if (u.pathname === '/frame') {
    return res.end(
      html(
        'frame',
        `${TRY_REGISTER}${u.searchParams.get('auto') ? `<script>tryRegister().then((r) => { parent.document.getElementById('fout').dataset.state = r; });</script>` : ''}`,
      ),
    );
  }
  // The main thread is busy for 3.5 s from 300 ms after load: nothing can be evaluated.
  if (u.pathname === '/busy')
    return res.end(html('busy', `<script>setTimeout(() => { const t = Date.now(); while (Date.now() - t < 3500); }, 300);</script>`));
  // The main thread is held from 300 ms after load by a synchronous request the server answers
  // only when the test lets it go (releaseHeld): as busy as /busy, for as long as the test needs
  // on a loaded machine, without burning a core.
  if (u.pathname === '/held')
    return res.end(
      html('held', `<script>setTimeout(() => { const x = new XMLHttpRequest(); x.open('GET', '/hold', false); x.send(); }, 300);</script>`),
    );
  if (u.pathname === '/hold') {
    held.push(() => res.end('released'));
    return;
  }
  return res.end(html('plain', '<p>plain</p>'));
}

/** The /hold requests waiting to be answered. */
const held: (() => void)[] = [];
const releaseHeld = () => {
  for (const answer of held.splice(0)) answer();
};

const servers: http.Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
/** A fresh origin: service-worker registrations are per origin. */
async function origin(): Promise<string> {
  const s = http.createServer(route);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** The caller's browser: an external Chromium with a loopback CDP endpoint (BS-22). */
function externalBrowser() {
  const b = { endpoint: '' };
  let external: ExternalBrowser | null = null;
  beforeAll(async () => {
    external = await startExternalBrowser();
    b.endpoint = external.endpoint;
  }, 20_000);
  afterAll(() => external?.stop());
  return b;
}

/** The caller's own client: opens tabs, evaluates in them, then only disconnects. */
async function asCaller<T>(endpoint: string, fn: (ctx: BrowserContext) => Promise<T>): Promise<T> {
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    return await fn(browser.contexts()[0]);
  } finally {
    await browser.close();
  }
}
const pageAt = (ctx: BrowserContext, url: string) => ctx.pages().find((p) => p.url().startsWith(url))!;
const registrations = (p: Page) => p.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length);
const nativeRegister = (p: Page) => p.evaluate(() => String(ServiceWorkerContainer.prototype.register).includes('[native code]'));
const tryRegister = (f: Page | ReturnType<Page['frames']>[number]) =>
  f.evaluate(() => (window as unknown as { tryRegister(): Promise<string> }).tryRegister());

const connect = (endpoint: string, start: string, actions: unknown[], extra: Record<string, unknown> = {}) =>
  captureBrowserScenario(
    {
      browser: { mode: 'connect', cdp_endpoint: endpoint, ...(extra.target ? { target: extra.target } : {}) },
      start_url: { url: start },
      actions,
      ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'target')),
    },
    { env: {} },
  );

afterEach(() => {
  SERVICE_WORKER_DEADLINES.check_ms = 10_000;
  SERVICE_WORKER_DEADLINES.restore_grace_ms = 5_000;
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------

describe('BS-12 fixed service-worker deadlines', () => {
  it('BS-12 the registration check waits 10,000 ms and restore 5,000 ms by default', () => {
    expect(SERVICE_WORKER_DEADLINES).toEqual({ check_ms: 10_000, restore_grace_ms: 5_000 });
  });

  it('BS-12 a check that does not finish by its fixed deadline rejects (it does not pass), whatever command_timeout_ms says', async () => {
    const f = fakes(never);
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 600_000, checkMs: 50 });
    await holder.install();
    const t0 = Date.now();
    const err = await rejection(holder.check(null));
    expect(err).toBeInstanceOf(CapstateError);
    expect(err!.code).toBe('service-worker-policy-unverified');
    expect(err!.message).toMatch(/not verified; the capture is rejected/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('BS-12 restore keeps its 5,000 ms grace when command_timeout_ms is raised', async () => {
    vi.useFakeTimers();
    const f = fakes();
    f.session.replies['Page.removeScriptToEvaluateOnNewDocument'] = never;
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 600_000 });
    await holder.install();
    let settled: string | null | undefined;
    void holder.release().then((u) => {
      settled = u;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('the service-worker block was not removed within the fixed 5000 ms restore grace');
  });

  describeBrowser('BS-12 with Chromium', () => {
    const ext = externalBrowser();
    it('BS-12 a page too busy to answer the check rejects the capture as unverified at the check deadline', async () => {
      SERVICE_WORKER_DEADLINES.check_ms = 300;
      const site = await origin();
      const t0 = Date.now();
      const err = await rejection(
        connect(ext.endpoint, `${site}/busy`, [{ step_id: 'wait', action: 'wait_for_timeout', duration_ms: 600 }], {
          command_timeout_ms: 600_000,
        }),
      );
      expect(err).toBeInstanceOf(CapstateError);
      expect(err!.code).toBe('service-worker-policy-unverified');
      expect(err!.message).toMatch(/no answer within the fixed 300 ms/);
      // Restore waited for the page (inside its 5 s grace) and succeeded: no cleanup note.
      expect((err!.context.details as { diagnostics: Record<string, unknown> }).diagnostics.cleanup).toBeUndefined();
      expect(Date.now() - t0).toBeLessThan(8_000);
    });
  });
});

describe('BS-17 blocking in connect mode', () => {
  it('BS-17 the holder adds a future-document script and patches running frames on install, and removes and restores them at close', async () => {
    const f = fakes();
    const evaluated: string[] = [];
    f.session.replies['Runtime.evaluate'] = (p) => {
      evaluated.push(String(p.expression));
      return {};
    };
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 1000 });
    await holder.install();
    expect(f.session.calls).toEqual(['Runtime.enable', 'Page.enable', 'Page.addScriptToEvaluateOnNewDocument', 'Runtime.evaluate']);
    await holder.close();
    expect(f.session.calls.slice(4)).toEqual(['Page.removeScriptToEvaluateOnNewDocument', 'Runtime.evaluate']);
    expect(evaluated[0]).toMatch(/Object.defineProperty\(p, 'register'/);
    expect(evaluated[1]).toMatch(/saved.desc/);
    expect(f.session.detaches).toBe(1);
  });

  it('BS-17 a registration found in a frame rejects with the artifacts collected so far', async () => {
    const f = fakes(async () => true);
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 1000 });
    await holder.install();
    const collected = { url: { state: 'captured', value: 'http://x/' } } as never;
    const err = await rejection(holder.check(collected));
    expect(err!.code).toBe('service-worker-policy');
    expect(err!.context.details).toEqual({ diagnostics: { collected_artifacts: collected } });
  });

  describeBrowser('BS-17 with Chromium', () => {
    const ext = externalBrowser();

    it('BS-17 during the capture register() rejects in the page and its frames, also after a navigation; the capture completes; afterwards a new tab registers', async () => {
      const site = await origin();
      const e = await connect(
        ext.endpoint,
        `${site}/plain`,
        [
          { step_id: 'go', action: 'goto', destination: { url: `${site}/idle?auto=1` }, timeout_ms: 10_000 },
          { step_id: 'reg', action: 'click', locator: { kind: 'css', selector: '#reg' }, timeout_ms: 10_000 },
          {
            step_id: 'out',
            action: 'wait_for',
            locator: { kind: 'css', selector: '#out[data-state]' },
            state: 'attached',
            timeout_ms: 10_000,
          },
          {
            step_id: 'fout',
            action: 'wait_for',
            locator: { kind: 'css', selector: '#fout[data-state]' },
            state: 'attached',
            timeout_ms: 10_000,
          },
        ],
        { capture: { at_end: ['dom'] } },
      );
      expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      const dom = (e.steps.at(-1)!.captures.dom as { value: string }).value;
      expect(dom).toMatch(/id="out" data-state="rejected:SecurityError"/);
      expect(dom).toMatch(/id="fout" data-state="rejected:SecurityError"/);
      await asCaller(ext.endpoint, async (ctx) => {
        const p = await ctx.newPage();
        try {
          await p.goto(`${site}/idle`);
          expect(await registrations(p)).toBe(0); // nothing was registered during the capture
          expect(await nativeRegister(p)).toBe(true);
          expect(await tryRegister(p)).toBe('ok');
        } finally {
          await p.close();
        }
      });
    });

    it("BS-17 the caller's page gets register() back: the same document and its frame register again, and a reload has no capstate script", async () => {
      const site = await origin();
      await asCaller(ext.endpoint, async (ctx) => {
        await (await ctx.newPage()).goto(`${site}/idle`);
      });
      const e = await connect(
        ext.endpoint,
        `${site}/idle`,
        [
          { step_id: 'reg', action: 'click', locator: { kind: 'css', selector: '#reg' }, timeout_ms: 10_000 },
          {
            step_id: 'out',
            action: 'wait_for',
            locator: { kind: 'css', selector: '#out[data-state]' },
            state: 'attached',
            timeout_ms: 10_000,
          },
        ],
        { target: { url_prefix: `${site}/idle` }, capture: { at_end: ['dom'] } },
      );
      expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed']);
      expect((e.steps.at(-1)!.captures.dom as { value: string }).value).toMatch(/data-state="rejected:SecurityError"/);
      await asCaller(ext.endpoint, async (ctx) => {
        const p = pageAt(ctx, `${site}/idle`);
        expect(await nativeRegister(p)).toBe(true);
        expect(await tryRegister(p.frames()[1])).toBe('ok');
        expect(await tryRegister(p)).toBe('ok');
        await p.reload();
        expect(await nativeRegister(p)).toBe(true);
        expect(await registrations(p)).toBe(1);
        await p.close();
      });
    });

    it('BS-17 a page that already has a registration rejects the capture before anything is collected; the registration and its control stay', async () => {
      const site = await origin();
      await asCaller(ext.endpoint, async (ctx) => {
        const p = await ctx.newPage();
        await p.goto(`${site}/sw`);
        await p.waitForFunction(() => document.title === 'controlled', null, { timeout: 10_000 });
      });
      const err = await rejection(
        connect(ext.endpoint, `${site}/sw`, [{ step_id: 'x', action: 'wait_for_timeout', duration_ms: 1 }], {
          target: { url_prefix: `${site}/sw` },
        }),
      );
      expect(err).toBeInstanceOf(CapstateError);
      expect(err!.code).toBe('service-worker-policy');
      expect((err!.context.details as { diagnostics: Record<string, unknown> }).diagnostics).toEqual({ collected_artifacts: null });
      await asCaller(ext.endpoint, async (ctx) => {
        const p = pageAt(ctx, `${site}/sw`);
        expect(await registrations(p)).toBe(1);
        expect(await p.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
        expect(await nativeRegister(p)).toBe(true); // patched at install, restored at cleanup
        await p.close();
      });
    });
  });
});

describe("BS-18 the policy holder's transport", () => {
  it('BS-18 one CDP session carries install, every check and the restore; it is detached at the end', async () => {
    const f = fakes();
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 1000 });
    await holder.install();
    await holder.check(null);
    await holder.check(null);
    expect(await holder.release()).toBeNull();
    expect(f.sessions()).toBe(1);
    expect(f.session.detaches).toBe(1);
  });

  it('BS-18 a close that fails keeps the transport and the uncertainty; a later close retries that same transport and clears it', async () => {
    const f = fakes(async () => true);
    f.session.failDetach = 1;
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 1000 });
    await holder.install();
    const admission = await rejection(holder.check(null));
    expect(admission!.code).toBe('service-worker-policy');
    await expect(holder.close()).rejects.toThrow(/socket close failed/);
    expect(holder.uncertainty).toMatch(/not fully removed: socket close failed/);
    await holder.close();
    expect(holder.uncertainty).toBeNull();
    expect(f.sessions()).toBe(1);
    expect(f.session.detaches).toBe(2);
    // release() does the same: its retry runs on the retained session.
    const g = fakes();
    g.session.failDetach = 1;
    const h2 = new ServiceWorkerBlock(g.context, g.page, { commandTimeoutMs: 1000 });
    await h2.install();
    expect(await h2.release()).toBeNull();
    expect([g.sessions(), g.session.detaches]).toEqual([1, 2]);
  });

  it('BS-18 when cleanup fails as well, the failed admission stays the error and the cleanup is recorded under details.diagnostics.cleanup', async () => {
    const f = fakes(async () => true);
    f.session.failDetach = 5;
    const holder = new ServiceWorkerBlock(f.context, f.page, { commandTimeoutMs: 1000 });
    await holder.install();
    const admission = (await rejection(holder.check(null)))!;
    const uncertain = await holder.release();
    expect(uncertain).toMatch(/socket close failed/);
    keepPrimary(admission, [{ step: 'service-worker-restore', message: uncertain! }]);
    expect(admission.code).toBe('service-worker-policy');
    expect(admission.context.details).toEqual({
      diagnostics: { collected_artifacts: null, cleanup: [{ step: 'service-worker-restore', message: uncertain }] },
    });
  });

  describeBrowser('BS-18 with Chromium', () => {
    const ext = externalBrowser();
    it('BS-18 a rejected capture whose restore also fails reports the rejection, the restore as cleanup uncertainty, and leaves the browser running', async () => {
      SERVICE_WORKER_DEADLINES.check_ms = 300;
      SERVICE_WORKER_DEADLINES.restore_grace_ms = 300;
      const site = await origin();
      // The page stays held through the check and the restore however slow the machine is
      // (/busy's 3.5 s could end before the restore on a loaded one), and is let go after.
      const err = await rejection(
        connect(ext.endpoint, `${site}/held`, [{ step_id: 'wait', action: 'wait_for_timeout', duration_ms: 600 }]),
      ).finally(releaseHeld);
      expect(err).toBeInstanceOf(CapstateError);
      expect(err!.code).toBe('service-worker-policy-unverified');
      const cleanup = (err!.context.details as { diagnostics: { cleanup?: { step: string; message: string }[] } }).diagnostics.cleanup;
      expect(cleanup).toEqual([
        { step: 'service-worker-restore', message: 'the service-worker block was not removed within the fixed 300 ms restore grace' },
      ]);
      expect((await fetch(`${ext.endpoint}/json/version`)).ok).toBe(true); // BS-22: only disconnected
    });
  });
});
