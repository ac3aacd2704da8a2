/** ES-9, ES-10, OQ-11 (with ES-22, IDN-1, IDN-2, IDN-4) and the composed initial reads. */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { tempDir } from './helpers.js';
import { loadHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
const load = (exchanges: Exchange[]) => loadHar(dir, exchanges);

/** The list location of record #ordinal's response: [pointer, entries, identity key, source] or undefined. */
const listOf = (db: Database.Database, ordinal: number) =>
  db
    .prepare(`select l.list_pointer, l.entries, l.identity_key, l.identity_source
  from record r join list_locations l on l.body_id = r.response_body_id where r.ordinal = ?`)
    .raw()
    .get(ordinal);
const shown = (db: Database.Database, ordinal: number) =>
  db.prepare('select shown_id from read_shown_ids where ordinal = ? order by shown_id').pluck().all(ordinal);
const initial = (db: Database.Database) => db.prepare('select ordinal from initial_reads order by ordinal').pluck().all();

describe('OQ-11 which array of a body is the list', () => {
  it('OQ-11 a root array of objects; an array at a top-level member; an array inside a top-level wrapper object', () => {
    const db = load([
      { url: `${A}/api/a`, body: [{ id: 'a-1' }, { id: 'a-2' }] },
      { url: `${A}/api/b`, body: { total: 2, items: [{ id: 'b-1' }, { id: 'b-2' }] } },
      { url: `${A}/api/c`, body: { data: { items: [{ id: 'c-1' }] }, meta: {} } },
    ]);
    expect(listOf(db, 1)).toEqual(['', 2, 'id', 'name']);
    expect(listOf(db, 2)).toEqual(['/items', 2, 'id', 'name']);
    expect(listOf(db, 3)).toEqual(['/data/items', 1, 'id', 'name']);
  });

  it('ES-22 an envelope that is itself an entity is not a list', () => {
    const db = load([{ url: `${A}/api/teams/t-1`, body: { id: 't-1', name: 'Ops', members: [{ id: 'usr-1' }, { id: 'usr-2' }] } }]);
    expect(listOf(db, 1)).toBeUndefined();
  });

  it("IDN-4 identity names keep priority over suffix-named fields when choosing among an envelope's arrays", () => {
    const db = load([{ url: `${A}/api/x`, body: { widgets: [{ widgetId: 'w-1' }, { widgetId: 'w-2' }], owners: [{ id: 'u-1' }] } }]);
    expect(listOf(db, 1)).toEqual(['/owners', 1, 'id', 'name']);
  });

  it("IDN-1 suffix-named identity: the first qualifying key in the first entry's key order", () => {
    const db = load([
      {
        url: `${A}/api/v1/orders`,
        body: [
          { orderId: 'o-1', customerId: 'c-9', total: 5 },
          { orderId: 'o-2', customerId: 'c-9', total: 7 },
        ],
      },
      {
        url: `${A}/api/v1/links`,
        body: [
          { ownerId: 'u-1', itemId: 'i-1' },
          { ownerId: 'u-2', itemId: 'i-2' },
        ],
      },
    ]);
    expect(listOf(db, 1)).toEqual(['', 2, 'orderId', 'suffix']);
    expect(listOf(db, 2)).toEqual(['', 2, 'ownerId', 'suffix']);
  });

  it('IDN-2 a single entry does not prove a suffix-named identity', () => {
    const db = load([{ url: `${A}/api/teams/1/members`, body: [{ teamId: 1, userId: 7 }] }]);
    expect(listOf(db, 1)).toEqual(['', 1, null, null]);
  });
});

describe('ES-10 which ids a read shows', () => {
  it("ES-10 a list read shows its entities' own ids, not foreign keys beside them nor nested entities' ids", () => {
    const db = load([
      { url: `${A}/api/tasks`, body: [{ id: 'task-1', projectId: 'prj-2002', owner: { id: 'usr-0009' } }] },
      {
        url: `${A}/api/memberships`,
        body: [
          { projectId: 'prj-1001', role: 'admin' },
          { projectId: 'prj-2002', role: 'viewer' },
        ],
      },
    ]);
    expect(shown(db, 1)).toEqual(['task-1']);
    expect(shown(db, 2)).toEqual(['prj-1001', 'prj-2002']);
  });

  it('ES-10 an item read shows its path id only when its body shows the item; a null body shows none', () => {
    const db = load([
      { url: `${A}/api/projects/prj-1001`, body: { id: 'prj-1001', name: 'Alpha' } },
      { url: `${A}/api/projects/prj-1002`, body: 'null' },
      { url: `${A}/api/projects/prj-1003`, status: 404, body: { message: 'not found' } },
    ]);
    expect(shown(db, 1)).toEqual(['prj-1001']);
    expect(shown(db, 2)).toEqual([]);
    expect(shown(db, 3)).toEqual([]);
  });
});

describe('ES-9 a POST elsewhere that created an entity bounds the type', () => {
  it("ES-9 the spec example: POST /api/imports created prj-2002; the projects' initial read is #1 only", () => {
    const db = load([
      { start: '10:00:00.000', time: 40, url: `${A}/api/projects`, body: [{ id: 'prj-1001', name: 'Alpha' }] },
      { start: '10:00:01.000', time: 90, method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 'prj-2002', status: 'done' } },
      {
        start: '10:00:02.000',
        time: 40,
        url: `${A}/api/projects`,
        body: [
          { id: 'prj-1001', name: 'Alpha' },
          { id: 'prj-2002', name: 'Beta' },
        ],
      },
    ]);
    expect(db.prepare('select root_path, post_ordinal, created_id from post_created_ids').raw().all()).toEqual([
      ['/api/projects', 2, 'prj-2002'],
    ]);
    expect(
      db.prepare("select ordinal, bound_ordinal, bound_rule from initial_reads where root_path = '/api/projects'").raw().all(),
    ).toEqual([[1, 2, 'ES-9']]);
  });

  it('ES-9 an id the type showed before the POST was not created by it', () => {
    const db = load([
      { url: `${A}/api/projects`, body: [{ id: 'prj-2002' }] },
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 'prj-2002' } },
      { url: `${A}/api/projects`, body: [{ id: 'prj-2002' }] },
    ]);
    expect(db.prepare('select count(*) from post_created_ids').pluck().get()).toBe(0);
    expect(initial(db)).toEqual([1, 3]);
  });

  it("ES-9 a failed POST, or one under the type's own root, is not an ES-9 bound", () => {
    const db = load([
      { url: `${A}/api/projects`, body: [] },
      { method: 'POST', url: `${A}/api/imports`, status: 500, body: { id: 'prj-3003' } },
      { url: `${A}/api/projects`, body: [{ id: 'prj-3003' }] },
    ]);
    expect(db.prepare('select count(*) from post_created_ids').pluck().get()).toBe(0);
  });

  it('ES-9 a bare scalar or a sole scalar member names the id', () => {
    const bare = load([
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: '"prj-4004"' },
      { url: `${A}/api/projects`, body: [{ id: 'prj-4004' }] },
    ]);
    expect(bare.prepare('select created_id from post_created_ids').pluck().all()).toEqual(['prj-4004']);
    const sole = load([
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { ref: 'prj-5005', items: [] } },
      { url: `${A}/api/projects`, body: [{ id: 'prj-5005' }] },
    ]);
    expect(sole.prepare('select created_id from post_created_ids').pluck().all()).toEqual(['prj-5005']);
  });

  it('ES-9 an id shorter than four characters counts only with a read before and an item read naming it after', () => {
    const listOnly = load([
      { url: `${A}/api/projects`, body: [{ id: 1 }] },
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 7 } },
      { url: `${A}/api/projects`, body: [{ id: 1 }, { id: 7 }] },
    ]);
    expect(listOnly.prepare('select count(*) from post_created_ids').pluck().get()).toBe(0);
    const withItem = load([
      { url: `${A}/api/projects`, body: [{ id: 1 }] },
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 7 } },
      { url: `${A}/api/projects/7`, body: { id: 7 } },
    ]);
    expect(withItem.prepare('select root_path, created_id from post_created_ids').raw().all()).toEqual([['/api/projects', '7']]);
    expect(initial(withItem)).toEqual([1]);
  });
});

