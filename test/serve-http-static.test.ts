/**
 * Issue 46: the capture's recorded static responses (pages, scripts, styles, images, fonts),
 * which the manifest does not turn into tools, are served on their recorded paths (GET and
 * HEAD), byte for byte, marked `Capstate-Answer: replay` with their record; `GET /` opens the
 * recorded `/index.html` where nothing answers `/` itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStaticResponse } from '../src/http/static-files.js';
import { fixture, tempDir } from './helpers.js';
import { serveHttp } from './serve-helpers.js';

const dir = tempDir();
let news: { base: string; close: () => Promise<void> };
let posts: { base: string; close: () => Promise<void> };

beforeAll(async () => {
  news = await serveHttp(fixture('news-site-playwright', 'capture.har'), join(dir, 'news.sqlite'));
  posts = await serveHttp(fixture('json-server', 'capture.har'), join(dir, 'posts.sqlite'));
});
afterAll(async () => {
  await news?.close();
  await posts?.close();
});

/** The recorded response body of the HAR entry whose URL ends with `path`, as bytes. */
function recorded(capture: string, path: string): Buffer {
  const har = JSON.parse(readFileSync(capture, 'utf8')) as {
    log: { entries: { request: { url: string }; response: { content: { text: string; encoding?: string } } }[] };
  };
  const c = har.log.entries.find((e) => new URL(e.request.url).pathname === path)!.response.content;
  return Buffer.from(c.text, c.encoding === 'base64' ? 'base64' : 'utf8');
}

describe('issue 46: recorded static files are served on their paths, as replays', () => {
  it('a style, a script and an image answer as recorded, byte for byte, with their record', async () => {
    const capture = fixture('news-site-playwright', 'capture.har');
    for (const [path, type] of [
      ['/static/site.css', 'text/css'],
      ['/static/app.js', 'application/javascript'],
      ['/static/logo.gif', 'image/gif'],
    ]) {
      const r = await fetch(news.base + path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type'), path).toBe(type);
      expect(r.headers.get('capstate-answer'), path).toBe('replay');
      expect(r.headers.get('x-capstate-record'), path).toMatch(/^\d+$/);
      expect(Buffer.from(await r.arrayBuffer()).equals(recorded(capture, path)), path).toBe(true);
    }
  });

  it('HEAD answers the headers without the body', async () => {
    const r = await fetch(`${news.base}/static/site.css`, { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/css');
    expect(await r.text()).toBe('');
  });

  it('a write to a recorded file is declined, saying the file is answered for GET only', async () => {
    const r = await fetch(`${news.base}/static/site.css`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(501);
    const doc = (await r.json()) as { code: string; context: { did_not_match?: string } };
    expect(doc.code).toBe('no-route');
    expect(doc.context.did_not_match).toMatch(/the method: the capture recorded GET \/static\/site.css/);
  });

  it('an API response the manifest left out is no static file: declined, not replayed', async () => {
    const r = await fetch(`${news.base}/gampad/ads`);
    expect(r.status).toBe(501);
    expect(r.headers.get('capstate-answer')).toBe('declined');
  });

  it('GET / opens the recorded /index.html where nothing answers / itself; a tool of / keeps it', async () => {
    const page = await fetch(`${posts.base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe(recorded(fixture('json-server', 'capture.har'), '/index.html').toString('utf8'));
    const root = await fetch(`${news.base}/`);
    expect(root.headers.get('x-capstate-tool')).toBe('get_root');
  });

  it('static means pages, scripts, styles, images, fonts and media, by media type or else by resource type', () => {
    for (const type of [
      'text/html; charset=utf-8',
      'text/css',
      'application/javascript',
      'text/javascript',
      'image/svg+xml',
      'font/woff2',
      'application/font-woff',
      'video/mp4',
    ])
      expect(isStaticResponse(type, null), type).toBe(true);
    for (const type of ['application/json', 'application/problem+json', 'text/plain', 'application/xml'])
      expect(isStaticResponse(type, 'document'), type).toBe(false);
    expect(isStaticResponse('x-unknown', 'font')).toBe(true);
    expect(isStaticResponse(null, 'fetch')).toBe(false);
  });
});
