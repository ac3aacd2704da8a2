/** ES-26 observations, ES-33/ES-34 order, ES-35 membership and ES-36 counters. */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { tempDir } from './helpers.js';
import { loadHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
const load = (exchanges: Exchange[]) => loadHar(dir, exchanges);
const order = (db: Database.Database, root: string) =>
  db.prepare('select entity_id, order_source from collection_order where root_path = ? order by state_order').raw().all(root);

describe('ES-26 entity observations: one key per collection and identity', () => {
  it('ES-26 the folders list and item views observe the same entity under the proven uid (ACC-1)', () => {
    const db = load([
      {
        url: `${A}/api/folders`,
        body: [
          { id: 1, uid: 'nErXDvCkzz', title: 'Dept' },
          { id: 2, uid: 'k3R9pLmQaa', title: 'Ops' },
        ],
      },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { id: 1, uid: 'nErXDvCkzz', title: 'Dept', version: 1 } },
    ]);
    expect(
      db
        .prepare('select entity_id, view_kind, ordinal, entity_pointer from entity_observations order by ordinal, entity_pointer')
        .raw()
        .all(),
    ).toEqual([
      ['nErXDvCkzz', 'list', 1, '/0'],
      ['k3R9pLmQaa', 'list', 1, '/1'],
      ['nErXDvCkzz', 'item', 2, ''],
    ]);
  });

  it('ES-26 reads after the bound observe nothing (the annotation list after the write, ACC-1)', () => {
    const db = load([
      { url: `${A}/api/annotations`, body: [{ id: 16, text: 'a' }] },
      { method: 'POST', url: `${A}/api/annotations`, status: 201, body: { id: 17, message: 'Annotation added' } },
      {
        url: `${A}/api/annotations`,
        body: [
          { id: 16, text: 'a' },
          { id: 17, text: 'b' },
        ],
      },
    ]);
    expect(db.prepare('select entity_id, ordinal from entity_observations').raw().all()).toEqual([['16', 1]]);
  });
});

describe("ES-33 a collection's initial order", () => {
  it('ES-33 the spec example: the first complete row without a sort parameter decides (tg-c, tg-a, tg-b)', () => {
    const db = load([
      { url: `${A}/api/v1/tags?_sort=name`, body: [{ id: 'tg-a' }, { id: 'tg-b' }, { id: 'tg-c' }] },
      { url: `${A}/api/v1/tags`, body: [{ id: 'tg-c' }, { id: 'tg-a' }, { id: 'tg-b' }] },
    ]);
    expect(order(db, '/api/v1/tags')).toEqual([
      ['tg-c', 'row'],
      ['tg-a', 'row'],
      ['tg-b', 'row'],
    ]);
  });

  it('ES-34 without such a row, earliest appearance on the timeline', () => {
    const db = load([{ url: `${A}/api/v1/tags?_sort=name`, body: [{ id: 'tg-a' }, { id: 'tg-b' }, { id: 'tg-c' }] }]);
    expect(order(db, '/api/v1/tags')).toEqual([
      ['tg-a', 'appearance'],
      ['tg-b', 'appearance'],
      ['tg-c', 'appearance'],
    ]);
  });

  it('ES-33 a row that misses an entity another initial read shows is not complete', () => {
    const db = load([
      { url: `${A}/api/v1/tags`, body: [{ id: 'tg-2' }, { id: 'tg-1' }] },
      { url: `${A}/api/v1/tags/tg-3`, body: { id: 'tg-3' } },
    ]);
    expect(order(db, '/api/v1/tags')).toEqual([
      ['tg-2', 'appearance'],
      ['tg-1', 'appearance'],
      ['tg-3', 'appearance'],
    ]);
  });
});

describe('ES-35 all membership and ES-36 counters', () => {
  it('ES-35 the spec example: a counter equal to the listed count and no next token is all; a larger total and next is not', () => {
    const db = load([
      { url: `${A}/api/v1/items`, body: { items: [{ id: 'it-01' }, { id: 'it-02' }], pageInfo: { totalRows: 2, isLastPage: true } } },
      {
        url: `${A}/api/v1/items?limit=2`,
        body: { items: [{ id: 'it-01' }, { id: 'it-02' }], total: 5, next: '/api/v1/items?limit=2&offset=2' },
      },
    ]);
    expect(db.prepare('select ordinal, membership from list_membership order by ordinal').raw().all()).toEqual([
      [1, 'all'],
      [2, 'recorded'],
    ]);
    expect(db.prepare('select ordinal, member_pointer, is_counter from list_counters order by ordinal').raw().all()).toEqual([
      [1, '/pageInfo/totalRows', 1],
      [2, '/total', 0],
    ]);
  });

  it('ES-35 a has_more flag that is set makes the list recorded; false or null does not', () => {
    const db = load([
      { url: `${A}/api/a`, body: { data: [{ id: 'a-1' }], has_more: true } },
      { url: `${A}/api/b`, body: { data: [{ id: 'b-1' }], has_more: false, next: null } },
      { url: `${A}/api/c`, body: { data: [{ id: 'c-1' }], next_cursor: '' } },
    ]);
    expect(db.prepare('select ordinal, membership from list_membership order by ordinal').raw().all()).toEqual([
      [1, 'recorded'],
      [2, 'all'],
      [3, 'all'],
    ]);
  });

  it('ES-36 page counts are not item totals, and fields of listed entries are not envelope members', () => {
    const db = load([
      { url: `${A}/api/a`, body: { items: [{ id: 'a-1', count: 9 }], pageCount: 7, total_count: 1 } },
      { url: `${A}/api/b`, body: [{ id: 'b-1', total: 3 }] },
    ]);
    expect(db.prepare('select ordinal, member_pointer, is_counter from list_counters order by ordinal').raw().all()).toEqual([
      [1, '/total_count', 1],
    ]);
  });
});
