/**
 * `shown_object_members` (@rule none: the member names an object set's objects carry, which
 * ES-13 and ES-17 compare) as a view: fact rows in, rows out.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Each member a line's set shows, by the record showing it. */
const members = (f: FactStore) =>
  f.rows(`select r.ordinal, m.set_pointer, m.member_key, m.object_count, m.objects_with_key, m.is_common
    from shown_object_members m join record r on r.response_body_id = m.body_id
    order by r.ordinal, m.member_key`);

describe('shown_object_members (ES-13, ES-17 compare it), rows in and out', () => {
  it("ES-17 a list set's member names: how many objects carry each, and whether all do; an item set is its one object", () => {
    const f = factStore(dir);
    const list = f.tool({ template: '/api/users' });
    const item = f.tool({ template: '/api/users/{id}' });
    f.record({
      tool: list,
      path: '/api/users',
      body: {
        total: 3,
        users: [
          { id: 'u-1', name: 'Ann', role: 'admin' },
          { id: 'u-2', name: 'Bo' },
          { id: 'u-3', name: 'Cy', team: { id: 't-1' } },
        ],
      },
    });
    f.record({ tool: item, path: '/api/users/u-1', pathParams: ['u-1'], body: { meta: { v: 1 }, user: { id: 'u-1', role: 'admin' } } });
    // The envelope's `total` and the item's `meta` are no object's members; nor is the nested team's `id`.
    expect(members(f)).toEqual([
      [1, '/users', 'id', 3, 3, 1],
      [1, '/users', 'name', 3, 3, 1],
      [1, '/users', 'role', 3, 1, 0],
      [1, '/users', 'team', 3, 1, 0],
      [2, '/user', 'id', 1, 1, 1],
      [2, '/user', 'role', 1, 1, 1],
    ]);
  });

  it('ES-17 memberless objects: a set with nothing else keeps one row with no member; beside members they only lower the counts', () => {
    const f = factStore(dir);
    const blanks = f.tool({ template: '/api/blanks' });
    const sparse = f.tool({ template: '/api/sparse' });
    f.record({ tool: blanks, path: '/api/blanks', body: [{}, {}] });
    f.record({ tool: sparse, path: '/api/sparse', body: [{}, { id: 1 }] });
    expect(members(f)).toEqual([
      [1, '', null, 2, 2, 1],
      [2, '', 'id', 2, 1, 0],
    ]);
  });
});
