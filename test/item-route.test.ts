/**
 * Issue 44, kind 3: items of a collection never read by item. json-server-nested (recorded
 * from json-server 0.17.4) lists /posts but never reads /posts/{id}; /comments/{id} proves
 * the API's item route (the bare entity). So GET /posts/1 is answered from the model's posts
 * by that route, marked `convention: item-route`; an id the whole collection lacks gets a
 * not-found. Where the proven route is another shape (Redmine's `/issues/{id}.json` answers
 * `{"issue": …}`), the convention does not guess: the call is declined.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, tempDir } from './helpers.js';
import { serveHttp } from './serve-helpers.js';

const dir = tempDir();
let nested: { base: string; close: () => Promise<void> };
let redmine: { base: string; close: () => Promise<void> };

beforeAll(async () => {
  nested = await serveHttp(fixture('json-server-nested', 'capture.har'), join(dir, 'nested.sqlite'));
  redmine = await serveHttp(fixture('redmine-rest', 'capture.har'), join(dir, 'redmine.sqlite'));
});
afterAll(async () => {
  await nested?.close();
  await redmine?.close();
});

describe('issue 44: a collection known from a list is read by the item route its siblings prove', () => {
  it('GET /posts/1 answers the listed post itself, marked convention item-route', async () => {
    const list = (await (await fetch(`${nested.base}/posts`)).json()) as { id: number }[];
    const r = await fetch(`${nested.base}/posts/${list[0].id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('capstate-answer')).toBe('convention');
    expect(r.headers.get('capstate-convention')).toBe('item-route');
    expect(await r.json()).toEqual(list[0]);
  });

  it('an id the whole collection lacks is a not-found', async () => {
    const r = await fetch(`${nested.base}/posts/987654`);
    expect(r.status).toBe(404);
    expect(r.headers.get('capstate-answer')).toBe('convention');
  });

  it('with a query string, or where the proven route answers an envelope, the call is declined, not guessed', async () => {
    expect((await fetch(`${nested.base}/posts/1?_embed=comments`)).status).toBe(501);
    const r = await fetch(`${redmine.base}/projects/1.json`);
    expect(r.status).toBe(501);
    expect(r.headers.get('capstate-answer')).toBe('declined');
  });
});
