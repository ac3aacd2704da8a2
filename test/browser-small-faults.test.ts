/**
 * Small browser faults from issue 15: an aborted launch leaves no profile (BS-22), a
 * request step's redirect hop is in the Evidence with its Location (BS-50).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captureBrowserScenario } from '../src/browser/index.js';
import { CHROMIUM, describeBrowser, startExternalBrowser, type ExternalBrowser } from './browser-app.js';
import { cliAsync, tempDir } from './helpers.js';

const dir = tempDir();

describeBrowser('BS-22 an aborted launch removes its profile', () => {
  it('BS-22 command_timeout_ms 1 (and a few more short ones): the capture fails and TMPDIR is left empty', async () => {
    for (const timeout of [1, 50, 400]) {
      const tmp = mkdtempSync(join(tmpdir(), 'capstate-abort-'));
      try {
        const file = join(dir, `abort-${timeout}.json`);
        writeFileSync(
          file,
          JSON.stringify({
            browser: { mode: 'launch', executable_path: CHROMIUM },
            start_url: { url: 'http://127.0.0.1:1/' },
            command_timeout_ms: timeout,
            actions: [{ step_id: 's', action: 'wait_for_timeout', duration_ms: 10 }],
          }),
        );
        const r = await cliAsync(['capture-browser-scenario', file], { env: { TMPDIR: tmp } });
        // 400 ms may be enough to launch on a fast machine: then the capture goes on and cleans up.
        if (timeout < 400) expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).not.toMatch(/internal error/);
        expect(readdirSync(tmp), `command_timeout_ms ${timeout}: ${r.stderr}`).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
  }, 120_000);
});

/** A local server whose /old answers 302 with a Location; everything else is a page or JSON. */
function redirectServer(): { origin: Promise<string>; hits: string[]; close(): Promise<void> } {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/old') {
      res.writeHead(302, { location: '/new?from=old', 'set-cookie': 'hopsession=s3cr3t-hop-cookie; Path=/' });
      return res.end();
    }
    if (req.url?.startsWith('/new')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"ok":true}');
    }
    if (req.url === '/favicon.ico') {
      res.writeHead(204);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>r</title><p>redirects</p>');
  });
  const origin = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  return {
    origin,
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describeBrowser('BS-50 a request step that meets a redirect', () => {
  const srv = redirectServer();
  afterAll(() => srv.close());

  it('BS-50 the redirect hop has a response event (302) and, with header values selected, its Location; nothing goes to the target', async () => {
    const origin = await srv.origin;
    const e = await captureBrowserScenario(
      {
        browser: { mode: 'launch', executable_path: CHROMIUM },
        start_url: { url: `${origin}/` },
        actions: [{ step_id: 'old', action: 'request', method: 'GET', path: '/old', timeout_ms: 10000 }],
        capture: { network: { header_values: true, response_body: true } },
      },
      { env: {} },
    );
    expect(e.steps[0]).toMatchObject({ status: 'failed', error: { code: 'redirect' } });
    expect(srv.hits).not.toContain('GET /new?from=old');
    const request = e.events.find((x) => x.kind === 'request' && x.url === `${origin}/old`);
    expect(request, JSON.stringify(e.events.map((x) => [x.kind, x.url ?? x.status]))).toBeDefined();
    expect(request!.step_id).toBe('old');
    const tx = e.events.filter((x) => x.transaction_id === request!.transaction_id);
    const response = tx.find((x) => x.kind === 'response');
    expect(response, JSON.stringify(tx.map((x) => x.kind))).toMatchObject({ status: 302, step_id: 'old' });
    const c = tx.find((x) => x.kind === 'network-content' && x.source_event_sequence === response!.sequence);
    expect(c).toBeDefined();
    const headers = c!.headers as { state: string; values: { name: string; value: string | null }[] };
    expect(headers.state).toBe('captured');
    expect(headers.values.find((h) => h.name.toLowerCase() === 'location')?.value).toBe('/new?from=old');
    // Header-value rules: a credential header keeps its name, not its value.
    expect(headers.values.find((h) => h.name.toLowerCase() === 'set-cookie')).toMatchObject({ value: null, redacted: true });
    expect(JSON.stringify(e)).not.toContain('s3cr3t-hop-cookie');
    // request, its content, the hop's response, then the terminal event (the browser cancels the hop).
    const kinds = tx.filter((x) => x.kind !== 'network-content').map((x) => x.kind);
    expect(kinds).toEqual(['request', 'response', 'request-failed']);
    // The Evidence still loads (BS-59).
    const file = join(dir, 'redirect-evidence.json');
    writeFileSync(file, JSON.stringify(e));
    const load = await cliAsync(['load', file, '--db', join(dir, 'redirect.sqlite')]);
    expect(load.status, load.stderr).toBe(0);
  }, 60_000);
});

/** Two sites: 127.0.0.1 embeds a frame from localhost, which site isolation puts in its own process. */
function site(host: string, pages: () => Record<string, string>): Promise<{ origin: string; close(): void }> {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      const body = pages()[new URL(req.url!, 'http://x').pathname];
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html' });
      res.end(body ?? 'not found');
    });
    server.listen(0, '127.0.0.1', () =>
      resolve({ origin: `http://${host}:${(server.address() as AddressInfo).port}`, close: () => server.close() }),
    );
  });
}
const html = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

