/**
 * Issue 18, "proven absent" (ES-8/ES-27 reading, docs/decisions.md): an item read answering
 * 404 proves its entity absent at that point; a later read showing the entity, with no
 * recorded write between, shows a write the capture did not record. The entity is not in the
 * initial state and the type's initial read ends at the first read that shows it. Checked on a
 * real json-server 0.17.4 capture (fixtures/json-server-absent) against its db.json and its
 * truth reads, on variants of that capture, and on `initial_reads` row by row.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, fixture, tempDir } from './helpers.js';
import { factStore } from './view-facts.js';
import { serveStore } from './serve-helpers.js';

const dir = tempDir();
const CAPTURE = fixture('json-server-absent', 'capture.har');
const db = JSON.parse(readFileSync(fixture('json-server-absent', 'recording', 'db.json'), 'utf8')) as { posts: { id: number }[] };
type Read = { path: string; status: number; body: unknown };
const truth = JSON.parse(readFileSync(fixture('json-server-absent', 'expected', 'truth.json'), 'utf8')) as {
  before: Read[];
  after: Read[];
};

interface State {
  types: { collection: string; bound: { rule: string; write_ordinal: number } | null; initial_order: string[] }[];
  entities: { collection: string; id: string; value: unknown }[];
  plans: { tool: string; kind: string; reason?: string }[];
}
function stateOf(file: string): State {
  const r = cli(['state', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number };
}
interface Har {
  log: { entries: HarEntry[] };
}
const har = (): Har => JSON.parse(readFileSync(CAPTURE, 'utf8')) as Har;
let variants = 0;
function variant(edit: (entries: HarEntry[]) => HarEntry[]): string {
  const h = har();
  h.log.entries = edit(h.log.entries);
  const file = join(dir, `absent-variant-${variants++}.har`);
  writeFileSync(file, JSON.stringify(h));
  return file;
}
const is404 = (e: HarEntry) => e.response.status === 404;

/** The fixture loaded into a store file (load stores the state), for `capstate sql` on it. */
let loaded: string | undefined;
function sql(query: string): unknown[] {
  if (!loaded) {
    loaded = join(dir, 'absent.sqlite');
    const l = cli(['load', CAPTURE, '--db', loaded]);
    expect(l.status, l.stderr).toBe(0);
  }
  const r = cli(['sql', '--db', loaded, '--json', query]);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { rows: unknown[] }).rows;
}

describe('proven absent (issue 18): the json-server fixture', () => {
  const s = stateOf(CAPTURE);

  it("the state's posts are db.json's initial posts, each equal to its row: no post 9", () => {
    expect(s.entities.map((e) => e.value)).toEqual(db.posts);
    expect(s.entities.map((e) => e.id)).not.toContain('9');
    // The truth's plain read of the fresh db.json lists the same posts, and answers 404 for post 9.
    expect(truth.before.find((r) => r.path === '/posts')!.body).toEqual(s.entities.map((e) => e.value));
    expect(truth.before.find((r) => r.path === '/posts/9')!.status).toBe(404);
    expect(truth.after.find((r) => r.path === '/posts/9')!.status).toBe(200);
  });

  it('the initial read of posts ends at #4, the first read showing post 9 (stored as an ES-27 bound at that read)', () => {
    expect(s.types).toEqual([
      expect.objectContaining({
        collection: 'posts',
        bound: { rule: 'ES-27', write_ordinal: 4 },
        initial_order: ['1', '2', '3', '4', '5'],
      }),
    ]);
    const rows = sql('select root_path, write_ordinal, detail from state_change_bounds') as {
      root_path: string;
      write_ordinal: number;
      detail: string;
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ root_path: '/posts', write_ordinal: 4 });
    expect(rows[0].detail).toContain('9 answered 404 at #3 and is shown at #4 with no recorded write between');
  });

  it('the reads after the absence is contradicted are not initial: get_posts is checked against #2 alone', () => {
    expect(sql('select ordinal, bound_rule, bound_ordinal from initial_reads order by ordinal')).toEqual([
      { ordinal: 1, bound_rule: null, bound_ordinal: null },
      { ordinal: 2, bound_rule: 'ES-27', bound_ordinal: 4 },
      { ordinal: 3, bound_rule: 'ES-27', bound_ordinal: 4 },
    ]);
    expect(s.plans.find((p) => p.tool === 'get_posts')).toMatchObject({ kind: 'list' });
    // Its only initial item read is the 404: no entity to check an item plan against.
    expect(s.plans.find((p) => p.tool === 'get_posts_by_id')).toMatchObject({ kind: 'record', reason: 'no-identity' });
  });
});

