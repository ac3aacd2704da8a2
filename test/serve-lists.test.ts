/**
 * Issue 16 (left part), issue 18: lists served from the model — equality and membership
 * filters, pages with their totals recounted, sorts — each only where the capture's own
 * lines of that kind reproduced; after a write, a filtered list shows it; over MCP and HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { line, serveHar, serveHttp, serveStore, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const A = 'http://localhost:3000';
const J = { name: 'Content-Type', value: 'application/json; charset=utf-8' };

const POSTS = [
  { id: 1, userId: 1, title: 'b-second' },
  { id: 2, userId: 2, title: 'a-first' },
  { id: 3, userId: 1, title: 'd-fourth' },
  { id: 4, userId: 2, title: 'c-third' },
  { id: 5, userId: 1, title: 'e-fifth' },
];
const posts = (ids: number[]) => ids.map((id) => POSTS.find((p) => p.id === id)!);
const total = (n: number) => [J, { name: 'X-Total-Count', value: String(n) }];

/** A json-server-shaped capture: the whole list, a filter, a membership filter, a sort, a page; a create; the filter read again. */
const CAPTURE: Exchange[] = [
  { url: `${A}/posts`, body: POSTS, responseHeaders: [J] },
  { url: `${A}/posts?userId=1`, body: posts([1, 3, 5]), responseHeaders: [J] },
  { url: `${A}/posts?id=4&id=2`, body: posts([2, 4]), responseHeaders: [J] },
  { url: `${A}/posts?_sort=title&_order=desc`, body: posts([5, 3, 4, 1, 2]), responseHeaders: [J] },
  { url: `${A}/posts?_page=2&_limit=2`, body: posts([3, 4]), responseHeaders: total(5) },
  {
    method: 'POST',
    url: `${A}/posts`,
    status: 201,
    requestBody: { userId: 1, title: 'f-sixth' },
    body: { userId: 1, title: 'f-sixth', id: 6 },
    responseHeaders: [J],
  },
  { url: `${A}/posts?userId=1`, body: [...posts([1, 3, 5]), { id: 6, userId: 1, title: 'f-sixth' }], responseHeaders: [J] },
];

type Answer = { status: number; source: string; body: { id: number }[]; why: string; headers?: Record<string, string> };
const answer = (r: CallToolResult): Answer => {
  expect(r.isError, text(r)).toBeFalsy();
  return r.structuredContent as Answer;
};
const ids = (a: Answer) => a.body.map((p) => p.id);

describe('filters on entity fields answered from the model', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, CAPTURE);
  });
  afterAll(async () => {
    await s.close();
  });

  it('a recorded filter line renders from state and says which filter it applied', async () => {
    const a = answer(await s.call('get_posts', { query: { userId: '1' } }));
    expect(a.source).toBe('state');
    expect(ids(a)).toEqual([1, 3, 5]);
    expect(a.why).toMatch(/userId = 1/);
  });

  it('a filter value no record shows (?userId=2) is answered from state, since every userId line reproduced', async () => {
    const a = answer(await s.call('get_posts', { query: { userId: '2' } }));
    expect(a).toMatchObject({ status: 200, source: 'state' });
    expect(ids(a)).toEqual([2, 4]);
    expect(answer(await s.call('get_posts', { query: { userId: '7' } })).body).toEqual([]);
  });

  it('a membership filter with other ids (?id=5&id=1&id=99) lists the ones the state holds, in state order', async () => {
    expect(ids(answer(await s.call('get_posts', { query: { id: ['5', '1', '99'] } })))).toEqual([1, 5]);
  });

  it('a key no line reproduced as a filter is not answered from state: an unrecorded combination stays no-record', async () => {
    const r = await s.call('get_posts', { query: { userId: '1', id: '1' } });
    // userId and id are each learned filters, so the combination is answered; a window key beside an unlearned value is not.
    expect(ids(answer(r))).toEqual([1]);
    const odd = await s.call('get_posts', { query: { _sort: 'nope' } });
    expect(odd.isError).toBe(true);
    expect(text(odd)).toMatch(/no-record|no retained record/);
  });
});

