/**
 * Issue 44 (kind 1, lists answered only for the exact recorded query string): json-server
 * 1.0 answers `/posts` as the bare array and `/posts?_page=1&_per_page=3` as
 * `{"first": 1, …, "data": […]}`. The list sat at two places, so the whole tool was a record
 * view and every filter and sort of /posts was declined. The lines at the other place name
 * keys (`_page`, `_per_page`) no plain line names: they are another representation those keys
 * pick (ES-20's reading for envelopes) and replay, and the plain list answers from state.
 *
 * Also here, `filter:any`: a repeated filter key (`?userId=1&userId=3`) is OR in json-server
 * 0.17 and ignored by 1.0, so it is answered only where a recorded line proved it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { servedFidelityApp } from './fidelity-served.js';
import type { ListPlan, Plan } from '../src/model/plan/types.js';

const served = servedFidelityApp('json-server-1.0');
const { get } = served;
const dir = tempDir();
let n = 0;

function plans(har: string): Plan[] {
  const r = cli(['state', har, '--json', '-q']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { plans: Plan[] }).plans;
}
const plansOf = (exchanges: Exchange[]) => plans(writeHar(dir, `envelope-${n++}.har`, exchanges));

describe('issue 44: a list whose paged answers sit in an envelope the plain list lacks', () => {
  it('envelope variant: /posts is a list plan; the `_per_page` line leaves it, its keys named as variant keys', () => {
    const p = plans(join(served.app, 'capture.har')).find((x) => x.tool === 'get_posts') as ListPlan;
    expect(p.kind).toBe('list');
    expect(p.list_pointer).toBe('');
    expect(p.lines.map((l) => l.query)).not.toContain('_page=1&_per_page=3');
    expect(p.projected_query_keys).toEqual([{ name: '_page' }, { name: '_per_page' }]);
    expect(p.list_queries?.filter).toContain('userId');
  });

  it('envelope variant: a filter and a sort of /posts answer from state; the paged lines answer in the page envelope the recorded page proved; a page past the last declines', async () => {
    const filtered = await get('/posts?author=carol');
    expect(filtered.status).toBe(200);
    expect((filtered.json as { id: string }[]).map((p) => p.id)).toEqual(['4', '6']);
    // `author` by the API's filter convention (the plan itself learned `userId`).
    expect(filtered.h('capstate-convention')).toBe('api-filter');
    const sorted = await get('/posts?_sort=-id');
    // The served model starts where the capture's reads stood before its writes (the seed).
    expect((sorted.json as { id: string }[]).map((p) => p.id)).toEqual(['8', '7', '6', '5', '4', '3', '2', '1']);

    const recorded = await get('/posts?_page=1&_per_page=3');
    expect(recorded.status).toBe(200);
    expect(recorded.h('capstate-answer')).toBe('state');
    expect(recorded.json).toMatchObject({ first: 1, prev: null, next: 2, last: 3, pages: 3, items: 8 });

    // The seed's posts 4 to 6, and the members json-server 1.0 computes for page 2 (page-envelope.ts).
    const other = await get('/posts?_page=2&_per_page=3');
    expect(other.status).toBe(200);
    expect(other.h('capstate-answer')).toBe('state');
    const { data, ...members } = other.json as { data: { id: string }[] };
    expect(members).toEqual({ first: 1, prev: 1, next: 3, last: 3, pages: 3, items: 8 });
    expect(data.map((p) => p.id)).toEqual(['4', '5', '6']);

    // json-server 1.0 answers a page past the last as the last page; the capture does not show it.
    const past = await get('/posts?_page=9&_per_page=3');
    expect(past.status).toBe(501);
    expect(past.h('capstate-answer')).toBe('declined');
  });

  it('envelope variant: a line at another place that names no key of its own leaves the tool a record view', () => {
    const A = 'http://localhost:3000';
    const posts = [
      { id: 1, title: 'a' },
      { id: 2, title: 'b' },
    ];
    const p = plansOf([
      { url: `${A}/posts`, body: posts },
      { url: `${A}/posts?sort=id`, body: posts },
      { url: `${A}/posts?sort=title`, body: { data: posts } },
    ]).find((x) => x.tool === 'get_posts')!;
    expect(p.kind).toBe('record');
    expect((p as { detail?: string }).detail).toContain('different places');
  });
});

describe('issue 44: a repeated filter key (filter:any) is answered only where a recorded line proved it', () => {
  it('filter:any: json-server 1.0 ignores a repeated key, so with none recorded it declines rather than guess OR', async () => {
    const r = await get('/posts?userId=1&userId=3');
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
    // One value of the same key is still answered.
    expect((await get('/posts?userId=3')).status).toBe(200);
  });

  it('filter:any: a recorded `?id=3&id=9` line that reproduced teaches OR (json-server-lists fixture)', () => {
    const p = plans(fixture('json-server-lists', 'capture.har')).find((x) => x.tool === 'get_posts') as ListPlan;
    expect(p.list_queries?.any_of).toBe(true);
  });
});

describe('issue 44 kind 7: an embed the API convention gives is stale after an unapplied write of its type', () => {
  it('kind 7: after PUT /comments/3 (no PUT of json-server 1.0 verified, so not applied), /posts?_embed=comments declines instead of listing comments from before it', async () => {
    const before = await get('/posts?_embed=comments');
    expect(before.status).toBe(200);
    expect(before.h('capstate-convention')).toBe('api-embed');
    const put = await fetch(`${served.base()}/comments/3`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ postId: '1', userId: '1', body: 'Moved in the session' }),
    });
    expect(put.status).toBe(501);
    const after = await get('/posts?_embed=comments');
    expect(after.status).toBe(501);
    expect(after.h('capstate-answer')).toBe('declined');
  });
});
