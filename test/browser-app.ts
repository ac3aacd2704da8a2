/**
 * Browser test support: the Chromium the tests drive, a `describe` that fails clearly
 * when it is missing (or skips, with a printed reason, under CAPSTATE_SKIP_BROWSER=1),
 * and a small local JSON API app on 127.0.0.1 (node:http, port 0).
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';

export const CHROMIUM = process.env.CAPSTATE_CHROMIUM ?? '/usr/bin/chromium';

/** A describe block whose tests need Chromium (OQ-48, issue 7's test policy). */
export function describeBrowser(name: string, fn: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, fn);
    return;
  }
  if (process.env.CAPSTATE_SKIP_BROWSER === '1') {
    console.warn(`skipping "${name}": ${CHROMIUM} is missing and CAPSTATE_SKIP_BROWSER=1`);
    describe.skip(name, fn);
    return;
  }
  describe(name, () => {
    it('needs Chromium', () => {
      throw new Error(
        `${CHROMIUM} is missing: install it (apt-get install -y chromium), point CAPSTATE_CHROMIUM at one, or set CAPSTATE_SKIP_BROWSER=1 to skip browser tests`,
      );
    });
  });
}

export interface App {
  origin: string;
  /** Requests the app received: method, path with query, headers. */
  hits: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export const CSRF = 'csrf0123456789abcdef0123456789ab'; // 32 characters (BS-52's example)
export const SESSION = 'sess-HttpOnly-1234567890';
export const TOKEN = 'tok-abcdefghijklmnop';

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** The local app: pages and a JSON API, enough for every browser test. */
export function startApp(): App {
  const items: { id: string; name: string }[] = [
    { id: 'it-01', name: 'Lamp' },
    { id: 'it-02', name: 'Desk' },
  ];
  const hits: App['hits'] = [];
  const json = (res: http.ServerResponse, status: number, v: unknown, extra: Record<string, string | string[]> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...extra });
    res.end(JSON.stringify(v));
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const u = new URL(req.url!, 'http://x');
      const p = u.pathname;
      if (p === '/api/items' && req.method === 'GET') return json(res, 200, items, { 'set-cookie': 'seen=1; Path=/' });
      if (p === '/api/items' && req.method === 'POST') {
        const it = { id: `it-0${items.length + 1}`, ...(JSON.parse(body) as { name?: string; title?: string }) };
        items.push(it as { id: string; name: string });
        return json(res, 201, it);
      }
      if (p.startsWith('/api/items/')) {
        const it = items.find((i) => i.id === p.split('/')[3]);
        return it ? json(res, 200, it) : json(res, 404, { error: 'not found' });
      }
      if (p === '/api/search')
        return json(res, 200, {
          query: u.searchParams.get('q'),
          results: items.filter((i) => i.name.toLowerCase().includes((u.searchParams.get('q') ?? '').toLowerCase())),
        });
      if (p === '/api/echo') return json(res, 200, { headers: req.headers, body, query: Object.fromEntries(u.searchParams) });
      if (p === '/favicon.ico') {
        res.writeHead(204);
        return res.end();
      } // no 404 noise in console events
      if (p === '/api/hang') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        return;
      } // never ends (BS-66)
      if (p === '/api/old') {
        res.writeHead(302, { location: '/api/items' });
        return res.end();
      }
      if (p === '/api/big') return json(res, 200, { pad: 'x'.repeat(Number(u.searchParams.get('n') ?? 1000)) });
      if (p === '/api/blob') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.alloc(Number(u.searchParams.get('n') ?? 10), 7));
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      if (p === '/') {
        // BS-19: #results loses data-state on load and gets "ready" after the current response.
        return res.end(
          page(
            'Items',
            `<input id="q" value="lamp"><button id="search">Search</button><ul id="results"></ul>
          <script>
            document.getElementById('search').onclick = async () => {
              const list = document.getElementById('results'); delete list.dataset.state;
              const r = await fetch('/api/search?q=' + encodeURIComponent(document.getElementById('q').value));
              const d = await r.json();
              list.innerHTML = d.results.map((i) => '<li>' + i.name + '</li>').join('');
              list.dataset.state = 'ready';
            };
          </script>`,
          ),
        );
      }
      if (p === '/app') {
        // The e2e page: it loads the list, then the first item, from the JSON API.
        return res.end(
          page(
            'App',
            `<ul id="list"></ul><p id="detail"></p>
          <script>
            (async () => {
              await new Promise((r) => setTimeout(r, ${Number(u.searchParams.get('delay') ?? 0)}));
              const l = await (await fetch('/api/items')).json();
              document.getElementById('list').innerHTML = l.map((i) => '<li>' + i.name + '</li>').join('');
              const d = await (await fetch('/api/items/' + l[0].id)).json();
              document.getElementById('detail').textContent = d.name;
              document.body.dataset.state = 'ready';
            })();
          </script>`,
          ),
        );
      }
      if (p === '/login') {
        res.setHeader('set-cookie', [`csrftoken=${CSRF}; Path=/`, `session=${SESSION}; Path=/; HttpOnly`]);
        return res.end(
          page(
            'Login',
            `<p id="token">${TOKEN}</p><script>localStorage.setItem('auth', JSON.stringify({ token: '${TOKEN}', n: 12345678901 }));</script>`,
          ),
        );
      }
      if (p === '/echo-query') return res.end(page('Echo', `<p id="q">${u.searchParams.get('key') ?? ''}</p><input id="field">`));
      if (p === '/count') {
        // BS-30: the app's own updates and deletions must survive later navigations.
        return res.end(
          page(
            'Count',
            `<p id="out"></p><script>
          const n = Number(localStorage.getItem('counter') ?? 0) + 1; localStorage.setItem('counter', String(n));
          localStorage.removeItem('temp');
          const s = Number(sessionStorage.getItem('visits') ?? 0) + 1; sessionStorage.setItem('visits', String(s));
          document.getElementById('out').textContent = n + '/' + s + '/' + document.cookie;
        </script>`,
          ),
        );
      }
      if (p === '/surrogates') {
        return res.end(page('Surrogates', `<script>localStorage.setItem('lone', 'a\\uD800'); localStorage.setItem('ab', 'ab');</script>`));
      }
      if (p === '/popup')
        return res.end(page('Popup', `<button id="open" onclick="window.open('${u.searchParams.get('to') ?? '/count'}')">Open</button>`));
      if (p === '/hang') return res.end(page('Hang', `<script>fetch('/api/hang'); fetch('/api/items');</script>`));
      if (p === '/console')
        return res.end(
          page(
            'Console',
            `<script>for (let i = 0; i < 5; i++) console.log('line ' + i); setTimeout(() => { throw new Error('boom'); }, 0);</script>`,
          ),
        );
      res.statusCode = 404;
      res.end(page('Not found', 'not found'));
    });
  });
  let origin = '';
  const app: App = {
    get origin() {
      return origin;
    },
    hits,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());
  return app;
}