describe('pages answered from the model, their totals recounted', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, CAPTURE);
  });
  afterAll(async () => {
    await s.close();
  });

  it('another page (?_page=3&_limit=2) is the window of the collection, with X-Total-Count counting the matched entities', async () => {
    const a = answer(await s.call('get_posts', { query: { _page: '3', _limit: '2' } }));
    expect(ids(a)).toEqual([5]);
    expect(a.headers).toEqual({ 'x-total-count': '5' });
  });

  it('a page of a filtered list counts what the filter matched', async () => {
    const a = answer(await s.call('get_posts', { query: { userId: '1', _page: '1', _limit: '2' } }));
    expect(ids(a)).toEqual([1, 3]);
    expect(a.headers).toEqual({ 'x-total-count': '3' });
  });
});

describe('sorting by the parameters the capture used', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, CAPTURE);
  });
  afterAll(async () => {
    await s.close();
  });

  it('the recorded sort renders from state; the other direction and another field are answered too', async () => {
    expect(ids(answer(await s.call('get_posts', { query: { _sort: 'title', _order: 'desc' } })))).toEqual([5, 3, 4, 1, 2]);
    expect(ids(answer(await s.call('get_posts', { query: { _sort: 'title', _order: 'asc' } })))).toEqual([2, 1, 4, 3, 5]);
    expect(ids(answer(await s.call('get_posts', { query: { _sort: 'userId', _order: 'desc' } })))).toEqual([2, 4, 1, 3, 5]);
  });
});

describe('after a write in a session, a filtered list reflects it', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, CAPTURE);
  });
  afterAll(async () => {
    await s.close();
  });

  it('a created post with userId 1 is in ?userId=1 and in the pages; one with userId 2 is not in ?userId=1', async () => {
    const created = answer(await s.call('post_posts', { body: { userId: 1, title: 'g-seventh' } }));
    expect(created).toMatchObject({ status: 201, source: 'state' });
    expect(ids(answer(await s.call('get_posts', { query: { userId: '1' } })))).toEqual([1, 3, 5, 6]);
    await s.call('post_posts', { body: { userId: 2, title: 'h-eighth' } });
    expect(ids(answer(await s.call('get_posts', { query: { userId: '1' } })))).toEqual([1, 3, 5, 6]);
    const page = answer(await s.call('get_posts', { query: { _page: '4', _limit: '2' } }));
    expect(ids(page)).toEqual([7]);
    expect(page.headers).toEqual({ 'x-total-count': '7' });
  });

  it("check-effects reproduces the capture's later filtered read after its POST", () => {
    const har = writeHar(dir, 'effects.har', CAPTURE);
    const r = cli(['check-effects', har, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { reproduced: number; responses: number };
    expect(report.reproduced).toBe(report.responses);
  });
});

describe('a line the state cannot reproduce replays; the tool description says which', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, [
      { url: `${A}/issues`, body: POSTS },
      { url: `${A}/issues?userId=2`, body: posts([2, 4]) },
      { url: `${A}/issues?view=default`, body: posts([1, 2, 3, 4]) },
    ]);
  });
  afterAll(async () => {
    await s.close();
  });

  it('the membership-differs line replays its record; the filter line answers from state', async () => {
    expect(answer(await s.call('get_issues', { query: { view: 'default' } }))).toMatchObject({ source: 'replay' });
    expect(answer(await s.call('get_issues', { query: { userId: '2' } }))).toMatchObject({ source: 'state' });
  });

  it('the description names what is answered from state and what replays, in plain words', () => {
    const d = line(s.tool('get_issues'));
    expect(d).toMatch(/answers 2 of its 3 recorded request lines from state, and from state any value of its filters on userId/);
    expect(d).toMatch(/but replays \/issues\?view=default \(the state does not reproduce which items it lists\)/);
  });
});

