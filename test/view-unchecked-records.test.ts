/** ES-19 (with ES-12, ES-13) as a view: fact rows in, `unchecked_records` rows out. */
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

/** Each unchecked record with the latest record of its line. */
const unchecked = (f: FactStore) =>
  f.rows(`select r.ordinal, u.tool, (select ordinal from record where id = u.line_id)
    from unchecked_records u join record r on r.id = u.record_id order by r.ordinal`);

const base = [
  { id: 'u-01', name: 'Ann' },
  { id: 'u-02', name: 'Bo' },
];
const withRoles = base.map((u) => ({ ...u, roles: ['admin'] }));

describe('ES-19 unchecked_records, rows in and out', () => {
  it("ES-19 every initial record on a distinguished variant's line, not only the latest; the base line's records stay", () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: base });
    f.record({ tool: f.list, path: '/api/users', query: 'include=roles', body: withRoles });
    f.record({ tool: f.list, path: '/api/users', body: base });
    f.record({ tool: f.list, path: '/api/users', query: 'include=roles', body: withRoles });
    expect(unchecked(f)).toEqual([
      [2, 'GET /api/users', 4],
      [4, 'GET /api/users', 4],
    ]);
  });

  it('ES-19 (ES-12, ES-13) the records of projected lines; a later read on a line with initial reads is on no line', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: base });
    f.record({ tool: f.list, path: '/api/users', query: 'fields=id', body: [{ id: 'u-01' }] });
    f.record({ tool: f.item, path: '/api/users/u-01', query: 'fields=name', pathParams: ['u-01'], body: { name: 'Ann' } });
    f.record({ tool: f.post, path: '/api/users', status: 201, body: { id: 'u-03' } });
    f.record({ tool: f.list, path: '/api/users', query: 'fields=id', body: [{ id: 'u-01' }, { id: 'u-03' }] });
    expect(unchecked(f)).toEqual([
      [2, 'GET /api/users', 2],
      [3, 'GET /api/users/{id}', 3],
    ]);
  });
});
