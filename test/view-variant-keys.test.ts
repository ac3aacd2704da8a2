/** ES-19 (the keys, encoded per OQ-16) as a view: fact rows in, `variant_keys` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Each key by the latest record of the variant line it tells apart. */
const keys = (f: FactStore) =>
  f.rows(`select r.ordinal, k.key_name, k.key_value, k.is_omitted
    from variant_keys k join record r on r.id = k.line_id order by r.ordinal, k.key_name, k.is_omitted`);

describe('ES-19 variant_keys, rows in and out', () => {
  it('ES-19 (OQ-16) a parameter only the variant names is a key by its name; a pagination parameter is none', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/v1/users' });
    f.record({
      tool: users,
      path: '/api/v1/users',
      query: 'page=1',
      body: [
        { id: 'u-01', name: 'Ann' },
        { id: 'u-02', name: 'Bo' },
      ],
    });
    f.record({
      tool: users,
      path: '/api/v1/users',
      query: 'page=1&include=roles&limit=5',
      body: [
        { id: 'u-01', name: 'Ann', roles: ['admin'] },
        { id: 'u-02', name: 'Bo', roles: [] },
      ],
    });
    expect(keys(f)).toEqual([[2, 'include', null, 0]]);
  });

  it('ES-19 (OQ-16) a value the base rows never give, for a parameter they name, is a key by name and value', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    // Every line names `view`: the base rows are the member set most lines share (ES-18 (3)).
    f.record({ tool: users, path: '/api/users', query: 'view=a', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: users, path: '/api/users', query: 'view=b', body: [{ id: 'u-02', name: 'Bo' }] });
    f.record({ tool: users, path: '/api/users', query: 'view=full', body: [{ id: 'u-01', name: 'Ann', email: 'ann@app.test' }] });
    f.record({ tool: users, path: '/api/users', query: 'view=a&page=2', body: [{ id: 'u-02', name: 'Bo', email: 'bo@app.test' }] });
    // `view=a` is a value the base rows give: the page-2 line is a variant no key tells apart.
    expect(keys(f)).toEqual([[3, 'view', 'full', 0]]);
  });

  it('ES-19 (OQ-16) a parameter every base row names and the variant omits is a key marked omitted', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    // `sort` orders (no shaping), so these two are the base rows; only the first names `page`.
    f.record({ tool: users, path: '/api/users', query: 'sort=name&page=1', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: users, path: '/api/users', query: 'sort=name&dir=asc', body: [{ id: 'u-02', name: 'Bo' }] });
    f.record({ tool: users, path: '/api/users', query: 'include=roles', body: [{ id: 'u-01', name: 'Ann', roles: [] }] });
    expect(keys(f)).toEqual([
      [3, 'include', null, 0],
      [3, 'sort', null, 1],
    ]);
  });
});
