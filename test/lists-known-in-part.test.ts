/**
 * Issue 44 (ES-36, `unseen`): a list whose recorded total counts more entities than the capture
 * ever showed is known in part, with or without a query on its line. Its recorded lines still
 * answer from state; no query the capture never made is, though an API convention (a window
 * another list proved) would otherwise page the three entities the state holds as if they were
 * all 27 (a plausible wrong answer: `?limit=2&offset=2` listed item 3 alone).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { serveHttp } from './serve-helpers.js';
import { writeHar } from './har-builder.js';

const dir = tempDir();

const items = [1, 2, 3].map((id) => ({ id, name: `item ${id}` }));
const users = [1, 2, 3].map((id) => ({ id, name: `user ${id}` }));
const groups = [1, 2, 3, 4].map((id) => ({ id, name: `group ${id}` }));
const tags = [
  { id: 1, name: 'a' },
  { id: 2, name: 'b' },
];

describe('issue 44: a list known in part answers only what its records show', () => {
  let base = '';
  let close: () => Promise<void>;
  beforeAll(async () => {
    const har = writeHar(dir, 'in-part.har', [
      // 3 of 27 items, with no query: a first page whose size the capture never shows.
      { url: 'http://api.test/items', body: { total: 27, limit: 3, skip: 0, data: items } },
      // Tags, whole, paged by limit/offset: the API's window convention.
      { url: 'http://api.test/tags?limit=2&offset=0', body: { total: 2, limit: 2, skip: 0, data: tags } },
      { url: 'http://api.test/tags?limit=1&offset=1', body: { total: 2, limit: 1, skip: 1, data: [tags[1]] } },
      // Users in plain arrays, no total: two full pages say nothing of what comes after them.
      { url: 'http://api.test/users?limit=3&offset=0', body: users.slice(0, 3) },
      { url: 'http://api.test/users?limit=2&offset=1', body: users.slice(1, 3) },
      // Groups: a page shorter than its limit is the end of the list: every group is shown.
      { url: 'http://api.test/groups?limit=10&offset=0', body: groups },
      { url: 'http://api.test/groups?limit=2&offset=1', body: groups.slice(1, 3) },
    ]);
    ({ base, close } = await serveHttp(har, join(dir, 'in-part.sqlite')));
  });
  afterAll(() => close?.());

  const get = async (path: string) => {
    const r = await fetch(base + path);
    return { status: r.status, answer: r.headers.get('capstate-answer'), json: (await r.json()) as Record<string, unknown> };
  };

  it('unseen: a plain line counting 27 where it shows 3 answers itself from state and declines a window the API convention would page', async () => {
    const own = await get('/items');
    expect([own.status, own.answer, own.json.total]).toEqual([200, 'state', 27]);
    const page = await get('/items?limit=2&offset=2');
    expect(page.status).toBe(501);
    expect(page.json.code).toBe('no-record');
    expect(page.json.detail).toContain('record #1 (/items) counted 24 more items than the capture ever showed');
  });

  it('a full page in a plain array (3 of limit 3, no total) shows no end: another window is declined, not cut to the 3 users the state holds', async () => {
    expect((await get('/users?limit=3&offset=0')).answer).toBe('state');
    for (const path of ['/users?limit=2&offset=2', '/users?limit=10&offset=0']) {
      const page = await get(path);
      expect(page.status, path).toBe(501);
      expect(page.json.detail, path).toContain('no line of the capture shows every entity of users, or counts them');
    }
  });

  it('a page shorter than its limit shows the whole list, which then pages by its keys', async () => {
    const page = await get('/groups?limit=2&offset=2');
    expect([page.status, page.answer]).toEqual([200, 'state']);
    expect(page.json).toEqual(groups.slice(2, 4));
  });

  it('a list whose totals count what it shows still pages by the convention', async () => {
    const page = await get('/tags?limit=1&offset=0');
    expect([page.status, page.answer]).toEqual([200, 'state']);
    expect(page.json).toEqual({ total: 2, limit: 1, skip: 0, data: [tags[0]] });
  });
});
