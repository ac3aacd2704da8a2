/** OQ-17 (the facts ES-15 serves by) as a view: fact rows in, `projection_values` rows out. */
import { describe, expect, it } from 'vitest';
import { type JsonValue } from '../src/json/exact.js';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

const values = (f: FactStore) =>
  f.rows('select tool, projection_value, is_replayed from projection_values order by tool, projection_value, is_replayed');

describe('OQ-17 projection_values, rows in and out', () => {
  it("OQ-17 a checked initial line's projection values are not replayed; a projected line's (ES-12) are", () => {
    const f = factStore(dir);
    const item = f.tool({ template: '/api/books/{id}' });
    const patch = f.tool({ method: 'PATCH', template: '/api/books/{id}' });
    const read = (query: string, body: JsonValue) => f.record({ tool: item, path: '/api/books/bk-17', query, pathParams: ['bk-17'], body });
    read('fields=*', { id: 'bk-17', title: 'Dune', year: 1965 });
    read('fields=title', { title: 'Dune' });
    // A shaping parameter that is no projection, and a projection after the first write, give none.
    read('include=shelf', { id: 'bk-17', title: 'Dune', year: 1965, shelf: { name: 'SF' } });
    f.record({ tool: patch, path: '/api/books/bk-17', pathParams: ['bk-17'], body: { id: 'bk-17' } });
    read('fields=year', { year: 1965 });
    expect(values(f)).toEqual([
      ['GET /api/books/{id}', '*', 0],
      ['GET /api/books/{id}', 'title', 1],
    ]);
  });

  it('OQ-17 (ES-15) a value checked and replayed lines both gave is listed both ways; each name of a bracketed projection gives its value', () => {
    const f = factStore(dir);
    const list = f.tool({ template: '/api/users' });
    const full = [
      { id: 'u-01', name: 'Ann', email: 'ann@app.test' },
      { id: 'u-02', name: 'Bo', email: 'bo@app.test' },
    ];
    f.record({ tool: list, path: '/api/users', body: full });
    // The server ignored the projection here (checked), not on page 2 (ES-13: replayed).
    f.record({ tool: list, path: '/api/users', query: 'fields=id,name', body: full });
    f.record({ tool: list, path: '/api/users', query: 'fields=id,name&page=2', body: [{ id: 'u-03', name: 'Cy' }] });
    f.record({ tool: list, path: '/api/users', query: 'fields[users]=id&fields[teams]=name&page=3', body: [{ id: 'u-04' }] });
    expect(values(f)).toEqual([
      ['GET /api/users', 'id', 1],
      ['GET /api/users', 'id,name', 0],
      ['GET /api/users', 'id,name', 1],
      ['GET /api/users', 'name', 1],
    ]);
  });
});
