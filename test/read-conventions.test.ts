/**
 * Issue 44: the API's read conventions, learned from the whole capture and applied to every
 * collection. On the fidelity benchmark's json-server 0.17.4 capture (bench/fidelity/, recorded
 * in Debian's Chromium): its session filters, sorts and pages only /posts (`?userId=2`,
 * `_sort=views&_order=desc`, `_page=1&_limit=3`) and lists /comments and /users only whole or by
 * `postId`. What the app answers for the other lists is json-server's own behaviour over the
 * seed the session read (db.json: the served state before any write), so the expectations
 * below are the seed filtered, sorted and paged as json-server does.
 */
import { describe, expect, it } from 'vitest';
import { linkRels } from '../bench/fidelity/compare.js';
import { servedFidelityApp } from './fidelity-served.js';
import { learnReadConventions, widenQueries } from '../src/model/plan/conventions.js';
import type { ListPlan } from '../src/model/plan/types.js';

const served = servedFidelityApp('json-server-0.17');
const { seed, get } = served;

describe('issue 44: read conventions learned from the whole capture, applied to every list', () => {
  it('api-filter: an equality filter proved on /posts filters /comments by any field name', async () => {
    const r = await get('/comments?userId=3');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(seed.comments.filter((c) => c.userId === 3));
    expect(r.h('capstate-answer')).toBe('convention');
    expect(r.h('capstate-convention')).toBe('api-filter');
    // And on /posts itself by a field the session never filtered by.
    expect((await get('/posts?author=carol')).json).toEqual(seed.posts.filter((p) => p.author === 'carol'));
    expect((await get('/users?name=Carol')).json).toEqual(seed.users.filter((u) => u.name === 'Carol'));
  });

  it('api-filter: a boolean field compares by its spelling; a repeated key no recorded line proved OR declines (filter:any)', async () => {
    expect((await get('/posts?published=false')).json).toEqual(seed.posts.filter((p) => p.published === false));
    // json-server 0.17 lists what any value picks, 1.0 ignores the key: this capture shows neither.
    const repeated = await get('/posts?userId=1&userId=3');
    expect(repeated.status).toBe(501);
    expect(repeated.h('capstate-answer')).toBe('declined');
  });

  it('api-sort: `_sort`/`_order` proved on /posts sorts /users and /comments', async () => {
    const r = await get('/users?_sort=name&_order=desc');
    expect(r.json).toEqual([...seed.users].sort((a, b) => (a.name < b.name ? 1 : -1)));
    expect(r.h('capstate-convention')).toBe('api-sort');
    expect((await get('/comments?postId=2&_sort=id&_order=desc')).json).toEqual(
      seed.comments.filter((c) => c.postId === 2).sort((a, b) => Number(b.id) - Number(a.id)),
    );
  });

  it('api-window: `_page`/`_limit` proved on /posts pages /comments, with the total header and links that window sent', async () => {
    const r = await get('/comments?_page=2&_limit=4');
    expect(r.json).toEqual(seed.comments.slice(4, 8));
    expect(r.h('x-total-count')).toBe(String(seed.comments.length));
    const rels = linkRels(r.h('link'));
    expect(rels).toEqual({
      first: '/comments?_page=1&_limit=4',
      prev: '/comments?_page=1&_limit=4',
      next: '/comments?_page=3&_limit=4',
      last: '/comments?_page=3&_limit=4',
    });
    expect(r.h('capstate-convention')).toBe('api-window');
  });

  it('page-links-end: the only page sends no Link; a page past the last, which no record shows, is declined (kind 8: headers past the last page)', async () => {
    // json-server answers it empty, json-server 1.0 as the last page, WordPress 400: the capture shows none of them.
    const past = await get('/posts?_page=9&_limit=3');
    expect(past.status).toBe(501);
    expect(past.h('capstate-answer')).toBe('declined');
    expect((past.json as { detail: string }).detail).toContain('page past the last');
    const only = await get('/users?_page=1&_limit=10');
    expect(only.json).toEqual(seed.users);
    expect(only.h('link')).toBeNull();
  });

  it('kind 3: an item of a collection never read by item answers by the item route /posts/{id} proves', async () => {
    const r = await get('/comments/2');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(seed.comments.find((c) => c.id === 2));
    expect(r.h('capstate-convention')).toBe('item-route');
  });

  it("kind 6: with no 404 of the API recorded, an unknown id is a 404 whose body is plainly capstate's (RFC 9457), marked default-not-found", async () => {
    for (const path of ['/posts/999', '/comments/999']) {
      const r = await fetch(served.base() + path);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.headers.get('capstate-convention')).toBe('default-not-found');
      expect(await r.json()).toMatchObject({ status: 404, code: 'default-not-found' });
    }
  });

  it('a key no list of the capture proved is declined, never guessed: an operator suffix, another window spelling', async () => {
    for (const path of ['/posts?views_gte=100', '/posts?_start=2&_end=5', '/comments?q=state']) {
      const r = await fetch(served.base() + path);
      expect(r.status, path).toBe(501);
      expect(r.headers.get('capstate-answer'), path).toBe('declined');
    }
  });

  it('MCP: a list tool publishes the keys its conventions answer, says which, and answers with the convention in _meta', async () => {
    const tool = served.mcp().tools.find((t) => t.name === 'get_comments')!;
    const query = (tool.inputSchema.properties as Record<string, { properties: Record<string, { description: string }> }>).query;
    expect(query.properties.userId.description).toMatch(/api-filter/);
    expect(query.properties._sort.description).toMatch(/api-sort/);
    const res = await served.mcp().call('get_comments', { query: { userId: '3' } });
    expect(res.isError).toBeFalsy();
    expect(res._meta).toMatchObject({ 'capstate/answer': 'convention', 'capstate/convention': 'api-filter' });
  });
});