describe("over serve --http: the same list answers on the app's paths, X-Total-Count recounted", () => {
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ base, close } = await serveHttp(writeHar(dir, 'http.har', CAPTURE), join(dir, 'http.sqlite')));
  });
  afterAll(() => close());

  it('GET /posts?userId=2&_page=1&_limit=1 answers from state with the header json-server sends', async () => {
    const r = await fetch(`${base}/posts?userId=2&_page=1&_limit=1`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-capstate-source')).toBe('state');
    expect(r.headers.get('x-total-count')).toBe('2');
    expect(((await r.json()) as { id: number }[]).map((p) => p.id)).toEqual([2]);
  });

  it('a repeated key over HTTP is a membership filter (?id=3&id=1)', async () => {
    const r = await fetch(`${base}/posts?id=3&id=1`);
    expect(((await r.json()) as { id: number }[]).map((p) => p.id)).toEqual([1, 3]);
  });

  it('a recomputed page Link names the serving host, as json-server names its own', async () => {
    const h = await serveHttp(fixture('json-server-lists', 'capture.har'), join(dir, 'http-lists.sqlite'));
    try {
      const res = await fetch(`${h.base}/posts?userId=3&_page=2&_limit=3`);
      const host = new URL(h.base).host;
      expect(res.headers.get('x-total-count')).toBe('8');
      expect(res.headers.get('link')).toBe(
        `<http://${host}/posts?userId=3&_page=1&_limit=3>; rel="first", <http://${host}/posts?userId=3&_page=1&_limit=3>; rel="prev", ` +
          `<http://${host}/posts?userId=3&_page=3&_limit=3>; rel="next", <http://${host}/posts?userId=3&_page=3&_limit=3>; rel="last"`,
      );
    } finally {
      await h.close();
    }
  });

  it('the MCP tool answers the same body', async () => {
    const mcp = await serveStore(join(dir, 'http.sqlite'));
    try {
      const viaMcp = answer(await mcp.call('get_posts', { query: { _sort: 'title', _order: 'desc' } }));
      const viaHttp = await (await fetch(`${base}/posts?_sort=title&_order=desc`)).json();
      expect(viaHttp).toEqual(viaMcp.body);
    } finally {
      await mcp.close();
    }
  });
});

describe('json-server truth: the served fixture answers list reads the capture never sent as json-server does', () => {
  type Truth = { path: string; status: number; x_total_count: string | null; link: string | null; body: unknown };
  const truth = JSON.parse(readFileSync(fixture('json-server-lists', 'expected', 'truth.json'), 'utf8')) as Truth[];
  let s: Served;
  beforeAll(async () => {
    const db = join(dir, 'json-server-lists.sqlite');
    const r = cli(['load', fixture('json-server-lists', 'capture.har'), '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(truth.map((t) => [t.path, t] as const))(
    '%s: same status, body, X-Total-Count and Link, answered from state',
    async (_path, t) => {
      const url = new URL(t.path, 'http://truth.test');
      const query: Record<string, string | string[]> = {};
      for (const [k, v] of url.searchParams) query[k] = k in query ? [...[query[k]].flat(), v] : v;
      const a = answer(await s.call('get_posts', { query }));
      expect(a.source, a.why).toBe('state');
      expect(a.status).toBe(t.status);
      expect(a.body).toEqual(t.body);
      expect(a.headers?.['x-total-count'] ?? null).toBe(t.x_total_count);
      expect(a.headers?.link ?? null).toBe(t.link);
    },
  );

  it('a recorded page renders its Link as recorded, and after a create the last page moves', async () => {
    const a = answer(await s.call('get_posts', { query: { _page: '2', _limit: '10' } }));
    expect(a.headers?.link).toBe(
      '<http://localhost:3917/posts?_page=1&_limit=10>; rel="first", <http://localhost:3917/posts?_page=1&_limit=10>; rel="prev", ' +
        '<http://localhost:3917/posts?_page=3&_limit=10>; rel="next", <http://localhost:3917/posts?_page=3&_limit=10>; rel="last"',
    );
    for (let i = 0; i < 7; i++) await s.call('post_posts', { body: { userId: 3, title: `more ${i}`, views: 1 } });
    const after = answer(await s.call('get_posts', { query: { _page: '3', _limit: '10' } }));
    expect(after.headers).toMatchObject({ 'x-total-count': '31' });
    expect(after.headers?.link).toMatch(/_page=4&_limit=10>; rel="next", <[^>]*_page=4&_limit=10>; rel="last"$/);
  });
});
