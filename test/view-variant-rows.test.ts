/** ES-17 (over ES-18's base rows) as a view: fact rows in, `variant_rows` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/**
 * Each line by its latest record: base, then ES-17's four conditions (shows an entity another
 * line shows otherwise, names a parameter the base lacks, carries a member the base lacks, lacks
 * one the base all carry) and the verdict.
 */
const lines = (f: FactStore) =>
  f.rows(`select latest_ordinal, is_base, shows_entity_otherwise, names_param_base_lacks, carries_member_base_lacks,
    lacks_member_base_carries, is_variant from variant_rows order by latest_ordinal`);

const ann = { id: 'u-01', name: 'Ann', email: 'ann@app.test' };
const bo = { id: 'u-02', name: 'Bo', email: 'bo@app.test' };

describe('ES-17 variant_rows, rows in and out', () => {
  it('ES-17 naming a parameter the base rows do not name, with objects carrying a member the base objects lack, is a variant', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    f.record({ tool: users, path: '/api/users', query: 'page=1', body: [ann, bo] });
    f.record({
      tool: users,
      path: '/api/users',
      query: 'page=1&include=roles',
      body: [
        { ...ann, roles: ['admin'] },
        { ...bo, roles: [] },
      ],
    });
    // The base line shows u-01 otherwise too (the condition is symmetric); a base row is no variant.
    expect(lines(f)).toEqual([
      [1, 1, 1, 0, 0, 0, 0],
      [2, 0, 1, 1, 1, 0, 1],
    ]);
    expect(f.rows('select distinct base_line_count from variant_rows')).toEqual([[1]]);
  });

  it('ES-17 a new parameter whose objects carry the base members, no more and no fewer, is no variant (a plain filter)', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    f.record({ tool: users, path: '/api/users', body: [ann, bo] });
    f.record({ tool: users, path: '/api/users', query: 'status=active', body: [{ id: 'u-03', name: 'Cy', email: 'cy@app.test' }] });
    expect(lines(f)).toEqual([
      [1, 1, 0, 0, 0, 0, 0],
      [2, 0, 0, 1, 0, 0, 0],
    ]);
  });

  it('ES-17 lacking a member the base objects all carry, on an entity another line shows with other members, is a variant', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    f.record({ tool: users, path: '/api/users', body: [ann, bo] });
    f.record({ tool: users, path: '/api/users', query: 'view=compact', body: [{ id: 'u-01', name: 'Ann' }] });
    expect(lines(f)).toEqual([
      [1, 1, 1, 0, 0, 0, 0],
      [2, 0, 1, 1, 0, 1, 1],
    ]);
  });

  it('ES-17 members the base lacks on entities no other line shows, naming no new parameter, are no variant', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    // All lines name `q` (ES-18 (3): the base rows are the member set most lines share).
    f.record({ tool: users, path: '/api/users', query: 'q=a', body: [ann] });
    f.record({ tool: users, path: '/api/users', query: 'q=b', body: [bo] });
    f.record({ tool: users, path: '/api/users', query: 'q=c', body: [{ id: 'u-09', name: 'Zed', email: 'z@app.test', extra: 1 }] });
    f.record({ tool: users, path: '/api/users', query: 'q=a&page=2', body: [{ ...ann, extra: 2 }] });
    // q=c names only `q`, which the base names, and shows u-09 alone; page 2 shows u-01 otherwise.
    expect(lines(f)).toEqual([
      [1, 1, 1, 0, 0, 0, 0],
      [2, 1, 0, 0, 0, 0, 0],
      [3, 0, 0, 0, 1, 0, 0],
      [4, 0, 1, 0, 1, 0, 1],
    ]);
  });
});
