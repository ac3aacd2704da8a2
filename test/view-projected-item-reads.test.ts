/** ES-12 (with OQ-14) as a view: fact rows in, `projected_item_reads` rows out. */
import { describe, expect, it } from 'vitest';
import { type JsonValue } from '../src/json/exact.js';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Books: list, item and a write under their root. */
function books(): FactStore & { list: number; item: number; patch: number } {
  const f = factStore(dir);
  return Object.assign(f, {
    list: f.tool({ template: '/api/books' }),
    item: f.tool({ template: '/api/books/{id}' }),
    patch: f.tool({ method: 'PATCH', template: '/api/books/{id}' }),
  });
}

/** Each line by its latest record: whether it is initial and whether ES-12 projects it. */
const lines = (f: FactStore) =>
  f.rows('select latest_ordinal, query, is_initial, is_projected_item from projected_item_reads order by latest_ordinal');

describe('ES-12 projected_item_reads, rows in and out', () => {
  it('ES-12 an initial item read asking for some fields that does not return the item is projected', () => {
    const f = books();
    f.record({ tool: f.item, path: '/api/books/bk-17', pathParams: ['bk-17'], body: { id: 'bk-17', title: 'Dune', year: 1965 } });
    f.record({ tool: f.item, path: '/api/books/bk-17', query: 'fields=title', pathParams: ['bk-17'], body: { title: 'Dune' } });
    expect(lines(f)).toEqual([
      [1, null, 1, 0],
      [2, 'fields=title', 1, 1],
    ]);
  });

  it('ES-12 (OQ-14) a projection that returns the item, `*`, or a shaping parameter that is no projection is not ES-12', () => {
    const f = books();
    const read = (query: string, body: JsonValue) =>
      f.record({ tool: f.item, path: '/api/books/bk-17', query, pathParams: ['bk-17'], body });
    read('fields=id,title', { id: 'bk-17', title: 'Dune' });
    read('fields=*', { title: 'Dune' });
    read('include=shelf', { shelf: { name: 'SF' } });
    read('select=title', { title: 'Dune' });
    // Only `select=title` asks for some fields and leaves the id out.
    expect(lines(f)).toEqual([
      [1, 'fields=id,title', 1, 0],
      [2, 'fields=*', 1, 0],
      [3, 'include=shelf', 1, 0],
      [4, 'select=title', 1, 1],
    ]);
  });

  it('ES-12 only initial item lines: a projected read after the first write, or a projected list read, is not', () => {
    const f = books();
    f.record({ tool: f.list, path: '/api/books', query: 'fields=title', body: [{ title: 'Dune' }] });
    f.record({ tool: f.patch, path: '/api/books/bk-17', pathParams: ['bk-17'], body: { id: 'bk-17' } });
    f.record({ tool: f.item, path: '/api/books/bk-17', query: 'fields=title', pathParams: ['bk-17'], body: { title: 'Dune' } });
    expect(lines(f)).toEqual([
      [1, 'fields=title', 1, 0],
      [3, 'fields=title', 0, 0],
    ]);
  });
});