describe('issue 44: learnReadConventions and widenQueries', () => {
  const plan = (tool: string, fields: string[], q?: ListPlan['list_queries']): ListPlan =>
    ({ tool, kind: 'list', collection: tool, fields, lines: [], ...(q ? { list_queries: q } : {}) }) as unknown as ListPlan;
  const posts = plan('posts', ['id', 'userId', 'views'], { filter: ['userId', 'views_gte'], sort: ['_sort'], window: ['_page', '_limit'] });
  const notes = plan('notes', ['id', 'title']);
  const vocabulary = {
    isOrdering: (k: string) => ['_sort', '_order', 'sort'].includes(k),
    isPagination: (k: string) => ['_page', '_limit', 'limit'].includes(k),
  };

  it('a filter, an operator, a sort and a window proved on one list are the API habit for another', () => {
    const w = widenQueries(notes, learnReadConventions([posts, notes], [], vocabulary))!;
    expect(w.queries).toEqual({ filter: ['id', 'id_gte', 'title', 'title_gte'], sort: ['_sort'], window: ['_page', '_limit'] });
    expect(w.borrowed.get('title')).toEqual({ convention: 'api-filter', tools: ['posts'] });
    expect(w.borrowed.get('_page')).toEqual({ convention: 'api-window', tools: ['posts'] });
  });

  it('the capture shows otherwise: where the reads page or sort by another spelling too, no list borrows a window or a sort', () => {
    const conv = learnReadConventions([posts], ['userId', '_sort', '_page', '_limit', 'limit', 'sort'], vocabulary);
    const w = widenQueries(notes, conv)!;
    expect(w.queries.window).toEqual([]);
    expect(w.queries.sort).toEqual([]);
    expect(w.queries.filter).toContain('title');
  });

  it('no list proved anything: no convention; a reference form that is no field is not a habit', () => {
    expect(widenQueries(notes, learnReadConventions([notes]))).toBeUndefined();
    const issues = plan('issues', ['id', 'project'], { filter: ['project_id'], sort: [], window: [] });
    expect(widenQueries(notes, learnReadConventions([issues]))).toBeUndefined();
  });
});