describeBrowser("BS-30 a cross-origin iframe's seeds", () => {
  const sites: { top?: { origin: string; close(): void }; framed?: { origin: string; close(): void } } = {};
  let external: ExternalBrowser | null = null;
  afterAll(async () => {
    sites.top?.close();
    sites.framed?.close();
    await external?.stop();
  });

  it("BS-30 a partitioned cross-site frame's first script sees its origin's local and session seeds, also after that origin was seeded at top level", async () => {
    sites.framed = await site('localhost', () => ({
      '/frame': html(
        `<script>let v; try { v = localStorage.getItem('k') + '/' + sessionStorage.getItem('s'); } catch (e) { v = 'denied:' + e.name; } parent.postMessage(v, '*');</script>`,
      ),
      '/top': html(
        `<p id="out"></p><script>document.getElementById('out').textContent = localStorage.getItem('k') + '/' + sessionStorage.getItem('s');</script>`,
      ),
    }));
    const framed = sites.framed.origin;
    sites.top = await site('127.0.0.1', () => ({
      '/embed': html(
        `<p id="out"></p><script>addEventListener('message', (e) => { document.getElementById('out').textContent = e.data; });</script><iframe src="${framed}/frame"></iframe>`,
      ),
    }));
    // Third-party storage is blocked in a fresh profile; a caller's browser may allow it.
    external = await startExternalBrowser({ preferences: { profile: { cookie_controls_mode: 0 } } });
    const ready = (id: string) => ({
      step_id: id,
      action: 'wait_for',
      locator: { kind: 'css', selector: '#out:not(:empty)' },
      state: 'attached',
      timeout_ms: 10000,
    });
    const e = await captureBrowserScenario(
      {
        browser: { mode: 'connect', cdp_endpoint: external.endpoint },
        start_url: { url: `${framed}/top` },
        storage: {
          local_storage: [{ origin: framed, entries: [{ key: 'k', value: { source: 'literal', value: 'seed-k' } }] }],
          session_storage: [{ origin: framed, entries: [{ key: 's', value: { source: 'literal', value: 'seed-s' } }] }],
        },
        actions: [ready('top'), { step_id: 'embed', action: 'goto', destination: { url: `${sites.top.origin}/embed` } }, ready('framed')],
        capture: { after_each_step: ['dom'] },
      },
      { env: {} },
    );
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
    const out = (i: number) => /<p id="out">([^<]*)<\/p>/.exec((e.steps[i].captures.dom as { value: string }).value)?.[1];
    expect(out(0)).toBe('seed-k/seed-s');
    // The frame under 127.0.0.1 is its own local and session area: both seeded before its script.
    expect(out(2)).toBe('seed-k/seed-s');
  }, 90_000);
});
