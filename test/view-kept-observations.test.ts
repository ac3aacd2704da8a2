/** ES-19 (with ES-13) as a view: fact rows in, `kept_observations` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Users: a list tool under /api/v1/users. */
function users(): FactStore & { list: number } {
  const f = factStore(dir);
  return Object.assign(f, { list: f.tool({ template: '/api/v1/users' }) });
}

const kept = (f: FactStore) => f.rows('select ordinal, list_index, entity_id from kept_observations order by ordinal, list_index');

describe('ES-19 kept_observations, rows in and out', () => {
  it('ES-19 the spec example: the ?include=roles variant leaves the observations, every repeat of its line with it', () => {
    const f = users();
    const ann = { id: 'u-01', name: 'Ann' };
    const bo = { id: 'u-02', name: 'Bo' };
    f.record({ tool: f.list, path: '/api/v1/users', query: 'page=1', body: [ann, bo] });
    f.record({
      tool: f.list,
      path: '/api/v1/users',
      query: 'page=1&include=roles',
      body: [
        { ...ann, roles: ['admin'] },
        { ...bo, roles: [] },
      ],
    });
    f.record({
      tool: f.list,
      path: '/api/v1/users',
      query: 'page=1&include=roles',
      body: [
        { ...ann, roles: ['admin'] },
        { ...bo, roles: [] },
      ],
    });
    expect(f.rows('select ordinal from entity_observations order by ordinal, list_index')).toEqual([[1], [1], [2], [2], [3], [3]]);
    expect(kept(f)).toEqual([
      [1, 0, 'u-01'],
      [1, 1, 'u-02'],
    ]);
  });

  it('ES-19 kept rows are the entity observations themselves, every column', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/v1/users', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'include=roles', body: [{ id: 'u-01', name: 'Ann', roles: [] }] });
    expect(f.rows('select * from kept_observations')).toEqual(f.rows('select * from entity_observations where ordinal = 1'));
    expect(f.rows('select count(*) from kept_observations')).toEqual([[1]]);
  });

  it('ES-19 a variant no query key tells apart stays an ordinary row: its observations are kept', () => {
    const f = users();
    // Base (ES-18, agree-most): the ?lang lines showing {id, name}. #3 shows u-01 with `bio` too
    // (a variant, ES-17), but names nothing the base does not (`page` is pagination) and gives
    // `lang=en` as #1 does: no key distinguishes it.
    f.record({ tool: f.list, path: '/api/v1/users', query: 'lang=en', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'lang=de', body: [{ id: 'u-02', name: 'Bo' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'lang=en&page=2', body: [{ id: 'u-01', name: 'Ann', bio: 'x' }] });
    expect(f.rows('select latest_ordinal, is_variant, is_distinguished from unchecked_lines order by latest_ordinal')).toEqual([
      [1, 0, 0],
      [2, 0, 0],
      [3, 1, 0],
    ]);
    expect(kept(f)).toEqual([
      [1, 0, 'u-01'],
      [2, 0, 'u-02'],
      [3, 0, 'u-01'],
    ]);
  });

  it('ES-19 (ES-13) a projected list line leaves the observations; one whose objects carry every member stays', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/v1/users', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'fields=id', body: [{ id: 'u-02' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'fields=name', body: [{ id: 'u-03', name: 'Cy' }] });
    expect(kept(f)).toEqual([
      [1, 0, 'u-01'],
      [3, 0, 'u-03'],
    ]);
  });
});