describe('ES-8 initial reads compose the ES-8 and ES-9 bounds', () => {
  it('ES-8 the earlier of the first write and a creating POST elsewhere bounds the type', () => {
    const db = load([
      { url: `${A}/api/projects`, body: [{ id: 'prj-1001' }] },
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 'prj-2002' } },
      { url: `${A}/api/projects`, body: [{ id: 'prj-1001' }, { id: 'prj-2002' }] },
      { method: 'PATCH', url: `${A}/api/projects/prj-1001`, body: { id: 'prj-1001' } },
      { url: `${A}/api/users`, body: [] },
    ]);
    expect(db.prepare('select ordinal, root_path, bound_ordinal, bound_rule from initial_reads order by ordinal').raw().all()).toEqual([
      [1, '/api/projects', 2, 'ES-9'],
      [5, '/api/users', null, null],
    ]);
  });
});

describe('review cases: ES-10, OQ-11, ES-9 edges', () => {
  it('ES-10 a 404 body, or a nested member, repeating the path id shows nothing', () => {
    const db = load([
      { url: `${A}/api/projects/prj-2002`, status: 404, body: { error: { code: 'not_found', id: 'prj-2002' } } },
      { url: `${A}/api/projects/prj-1001`, body: { id: 'prj-1001', link: { aliasOf: 'prj-3003' } } },
      { url: `${A}/api/projects/prj-3003`, body: { data: { owner: { ref: 'prj-3003' } } } },
      { url: `${A}/api/projects/prj-4004`, body: { project: { id: 'prj-4004' } } },
      { url: `${A}/api/projects/prj-5005`, body: [{ id: 'prj-5005' }] },
    ]);
    expect(db.prepare('select ordinal, shown_id from read_shown_ids order by ordinal').raw().all()).toEqual([
      [2, 'prj-1001'],
      [4, 'prj-4004'],
      [5, 'prj-5005'],
    ]);
  });

  it('OQ-11 a top-level array comes before an array inside a wrapper object', () => {
    const db = load([
      { url: `${A}/api/x`, body: { meta: { links: [{ id: 'lnk-1' }, { id: 'lnk-2' }] }, items: [{ id: 'itm-1' }, { id: 'itm-2' }] } },
    ]);
    expect(listOf(db, 1)).toEqual(['/items', 2, 'id', 'name']);
  });

  it('OQ-11 ids compare by spelling: 7 and "7" do not identify two entries', () => {
    const db = load([{ url: `${A}/api/x`, body: [{ id: 7 }, { id: '7' }] }]);
    expect(listOf(db, 1)).toEqual(['', 2, null, null]);
  });

  it('ES-10 when one entry lacks the identity name, the first distinct suffix-named field identifies the entries (the letter of ES-10)', () => {
    const db = load([{ url: `${A}/api/links`, body: [{ id: 'l-0001', projectId: 'prj-1' }, { projectId: 'prj-2' }] }]);
    expect(shown(db, 1)).toEqual(['prj-1', 'prj-2']);
  });

  it('ES-9 an array body names no id', () => {
    const db = load([
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: [{ id: 'prj-2002' }] },
      { url: `${A}/api/projects`, body: [{ id: 'prj-2002' }] },
    ]);
    expect(db.prepare('select count(*) from post_created_ids').pluck().get()).toBe(0);
  });

  it('ES-9 in record order: "after the POST started" means later in record order', () => {
    const db = load([
      { start: null, url: `${A}/api/projects`, body: [{ id: 'prj-1001' }] },
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 'prj-2002' } },
      { url: `${A}/api/projects`, body: [{ id: 'prj-1001' }, { id: 'prj-2002' }] },
    ]);
    expect(db.prepare('select post_ordinal, created_id from post_created_ids').raw().all()).toEqual([[2, 'prj-2002']]);
    expect(initial(db)).toEqual([1]);
  });
});
