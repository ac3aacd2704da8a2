/**
 * Issue 18: filtered, sorted and paged lists in the state (ES-35, ES-36, ES-37). A list line
 * whose query keys filter, sort or window the collection renders what that query picks from
 * state; a line the state cannot reproduce is `membership-differs` on its own, and the other
 * lines keep the plan; a window is never `all`.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cli, fixture, tempDir } from './helpers.js';
import { loadHar, writeHar, type Exchange } from './har-builder.js';
import type { ListPlan, Plan, PlanLine } from '../src/model/plan/types.js';

const dir = tempDir();
const A = 'http://localhost:3000';
let n = 0;

interface State {
  plans: Plan[];
  types: { collection: string; initial_order: string[] }[];
}
function state(exchanges: Exchange[]): State {
  const file = writeHar(dir, `lists-${n++}.har`, exchanges);
  const r = cli(['state', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}
const planOf = (s: State, tool: string) => s.plans.find((p) => p.tool === tool)!;
const lineOf = (p: Plan, query: string | null) => (p as ListPlan).lines.find((l) => l.query === query)!;

const POSTS = [
  { id: 1, userId: 1, title: 'b-second' },
  { id: 2, userId: 2, title: 'a-first' },
  { id: 3, userId: 1, title: 'd-fourth' },
  { id: 4, userId: 2, title: 'c-third' },
  { id: 5, userId: 1, title: 'e-fifth' },
];
const posts = (ids: number[]) => ids.map((id) => POSTS.find((p) => p.id === id)!);

describe('equality and membership filters on entity fields', () => {
  it('?userId=1 renders the posts whose userId is 1, in state order, and says so; the whole list keeps membership all', () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      { url: `${A}/posts?userId=1`, body: posts([1, 3, 5]) },
    ]);
    const plan = planOf(s, 'get_posts') as ListPlan;
    expect(plan.kind).toBe('list');
    expect(lineOf(plan, null).membership).toBe('all');
    const filtered = lineOf(plan, 'userId=1');
    expect(filtered).toMatchObject({ membership: 'recorded', listed_ids: ['1', '3', '5'], filter: [{ field: 'userId', values: ['1'] }] });
    expect(filtered.reason).toBeUndefined();
    expect(plan.list_queries).toEqual({ filter: ['userId'], sort: [], window: [] });
  });

  it('?id=3&id=9 is a membership filter: the ids the state holds, in state order', () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      { url: `${A}/posts?id=4&id=2&id=9`, body: posts([2, 4]) },
    ]);
    const line = lineOf(planOf(s, 'get_posts'), 'id=4&id=2&id=9');
    expect(line).toMatchObject({ membership: 'recorded', listed_ids: ['2', '4'], filter: [{ field: 'id', values: ['4', '2', '9'] }] });
  });

  it('a line no filter explains (a default that hides some entities) is membership-differs alone; the other lines keep the plan', () => {
    const s = state([
      { url: `${A}/issues`, body: POSTS },
      { url: `${A}/issues?status=open`, body: posts([1, 2, 3, 4, 5]) },
      { url: `${A}/issues?userId=2`, body: posts([2, 4]) },
      // Hides 5 though it names no key that says so.
      { url: `${A}/issues?view=default`, body: posts([1, 2, 3, 4]) },
    ]);
    const plan = planOf(s, 'get_issues') as ListPlan;
    expect(plan.kind, JSON.stringify(plan)).toBe('list');
    const odd = lineOf(plan, 'view=default');
    expect(odd.reason).toBe('membership-differs');
    expect(odd.detail).toMatch(/4 of the collection's 5 entities/);
    expect(lineOf(plan, 'userId=2')).toMatchObject({ filter: [{ field: 'userId', values: ['2'] }] });
    expect(lineOf(plan, null).reason).toBeUndefined();
  });

  it('a filtered line that lists what its filter does not pick is membership-differs, not fields-differ, and its key is not learned', () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      { url: `${A}/posts?userId=1`, body: posts([1, 3]) },
    ]);
    const plan = planOf(s, 'get_posts') as ListPlan;
    expect(plan.kind).toBe('list');
    expect(lineOf(plan, 'userId=1')).toMatchObject({ reason: 'membership-differs', listed_ids: ['1', '3'] });
    expect(lineOf(plan, 'userId=1').detail).toMatch(/gives 3 entities, 2 listed/);
    expect(plan.list_queries).toBeUndefined();
  });

  it('a tool whose only line the state cannot reproduce is a record view with reason membership-differs', () => {
    const s = state([
      { url: `${A}/posts/1`, body: POSTS[0] },
      { url: `${A}/posts/2`, body: POSTS[1] },
      { url: `${A}/posts/3`, body: POSTS[2] },
      { url: `${A}/posts?userId=1`, body: posts([3]) },
    ]);
    expect(planOf(s, 'get_posts')).toMatchObject({ kind: 'record', reason: 'membership-differs' });
  });
});

describe('sorting by the parameters the capture used', () => {
  it('_sort=title&_order=desc renders the collection sorted by title, descending; the line still shows every entity (all)', () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      { url: `${A}/posts?_sort=title&_order=desc`, body: posts([5, 3, 4, 1, 2]) },
    ]);
    const plan = planOf(s, 'get_posts') as ListPlan;
    expect(lineOf(plan, '_sort=title&_order=desc')).toMatchObject({ membership: 'all', sort: { field: 'title', direction: 'desc' } });
    expect(plan.membership).toBe('all');
    expect(plan.list_queries?.sort).toEqual(['_order', '_sort']);
  });

  it('a sorted line in an order the sort does not give is membership-differs (another order)', () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      { url: `${A}/posts?_sort=title`, body: posts([5, 3, 4, 1, 2]) },
    ]);
    const line = lineOf(planOf(s, 'get_posts'), '_sort=title');
    expect(line.reason).toBe('membership-differs');
    expect(line.detail).toMatch(/another order/);
  });
});

describe('pages are not all (ES-35 with headers and pagination keys)', () => {
  it('a 2-item window with X-Total-Count 5 and Link rel="next" is recorded, read as a window, its header a total', () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      {
        url: `${A}/posts?_page=2&_limit=2`,
        body: posts([3, 4]),
        responseHeaders: [
          { name: 'X-Total-Count', value: '5' },
          { name: 'Link', value: `<${A}/posts?_page=1&_limit=2>; rel="first", <${A}/posts?_page=3&_limit=2>; rel="next"` },
        ],
      },
    ]);
    const plan = planOf(s, 'get_posts') as ListPlan;
    const line = lineOf(plan, '_page=2&_limit=2');
    expect(line).toMatchObject({
      membership: 'recorded',
      listed_ids: ['3', '4'],
      window: { offset: 2, size: 2 },
      total_headers: ['x-total-count'],
    });
    expect(plan.membership).toBe('recorded');
    expect(plan.list_queries?.window).toEqual(['_limit', '_page']);
  });

  it("without a full list, a window of the collection is not all: its type's whole membership is not known", () => {
    const db = loadHar(dir, [
      { url: `${A}/posts?_start=0&_end=2`, body: posts([1, 2]) },
      { url: `${A}/posts?_start=2&_end=4`, body: posts([3, 4]), responseHeaders: [{ name: 'X-Total-Count', value: '5' }] },
    ]);
    expect(db.prepare('select ordinal, signal, name, is_set from list_page_signals order by ordinal, signal, name').raw().all()).toEqual([
      [1, 'window', '_end', 1],
      [1, 'window', '_start', 1],
      [2, 'total_header', 'X-Total-Count', 1],
      [2, 'window', '_end', 1],
      [2, 'window', '_start', 1],
    ]);
    expect(db.prepare('select membership from list_membership order by ordinal').pluck().all()).toEqual(['recorded', 'recorded']);
  });

  it('a first window that lists fewer than its size, asks for all, or lists what a counter counts is the whole list (all)', () => {
    const db = loadHar(dir, [
      { url: `${A}/a?page=1&limit=20`, body: posts([1, 2]) },
      { url: `${A}/b?limit=all`, body: posts([1, 2]) },
      { url: `${A}/c?_page=1&_limit=2`, body: posts([1, 2]), responseHeaders: [{ name: 'X-Total-Count', value: '2' }] },
      { url: `${A}/d?page=2&limit=20`, body: posts([1, 2]) },
      { url: `${A}/e?cursor=abc`, body: posts([1, 2]) },
    ]);
    expect(db.prepare('select ordinal, membership from list_membership order by ordinal').raw().all()).toEqual([
      [1, 'all'],
      [2, 'all'],
      [3, 'all'],
      [4, 'recorded'],
      [5, 'recorded'],
    ]);
  });

  it('an X-Total-Count above the listed count, a Content-Range of items out of a larger total, a Link rel=next each make a page', () => {
    const db = loadHar(dir, [
      { url: `${A}/a`, body: posts([1, 2]), responseHeaders: [{ name: 'x-total-count', value: '5' }] },
      { url: `${A}/b`, body: posts([1, 2]), responseHeaders: [{ name: 'Content-Range', value: 'items 0-1/5' }] },
      { url: `${A}/c`, body: posts([1, 2]), responseHeaders: [{ name: 'Link', value: `<${A}/c?page=2>; rel=next` }] },
      {
        url: `${A}/d`,
        body: posts([1, 2]),
        responseHeaders: [
          { name: 'X-Total-Count', value: '2' },
          { name: 'Link', value: `<${A}/d>; rel="first"` },
        ],
      },
      { url: `${A}/e`, body: posts([1, 2]), responseHeaders: [{ name: 'Content-Range', value: 'bytes 0-99/500' }] },
    ]);
    expect(db.prepare('select ordinal, membership from list_membership order by ordinal').raw().all()).toEqual([
      [1, 'recorded'],
      [2, 'recorded'],
      [3, 'recorded'],
      [4, 'all'],
      [5, 'all'],
    ]);
    expect(
      db.prepare("select ordinal, total, is_counter from list_page_signals where signal <> 'next_header' order by ordinal").raw().all(),
    ).toEqual([
      [1, 5, 0],
      [2, 5, 0],
      [4, 2, 1],
    ]);
  });

  it("a filter and a window together: the total counts what the filter matched (json-server's X-Total-Count)", () => {
    const s = state([
      { url: `${A}/posts`, body: POSTS },
      { url: `${A}/posts?userId=1&_page=1&_limit=2`, body: posts([1, 3]), responseHeaders: [{ name: 'X-Total-Count', value: '3' }] },
    ]);
    const line: PlanLine = lineOf(planOf(s, 'get_posts'), 'userId=1&_page=1&_limit=2');
    expect(line).toMatchObject({
      filter: [{ field: 'userId', values: ['1'] }],
      window: { offset: 0, size: 2 },
      total_headers: ['x-total-count'],
    });
  });

  it('a body total beside a window counts the matched entities and is recomputed, not compared across lines (ES-25)', () => {
    const s = state([
      { url: `${A}/items`, body: { items: POSTS, total: 5 } },
      { url: `${A}/items?offset=1&limit=2`, body: { items: posts([2, 3]), total: 5 } },
      { url: `${A}/items?userId=2`, body: { items: posts([2, 4]), total: 2 } },
    ]);
    const plan = planOf(s, 'get_items') as ListPlan;
    expect(plan.kind, JSON.stringify(plan)).toBe('list');
    expect(lineOf(plan, 'offset=1&limit=2')).toMatchObject({ window: { offset: 1, size: 2 }, total_members: ['/total'] });
    expect(lineOf(plan, 'userId=2')).toMatchObject({ membership: 'recorded', total_members: ['/total'] });
  });
});

describe('json-server truth: the state of a real capture with filtered, sorted and paged reads', () => {
  it("holds db.json's 24 posts, values and order, and keeps one list plan for every line", () => {
    const r = cli(['state', fixture('json-server-lists', 'capture.har'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as State & { entities: { collection: string; value: unknown }[] };
    const db = JSON.parse(readFileSync(fixture('json-server-lists', 'recording', 'db.json'), 'utf8')) as { posts: unknown[] };
    expect(s.entities.filter((e) => e.collection === 'posts').map((e) => e.value)).toEqual(db.posts);
    const plan = planOf(s, 'get_posts') as ListPlan;
    expect(plan.kind).toBe('list');
    expect(plan.lines.filter((l) => l.reason !== undefined)).toEqual([]);
    // `?id=3&id=9` reproduced, so a repeated filter key is learned as OR (`any_of`, issue 44).
    expect(plan.list_queries).toEqual({ filter: ['id', 'userId'], sort: ['_order', '_sort'], window: ['_limit', '_page'], any_of: true });
  });
});
