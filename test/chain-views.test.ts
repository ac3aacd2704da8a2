/**
 * The chain's helper views, tested as views (issue 13: every view has rows-in, rows-out
 * tests): request lines (OQ-35), list reads, the object sets the variant rules compare, and
 * the tool statuses the descriptions cite (DESC-4). A small capture in, the view's rows out.
 */
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { viewStores, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
const store = viewStores(dir);
const raw = (db: Database.Database, sql: string) => db.prepare(sql).raw().all();

describe('OQ-35 line_records', () => {
  it("OQ-35 initial reads are their line's records, named by the latest; a later read joins only a line with no initial read", () => {
    const db = store([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-1' }] },
      { url: `${A}/api/v1/items?page=2`, status: 404, body: { error: 'none' } },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-1' }] },
      { method: 'POST', url: `${A}/api/v1/items`, status: 201, body: { id: 'it-2' } },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-1' }, { id: 'it-2' }] },
      { url: `${A}/api/v1/items?sort=id`, body: [{ id: 'it-1' }, { id: 'it-2' }] },
      { url: `${A}/api/v1/items?sort=id`, body: [{ id: 'it-1' }, { id: 'it-2' }] },
    ]);
    // #2 failed (no line); #5 is after the write on a line that has initial reads (no line);
    // ?sort=id has only later reads: its line is those, named by the latest (#7).
    expect(
      raw(db, 'select ordinal, query, is_initial, (select ordinal from record where id = line_id) from line_records order by ordinal'),
    ).toEqual([
      [1, null, 1, 3],
      [3, null, 1, 3],
      [6, 'sort=id', 0, 7],
      [7, 'sort=id', 0, 7],
    ]);
  });
});

describe('list_reads', () => {
  it('successful reads of list templates with a list in the body, with its pointer and entries; item reads and errors are not', () => {
    const db = store([
      { url: `${A}/api/v1/items`, body: { data: [{ id: 'it-1' }, { id: 'it-2' }], total: 2 } },
      { url: `${A}/api/v1/items/it-1`, body: { id: 'it-1' } },
      { url: `${A}/api/v1/items?page=9`, status: 500, body: { data: [{ id: 'x' }] } },
      { url: `${A}/api/v1/empty`, body: [] },
    ]);
    expect(raw(db, 'select ordinal, tool, list_pointer, entries from list_reads order by ordinal')).toEqual([
      [1, 'get_api_v1_items', '/data', 2],
    ]);
  });
});

describe('shown_objects, shown_object_members, shown_object_ids', () => {
  const capture: Exchange[] = [
    {
      url: `${A}/api/v1/users`,
      body: [
        { id: 'u-1', name: 'Ann', role: 'admin' },
        { id: 'u-2', name: 'Bo' },
      ],
    },
    { url: `${A}/api/v1/users/u-1`, body: { user: { id: 'u-1', name: 'Ann' } } },
    // The same list again: only the line's latest record is judged.
    {
      url: `${A}/api/v1/users`,
      body: [
        { id: 'u-1', name: 'Ann' },
        { id: 'u-2', name: 'Bo' },
        { id: 'u-3', name: 'Cy' },
      ],
    },
  ];

  it("the latest record of each line shows its sets: the list's objects in order, the item's located entity", () => {
    const db = store(capture);
    expect(
      raw(
        db,
        `select r.ordinal, o.set_pointer, o.object_pointer, o.list_index, o.object_count
      from shown_objects o join record r on r.response_body_id = o.body_id order by r.ordinal, o.list_index`,
      ),
    ).toEqual([
      [2, '/user', '/user', 0, 1],
      [3, '', '/0', 0, 3],
      [3, '', '/1', 1, 3],
      [3, '', '/2', 2, 3],
    ]);
  });

  it("a set's member names, how many objects carry each, and whether all do", () => {
    const db = store([
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-1', name: 'Ann', role: 'admin' },
          { id: 'u-2', name: 'Bo' },
        ],
      },
    ]);
    expect(raw(db, 'select member_key, object_count, objects_with_key, is_common from shown_object_members order by member_key')).toEqual([
      ['id', 2, 2, 1],
      ['name', 2, 2, 1],
      ['role', 2, 1, 0],
    ]);
  });

  it('a set whose objects carry no member keeps one row with none', () => {
    const db = store([{ url: `${A}/api/v1/blanks`, body: [{}, {}] }]);
    expect(raw(db, 'select set_pointer, member_key, object_count, objects_with_key from shown_object_members')).toEqual([['', null, 2, 2]]);
  });

  it("the ids a set shows under the identity field, each with its object's member set spelled for comparison", () => {
    const db = store(capture);
    expect(
      raw(
        db,
        `select r.ordinal, i.identity_field, i.entity_id, i.members_signature
      from shown_object_ids i join record r on r.response_body_id = i.body_id order by r.ordinal, i.entity_id`,
      ),
    ).toEqual([
      [2, 'id', 'u-1', '2:id,4:name'],
      [3, 'id', 'u-1', '2:id,4:name'],
      [3, 'id', 'u-2', '2:id,4:name'],
      [3, 'id', 'u-3', '2:id,4:name'],
    ]);
  });
});

describe('DESC-4 tool_statuses', () => {
  it("DESC-4 a tool's recorded statuses are the distinct statuses of its records, with their counts", () => {
    const db = store([
      { url: `${A}/api/v1/items/it-1`, body: { id: 'it-1' } },
      { url: `${A}/api/v1/items/it-2`, status: 404, body: { error: 'not found' } },
      { url: `${A}/api/v1/items/it-1`, body: { id: 'it-1' } },
    ]);
    expect(raw(db, 'select tool, status, records from tool_statuses order by status')).toEqual([
      ['get_api_v1_items_by_id', 200, 2],
      ['get_api_v1_items_by_id', 404, 1],
    ]);
  });
});
