/** ES-19 (with ES-12, ES-13, ES-17) as a view: fact rows in, `unchecked_lines` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Users: list and item reads. */
function users(): FactStore & { list: number; item: number } {
  const f = factStore(dir);
  return Object.assign(f, { list: f.tool({ template: '/api/users' }), item: f.tool({ template: '/api/users/{id}' }) });
}

/** Each line by its latest record: variant, told apart by a key, projected, unchecked. */
const lines = (f: FactStore) =>
  f.rows(
    'select latest_ordinal, query, is_variant, is_distinguished, is_projected, is_unchecked from unchecked_lines order by latest_ordinal',
  );

describe('ES-19 unchecked_lines, rows in and out', () => {
  it('ES-19 a representation variant a query key tells apart leaves the checks', () => {
    const f = users();
    f.record({
      tool: f.list,
      path: '/api/users',
      query: 'page=1',
      body: [
        { id: 'u-01', name: 'Ann' },
        { id: 'u-02', name: 'Bo' },
      ],
    });
    f.record({
      tool: f.list,
      path: '/api/users',
      query: 'page=1&include=roles',
      body: [
        { id: 'u-01', name: 'Ann', roles: ['admin'] },
        { id: 'u-02', name: 'Bo', roles: [] },
      ],
    });
    expect(lines(f)).toEqual([
      [1, 'page=1', 0, 0, 0, 0],
      [2, 'page=1&include=roles', 1, 1, 0, 1],
    ]);
  });

  it('ES-19 a variant no query key distinguishes (pagination aside) stays an ordinary row', () => {
    const f = users();
    // Every line names `q`; the base rows (ES-18 (3): the member set most lines share) give q=a too.
    f.record({ tool: f.list, path: '/api/users', query: 'q=a&page=1', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'q=a&page=2', body: [{ id: 'u-02', name: 'Bo' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'q=a&page=3', body: [{ id: 'u-01', name: 'Ann', extra: 1 }] });
    expect(lines(f)).toEqual([
      [1, 'q=a&page=1', 0, 0, 0, 0],
      [2, 'q=a&page=2', 0, 0, 0, 0],
      [3, 'q=a&page=3', 1, 0, 0, 0],
    ]);
  });

  it('ES-19 (ES-12, ES-13) projected item reads and projected list rows are unchecked too', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'fields=id', body: [{ id: 'u-01' }] });
    f.record({ tool: f.item, path: '/api/users/u-01', query: 'fields=name', pathParams: ['u-01'], body: { name: 'Ann' } });
    expect(lines(f)).toEqual([
      [1, null, 0, 0, 0, 0],
      [2, 'fields=id', 0, 0, 1, 1],
      [3, 'fields=name', 0, 0, 1, 1],
    ]);
  });
});
