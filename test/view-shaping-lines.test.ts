/** OQ-35 (with OQ-13 roles and the ES-12/ES-13/ES-18 flags it feeds) as a view: fact rows in, `shaping_lines` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Users: list and item reads, and a write under their root. */
function users(): FactStore & { list: number; item: number; post: number } {
  const f = factStore(dir);
  return Object.assign(f, {
    list: f.tool({ template: '/api/users' }),
    item: f.tool({ template: '/api/users/{id}' }),
    post: f.tool({ method: 'POST', template: '/api/users' }),
  });
}

describe('OQ-35 shaping_lines, rows in and out', () => {
  it('OQ-35 one line per path and query string, named by its latest record, with its record count; failed and HEAD reads are on none', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: [{ id: 'u-1' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'page=2', body: [{ id: 'u-2' }] });
    f.record({ tool: f.list, path: '/api/users', body: [{ id: 'u-1' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'page=3', status: 500, body: { error: 'down' } });
    f.record({ tool: f.list, path: '/api/users', query: 'page=4', method: 'HEAD' });
    expect(
      f.rows('select line_id, latest_ordinal, path, query, record_count, is_initial from shaping_lines order by latest_ordinal'),
    ).toEqual([
      [2, 2, '/api/users', 'page=2', 1, 1],
      [3, 3, '/api/users', null, 2, 1],
    ]);
  });

  it('OQ-35 a later read is on a line only when that line has no initial read', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: [{ id: 'u-1' }] });
    f.record({ tool: f.post, path: '/api/users', status: 201, body: { id: 'u-2' } });
    f.record({ tool: f.list, path: '/api/users', body: [{ id: 'u-1' }, { id: 'u-2' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'page=2', body: [{ id: 'u-3' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'page=2', body: [{ id: 'u-3' }] });
    expect(f.rows('select latest_ordinal, query, record_count, is_initial from shaping_lines order by latest_ordinal')).toEqual([
      [1, null, 1, 1],
      [5, 'page=2', 2, 0],
    ]);
  });

  it("OQ-35 the object set its latest record shows: count, member names as comparable text, the members all carry, the type's identity", () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: [{ id: 'u-0' }] });
    f.record({
      tool: f.list,
      path: '/api/users',
      body: {
        total: 2,
        users: [
          { name: 'Ann', id: 'u-1' },
          { id: 'u-2', name: 'Bo', age: 3 },
        ],
      },
    });
    f.record({ tool: f.item, path: '/api/users/u-1', pathParams: ['u-1'], body: { user: { id: 'u-1', name: 'Ann' } } });
    f.record({ tool: f.item, path: '/api/users/u-9', pathParams: ['u-9'], body: { message: 'not here' } });
    // The earlier record of the list line is not its set; a read locating no entity shows none.
    expect(
      f.rows(`select latest_ordinal, set_pointer, object_count, member_count, common_member_count, members_signature, identity_field
        from shaping_lines order by latest_ordinal`),
    ).toEqual([
      [2, '/users', 2, 3, 2, '3:age,2:id,4:name', 'id'],
      [3, '/user', 1, 2, 2, '2:id,4:name', 'id'],
      [4, null, 0, 0, 0, '', 'id'],
    ]);
  });

  it('OQ-35 (OQ-13) what the query names: a projection, one other than `*`, only `*`, a shaping parameter', () => {
    const f = users();
    for (const query of ['fields=id', 'fields=*', 'select=*&fields=name', 'page=2&sort=name', 'include=roles'])
      f.record({ tool: f.list, path: '/api/users', query, body: [{ id: 'u-1' }] });
    expect(
      f.rows(`select query, has_projection, is_partial_projection, is_all_fields, has_shaping_param
        from shaping_lines order by latest_ordinal`),
    ).toEqual([
      ['fields=id', 1, 1, 0, 1],
      ['fields=*', 1, 0, 1, 1],
      ['select=*&fields=name', 1, 1, 0, 1],
      ['page=2&sort=name', 0, 0, 0, 0],
      ['include=roles', 0, 0, 0, 1],
    ]);
  });
});
