/**
 * Issue 18 (ES-7, ES-35, ES-37), issue 16: nested collections. `/posts/{id}/comments` lists
 * comments under a parent: its tools take the flat `/comments` root, its list plan learns
 * the field its entities carry the parent in (only when every recorded nested read agrees),
 * and serving answers any parent from state, creates under a parent with that field set
 * from the path, and shows writes in later nested and flat reads. Checked on a real
 * json-server 0.17.4 capture (fixtures/json-server-nested) against its db.json and against
 * json-server's own answers outside the capture (expected/truth.json).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { line, serveHttp, serveStore, text, type Served } from './serve-helpers.js';
import { factStore } from './view-facts.js';
import type { ListPlan, Plan } from '../src/model/plan/types.js';

const dir = tempDir();
const CAPTURE = fixture('json-server-nested', 'capture.har');
const db = JSON.parse(readFileSync(fixture('json-server-nested', 'recording', 'db.json'), 'utf8')) as Record<
  'posts' | 'comments' | 'users',
  { id: number }[]
>;
type Truth = { method: string; path: string; request?: unknown; status: number; x_total_count: string | null; body: unknown };
const truth = JSON.parse(readFileSync(fixture('json-server-nested', 'expected', 'truth.json'), 'utf8')) as Truth[];

interface State {
  types: { collection: string; root_path: string; bound: { rule: string; write_ordinal: number } | null }[];
  entities: { collection: string; id: string; value: unknown }[];
  plans: Plan[];
}
function stateOf(file: string): State {
  const r = cli(['state', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}
const planOf = (s: State, tool: string) => s.plans.find((p) => p.tool === tool)!;
/** The nested tool's plan, whatever its parameter is named (`{id}`, or `{postId}` when listed values name it so). */
const nestedPlan = (s: State) => s.plans.find((p) => /^get_posts_by_[a-z]+_comments$/.test(p.tool))!;

