/** ES-14 as a view: fact rows in, `late_shaping_rows` rows out. */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/json/exact.js';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Books: list, item and PATCH tools under /api/books, read once before a PATCH that bounds them (ES-8). */
function books(): FactStore & { list: number; item: number; read: (query: string | undefined, body: JsonObject) => number } {
  const f = factStore(dir);
  const item = f.tool({ template: '/api/books/{id}' });
  const read = (query: string | undefined, body: JsonObject) =>
    f.record({ tool: item, path: `/api/books/${String(body.id ?? 'bk-17')}`, query, body, pathParams: [String(body.id ?? 'bk-17')] });
  return Object.assign(f, { list: f.tool({ template: '/api/books' }), item, read });
}
const book = (extra: JsonObject = {}): JsonObject => ({ id: 'bk-17', title: 'Dune', shelfId: 's-1', ...extra });

/** The late shaping lines (named by their latest ordinal) with the conditions they meet. */
const late = (f: FactStore) =>
  f.rows(
    'select latest_ordinal, query, names_new_shaping_param, carries_member_checked_lack, lacks_member_checked_show from late_shaping_rows order by latest_ordinal',
  );

describe('ES-14 late_shaping_rows, rows in and out', () => {
  it('ES-14 the spec example: a later ?expand=shelf line, which no other line names, carrying `shelf`', () => {
    const f = books();
    const patch = f.tool({ method: 'PATCH', template: '/api/books/{id}' });
    f.read(undefined, book());
    f.record({ tool: patch, path: '/api/books/bk-17', body: book({ title: 'Dune Messiah' }), pathParams: ['bk-17'] });
    f.read('expand=shelf', book({ title: 'Dune Messiah', shelf: { id: 's-1', name: 'SF' } }));
    expect(late(f)).toEqual([[3, 'expand=shelf', 1, 1, 0]]);
  });

  it('ES-14 a later line selecting only some fields and omitting a member the checked lines always show', () => {
    const f = books();
    const patch = f.tool({ method: 'PATCH', template: '/api/books/{id}' });
    f.read(undefined, book());
    f.record({ tool: patch, path: '/api/books/bk-17', body: book(), pathParams: ['bk-17'] });
    f.read('fields=id,title', { id: 'bk-17', title: 'Dune' });
    // Selecting every member the checked lines show omits none: not listed.
    f.read('fields=id,title,shelfId', { id: 'bk-17', title: 'Dune', shelfId: 's-1' });
    expect(late(f)).toEqual([[3, 'fields=id,title', 0, 0, 1]]);
  });

  it('ES-14 a new shaping parameter alone is not enough: the object must carry or lack members the checked lines do not', () => {
    const f = books();
    const patch = f.tool({ method: 'PATCH', template: '/api/books/{id}' });
    f.read(undefined, book());
    f.record({ tool: patch, path: '/api/books/bk-17', body: book(), pathParams: ['bk-17'] });
    f.read('lang=de', book({ title: 'Der Wüstenplanet' }));
    // A later plain read is on no line of its own (its line has an initial read, OQ-35).
    f.read(undefined, book({ extra: 1 }));
    expect(late(f)).toEqual([]);
  });

  it('ES-14 judged against the lines left after variants (ES-17): a parameter only a discarded variant named is new', () => {
    const f = books();
    const patch = f.tool({ method: 'PATCH', template: '/api/books/{id}' });
    f.read('expand=shelf', book({ shelf: { id: 's-1' } }));
    f.read(undefined, book({ id: 'bk-18' }));
    f.record({ tool: patch, path: '/api/books/bk-17', body: book(), pathParams: ['bk-17'] });
    f.read('expand=shelf', book({ id: 'bk-18', shelf: { id: 's-1' } }));
    // #1 is a variant `expand` tells apart (ES-19): unchecked, so no checked line names `expand`.
    expect(f.rows('select latest_ordinal, is_initial, is_unchecked from unchecked_lines order by latest_ordinal')).toEqual([
      [1, 1, 1],
      [2, 1, 0],
      [4, 0, 0],
    ]);
    expect(late(f)).toEqual([[4, 'expand=shelf', 1, 1, 0]]);
  });

  it('ES-14 not listed: a shaping parameter a checked line names, a later list line, a later line showing no entity', () => {
    const f = books();
    const patch = f.tool({ method: 'PATCH', template: '/api/books/{id}' });
    f.read(undefined, book());
    // Names `lang`, which the base does not, with the same members: no variant, a checked line.
    f.read('lang=en', book({ id: 'bk-18' }));
    f.record({ tool: patch, path: '/api/books/bk-17', body: book(), pathParams: ['bk-17'] });
    f.read('lang=de', book({ id: 'bk-19', shelf: { id: 's-1' } }));
    f.record({ tool: f.list, path: '/api/books', query: 'expand=shelf', body: [book({ shelf: { id: 's-1' } })] });
    f.read('expand=author', { title: 'Dune', author: { name: 'Herbert' } });
    expect(f.rows('select latest_ordinal, is_initial, is_unchecked, object_count from unchecked_lines order by latest_ordinal')).toEqual([
      [1, 1, 0, 1],
      [2, 1, 0, 1],
      [4, 0, 0, 1],
      [5, 0, 0, 1],
      [6, 0, 0, 0],
    ]);
    expect(late(f)).toEqual([]);
  });
});
