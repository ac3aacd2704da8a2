/**
 * WordPress 6.1 (Debian's, bench/fidelity/wordpress: recorded in Chromium from the real app, its
 * truth the app's own answers to requests the session never sent), an app nobody tuned the model
 * for. Its first run against the model gave 10 wrong answers of 63; each test here is one of them,
 * now answered like the app or declined:
 * - the app's `Link` header (link-habit.ts): an item's permalink from its own `link` member, the
 *   API root where every answer of the tool sends that, and a decline where the API's item reads
 *   disagree and the read has no records of its own;
 * - a 404 body that names its collection (`rest_post_invalid_id`) is not the API's for another;
 * - an entity naming a deleted one by a bare member (`post: 8`), after a delete the model did not
 *   apply (WordPress's `?force=true` is replayed), is in doubt (write-log.ts orphansOf);
 * - a count an entity shows (`count` of a category) after a delete of what it counted (counters.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkRels } from '../bench/fidelity/compare.js';
import { servedFidelityApp } from './fidelity-served.js';

const wp = servedFidelityApp('wordpress');
const V2 = '/wp-json/wp/v2';

/** A Link as rel → path: the served model names its own host, as the app names its own. */
const rels = (link: string | null | undefined) => linkRels(link ?? null);

/** The decline's code and words, from the problem document the HTTP server answers with. */
const declined = (json: unknown) => json as { code: string; detail: string };

describe("WordPress: the app's Link header on answers the model makes", () => {
  it("link habit (member): an item the capture never read by id sends its own permalink, as the app's item reads do", async () => {
    await wp.reset();
    for (const [id, path] of [
      ['unread-item-01', `${V2}/posts/1`],
      ['unread-item-02', `${V2}/posts/12`],
      ['unread-item-06', `${V2}/pages/17`],
    ]) {
      const r = await wp.get(path);
      expect(r.h('capstate-answer'), path).toBe('state');
      expect(r.json, path).toEqual(wp.truth(id).json);
      expect(rels(r.h('link')), path).toEqual(rels(wp.truth(id).link));
    }
  });

  it('link habit (constant): a user the capture never read sends the API root, as its one recorded user read did', async () => {
    await wp.reset();
    const r = await wp.get(`${V2}/users/3`);
    expect(r.json).toEqual(wp.truth('unread-item-03').json);
    expect(rels(r.h('link'))).toEqual({ 'https://api.w.org/': '/wp-json/' });
    expect(rels(r.h('link'))).toEqual(rels(wp.truth('unread-item-03').link));
  });

  it('link habit (list): a filtered list answered by convention sends the Link its tool always sent', async () => {
    await wp.reset();
    const r = await wp.get(`${V2}/pages?parent=15`);
    expect(r.h('capstate-answer')).not.toBe('declined');
    expect(r.json).toEqual(wp.truth('filter-23').json);
    expect(rels(r.h('link'))).toEqual(rels(wp.truth('filter-23').link));
  });

  it("link habit (unknown): an item read by the API's item route is declined where the API's item reads send different Links", async () => {
    await wp.reset();
    const r = await wp.get(`${V2}/comments/4`);
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
    expect(declined(r.json).code).toBe('no-convention');
    expect(declined(r.json).detail).toContain('Link');
  });
});

describe('WordPress: not-found, orphans and counts', () => {
  it('api not-found: a 404 body naming its collection (rest_post_invalid_id) is not answered for users', async () => {
    await wp.reset();
    const r = await wp.get(`${V2}/users/99`);
    expect(r.status).toBe(501);
    expect(declined(r.json).code).toBe('no-convention');
    expect(declined(r.json).detail).toContain('names post');
    // The app's own answer names users: the posts' body would have been a plausible wrong one.
    expect(JSON.stringify(wp.truth('not-found-08').json)).toContain('rest_user_invalid_id');
  });

  it("orphans: after the capture's forced delete of post 8 (replayed, not applied), comment 5, which names it by `post`, is declined", async () => {
    await wp.replayCapture();
    const r = await wp.get(`${V2}/comments/5`);
    expect(r.status).toBe(501);
    expect(declined(r.json).code).toBe('stale-record');
    expect(declined(r.json).detail).toContain('comments 5 names posts 8 (post)');
    expect(wp.truth('after-write-39').status).toBe(404);
  });

  it("counters: after the capture's delete of post 8, category 3, whose count counted it, is declined", async () => {
    await wp.replayCapture();
    const r = await wp.get(`${V2}/categories/3`);
    expect(r.status).toBe(501);
    expect(declined(r.json).code).toBe('stale-record');
    expect(declined(r.json).detail).toContain('categories 3 shows count');
    // The app counted one post fewer than the state read before the delete.
    expect((wp.truth('unread-item-04').json as { count: number }).count).toBe(4);
  });

  it('counters: before any write the same category answers from state', async () => {
    await wp.reset();
    const r = await wp.get(`${V2}/categories`);
    expect(r.status).toBe(200);
    expect((r.json as { id: number; count: number }[]).find((c) => c.id === 3)?.count).toBe(5);
  });
});