describe('nested collections in the state (issue 18): the json-server fixture', () => {
  const s = stateOf(CAPTURE);

  it('holds the posts and comments of db.json, each entity equal to its row (the users are never read)', () => {
    for (const collection of ['posts', 'comments'] as const) {
      const got = s.entities.filter((e) => e.collection === collection).map((e) => e.value);
      expect(got, collection).toEqual(db[collection]);
    }
    expect(s.entities.filter((e) => e.collection === 'users')).toEqual([]);
  });

  it('ES-7: the nested tools have the flat root /comments, so the nested POST bounds comments (#8) and leaves posts unbounded', () => {
    const m = JSON.parse(cli(['manifest', CAPTURE, '--json']).stdout) as { manifests: { tools: { name: string; root_path: string }[] }[] };
    const roots = Object.fromEntries(m.manifests[0].tools.map((t) => [t.name, t.root_path]));
    expect(roots).toMatchObject({ get_posts_by_id_comments: '/comments', post_posts_by_id_comments: '/comments', get_posts: '/posts' });
    expect(s.types.find((t) => t.collection === 'comments')!.bound).toEqual({ rule: 'ES-8', write_ordinal: 8 });
    expect(s.types.find((t) => t.collection === 'posts')!.bound).toBeNull();
  });

  it('ES-37: the nested list plan lists comments and learns postId as the parent field, each recorded parent a postId filter', () => {
    const plan = planOf(s, 'get_posts_by_id_comments') as ListPlan;
    expect(plan).toMatchObject({ kind: 'list', collection: 'comments', parent: { param: 'id', field: 'postId' } });
    expect(plan.lines.map((l) => [l.path, l.listed_ids, l.filter, l.reason])).toEqual([
      ['/posts/1/comments', ['1', '2', '4'], [{ field: 'postId', values: ['1'] }], undefined],
      ['/posts/2/comments', ['3', '7'], [{ field: 'postId', values: ['2'] }], undefined],
    ]);
  });

  it('the human output names the parent field of the nested list plan', () => {
    const r = cli(['state', CAPTURE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /get_posts_by_id_comments +a list of comments from the state \(the whole answer, the entities its records listed, those whose postId is the \{id\} in the path\)/,
    );
  });
});

describe('read_records.lists_collection, rows in and out: a nested tool under the flat root lists that collection (ES-7, issue 18)', () => {
  it('the flat list and the nested list under /comments list it; a sub-resource list under its own root does not', () => {
    const f = factStore(dir);
    const flat = f.tool({ template: '/comments', root: '/comments' });
    const nested = f.tool({ template: '/posts/{id}/comments', root: '/comments' });
    const members = f.tool({ template: '/teams/{id}/members', root: '/teams' });
    f.record({ tool: flat, path: '/comments', body: [{ id: 1, postId: 1 }] });
    f.record({ tool: nested, path: '/posts/1/comments', body: [{ id: 1, postId: 1 }], pathParams: ['1'] });
    f.record({ tool: members, path: '/teams/1/members', body: [{ id: 5 }], pathParams: ['1'] });
    expect(f.rows('select tool, lists_collection from read_records order by ordinal')).toEqual([
      ['GET /comments', 1],
      ['GET /posts/{id}/comments', 1],
      ['GET /teams/{id}/members', 0],
    ]);
    f.db.close();
  });
});

const A = 'http://localhost:3000';
// `rank` comes before `postId` and picks the same comments; `topic` picks others.
const COMMENTS = [
  { id: 1, rank: 1, postId: 1, topic: 2, body: 'a' },
  { id: 2, rank: 1, postId: 1, topic: 1, body: 'b' },
  { id: 3, rank: 2, postId: 2, topic: 1, body: 'c' },
  { id: 4, rank: 2, postId: 2, topic: 2, body: 'd' },
];
let n = 0;
const synthetic = (exchanges: Exchange[]) => stateOf(writeHar(dir, `nested-${n++}.har`, exchanges));

describe('the parent field is learned only when every recorded nested read agrees with it (ES-37)', () => {
  it('a field named for the parent (postId) is chosen before another field that also reproduces the reads', () => {
    const s = synthetic([
      { url: `${A}/comments`, body: COMMENTS },
      // postId = 1 and rank = 1 both pick 1 and 2; the field named for the parent is tried first.
      { url: `${A}/posts/1/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
      { url: `${A}/posts/2/comments`, body: COMMENTS.filter((c) => c.postId === 2) },
    ]);
    expect((nestedPlan(s) as ListPlan).parent?.field).toBe('postId');
  });

  it('another field is learned when it, and not postId, reproduces every nested read', () => {
    const s = synthetic([
      { url: `${A}/comments`, body: COMMENTS },
      { url: `${A}/posts/1/comments`, body: COMMENTS.filter((c) => c.topic === 1) },
      { url: `${A}/posts/2/comments`, body: COMMENTS.filter((c) => c.topic === 2) },
    ]);
    expect((nestedPlan(s) as ListPlan).parent?.field).toBe('topic');
  });

  it('with a nested read no field explains, no parent is learned and the nested lines replay (membership-differs)', () => {
    const s = synthetic([
      { url: `${A}/comments`, body: COMMENTS },
      { url: `${A}/posts/1/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
      // Lists a comment of post 1 under post 2: neither postId nor any other field picks [2, 3].
      { url: `${A}/posts/2/comments`, body: [COMMENTS[1], COMMENTS[2]] },
    ]);
    expect(nestedPlan(s)).toMatchObject({ kind: 'record', reason: 'membership-differs' });
  });

  it('a recorded parent without members carries the parent filter (so a later create under it shows), not a fixed empty list', () => {
    const s = synthetic([
      { url: `${A}/comments`, body: COMMENTS },
      { url: `${A}/posts/1/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
      { url: `${A}/posts/3/comments`, body: [] },
    ]);
    const plan = nestedPlan(s) as ListPlan;
    expect(plan.parent?.field).toBe('postId');
    expect(plan.lines.find((l) => l.path === '/posts/3/comments')).toMatchObject({
      listed_ids: [],
      filter: [{ field: 'postId', values: ['3'] }],
    });
  });

  it('under an API base and a version segment too: /api/v1/posts/{id}/comments beside /api/v1/comments', () => {
    const s = synthetic([
      { url: `${A}/api/v1/comments`, body: COMMENTS },
      { url: `${A}/api/v1/posts/1/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
      { url: `${A}/api/v1/posts/2/comments`, body: COMMENTS.filter((c) => c.postId === 2) },
    ]);
    const plan = s.plans.find((p) => /^get_api_v1_posts_by_[a-z]+_comments$/.test(p.tool)) as ListPlan;
    expect(plan).toMatchObject({ kind: 'list', collection: 'comments', parent: { field: 'postId' } });
    expect(s.types.map((t) => t.root_path)).toEqual(['/api/v1/comments']);
  });

  it('without a recorded flat list, a nested tool read for two parents lists a type of its own (/comments), its parent learned', () => {
    const s = synthetic([
      {
        url: `${A}/posts`,
        body: [
          { id: 1, title: 'p' },
          { id: 2, title: 'q' },
        ],
      },
      { url: `${A}/posts/1/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
      { url: `${A}/posts/2/comments`, body: COMMENTS.filter((c) => c.postId === 2) },
    ]);
    expect(nestedPlan(s)).toMatchObject({ kind: 'list', collection: 'comments', parent: { field: 'postId' } });
    expect(s.types.map((t) => t.root_path)).toEqual(['/comments', '/posts']);
    expect(s.entities.filter((e) => e.collection === 'comments').map((e) => e.value)).toEqual(COMMENTS);
  });

  it("read for one parent only, it keeps ES-7's root (/posts) and its one line is a document", () => {
    const s = synthetic([
      {
        url: `${A}/posts`,
        body: [
          { id: 1, title: 'p' },
          { id: 2, title: 'q' },
        ],
      },
      { url: `${A}/posts/1/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
    ]);
    expect(nestedPlan(s)).toMatchObject({ kind: 'document' });
    expect(s.types.map((t) => t.root_path)).toEqual(['/posts']);
  });

  it("a parent held in an object member (post: {id, title}) is learned as post.id, through the parent type's identity", () => {
    const withPost = COMMENTS.map(({ postId, ...c }) => ({ ...c, post: { id: postId, title: `post ${postId}` } }));
    const s = synthetic([
      {
        url: `${A}/posts`,
        body: [
          { id: 1, title: 'post 1' },
          { id: 2, title: 'post 2' },
        ],
      },
      { url: `${A}/posts/1/comments`, body: withPost.filter((c) => c.post.id === 1) },
      { url: `${A}/posts/2/comments`, body: withPost.filter((c) => c.post.id === 2) },
    ]);
    const plan = nestedPlan(s) as ListPlan;
    expect(plan.parent).toEqual({ param: 'id', field: 'post.id' });
    expect(plan.lines.map((l) => l.filter)).toEqual([[{ field: 'post.id', values: ['1'] }], [{ field: 'post.id', values: ['2'] }]]);
  });

  it("a path value naming the parent by another key stands for the entity the parent's item read by that value showed, and only then", () => {
    const posts = [
      { id: 1, slug: 'first' },
      { id: 2, slug: 'second' },
    ];
    const reads = (itemBySlug: boolean): Exchange[] => [
      { url: `${A}/posts`, body: posts },
      { url: `${A}/posts/2`, body: posts[1] },
      ...(itemBySlug ? [{ url: `${A}/posts/first`, body: posts[0] }] : []),
      { url: `${A}/posts/first/comments`, body: COMMENTS.filter((c) => c.postId === 1) },
      { url: `${A}/posts/2/comments`, body: COMMENTS.filter((c) => c.postId === 2) },
    ];
    const s = synthetic(reads(true));
    const plan = nestedPlan(s) as ListPlan;
    expect(plan.parent).toEqual({ param: 'id', field: 'postId', collection: 'posts' });
    expect(plan.lines.map((l) => [l.path, l.filter])).toEqual([
      ['/posts/first/comments', [{ field: 'postId', values: ['1'] }]],
      ['/posts/2/comments', [{ field: 'postId', values: ['2'] }]],
    ]);
    // Nothing shows that `first` is post 1: no parent is learned (the line lists what no filter on `first` picks).
    const without = nestedPlan(synthetic(reads(false))) as ListPlan;
    expect(without.parent).toBeUndefined();
  });
});

type Answer = { status: number; source: string; body: unknown; why: string; headers?: Record<string, string> };
const answer = (r: CallToolResult): Answer => {
  expect(r.isError, text(r)).toBeFalsy();
  return r.structuredContent as Answer;
};

describe('serving a nested collection from state: json-server truth outside the capture (issue 16)', () => {
  const store = join(dir, 'nested-truth.sqlite');
  let s: Served;
  beforeAll(async () => {
    const r = cli(['load', CAPTURE, '--db', store]);
    expect(r.status, r.stderr).toBe(0);
    s = await serveStore(store);
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers every truth read in order, over MCP, as json-server did: status, body, X-Total-Count (none), from state', async () => {
    for (const t of truth) {
      const [path, query] = t.path.split('?');
      const nested = /^\/posts\/([^/]+)\/comments$/.exec(path);
      const item = /^\/comments\/([^/]+)$/.exec(path);
      const args: Record<string, unknown> = {};
      if (query) args.query = Object.fromEntries(new URLSearchParams(query));
      if (t.request !== undefined) args.body = t.request;
      let tool: string;
      if (nested) {
        tool = `${t.method.toLowerCase()}_posts_by_id_comments`;
        args.id = nested[1];
      } else if (item) {
        tool = 'get_comments_by_id';
        args.id = item[1];
      } else tool = 'get_comments';
      const a = answer(await s.call(tool, args));
      expect(a.source, `${t.method} ${t.path}: ${a.why}`).toBe('state');
      expect(a.status, `${t.method} ${t.path}`).toBe(t.status);
      expect(a.body, `${t.method} ${t.path}`).toEqual(t.body);
      expect(a.headers?.['x-total-count'] ?? null, `${t.method} ${t.path}`).toBe(t.x_total_count);
    }
  });

  it('the nested tool description says any parent is answered from state, through its parent field', () => {
    expect(line(s.tool('get_posts_by_id_comments'))).toMatch(/any \{id\}'s comments \(those whose postId is that \{id\}\)/);
  });
});

describe('serving a nested collection over HTTP: the parent filter, creates under a parent, later reads', () => {
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ base, close } = await serveHttp(CAPTURE, join(dir, 'nested-http.sqlite')));
  });
  afterAll(async () => {
    await close();
  });
  const get = async (path: string) => (await (await fetch(`${base}${path}`)).json()) as { id: number; postId: number | string }[];

  it('a parent no record shows lists only the comments whose postId is that parent (the parent filter, not the whole type)', async () => {
    expect((await get('/posts/3/comments')).map((c) => c.id)).toEqual([5, 6]);
    expect(await get('/posts/4/comments')).toEqual([]);
    expect((await get('/comments')).length).toBe(db.comments.length);
  });

  it('POST /posts/4/comments creates a comment with postId from the path (spelled as json-server answers it) that nested and flat reads show; DELETE removes it', async () => {
    const r = await fetch(`${base}/posts/4/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 2, body: 'late reply' }),
    });
    expect(r.status).toBe(201);
    const created = (await r.json()) as { id: number; postId: unknown };
    expect(created).toEqual({ userId: 2, body: 'late reply', postId: '4', id: 8 });
    expect((await get('/posts/4/comments')).map((c) => c.id)).toEqual([8]);
    expect((await get('/comments?postId=4')).map((c) => c.id)).toEqual([8]);
    expect((await get('/posts/1/comments')).map((c) => c.id)).toEqual([1, 2, 4]);
    expect((await fetch(`${base}/comments/8`, { method: 'DELETE' })).status).toBe(200);
    expect(await get('/posts/4/comments')).toEqual([]);
  });

  it('a PATCH moving a comment to another post moves it between the nested lists', async () => {
    const r = await fetch(`${base}/comments/3`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ postId: 3 }),
    });
    expect(r.status).toBe(200);
    expect((await get('/posts/2/comments')).map((c) => c.id)).toEqual([7]);
    expect((await get('/posts/3/comments')).map((c) => c.id)).toEqual([3, 5, 6]);
  });
});

describe('check-effects on the nested fixture (issue 16)', () => {
  it('reproduces every recorded response: the nested create, the patch and the delete verified', () => {
    const r = cli(['check-effects', CAPTURE, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      summary: string;
      write_tools: { verified: { tool: string; effect: string }[]; replayed: unknown[] };
    };
    expect(report.summary).toBe('13 of 13 responses reproduced');
    expect(report.write_tools.verified).toContainEqual({ tool: 'post_posts_by_id_comments', effect: 'create' });
    expect(report.write_tools.replayed).toEqual([]);
  });
});
