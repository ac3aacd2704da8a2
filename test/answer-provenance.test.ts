/**
 * Issue 44, "honest declines and provenance": every answer of a served model says how it was
 * made — `Capstate-Answer: state | convention | replay | declined` over HTTP (with the rules
 * and the convention behind it), the same in an MCP result's `_meta` — and what the model
 * cannot answer is declined with a 501 problem document, never a 400 or 404 that pretends to
 * be the app. On the json-server fixture (recorded from json-server 0.17.4).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir } from './helpers.js';
import { serveHar, serveHttp, serveStore, type Served } from './serve-helpers.js';

const dir = tempDir();
const db = join(dir, 'json-server.sqlite');
let base: string;
let close: () => Promise<void>;
let mcp: Served;
/** Grafana 11 (fixtures/grafana): its captured folders' membership is whole, and no 404 of them was recorded. */
let grafana: { base: string; close: () => Promise<void> };

beforeAll(async () => {
  ({ base, close } = await serveHttp(fixture('json-server', 'capture.har'), db));
  mcp = await serveStore(db);
  grafana = await serveHttp(fixture('grafana', 'capture.har'), join(dir, 'grafana.sqlite'));
});
afterAll(async () => {
  await mcp?.close();
  await close?.();
  await grafana?.close();
});

describe('issue 44: every answer says how it was made', () => {
  it('an item read from state says state, with the rules behind it', async () => {
    const r = await fetch(`${base}/posts/1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('capstate-answer')).toBe('state');
    expect(r.headers.get('capstate-rules')).toMatch(/ES-/);
    const viaMcp = await mcp.call('get_posts_by_id', { id: '1' });
    expect(viaMcp._meta).toMatchObject({ 'capstate/answer': 'state' });
    expect((viaMcp._meta as { 'capstate/rules': string[] })['capstate/rules']).toEqual(r.headers.get('capstate-rules')!.split(', '));
  });

  it('a recorded answer replayed says replay', async () => {
    const tools = mcp.tools.map((t) => t.name);
    // Every tool of the capture answers something; the ones the state does not model replay.
    const replayed = [];
    for (const name of tools.filter((t) => t.startsWith('get_'))) {
      const res = await mcp.call(name, name.endsWith('_by_id') ? { id: '1' } : {});
      if (!res.isError && (res.structuredContent as { source: string }).source === 'replay') replayed.push(res);
    }
    for (const res of replayed) expect(res._meta).toMatchObject({ 'capstate/answer': 'replay' });
  });

  it('a not-found the capture never showed is answered by a documented default and says convention', async () => {
    const r = await fetch(`${grafana.base}/api/folders/no-such-uid`);
    expect(r.status).toBe(404);
    expect(r.headers.get('capstate-answer')).toBe('convention');
    expect(r.headers.get('capstate-convention')).toBe('default-not-found');
    // json-server's own recorded 404 is the capture's evidence: state, shaped like the record.
    const own = await fetch(`${base}/posts/999`);
    expect(own.status).toBe(404);
    expect(own.headers.get('capstate-answer')).toBe('state');
  });

  it('what the model cannot answer is declined: 501 problem document naming the nearest tool, never a 404 that pretends to be the app', async () => {
    const r = await fetch(`${base}/postz/1`);
    expect(r.status).toBe(501);
    expect(r.headers.get('capstate-answer')).toBe('declined');
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    const doc = (await r.json()) as { status: number; code: string; context: { nearest_tool?: string } };
    expect(doc).toMatchObject({ status: 501, code: 'no-route' });
    const near = (await (await fetch(`${base}/posts/1/nothing`)).json()) as { message: string; context: { nearest_tool?: string } };
    expect(near.context.nearest_tool).toMatch(/^get_posts/);
    expect(near.message).toMatch(/the nearest is get_posts/);
  });

  it('over MCP and HTTP a call no record answers is declined, marked so', async () => {
    // Grafana's annotations list was read only with its recorded time window, after the capture's own write.
    const served = await serveStore(join(dir, 'grafana.sqlite'));
    try {
      const res = await served.call('get_api_annotations', {});
      expect(res.isError).toBe(true);
      expect((res.structuredContent as { code: string }).code).toBe('no-record');
      expect(res._meta).toMatchObject({ 'capstate/answer': 'declined' });
      // A caller's own mistake is not a decline.
      const bad = await served.call('get_api_folders_by_uid', {});
      expect(bad.isError).toBe(true);
      expect(bad._meta?.['capstate/answer']).toBeUndefined();
    } finally {
      await served.close();
    }
    const r = await fetch(`${grafana.base}/api/annotations`);
    expect(r.status).toBe(501);
    expect(r.headers.get('capstate-answer')).toBe('declined');
  });

  it("the API's own not-found, recorded on one collection, answers for the others, marked convention api-not-found", async () => {
    const A = 'http://localhost:3000/api';
    const s = await serveHar(dir, [
      { url: `${A}/items`, body: [{ id: 'it-1', name: 'a' }] },
      { url: `${A}/items/it-1`, body: { id: 'it-1', name: 'a' } },
      { url: `${A}/items/it-9`, status: 404, body: {} },
      { url: `${A}/tags`, body: [{ id: 'tg-1', name: 'A' }] },
      { url: `${A}/tags/tg-1`, body: { id: 'tg-1', name: 'A' } },
    ]);
    try {
      const r = await s.call('get_api_tags_by_id', { id: 'tg-9' });
      expect(r.structuredContent).toMatchObject({ status: 404, body: {} });
      expect(r._meta).toMatchObject({ 'capstate/answer': 'convention', 'capstate/convention': 'api-not-found' });
      // The tool's own recorded 404 is its evidence, not a convention.
      const own = await s.call('get_api_items_by_id', { id: 'it-7' });
      expect(own.structuredContent).toMatchObject({ status: 404, body: {} });
      expect(own._meta).toMatchObject({ 'capstate/answer': 'state' });
    } finally {
      await s.close();
    }
  });

  it('over HTTP a query key or body field type the capture never showed is declined, not a 400 the app would not give; over MCP the schema still refuses it', async () => {
    // (A cache-buster such as `_=1712` is ignored instead: cache-buster-keys.test.ts.)
    for (const path of ['/posts?zzz=1712', '/posts/1?_embed=comments']) {
      const r = await fetch(base + path);
      expect(r.status, path).toBe(501);
      expect(r.headers.get('capstate-answer'), path).toBe('declined');
      expect((await r.json()).code, path).toBe('no-convention');
    }
    const wrongType = await fetch(`${base}/posts/1`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ views: 'many' }),
    });
    expect(wrongType.status).toBe(501);
    // Malformed JSON is still the caller's mistake.
    expect((await fetch(`${base}/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' })).status).toBe(
      400,
    );
    const viaMcp = await mcp.call('get_posts', { query: { zzz: '1712' } });
    expect(viaMcp.isError).toBe(true);
    expect((viaMcp.structuredContent as { code: string }).code).toBe('bad-arguments');
  });
});