describe('proven absent (issue 18): serving the fixture answers the initial state', () => {
  it('post 9 answers 404 as on the fresh db.json, and the answer says the bound is a read showing an unrecorded write', async () => {
    sql('select 1');
    const t = await serveStore(loaded!);
    try {
      const r = (await t.call('get_posts_by_id', { id: '9' })).structuredContent as { record_ordinal: number; status: number; why: string };
      expect(r).toMatchObject({ record_ordinal: 3, status: truth.before.find((x) => x.path === '/posts/9')!.status });
      expect(r.why).toContain('recorded before #4, the first read of /posts showing an entity an earlier read found absent');
      const list = (await t.call('get_posts', {})).structuredContent as { body: unknown };
      expect(list.body).toEqual(truth.before.find((x) => x.path === '/posts')!.body);
    } finally {
      await t.close();
    }
  });
});

describe('proven absent (issue 18): what the 404 decides, on variants of the capture', () => {
  it('without the 404 nothing proves post 9 absent: it is in the state and nothing bounds posts', () => {
    const s = stateOf(variant((es) => es.filter((e) => !is404(e))));
    expect(s.entities.map((e) => e.id)).toContain('9');
    expect(s.types[0].bound).toBeNull();
  });

  it('a post shown before its 404 was there at the start: the 404 proves no absence of it (no bound)', () => {
    // The 404 renamed to /posts/3, which #2 shows first: nothing is proven absent, and post 9 is volatile (ES-26).
    const s = stateOf(
      variant((es) =>
        es.map((e) => (is404(e) ? { ...e, request: { ...e.request, url: e.request.url.replace('/posts/9', '/posts/3') } } : e)),
      ),
    );
    expect(s.entities.map((e) => e.id)).toContain('9');
    expect(s.types[0].bound).toBeNull();
  });

  it('the absence bound ends the initial read at the first read showing the entity, a list read included', () => {
    // Without the later item read of post 9, the list #5 is the first read that shows it.
    const s = stateOf(variant((es) => es.filter((e) => !(e.response.status === 200 && e.request.url.endsWith('/posts/9')))));
    expect(s.entities.map((e) => e.id)).not.toContain('9');
    expect(s.types[0].bound).toEqual({ rule: 'ES-27', write_ordinal: 4 });
  });
});

describe('initial_reads with a bound at a read (issue 18), rows in and out', () => {
  function posts() {
    const f = factStore(dir);
    const list = f.tool({ template: '/posts' });
    const item = f.tool({ template: '/posts/{id}' });
    const other = f.tool({ method: 'POST', template: '/imports' });
    const capture = f.rows('select id from capture')[0][0] as number;
    const bound = (ordinal: number) =>
      f.db
        .prepare("insert into state_change_bounds (capture_id, root_path, write_ordinal, detail) values (?, '/posts', ?, 'test')")
        .run(capture, ordinal);
    return { f, list, item, other, bound };
  }
  const initial = (f: ReturnType<typeof factStore>) =>
    f.rows('select ordinal, root_path, bound_rule, bound_ordinal from initial_reads order by ordinal');

  it('a bound at a read: the reads that ended before it started are initial, it and the later ones are not', () => {
    const { f, list, item, bound } = posts();
    f.record({ tool: list, path: '/posts', start: 0, body: [{ id: 1 }] });
    f.record({ tool: item, path: '/posts/9', start: 1000, status: 404, body: {}, pathParams: ['9'] });
    f.record({ tool: item, path: '/posts/9', start: 2000, body: { id: 9 }, pathParams: ['9'] });
    f.record({ tool: list, path: '/posts', start: 3000, body: [{ id: 1 }, { id: 9 }] });
    bound(3);
    expect(initial(f)).toEqual([
      [1, '/posts', 'ES-27', 3],
      [2, '/posts', 'ES-27', 3],
    ]);
  });

  it('a bound at a write still ends the initial read there, as before', () => {
    const { f, list, other, bound } = posts();
    f.record({ tool: list, path: '/posts', start: 0, body: [{ id: 1 }] });
    f.record({ tool: other, path: '/imports', start: 1000, status: 201, body: { ok: true } });
    f.record({ tool: list, path: '/posts', start: 2000, body: [{ id: 2 }] });
    bound(2);
    expect(initial(f)).toEqual([[1, '/posts', 'ES-27', 2]]);
  });

  it('a read overlapping the bounding read is not initial (it may already show the unrecorded write)', () => {
    const { f, list, item, bound } = posts();
    f.record({ tool: list, path: '/posts', start: 0, duration: 20, body: [{ id: 1 }] });
    f.record({ tool: item, path: '/posts/9', start: 1000, duration: 20, body: { id: 9 }, pathParams: ['9'] });
    f.record({ tool: list, path: '/posts', start: 990, duration: 50, body: [{ id: 1 }] });
    bound(2);
    expect(initial(f)).toEqual([[1, '/posts', 'ES-27', 2]]);
  });
});
