/** ES-13 (with OQ-14, and ES-12 for is_projected) as a view: fact rows in, `projected_list_rows` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Users: list and item reads. */
function users(): FactStore & { list: number; item: number } {
  const f = factStore(dir);
  return Object.assign(f, { list: f.tool({ template: '/api/users' }), item: f.tool({ template: '/api/users/{id}' }) });
}

const full = [
  { id: 'u-01', name: 'Ann', email: 'ann@app.test' },
  { id: 'u-02', name: 'Bo', email: 'bo@app.test' },
];

/** Each line by its latest record: ES-13's flag and the union with ES-12's. */
const lines = (f: FactStore) =>
  f.rows('select latest_ordinal, query, is_projected_list, is_projected from projected_list_rows order by latest_ordinal');

describe('ES-13 projected_list_rows, rows in and out', () => {
  it("ES-13 a list line asking for some fields whose objects lack a member the tool's unprojected lines show is projected", () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: full });
    f.record({
      tool: f.list,
      path: '/api/users',
      query: 'fields=id,name',
      body: full.map(({ id, name }) => ({ id, name })),
    });
    // One object of three lacking `email` is enough: the set does not carry it always.
    f.record({
      tool: f.list,
      path: '/api/users',
      query: 'fields=id,name,email',
      body: [...full, { id: 'u-03', name: 'Cy' }],
    });
    expect(lines(f)).toEqual([
      [1, null, 0, 0],
      [2, 'fields=id,name', 1, 1],
      [3, 'fields=id,name,email', 1, 1],
    ]);
  });

  it('ES-13 (OQ-14) a projected line whose objects all carry every member the unprojected lines show is a whole-entity row; `*` asks for all', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/users', body: full });
    // The server ignored the projection.
    f.record({ tool: f.list, path: '/api/users', query: 'fields=id', body: full });
    f.record({ tool: f.list, path: '/api/users', query: 'fields=*', body: [{ id: 'u-01' }] });
    expect(lines(f)).toEqual([
      [1, null, 0, 0],
      [2, 'fields=id', 0, 0],
      [3, 'fields=*', 0, 0],
    ]);
  });

  it('ES-13 with no unprojected line of the tool to compare with, a projected list line is projected', () => {
    const f = users();
    const teams = f.tool({ template: '/api/teams' });
    // Another tool's unprojected line says nothing about this one.
    f.record({ tool: teams, path: '/api/teams', body: [{ id: 'u-01', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/users', query: 'fields=id,name', body: [{ id: 'u-01', name: 'Ann' }] });
    expect(lines(f)).toEqual([
      [1, null, 0, 0],
      [2, 'fields=id,name', 1, 1],
    ]);
  });

  it('ES-13 (ES-12) is_projected also holds for a projected item read, which is no list row', () => {
    const f = users();
    f.record({ tool: f.item, path: '/api/users/u-01', query: 'fields=name', pathParams: ['u-01'], body: { name: 'Ann' } });
    expect(f.rows('select latest_ordinal, is_projected_item, is_projected_list, is_projected from projected_list_rows')).toEqual([
      [1, 1, 0, 1],
    ]);
  });
});
