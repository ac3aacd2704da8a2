/**
 * Feathers 5 (bench/fidelity/feathers: recorded in Chromium from the real app, truth the app's
 * own answers to requests the session never sent), an app style nothing was tuned for: `$limit`
 * and `$skip` pages, `$sort[field]=-1` orders, a `{total, limit, skip, data}` envelope, and a 404
 * that names the id it was asked for. Its first run answered 4 of 35 like the app; what raised
 * it (and kept it from three wrong answers) is held here, each on the app's own requests:
 * - OQ-13's vocabularies know `$limit` (a page size) and `$sort` (an order, migration 0017), and
 *   a sort may spell its field in the key (`$sort[id]=-1`, list-queries.ts `keyedSort`), which
 *   the API's other lists borrow for any of their fields;
 * - a list whose recorded total counts entities the capture never showed (`unseen`) answers
 *   only its recorded lines from state;
 * - a recorded 404 naming the id it was asked for names the id asked now (not-found-echo.ts),
 *   and a member name (`"message"`) names no collection.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../src/model/plan/list-queries.js';
import { withAskedId } from '../src/model/served/not-found-echo.js';
import { kyselyFor, openStore } from '../src/store/open.js';
import { readVocabulary, type Vocabulary } from '../src/store/vocabulary.js';
import { servedFidelityApp } from './fidelity-served.js';
import { cli, root, tempDir } from './helpers.js';

const feathers = servedFidelityApp('feathers');
const problem = (json: unknown) => json as { code: string; detail: string };
const dir = tempDir();

async function storeVocabulary(): Promise<Vocabulary> {
  const k = kyselyFor(openStore(join(dir, 'vocabulary.sqlite'), { write: true }));
  try {
    return await readVocabulary(k);
  } finally {
    await k.destroy();
  }
}

describe('Feathers query keys: OQ-13 vocabularies and the keyed sort', () => {
  it('migration 0017: $limit is a page size beside $skip, $sort orders, $select stays a projection', async () => {
    const v = await storeVocabulary();
    expect(v.isPagination('$limit')).toBe(true);
    expect(v.windowRole('$limit')).toBe('size');
    expect(v.windowRole('$skip')).toBe('offset');
    expect(v.isOrdering('$sort[createdAt]')).toBe(true);
    expect(v.isProjection('$select[]')).toBe(true);
  });

  it('keyed sort: $sort[field]=-1 or 1 names the field in the key, several keys sort in turn; a position or another spelling beside it is not one', async () => {
    const v = await storeVocabulary();
    const parse = (q: [string, string][]) =>
      parseListQuery(
        q.map(([name, value]) => ({ name, value })),
        v,
        (f) => ['id', 'likes', 'name'].includes(f),
      );
    const one = parse([
      ['$sort[likes]', '-1'],
      ['$limit', '3'],
      ['$skip', '6'],
    ]);
    expect(one.ok && one.query).toEqual({ sort: { field: 'likes', direction: 'desc' }, window: { offset: 6, size: 3 } });
    expect(one.ok && [...one.units.keys()]).toEqual(['sort', 'window']);
    const two = parse([
      ['$sort[name]', '1'],
      ['$sort[id]', 'desc'],
    ]);
    expect(two.ok && two.query).toEqual({ sort: { field: 'name', direction: 'asc' }, then_by: [{ field: 'id', direction: 'desc' }] });
    expect(two.ok && two.units.has('sort:multi')).toBe(true);
    expect(parse([['$sort[nope]', '1']])).toMatchObject({ ok: false, why: 'sorts by "nope", no field of the listed entities' });
    expect(
      parse([
        ['$sort[id]', '1'],
        ['sort', 'name'],
      ]),
    ).toMatchObject({ ok: false, why: 'a sort spelled two ways' });
    // `sort[0]=name` is a position with the field as its value (Strapi's), read as before.
    const positional = parse([['sort[0]', 'name']]);
    expect(positional.ok && positional.query.sort).toEqual({ field: 'name', direction: 'asc' });
  });

  it('check-effects reproduces every recorded response of the session, and its four write tools take effect', () => {
    const r = cli(['check-effects', join(root, 'bench', 'fidelity', 'feathers', 'capture.har')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('17 of 17 responses reproduced');
    expect(r.stdout).toContain(
      'write tools that take effect: post_messages (create), delete_messages_by_id (remove), patch_messages_by_id (merge), patch_users_by_id (merge)',
    );
  });

  it('api-window and api-sort: the users list, never paged or sorted in the capture, pages by $limit/$skip and sorts by $sort[name] as messages proved', async () => {
    await feathers.replayCapture();
    const page = await feathers.get('/users?%24limit=2&%24skip=2');
    expect(page.h('capstate-answer')).toBe('convention');
    expect(page.h('capstate-convention')).toContain('api-window');
    expect([page.status, page.json]).toEqual([feathers.truth('page-11').status, feathers.truth('page-11').json]);
    const sorted = await feathers.get('/users?$sort[name]=1');
    expect(sorted.h('capstate-convention')).toContain('api-sort');
    expect([sorted.status, sorted.json]).toEqual([feathers.truth('sort-18').status, feathers.truth('sort-18').json]);
  });
});

describe('Feathers: a list the capture paged through in part', () => {
  it('unseen: record #3 counted 14 messages where the state holds 13; its own line answers from state, another query is declined, not answered without message 1', async () => {
    await feathers.reset();
    const own = await feathers.get('/messages?%24sort%5Bid%5D=-1&%24limit=5');
    expect(own.h('capstate-answer')).toBe('state');
    expect((own.json as { total: number }).total).toBe(14);
    const other = await feathers.get('/messages?%24sort%5Blikes%5D=-1');
    expect(other.status).toBe(501);
    expect(problem(other.json).code).toBe('no-record');
    expect(problem(other.json).detail).toContain('record #3 (/messages?%24sort%5Bid%5D=-1&%24limit=5) counted 1 more messages');
    // The app's answer lists message 1 (4 likes), which the capture never showed.
    expect((feathers.truth('sort-17').json as { data: { id: number }[] }).data.map((m) => m.id)).toContain(1);
  });

  it('after the session created 15 and deleted 4, the recorded first page recounts its total from the state and the unseen one', async () => {
    await feathers.replayCapture();
    const page = await feathers.get('/messages?%24sort%5Bid%5D=-1&%24limit=5');
    expect(page.h('capstate-answer')).toBe('state');
    expect((page.json as { total: number; data: { id: number }[] }).total).toBe(14);
    expect((page.json as { data: { id: number }[] }).data.map((m) => m.id)).toEqual([15, 14, 13, 12, 11]);
    await feathers.send('POST', '/messages', { text: 'one more', userId: 2 });
    expect((await feathers.get('/messages?%24sort%5Bid%5D=-1&%24limit=5')).json).toMatchObject({ total: 15 });
  });
});

describe('Feathers: pages of a list held in part, after deletes', () => {
  const page = (skip: number) => feathers.get(`/messages?%24sort%5Bid%5D=-1&%24limit=5${skip ? `&%24skip=${skip}` : ''}`);
  it('unseen window: after deleting 14 to 10, page 1 (15, 9, 8, 7, 6) sorts before message 5, the last the recorded pages showed, and is answered; page 2 would end where message 1 may sit, and is declined', async () => {
    await feathers.replayCapture();
    for (const id of [14, 13, 12, 11, 10]) expect((await feathers.send('DELETE', `/messages/${id}`)).status).toBe(200);
    const first = await page(0);
    expect(first.h('capstate-answer')).toBe('state');
    expect((first.json as { data: { id: number }[] }).data.map((m) => m.id)).toEqual([15, 9, 8, 7, 6]);
    expect((first.json as { total: number }).total).toBe(9);
    // The app's page 2 is 5, 3, 2 and 1: the state holds no message 1, so its 5, 3, 2 would be wrong.
    const second = await page(5);
    expect(second.status).toBe(501);
    expect(problem(second.json).detail).toContain('the page lists 3 of 5');
  });

  it('unseen window: a page holding an entity past the run the capture showed is declined, though full', async () => {
    await feathers.replayCapture();
    for (const id of [14, 13, 12, 11, 10, 9]) expect((await feathers.send('DELETE', `/messages/${id}`)).status).toBe(200);
    // Page 1 is now 15, 8, 7, 6, 5: each at or before message 5, so it is answered. Deleting 8 brings
    // message 3 onto it, and the unseen message may sort before 3.
    expect((await page(0)).status).toBe(200);
    expect((await feathers.send('DELETE', '/messages/8')).status).toBe(200);
    const moved = await page(0);
    expect(moved.status).toBe(501);
    expect(problem(moved.json).detail).toContain('holds messages 3, which does not sort before 5');
  });
});

describe('Feathers: the id of a create after the highest was removed', () => {
  it('reused top: after DELETE /messages/15 (the highest id), a create is declined: the app may give 15 again or 16', async () => {
    await feathers.replayCapture();
    expect((await feathers.send('DELETE', '/messages/15')).status).toBe(200);
    const made = await feathers.send('POST', '/messages', { text: 'after the top', userId: 2, read: false, likes: 0 });
    expect(made.status).toBe(501);
    expect(problem(made.json).detail).toContain('removed messages 15, the highest id it held');
  });

  it('reused top: after deleting another message, a create takes the next id', async () => {
    await feathers.replayCapture();
    expect((await feathers.send('DELETE', '/messages/3')).status).toBe(200);
    const made = await feathers.send('POST', '/messages', { text: 'after another', userId: 2, read: false, likes: 0 });
    expect(made.status).toBe(201);
    expect((made.json as { id: number }).id).toBe(16);
  });
});

describe('Feathers: the 404 that names the id it was asked for', () => {
  it('not-found echo: GET /users/99 is the API’s 404 naming 99 (recorded for message 4), and PATCH /messages/99 names 99', async () => {
    await feathers.replayCapture();
    const user = await feathers.get('/users/99');
    expect(user.h('capstate-convention')).toBe('api-not-found');
    expect([user.status, user.json]).toEqual([feathers.truth('not-found-05').status, feathers.truth('not-found-05').json]);
    const patch = await feathers.send('PATCH', '/messages/99', { read: true });
    expect([patch.status, patch.json]).toEqual([feathers.truth('write-31').status, feathers.truth('write-31').json]);
  });

  it('a member name is no word of a body: "message" names no collection, so GET /tags/42 gets the API’s 404 too', async () => {
    await feathers.replayCapture();
    const tag = await feathers.get('/tags/42');
    expect([tag.status, tag.json]).toEqual([feathers.truth('not-found-07').status, feathers.truth('not-found-07').json]);
  });

  it('withAskedId: the recorded id as a word of a string becomes the asked one; as a number, or twice, no body is made up', () => {
    const body = { name: 'NotFound', message: "No record found for id '4'", code: 404 };
    expect(withAskedId(body, '4', '99', 404)).toEqual({
      ok: true,
      echoed: true,
      value: { name: 'NotFound', message: "No record found for id '99'", code: 404 },
    });
    // Not inside a longer word or number; the status is no id.
    expect(withAskedId({ detail: 'Not found (v4, 404)' }, '4', '7', 404)).toEqual({
      ok: true,
      echoed: false,
      value: { detail: 'Not found (v4, 404)' },
    });
    expect(withAskedId({ id: 4, error: 'gone' }, '4', '7', 404)).toMatchObject({
      ok: false,
      why: 'shows the id it was asked for (4) as a number',
    });
    expect(withAskedId({ error: 'item 1 of page 1' }, '1', '7', 404)).toMatchObject({ ok: false });
  });
});
