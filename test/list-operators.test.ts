/**
 * Issue 16: json-server's list operators (`_gte`, `_lte`, `_ne`, `_like`), the `_start/_end`
 * window and the multi-field sort, each learned only when every recorded line using it
 * reproduced from state (ES-37), served with the counters recomputed (ES-35: X-Total-Count),
 * and compared with json-server 0.17.4's own answers to reads the capture never sent
 * (fixtures/json-server-operators/expected/truth.json).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cli, fixture, tempDir } from './helpers.js';
import { line, serveHar, serveHttp, serveStore, text, type Served } from './serve-helpers.js';
import { applyListQuery, parseListQuery } from '../src/model/plan/list-queries.js';
import type { StateEntity } from '../src/model/plan/types.js';
import type { Vocabulary } from '../src/store/vocabulary.js';

const dir = tempDir();
const A = 'http://localhost:3000';
const J = { name: 'Content-Type', value: 'application/json; charset=utf-8' };

type Post = { id: number; userId: number; title: string; views: number };
const DB = JSON.parse(readFileSync(fixture('json-server-operators', 'recording', 'db.json'), 'utf8')) as { posts: Post[] };
type Truth = { path: string; status: number; x_total_count: string | null; link: string | null; body: Post[] };
const TRUTH = JSON.parse(readFileSync(fixture('json-server-operators', 'expected', 'truth.json'), 'utf8')) as Truth[];

type Answer = { status: number; source: string; body: Post[]; why: string; headers?: Record<string, string> };
const answer = (r: CallToolResult): Answer => {
  expect(r.isError, text(r)).toBeFalsy();
  return r.structuredContent as Answer;
};
const ids = (a: { body: { id: number }[] }) => a.body.map((p) => p.id);
const queryOf = (path: string) => {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of new URL(path, 'http://truth.test').searchParams) query[k] = k in query ? [...[query[k]].flat(), v] : v;
  return query;
};

describe('json-server truth: operators, _start/_end and multi-field sorts the capture never sent, answered as json-server does', () => {
  let s: Served;
  beforeAll(async () => {
    const db = join(dir, 'json-server-operators.sqlite');
    const r = cli(['load', fixture('json-server-operators', 'capture.har'), '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(TRUTH.map((t) => [t.path, t] as const))(
    '%s: same status, body, X-Total-Count and Link, answered from state',
    async (_path, t) => {
      const a = answer(await s.call('get_posts', { query: queryOf(t.path) }));
      expect(a.source, a.why).toBe('state');
      expect(a.status).toBe(t.status);
      expect(a.body).toEqual(t.body);
      expect(a.headers?.['x-total-count'] ?? null).toBe(t.x_total_count);
      expect(a.headers?.link ?? null).toBe(t.link);
    },
  );

  it('the tool description names each operator key with what it does, and the multi-field sort', () => {
    const d = line(s.tool('get_posts'));
    expect(d).toMatch(/views_gte \(at least\)/);
    expect(d).toMatch(/views_lte \(at most\)/);
    expect(d).toMatch(/userId_ne \(not equal\)/);
    expect(d).toMatch(/title_like \(case-insensitive regular expression\)/);
    expect(d).toMatch(/sorting by _order\/_sort \(one field or several, comma-separated\)/);
    expect(d).toMatch(/pages by _end\/_limit\/_page\/_start \(totals recounted\)/);
  });
});

describe('an operator is not equality: views_gte=7 lists every post with at least 7 views, not those with exactly 7', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStore(join(dir, 'json-server-operators.sqlite'));
  });
  afterAll(async () => {
    await s.close();
  });

  it('each operator answers what its comparison picks from db.json, and differs from the equality filter on the same value', async () => {
    const cases: [string, string, (p: Post) => boolean][] = [
      ['views_gte', '7', (p) => p.views >= 7],
      ['views_lte', '1', (p) => p.views <= 1],
      ['userId_ne', '2', (p) => p.userId !== 2],
      ['title_like', 'NOTES', (p) => /notes/i.test(p.title)],
    ];
    for (const [key, value, pick] of cases) {
      const a = answer(await s.call('get_posts', { query: { [key]: value } }));
      expect(a.source, key).toBe('state');
      const want = DB.posts.filter(pick).map((p) => p.id);
      expect(ids(a), key).toEqual(want);
      const field = key.replace(/_(gte|lte|ne|like)$/, '') as keyof Post;
      const equality = DB.posts.filter((p) => String(p[field]) === value).map((p) => p.id);
      expect(want, `${key}: the test's own value tells the operator from equality`).not.toEqual(equality);
      expect(a.why).not.toMatch(new RegExp(`${field} = ${value}`));
    }
  });

  it('the stored plan line keeps the operator: field views, op gte, not a field named views_gte', () => {
    const r = cli(['state', '--db', join(dir, 'json-server-operators.sqlite'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const plan = (
      JSON.parse(r.stdout) as {
        plans: { tool: string; lines: { query: string | null; filter?: unknown }[]; list_queries?: Record<string, unknown> }[];
      }
    ).plans.find((p) => p.tool === 'get_posts')!;
    expect(plan.lines.find((l) => l.query === 'views_gte=5')?.filter).toEqual([{ field: 'views', values: ['5'], op: 'gte' }]);
    expect(plan.list_queries).toEqual({
      filter: ['title_like', 'userId', 'userId_ne', 'views_gte', 'views_lte'],
      sort: ['_order', '_sort'],
      window: ['_end', '_limit', '_page', '_start'],
      multi_sort: true,
    });
  });
});

describe('_start/_end windows: X-Total-Count counts the matched entities, no Link', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStore(join(dir, 'json-server-operators.sqlite'));
  });
  afterAll(async () => {
    await s.close();
  });

  it("a window of a filtered, sorted list is sliced after the filter and sort, its total the filter's count", async () => {
    const a = answer(await s.call('get_posts', { query: { userId_ne: '1', _sort: 'views', _order: 'desc', _start: '2', _end: '5' } }));
    const want = DB.posts
      .filter((p) => p.userId !== 1)
      .map((p, i) => ({ p, i }))
      .sort((x, y) => y.p.views - x.p.views || x.i - y.i)
      .map((x) => x.p.id);
    expect(ids(a)).toEqual(want.slice(2, 5));
    expect(a.headers).toEqual({ 'x-total-count': String(want.length) });
  });

  it('after a create in the session, the window and its total follow', async () => {
    await s.call('post_posts', { body: { userId: 3, title: 'Yankee memo', views: 9 } });
    const a = answer(await s.call('get_posts', { query: { _start: '23', _end: '30' } }));
    expect(ids(a)).toEqual([24, 25]);
    expect(a.headers).toEqual({ 'x-total-count': '25' });
    expect(ids(answer(await s.call('get_posts', { query: { views_gte: '9' } })))).toEqual([8, 18, 25]);
  });
});

describe('check-effects on fixture json-server-operators: every recorded response reproduced', () => {
  it('17 of 17, the POST and DELETE verified, each operator line after them answered from state', () => {
    const r = cli(['check-effects', fixture('json-server-operators', 'capture.har'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      summary: string;
      checks: { request_line: string; source: string; reproduced: boolean }[];
      write_tools: { verified: { tool: string }[] };
    };
    expect(report.summary).toBe('17 of 17 responses reproduced');
    expect(report.write_tools.verified.map((w) => w.tool).sort()).toEqual(['delete_posts_by_id', 'post_posts']);
    for (const c of report.checks.filter((c) => /_(gte|lte|ne|like)=|_start=|_sort=userId,views/.test(c.request_line)))
      expect(c.source, c.request_line).toBe('state');
  });
});

const POSTS: Post[] = [
  { id: 1, userId: 1, title: 'b', views: 3 },
  { id: 2, userId: 2, title: 'a', views: 1 },
  { id: 3, userId: 1, title: 'c', views: 3 },
];
const pick = (ids_: number[]) => ids_.map((id) => POSTS.find((p) => p.id === id)!);

describe('each operator learned on its own: a line that does not reproduce unlearns its operator only', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, [
      { url: `${A}/posts`, body: POSTS, responseHeaders: [J] },
      { url: `${A}/posts?userId=1`, body: pick([1, 3]), responseHeaders: [J] },
      // An app whose `_gte` is not json-server's (here: strictly greater): the state cannot reproduce it.
      { url: `${A}/posts?views_gte=1`, body: pick([1, 3]), responseHeaders: [J] },
      { url: `${A}/posts?views_lte=1`, body: pick([2]), responseHeaders: [J] },
      { url: `${A}/posts?_sort=views&_order=desc`, body: pick([1, 3, 2]), responseHeaders: [J] },
    ]);
  });
  afterAll(async () => {
    await s.close();
  });

  it('views_gte answers its recorded list only and is not answered for another value; views_lte and userId still are', async () => {
    expect(ids(answer(await s.call('get_posts', { query: { views_gte: '1' } })))).toEqual([1, 3]);
    const other = await s.call('get_posts', { query: { views_gte: '2' } });
    expect(other.isError).toBe(true);
    expect(ids(answer(await s.call('get_posts', { query: { views_lte: '3' } })))).toEqual([1, 2, 3]);
    expect(ids(answer(await s.call('get_posts', { query: { userId: '2' } })))).toEqual([2]);
  });

  it('a multi-field sort is not answered where only single-field sorts were recorded', async () => {
    expect(ids(answer(await s.call('get_posts', { query: { _sort: 'title', _order: 'desc' } })))).toEqual([3, 1, 2]);
    const multi = await s.call('get_posts', { query: { _sort: 'views,title', _order: 'desc,asc' } });
    expect(multi.isError).toBe(true);
  });
});

describe('_like: a case-insensitive regular expression; a pattern RegExp cannot read replays', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, [
      { url: `${A}/posts`, body: POSTS, responseHeaders: [J] },
      { url: `${A}/posts?title_like=B`, body: pick([1]), responseHeaders: [J] },
    ]);
  });
  afterAll(async () => {
    await s.close();
  });

  it('title_like=^[AC] matches a and c (case-insensitive); title_like=( is no pattern and is not answered from state', async () => {
    expect(ids(answer(await s.call('get_posts', { query: { title_like: '^[AC]' } })))).toEqual([2, 3]);
    expect((await s.call('get_posts', { query: { title_like: '(' } })).isError).toBe(true);
  });
});

describe("how _gte/_lte compare (decisions: Issue 16: list operators): as JavaScript's <= compares the query text with the value", () => {
  const vocabulary = {
    isProjection: () => false,
    isRandom: () => false,
    isOrdering: (n: string) => n === '_sort' || n === '_order',
    isPagination: () => false,
    windowRole: () => null,
  } as unknown as Vocabulary;
  const entity = (id: string, value: Record<string, unknown>): StateEntity => ({ id, value, view_values: {} }) as unknown as StateEntity;
  const rows = [entity('1', { n: 9, s: 'b' }), entity('2', { n: 10, s: 'B' }), entity('3', { n: null, s: 'a' }), entity('4', { s: 'c' })];
  const run = (q: Record<string, string>) => {
    const parsed = parseListQuery(
      Object.entries(q).map(([name, value]) => ({ name, value })),
      vocabulary,
      (f) => f === 'n' || f === 's',
    );
    if (!parsed.ok) throw new Error(parsed.why);
    return applyListQuery(rows, parsed.query, 'get_x').entities.map((e) => e.id);
  };

  it('numbers compare as numbers (10 is at least 9, not a string order), a query value that is no number matches nothing', () => {
    expect(run({ n_gte: '9' })).toEqual(['1', '2']);
    expect(run({ n_lte: '9' })).toEqual(['1']);
    expect(run({ n_gte: 'abc' })).toEqual([]);
  });

  it('strings compare by code units (B before a before b), a missing or null value passes no operator', () => {
    expect(run({ s_gte: 'a' })).toEqual(['1', '3', '4']);
    expect(run({ n_ne: '9' })).toEqual(['2']);
  });

  it('a multi-field sort compares the second field where the first ties, each in its own direction', () => {
    const sorted = applyListQuery(
      [entity('1', { a: 1, b: 1 }), entity('2', { a: 0, b: 5 }), entity('3', { a: 1, b: 2 })],
      { sort: { field: 'a', direction: 'asc' }, then_by: [{ field: 'b', direction: 'desc' }] },
      'get_x',
    ).entities.map((e) => e.id);
    expect(sorted).toEqual(['2', '3', '1']);
  });
});

describe("over serve --http: an operator read on the app's own path", () => {
  it('GET /posts?views_gte=8&_start=0&_end=2 answers from state with X-Total-Count', async () => {
    const h = await serveHttp(fixture('json-server-operators', 'capture.har'), join(dir, 'http-operators.sqlite'));
    try {
      const r = await fetch(`${h.base}/posts?views_gte=8&_start=0&_end=2`);
      expect(r.headers.get('x-capstate-source')).toBe('state');
      expect(r.headers.get('x-total-count')).toBe(String(DB.posts.filter((p) => p.views >= 8).length));
      expect(r.headers.get('link')).toBeNull();
      expect(((await r.json()) as Post[]).map((p) => p.id)).toEqual(
        DB.posts
          .filter((p) => p.views >= 8)
          .slice(0, 2)
          .map((p) => p.id),
      );
    } finally {
      await h.close();
    }
  });
});