describe('WordPress: the default filter, page and order of its posts list', () => {
  it('default page and default filter: the state pass reads the plain list as published posts, cut to pages of 10', async () => {
    const row = await wp
      .mcp()
      .ctx.k.selectFrom('state_plans')
      .select('view_facts')
      .where('tool', '=', 'get_wp_json_wp_v2_posts')
      .executeTakeFirstOrThrow();
    const plan = JSON.parse(String(row.view_facts)) as { default_size?: number; default_filter?: unknown; default_order?: unknown };
    expect(plan.default_size).toBe(10);
    expect(plan.default_filter).toEqual({ field: 'status', values: ['publish'], lifted_by: ['status'] });
    expect(plan.default_order).toContainEqual({ field: 'date', direction: 'desc' });
  });

  it("catch-up (gone): after the capture's writes, a later 404 of post 8 shows its forced delete done, so posts reads answer from state", async () => {
    await wp.replayCapture();
    for (const id of ['filter-12', 'filter-20', 'after-write-38', 'repeat-45']) {
      const t = wp.truth(id);
      const r = await wp.get(heldOutPath(id));
      expect(r.h('capstate-answer'), id).toMatch(/^(state|convention)/);
      expect(ids(r.json), id).toEqual(ids(t.json));
    }
  });

  it("default order: the post the capture created is placed newest first, where the app's unsorted lines put it", async () => {
    await wp.replayCapture();
    const r = await wp.get(`${V2}/posts?author=1`);
    expect((r.json as { id: number }[])[0].id).toBe(18);
    expect(ids(r.json)).toEqual(ids(wp.truth('after-write-38').json));
  });

  it('page links: a page sends the prev and next links the recorded page sent, not first and last', async () => {
    await wp.replayCapture();
    for (const id of ['repeat-43']) {
      const r = await wp.get(heldOutPath(id));
      expect(rels(r.h('link')), id).toEqual(rels(wp.truth(id).link));
      expect(Object.keys(rels(r.h('link')) ?? {}), id).not.toContain('first');
    }
  });

  it("the order of a page no record shows: after the capture's writes set `modified` on posts 4 and 9, the orders its unsorted lines taught (id, date, modified…) disagree on them, so such a page is declined", async () => {
    await wp.replayCapture();
    const r = await wp.get(heldOutPath('page-28'));
    expect(r.status).toBe(501);
    expect((r.json as { detail: string }).detail).toMatch(
      /posts 5 and 4, and its unsorted lines were ordered by each of id, date, .*modified.*, which do not agree on these two now/,
    );
  });

  it("count headers: X-WP-Total and X-WP-TotalPages, learned by their values, are recounted as the app's recorded page sent them", async () => {
    await wp.reset();
    const har = JSON.parse(readFileSync(join(wp.app, 'capture.har'), 'utf8')) as {
      log: { entries: { request: { url: string }; response: { headers: { name: string; value: string }[] } }[] };
    };
    const page = har.log.entries.find((e) => e.request.url.endsWith('/wp-json/wp/v2/posts?per_page=3&page=2'))!;
    const recorded = (n: string) => page.response.headers.find((h) => h.name.toLowerCase() === n)?.value;
    const r = await wp.get(`${V2}/posts?per_page=3&page=2`);
    expect(r.h('x-wp-total')).toBe(recorded('x-wp-total'));
    expect(r.h('x-wp-totalpages')).toBe(recorded('x-wp-totalpages'));
    // A filter no record shows: one page of what it matched.
    await wp.replayCapture();
    const a = await wp.get(`${V2}/posts?author=3`);
    expect(a.h('x-wp-total')).toBe(String((wp.truth('filter-12').json as unknown[]).length));
    expect(a.h('x-wp-totalpages')).toBe('1');
  });

  it('default filter (unseen): a status the plain list hides and no line asked for is declined', async () => {
    await wp.replayCapture();
    const r = await wp.get(`${V2}/posts?status=private`);
    expect(r.status).toBe(501);
    expect(declined(r.json).detail).toContain('whose status is private');
    // The app holds a private post the capture never read: an empty list was a plausible wrong answer.
    expect((wp.truth('filter-18').json as unknown[]).length).toBeGreaterThan(0);
  });

  it('odd value: a filter value that is no number, on a field of numbers, is declined', async () => {
    await wp.replayCapture();
    const r = await wp.get(`${V2}/posts?author=2,3`);
    expect(r.status).toBe(501);
    expect(declined(r.json).detail).toContain('holds a number there');
    expect((wp.truth('filter-13').json as unknown[]).length).toBeGreaterThan(0);
  });

  it('past the last page: a page no record shows past the end is declined (WordPress answers 400)', async () => {
    await wp.replayCapture();
    const r = await wp.get(`${V2}/posts?page=2`);
    expect(r.status).toBe(501);
    expect(declined(r.json).detail).toContain('page past the last');
    expect(wp.truth('page-30').status).toBe(400);
  });

  it('unanswered write: DELETE /categories/4?force=true, which no tool answers, leaves the posts naming category 4 declined', async () => {
    await wp.replayCapture();
    expect((await wp.get(`${V2}/posts/9`)).h('capstate-answer')).toBe('state');
    const d = await wp.send('DELETE', `${V2}/categories/4?force=true`);
    expect(d.status).toBe(501);
    const r = await wp.get(`${V2}/posts/9`);
    expect(r.status).toBe(501);
    expect(declined(r.json).detail).toContain('categories');
  });
});

/** The ids a list answer shows, in order (the server's clocks differ between the recording and the truth run). */
const ids = (json: unknown) => (json as { id: number }[]).map((p) => p.id);

/** A held-out request's path, from the benchmark's list (bench/fidelity/wordpress/heldout.json). */
function heldOutPath(id: string): string {
  const list = JSON.parse(readFileSync(join(wp.app, 'heldout.json'), 'utf8')) as { requests: { id: string; path: string }[] };
  return list.requests.find((h) => h.id === id)!.path;
}
