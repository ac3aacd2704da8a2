/**
 * Issue 44, kind 9: a list read only through a filter is not the whole collection (ES-35).
 * In a public GitHub capture a users list read only as `?id_like=…` was marked membership
 * `all`: the check was circular, the filtered read being the only source of the collection it
 * was checked against. A line whose query names a filtering key (any key that is not a
 * pagination, ordering or projection key of the vocabulary) keeps its listed ids or its
 * learned filter, never `all`; so serving does not answer an id that list lacks with the
 * app's 404, since the whole membership is unknown.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { serveHttp } from './serve-helpers.js';
import type { ListPlan, Plan } from '../src/model/plan/types.js';

const dir = tempDir();
const A = 'http://localhost:3000';
let n = 0;

const USERS = [
  { id: 'ab1', name: 'Ada', team: 'core' },
  { id: 'ab2', name: 'Abe', team: 'core' },
  { id: 'cd3', name: 'Cid', team: 'docs' },
];
const users = (ids: string[]) => ids.map((id) => USERS.find((u) => u.id === id)!);

function plans(exchanges: Exchange[]): Plan[] {
  const file = writeHar(dir, `filter-only-${n++}.har`, exchanges);
  const r = cli(['state', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { plans: Plan[] }).plans;
}
const usersPlan = (ps: Plan[]) => ps.find((p) => p.tool === 'get_users') as ListPlan;
const lineOf = (p: ListPlan, query: string | null) => p.lines.find((l) => l.query === query)!;

const servers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
async function served(exchanges: Exchange[]): Promise<string> {
  const file = writeHar(dir, `filter-only-${n++}.har`, exchanges);
  const s = await serveHttp(file, join(dir, `filter-only-${n++}.sqlite`));
  servers.push(s);
  return s.base;
}

describe('issue 44 kind 9: a list read only through a filter never proves all membership', () => {
  it('issue 44 kind 9: ?id_like=ab, the only list read, keeps its learned filter and its listed ids, membership recorded', () => {
    const p = usersPlan(
      plans([
        { url: `${A}/users?id_like=ab`, body: users(['ab1', 'ab2']) },
        { url: `${A}/users/ab1`, body: users(['ab1'])[0] },
      ]),
    );
    expect(p.kind).toBe('list');
    expect(lineOf(p, 'id_like=ab')).toMatchObject({
      membership: 'recorded',
      listed_ids: ['ab1', 'ab2'],
      filter: [{ field: 'id', values: ['ab'], op: 'like' }],
    });
    expect(p.membership).toBe('recorded');
  });

  it('issue 44 kind 9: an equality filter (?team=core) or a key no field explains (?q=a) is recorded, never all', () => {
    const p = usersPlan(
      plans([
        { url: `${A}/users?team=core`, body: users(['ab1', 'ab2']) },
        { url: `${A}/users?q=a`, body: users(['ab1', 'ab2']) },
      ]),
    );
    expect(lineOf(p, 'team=core')).toMatchObject({ membership: 'recorded', listed_ids: ['ab1', 'ab2'] });
    expect(lineOf(p, 'q=a')).toMatchObject({ membership: 'recorded', listed_ids: ['ab1', 'ab2'] });
    expect(p.membership).toBe('recorded');
  });

  it('issue 44 kind 9: beside the whole list, a filter picking every entity is still recorded; the plain line proves all', () => {
    const p = usersPlan(
      plans([
        { url: `${A}/users`, body: users(['ab1', 'ab2', 'cd3']) },
        { url: `${A}/users?id_like=`, body: users(['ab1', 'ab2', 'cd3']) },
        { url: `${A}/users?_sort=name`, body: users(['ab2', 'ab1', 'cd3']) },
      ]),
    );
    expect(lineOf(p, null).membership).toBe('all');
    expect(lineOf(p, '_sort=name').membership).toBe('all');
    expect(lineOf(p, 'id_like=')).toMatchObject({ membership: 'recorded', listed_ids: ['ab1', 'ab2', 'cd3'] });
  });

  it('issue 44 kind 9: served, an id the filtered list lacks is not the app’s 404 (the whole membership is unknown); beside a list without a filter it is', async () => {
    const filtered = [
      { url: `${A}/users?id_like=ab`, body: users(['ab1', 'ab2']) },
      { url: `${A}/users/ab1`, body: users(['ab1'])[0] },
    ];
    const base = await served(filtered);
    const known = await fetch(`${base}/users/ab2`);
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual(users(['ab2'])[0]);
    const unknown = await fetch(`${base}/users/zz9`);
    expect(unknown.status).not.toBe(404);
    expect(unknown.headers.get('capstate-answer')).toBe('declined');
    const whole = await served([...filtered, { url: `${A}/users`, body: users(['ab1', 'ab2', 'cd3']) }]);
    expect((await fetch(`${whole}/users/zz9`)).status).toBe(404);
  });
});