/** Ends a Chromium a test started itself (its own process group), by id, then removes its profile. */
export async function stopExternalBrowser(browser: import('node:child_process').ChildProcess | null, profile: string): Promise<void> {
  if (browser?.pid && browser.exitCode === null) {
    const exited = new Promise((r) => browser.once('exit', r));
    try {
      process.kill(-browser.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await exited;
  }
  if (profile) (await import('node:fs')).rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

export interface ExternalBrowser {
  process: import('node:child_process').ChildProcess;
  endpoint: string;
  profile: string;
  stop(): Promise<void>;
}

/**
 * A Chromium the test starts itself for connect mode (the caller's browser, BS-22), on a
 * port Chromium picks (`--remote-debugging-port=0`, read back from DevToolsActivePort).
 * `preferences` seeds the profile's Default/Preferences (e.g. to allow third-party
 * storage); `url` is its first tab.
 */
export async function startExternalBrowser(opts: { preferences?: Record<string, unknown>; url?: string } = {}): Promise<ExternalBrowser> {
  const { mkdtempSync, mkdirSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { spawn } = await import('node:child_process');
  const { launchFlags } = await import('../src/browser/launch.js');
  const profile = mkdtempSync(join(tmpdir(), 'capstate-external-'));
  if (opts.preferences) {
    mkdirSync(join(profile, 'Default'));
    writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify(opts.preferences));
  }
  const child = spawn(
    CHROMIUM,
    ['--headless', '--remote-debugging-port=0', `--user-data-dir=${profile}`, ...launchFlags(), opts.url ?? 'about:blank'],
    { stdio: 'ignore', detached: true },
  );
  for (let i = 0; i < 150; i++) {
    try {
      const port = readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0];
      if (port) return { process: child, endpoint: `http://127.0.0.1:${port}`, profile, stop: () => stopExternalBrowser(child, profile) };
    } catch {
      /* not written yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopExternalBrowser(child, profile);
  throw new Error(`${CHROMIUM} did not open a DevTools port within 15 s`);
}
