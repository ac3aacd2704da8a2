/**
 * Issue 42, finding 2: a model served over HTTP is driven only by its user. The audit found
 * every answer carrying `Access-Control-Allow-Origin: *`, preflights echoing any headers, any
 * content type parsed as JSON and the Host header unchecked: in Chromium a page on another
 * origin read the whole state, created and patched entities and replaced the state. Here the
 * same, in process and in Debian's Chromium with pages on other origins.
 */
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSandboxFallback } from '../src/browser/launch.js';
import { httpGuard } from '../src/http/guard.js';
import { listenHttp } from '../src/http/server.js';
import { closeServeContext, openServeContext, type ServeContext } from '../src/model/served/context.js';
import { CHROMIUM, describeBrowser } from './browser-app.js';
import { cli, fixture, tempDir } from './helpers.js';

const dir = tempDir();
const db = join(dir, 'json-server.sqlite');
let ctx: ServeContext;
const servers: Server[] = [];

beforeAll(async () => {
  const r = cli(['load', fixture('json-server', 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  ctx = await openServeContext(db);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await closeServeContext(ctx);
});

/** A fresh model served on a free loopback port, with `cors` allowed (default: loopback origins). */
async function serve(cors: string[] = []): Promise<string> {
  const { server, url } = await listenHttp(ctx, '127.0.0.1', 0, { guard: httpGuard(cors) });
  servers.push(server);
  return url;
}

const postCount = async (base: string) => ((await (await fetch(`${base}/posts`)).json()) as unknown[]).length;

/** A raw request with the headers given as they are (fetch will not send its own Host). */
function raw(
  base: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c) => {
          text += c;
        })
        .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('issue 42: which origins may use a model served over HTTP', () => {
  it('no answer says Access-Control-Allow-Origin: *; a loopback page gets its own origin back, every header exposed', async () => {
    const base = await serve();
    const plain = await fetch(`${base}/posts`);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const local = await fetch(`${base}/posts`, { headers: { origin: 'http://localhost:5173' } });
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(local.headers.get('vary')).toMatch(/Origin/);
    const exposed = (local.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-capstate-source', 'x-capstate-tool']));
    for (const name of local.headers.keys()) {
      if (
        !['content-type', 'content-length', 'connection', 'date', 'keep-alive', 'vary'].includes(name) &&
        !name.startsWith('access-control-')
      )
        expect(exposed, name).toContain(name);
    }
  });

  it('a page on another origin can neither read nor write, the data plane included', async () => {
    const base = await serve();
    const evil = { origin: 'https://evil.example' };
    const before = await postCount(base);
    for (const [method, path, body] of [
      ['GET', '/posts', undefined],
      ['POST', '/posts', '{"title":"x"}'],
      ['PATCH', '/posts/1', '{"title":"x"}'],
      ['GET', '/__capstate/state', undefined],
      ['PUT', '/__capstate/state', '{}'],
      ['POST', '/__capstate/reset', undefined],
    ] as const) {
      const r = await fetch(base + path, { method, headers: { ...evil, 'content-type': 'application/json' }, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.headers.get('access-control-allow-origin'), `${method} ${path}`).toBeNull();
      expect((await r.json()).code).toBe('cross-origin');
    }
    expect(await postCount(base)).toBe(before);
    expect((await (await fetch(`${base}/posts/1`)).json()).title).not.toBe('x');
    // A cross-site request the browser sends without an Origin says so in Sec-Fetch-Site.
    expect((await fetch(`${base}/__capstate/state`, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
  });

  it('a preflight from another origin is refused; from an allowed one it names the headers asked for, not any', async () => {
    const base = await serve();
    const ask = { 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type, x-app' };
    const refused = await fetch(`${base}/__capstate/state`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', ...ask } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-headers')).toBeNull();
    const allowed = await fetch(`${base}/__capstate/state`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:3000', ...ask } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:3000');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type, x-app');
  });

  it('--cors names the origins allowed instead of the loopback ones; * is refused', async () => {
    const base = await serve(['http://app.test:8080']);
    expect((await fetch(`${base}/posts`, { headers: { origin: 'http://app.test:8080' } })).headers.get('access-control-allow-origin')).toBe(
      'http://app.test:8080',
    );
    expect((await fetch(`${base}/posts`, { headers: { origin: 'http://localhost:5173' } })).status).toBe(403);
    // The server's own origin (a page it serves) is always allowed.
    expect((await fetch(`${base}/posts`, { headers: { origin: base } })).status).toBe(200);
    expect(() => httpGuard(['*'])).toThrow(/every web page/);
    expect(() => httpGuard(['not an origin'])).toThrow(/--cors takes an origin/);
    const r = cli(['serve', '--db', db, '--http', '127.0.0.1:0', '--cors', '*']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--cors takes an origin/);
  });

  it('a Host header that does not name the server is refused (DNS rebinding); the loopback names are not', async () => {
    const base = await serve();
    const port = new URL(base).port;
    const rebound = await raw(base, '/__capstate/state', { host: `evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).code).toBe('bad-host');
    expect((await raw(base, '/posts', { host: `127.0.0.1:${Number(port) + 1}` })).status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
      expect((await raw(base, '/posts', { host })).status, host).toBe(200);
  });

  it('a JSON body is read only under a JSON content type: text/plain writes nothing (415)', async () => {
    const base = await serve();
    const before = await postCount(base);
    const plain = await fetch(`${base}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"title":"simple request"}',
    });
    expect(plain.status).toBe(415);
    expect((await plain.json()).code).toBe('unsupported-media-type');
    expect((await fetch(`${base}/__capstate/state`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: '{}' })).status).toBe(
      415,
    );
    expect(await postCount(base)).toBe(before);
    expect(
      (
        await fetch(`${base}/posts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: '{"title":"json"}',
        })
      ).status,
    ).toBe(201);
  });
});

describe("issue 42: a caller's mistake over HTTP is a 4xx, never a 500", () => {
  it('bad percent-encoding in a path is 400 bad-path', async () => {
    const base = await serve();
    const r = await fetch(`${base}/posts/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect((await r.json()).code).toBe('bad-path');
  });

  it('a raw NUL (or any control character) inside a JSON string is 400 bad-json, and writes nothing', async () => {
    const base = await serve();
    const before = await postCount(base);
    for (const c of ['\u0000', '\u0001', '\n']) {
      const r = await fetch(`${base}/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"title":"a${c}b"}`,
      });
      expect(r.status, JSON.stringify(c)).toBe(400);
      expect((await r.json()).code).toBe('bad-json');
    }
    expect(await postCount(base)).toBe(before);
  });
});

describeBrowser('issue 42: web pages in Chromium against a served model', () => {
  let browser: Browser;
  let pages: Server;
  let pagePort: number;
  beforeAll(async () => {
    // *.test names resolve to this machine, so a page can have an origin that is not loopback.
    browser = await withSandboxFallback((args) =>
      chromium.launch({ executablePath: CHROMIUM, args: [...args, '--host-resolver-rules=MAP *.test 127.0.0.1'] }),
    );
    pages = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>page</title>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagePort = (pages.address() as { port: number }).port;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
  });

  /** What a page at `origin` sees when it reads the state and creates, patches and replaces. */
  async function attempt(origin: string, base: string): Promise<string[]> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(async (b) => {
        const out: string[] = [];
        const tryIt = async (name: string, f: () => Promise<Response>) => {
          try {
            const r = await f();
            out.push(`${name}:${r.status}`);
          } catch {
            out.push(`${name}:blocked`);
          }
        };
        const json = { 'content-type': 'application/json' };
        await tryIt('read-state', () => fetch(`${b}/__capstate/state`));
        await tryIt('create', () => fetch(`${b}/posts`, { method: 'POST', headers: json, body: JSON.stringify({ title: 'from a page' }) }));
        await tryIt('create-simple', () =>
          fetch(`${b}/posts`, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: JSON.stringify({ title: 'from a page' }),
          }),
        );
        await tryIt('patch', () =>
          fetch(`${b}/posts/1`, { method: 'PATCH', headers: json, body: JSON.stringify({ title: 'from a page' }) }),
        );
        await tryIt('replace-state', () => fetch(`${b}/__capstate/state`, { method: 'PUT', headers: json, body: '{}' }));
        return out;
      }, base);
    } finally {
      await page.close();
    }
  }

  it('a page on another origin reads nothing and changes nothing', async () => {
    const base = await serve();
    const before = await (await fetch(`${base}/__capstate/state`)).text();
    const seen = await attempt(`http://evil.test:${pagePort}`, base);
    // no-cors answers are opaque (status 0) to the page; everything else fails in the browser.
    expect(seen).toEqual(['read-state:blocked', 'create:blocked', 'create-simple:0', 'patch:blocked', 'replace-state:blocked']);
    expect(await (await fetch(`${base}/__capstate/state`)).text()).toBe(before);
  });

  it('a page that rebinds its own name to the server is refused by the Host check', async () => {
    const base = await serve();
    const port = new URL(base).port;
    const page = await browser.newPage();
    try {
      const r = await page.goto(`http://rebind.test:${port}/__capstate/state`);
      expect(r?.status()).toBe(403);
    } finally {
      await page.close();
    }
  });

  it('a page on an allowed origin reads and writes', async () => {
    const origin = `http://app.test:${pagePort}`;
    const base = await serve([origin]);
    const before = await postCount(base);
    const seen = await attempt(origin, base);
    expect(seen).toEqual(['read-state:200', 'create:201', 'create-simple:0', 'patch:200', 'replace-state:400']);
    expect(await postCount(base)).toBe(before + 1);
  });
});
