/**
 * Issue 16, `capstate serve --http`: the served model over plain HTTP on the app's own
 * paths (same answers as the MCP tools, recorded content-type, data plane under
 * /__capstate/), in process and through the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fixture, tempDir, whileServedOverHttp } from './helpers.js';
import { parseListen } from '../src/http/server.js';
import { serveHttp, serveStore } from './serve-helpers.js';

const dir = tempDir();
const db = join(dir, 'json-server.sqlite');
let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ base, close } = await serveHttp(fixture('json-server', 'capture.har'), db));
});

afterAll(() => close());

const json = (method: string, path: string, body?: unknown) =>
  fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("HTTP serving answers on the app's own paths, as the MCP tools do", () => {
  it('a read answers with the recorded content-type and the same body as the MCP tool', async () => {
    const r = await json('GET', '/posts/1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('x-capstate-source')).toBe('state');
    const mcp = await serveStore(db);
    try {
      const viaMcp = await mcp.call('get_posts_by_id', { id: '1' });
      expect(await r.json()).toEqual((viaMcp.structuredContent as { body: unknown }).body);
    } finally {
      await mcp.close();
    }
  });

  it('writes take effect for later requests: POST, PATCH, DELETE, then the list', async () => {
    const created = await json('POST', '/posts', { title: 'over http', author: 'web' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ title: 'over http', author: 'web', id: 4 });
    expect(await (await json('PATCH', '/posts/4', { author: 'browser' })).json()).toMatchObject({ id: 4, author: 'browser' });
    expect((await json('DELETE', '/posts/2')).status).toBe(200);
    expect((await json('GET', '/posts/2')).status).toBe(404);
    expect(((await (await json('GET', '/posts')).json()) as { id: number }[]).map((p) => p.id)).toEqual([1, 3, 4]);
  });

  it('the data plane: GET /__capstate/state with its SHA-256, POST /__capstate/reset, PUT /__capstate/state', async () => {
    const changed = await json('GET', '/__capstate/state');
    const sha = changed.headers.get('x-capstate-sha256');
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    const reset = (await (await json('POST', '/__capstate/reset')).json()) as { sha256: string };
    expect(reset.sha256).not.toBe(sha);
    expect((await (await json('GET', '/posts')).json()) as unknown[]).toHaveLength(3);
    const doc = (await (await json('GET', '/__capstate/state')).json()) as { entities: { value: Record<string, unknown> }[] };
    doc.entities[0].value.title = 'loaded over http';
    expect((await json('PUT', '/__capstate/state', doc)).status).toBe(200);
    expect(await (await json('GET', '/posts/1')).json()).toMatchObject({ title: 'loaded over http' });
    const badLoad = await json('PUT', '/__capstate/state', { entities: [{ collection: 'nope', id: '1', value: {} }] });
    expect(badLoad.status).toBe(400);
    expect(await badLoad.json()).toMatchObject({ ok: false, code: 'bad-state' });
    await json('POST', '/__capstate/reset');
  });

  it("a path no tool answers is declined (501, a problem document in capstate's error shape); a body that is not JSON a 400", async () => {
    const r = await json('GET', '/nothing/here');
    expect(r.status).toBe(501);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.headers.get('capstate-answer')).toBe('declined');
    expect(await r.json()).toMatchObject({
      status: 501,
      ok: false,
      code: 'no-route',
      message: expect.stringMatching(/GET \/nothing\/here/),
    });
    // capstate's own data plane is not the app: an unknown path of it is a plain 404.
    expect((await json('GET', '/__capstate/nothing')).status).toBe(404);
    const bad = await fetch(base + '/posts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'bad-json' });
  });

  it('HEAD of a path a GET tool answers: the GET answer without its body', async () => {
    const get = await json('GET', '/posts/1');
    const head = await json('HEAD', '/posts/1');
    expect(head.status).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-capstate-tool')).toBe('get_posts_by_id');
    expect(await head.text()).toBe('');
    expect((await json('HEAD', '/nothing/here')).status).toBe(501);
  });

  it('an OPTIONS that is no CORS preflight is declined: the capture never recorded what the app allows', async () => {
    const r = await json('OPTIONS', '/posts');
    expect(r.status).toBe(501);
    expect(r.headers.get('capstate-answer')).toBe('declined');
    expect(((await r.json()) as { detail: string }).detail).toContain('only as a CORS preflight');
  });
});

describe('serve --http [HOST:]PORT', () => {
  it('parses PORT, HOST:PORT and [IPv6]:PORT, default host 127.0.0.1, and refuses anything else as usage', () => {
    expect(parseListen('8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseListen('0.0.0.0:81')).toEqual({ host: '0.0.0.0', port: 81 });
    expect(parseListen('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(() => parseListen('http://x')).toThrow(/--http takes \[HOST:\]PORT/);
    expect(() => parseListen('70000')).toThrow(/--http takes/);
  });

  it('the CLI serves a capture over HTTP until SIGTERM', async () => {
    const status = await whileServedOverHttp(['--db', db], async (base) => {
      const r = await fetch(base + '/profile');
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ name: 'typicode', theme: 'light' });
    });
    expect(status).toBe(0);
  });
});
