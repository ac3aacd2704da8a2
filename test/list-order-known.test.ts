/**
 * Issue 44 (ES-33, ES-34): a query no record shows lists in an order the capture showed, or is
 * declined. Entities a sort leaves tied — every entity, without a sort — keep the state's order,
 * which is the app's own only where a complete unsorted list row showed it (`row`). Read only
 * newest first, the state holds messages 6, 5, 4, 3, 2, 1; Feathers (its memory service, as
 * bench/fidelity/feathers recorded it) lists `$sort[userId]=1` ties in insertion order, 1 before 4,
 * where the state order would have put 4 first: a plausible wrong answer, now a decline.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHar } from './har-builder.js';
import { tempDir } from './helpers.js';
import { serveHttp } from './serve-helpers.js';

const dir = tempDir();
const messages = [
  { id: 1, userId: 1, likes: 4 },
  { id: 2, userId: 2, likes: 1 },
  { id: 3, userId: 3, likes: 0 },
  { id: 4, userId: 1, likes: 9 },
  { id: 5, userId: 2, likes: 0 },
  { id: 6, userId: 3, likes: 7 },
];
const users = [
  { id: 1, role: 'admin' },
  { id: 2, role: 'member' },
  { id: 3, role: 'member' },
  { id: 4, role: 'admin' },
];
const envelope = (data: unknown[], limit: number) => ({ total: data.length, limit, skip: 0, data });

describe('issue 44: the order of entities no sort orders', () => {
  let base = '';
  let close: () => Promise<void>;
  beforeAll(async () => {
    const har = writeHar(dir, 'order.har', [
      // Messages read whole, but only newest first: the state's order is the capture's, not the app's.
      { url: 'http://api.test/messages?%24sort%5Bid%5D=-1&%24limit=20', body: envelope([...messages].reverse(), 20) },
      // Users read whole without a sort: the app's own order (ES-33 `row`).
      { url: 'http://api.test/users', body: envelope(users, 10) },
    ]);
    ({ base, close } = await serveHttp(har, join(dir, 'order.sqlite')));
  });
  afterAll(() => close?.());

  const get = async (path: string) => {
    const r = await fetch(base + path);
    return { status: r.status, answer: r.headers.get('capstate-answer'), json: (await r.json()) as Record<string, unknown> };
  };
  const ids = (json: Record<string, unknown>) => (json.data as { id: number }[]).map((m) => m.id);

  it('a sort that leaves entities tied, on a list read only sorted, is declined naming the tie', async () => {
    const r = await get('/messages?$sort[userId]=1&$limit=20');
    expect(r.status).toBe(501);
    expect(r.json.code).toBe('no-convention');
    expect(r.json.detail).toMatch(/messages \d and \d tie on userId, and the capture never read messages whole without a sort/);
  });

  it('a window no tie touches is known whatever the rest: the two most liked, and the least liked after a tie outside it', async () => {
    const top = await get('/messages?$sort[likes]=-1&$limit=2');
    expect([top.status, top.answer]).toEqual([200, 'convention']);
    expect(ids(top.json)).toEqual([4, 6]);
    // Likes 0 tie (3 and 5) at the end: a window of the first four leaves the tie outside it.
    expect(ids((await get('/messages?$sort[likes]=-1&$limit=3')).json)).toEqual([4, 6, 1]);
    expect((await get('/messages?$sort[likes]=-1&$limit=5')).status).toBe(501);
  });

  it('with no sort, a list read only sorted is declined; one read whole without a sort keeps its order, ties and all', async () => {
    expect((await get('/messages?$limit=3')).status).toBe(501);
    const admins = await get('/users?$sort[role]=1');
    expect([admins.status, ids(admins.json)]).toEqual([200, [1, 4, 2, 3]]);
  });
});
