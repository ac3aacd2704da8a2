/**
 * The variant and projection rules as views, tested as views: a small capture in, the view's
 * rows out (ES-12..ES-14, ES-17..ES-19, OQ-13, OQ-17, OQ-35), and the store's own
 * `collection_order` agreeing with `capstate state` once a variant row is listed first (ES-33).
 */
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { viewStores } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
const store = viewStores(dir);
const rows = (db: Database.Database, sql: string) => db.prepare(sql).all() as Record<string, unknown>[];
/** The latest ordinals of a chain view's lines where a flag holds. */
const ordinalsWhere = (db: Database.Database, view: string, flag: string) =>
  db.prepare(`select latest_ordinal from ${view} where ${flag} = 1 order by latest_ordinal`).pluck().all();

describe("ES-33 the store's collection_order and capstate state agree when a variant row is listed first", () => {
  it('ES-33 ES-19 `capstate sql` on collection_order gives the initial_order capstate state reports', () => {
    const db = store([
      {
        url: `${A}/api/v1/tags?include=x`,
        body: [
          { id: 'tg-b', name: 'B', x: 1 },
          { id: 'tg-a', name: 'A', x: 2 },
        ],
      },
      {
        url: `${A}/api/v1/tags`,
        body: [
          { id: 'tg-a', name: 'A' },
          { id: 'tg-b', name: 'B' },
        ],
      },
    ]);
    const file = db.name;
    // The file's view definition, as an SQL user reads it (stock sqlite3 compiles the expanded chain for over a minute).
    const sql = cli([
      'sql',
      "select entity_id from collection_order where root_path = '/api/v1/tags' order by state_order",
      '--db',
      file,
      '--json',
    ]);
    expect(sql.status, sql.stderr).toBe(0);
    const stored = (JSON.parse(sql.stdout) as { rows: { entity_id: string }[] }).rows.map((x) => x.entity_id);
    const r = cli(['state', '--db', file, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const types = (JSON.parse(r.stdout) as { types: { collection: string; initial_order: string[]; order_source: string }[] }).types;
    expect(types.find((t) => t.collection === 'tags')).toMatchObject({ initial_order: ['tg-a', 'tg-b'], order_source: 'row' });
    expect(stored).toEqual(['tg-a', 'tg-b']);
    expect(db.prepare('select entity_id from collection_order order by state_order').pluck().all()).toEqual(['tg-a', 'tg-b']);
  });
});

describe('OQ-13 query_param_roles', () => {
  it('OQ-13 names compare lower-cased without a bracket suffix: projection, pagination, ordering, random, shaping', () => {
    const db = store([
      { url: `${A}/api/v1/items?Fields[items]=id&page[size]=2&sort[0][field]=name&seed=7&include=tags`, body: [{ id: 'it-1' }] },
    ]);
    expect(rows(db, 'select name, bare_name, role, is_shaping from query_param_roles order by position')).toEqual([
      { name: 'Fields[items]', bare_name: 'fields', role: 'projection', is_shaping: 1 },
      { name: 'page[size]', bare_name: 'page', role: 'pagination', is_shaping: 0 },
      { name: 'sort[0][field]', bare_name: 'sort', role: 'ordering', is_shaping: 0 },
      { name: 'seed', bare_name: 'seed', role: 'random', is_shaping: 0 },
      { name: 'include', bare_name: 'include', role: 'shaping', is_shaping: 1 },
    ]);
  });
});

describe('OQ-35 shaping_lines', () => {
  it('OQ-35 one line per path and query string; repeats are one line named by its latest record; a later line only without initial reads', () => {
    const db = store([
      { url: `${A}/api/v1/users`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/users`, body: [{ id: 'u-1', name: 'Ann', age: 3 }] },
      { url: `${A}/api/v1/users?page=2`, body: [{ id: 'u-2', name: 'Bo' }, { id: 'u-3' }] },
      { method: 'POST', url: `${A}/api/v1/users`, status: 201, body: { id: 'u-4' } },
      { url: `${A}/api/v1/users`, body: [{ id: 'u-1' }] },
      { url: `${A}/api/v1/users?page=3`, body: [{ id: 'u-5', name: 'Cy' }] },
    ]);
    expect(
      rows(
        db,
        'select latest_ordinal, is_initial, record_count, object_count, member_count, common_member_count, members_signature from shaping_lines order by latest_ordinal',
      ),
    ).toEqual([
      {
        latest_ordinal: 2,
        is_initial: 1,
        record_count: 2,
        object_count: 1,
        member_count: 3,
        common_member_count: 3,
        members_signature: '3:age,2:id,4:name',
      },
      {
        latest_ordinal: 3,
        is_initial: 1,
        record_count: 1,
        object_count: 2,
        member_count: 2,
        common_member_count: 1,
        members_signature: '2:id,4:name',
      },
      {
        latest_ordinal: 6,
        is_initial: 0,
        record_count: 1,
        object_count: 1,
        member_count: 2,
        common_member_count: 2,
        members_signature: '2:id,4:name',
      },
    ]);
  });
});

describe('ES-12 projected_item_reads', () => {
  it('ES-12 a ?fields= item read that does not return the item is projected; one that returns it is not', () => {
    const db = store([
      { url: `${A}/api/books/bk-1`, body: { id: 'bk-1', title: 'Dune', year: 1965 } },
      { url: `${A}/api/books/bk-1?fields=title`, body: { title: 'Dune' } },
      { url: `${A}/api/books/bk-1?fields=id,title`, body: { id: 'bk-1', title: 'Dune' } },
      { url: `${A}/api/books/bk-1?fields=*`, body: { title: 'Dune' } },
    ]);
    expect(ordinalsWhere(db, 'projected_item_reads', 'is_projected_item')).toEqual([2]);
  });
});

describe('ES-13 projected_list_rows', () => {
  it('ES-13 a ?fields= list row is projected unless its objects carry every member the unprojected rows show', () => {
    const db = store([
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-1', name: 'Ann', email: 'a' },
          { id: 'u-2', name: 'Bo', email: 'b' },
        ],
      },
      {
        url: `${A}/api/v1/users?fields=id,name`,
        body: [
          { id: 'u-1', name: 'Ann' },
          { id: 'u-2', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?fields=id`,
        body: [
          { id: 'u-1', name: 'Ann', email: 'a' },
          { id: 'u-2', name: 'Bo', email: 'b' },
        ],
      },
    ]);
    expect(
      rows(
        db,
        'select latest_ordinal, unprojected_member_count, carried_member_count, is_projected_list from projected_list_rows order by latest_ordinal',
      ),
    ).toEqual([
      { latest_ordinal: 1, unprojected_member_count: 3, carried_member_count: 3, is_projected_list: 0 },
      { latest_ordinal: 2, unprojected_member_count: 3, carried_member_count: 2, is_projected_list: 1 },
      { latest_ordinal: 3, unprojected_member_count: 3, carried_member_count: 3, is_projected_list: 0 },
    ]);
  });
});

describe('ES-18 base_rows', () => {
  it('ES-18 rows naming no shaping parameter are the base; pagination is not shaping', () => {
    const db = store([
      { url: `${A}/api/v1/users?page=1`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/users?include=roles`, body: [{ id: 'u-1', name: 'Ann', roles: [] }] },
    ]);
    expect(rows(db, 'select latest_ordinal, base_choice, is_base from base_rows order by latest_ordinal')).toEqual([
      { latest_ordinal: 1, base_choice: 'no-shaping', is_base: 1 },
      { latest_ordinal: 2, base_choice: 'no-shaping', is_base: 0 },
    ]);
  });

  it('ES-18 without such rows, the rows asking for every field (*)', () => {
    const db = store([
      { url: `${A}/api/v1/users?fields=*`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/users?include=roles`, body: [{ id: 'u-1', name: 'Ann', roles: [] }] },
    ]);
    expect(rows(db, 'select latest_ordinal, base_choice, is_base from base_rows order by latest_ordinal')).toEqual([
      { latest_ordinal: 1, base_choice: 'all-fields', is_base: 1 },
      { latest_ordinal: 2, base_choice: 'all-fields', is_base: 0 },
    ]);
  });

  it('ES-18 OQ-15 otherwise the member set most rows share; ties go to the set with the earliest row', () => {
    const db = store([
      { url: `${A}/api/v1/users?view=long`, body: [{ id: 'u-1', name: 'Ann', bio: 'x' }] },
      { url: `${A}/api/v1/users?view=short`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/users?view=brief`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/tags?view=a`, body: [{ id: 't-1', x: 1 }] },
      { url: `${A}/api/v1/tags?view=b`, body: [{ id: 't-1', y: 1 }] },
    ]);
    expect(rows(db, 'select latest_ordinal, base_choice, is_base from base_rows order by latest_ordinal')).toEqual([
      { latest_ordinal: 1, base_choice: 'agree-most', is_base: 0 },
      { latest_ordinal: 2, base_choice: 'agree-most', is_base: 1 },
      { latest_ordinal: 3, base_choice: 'agree-most', is_base: 1 },
      { latest_ordinal: 4, base_choice: 'agree-most', is_base: 1 },
      { latest_ordinal: 5, base_choice: 'agree-most', is_base: 0 },
    ]);
  });
});

describe('ES-17 variant_rows', () => {
  it('ES-17 a row naming a parameter the base does not, with other members, is a variant; a page of other entities with the same members is not', () => {
    const db = store([
      {
        url: `${A}/api/v1/users?page=1`,
        body: [
          { id: 'u-1', name: 'Ann' },
          { id: 'u-2', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?page=1&include=roles`,
        body: [
          { id: 'u-1', name: 'Ann', roles: ['admin'] },
          { id: 'u-2', name: 'Bo', roles: [] },
        ],
      },
      { url: `${A}/api/v1/users?page=2`, body: [{ id: 'u-3', name: 'Cy' }] },
    ]);
    expect(
      rows(
        db,
        'select latest_ordinal, shows_entity_otherwise, names_param_base_lacks, carries_member_base_lacks, lacks_member_base_carries, is_variant from variant_rows order by latest_ordinal',
      ),
    ).toEqual([
      {
        latest_ordinal: 1,
        shows_entity_otherwise: 1,
        names_param_base_lacks: 0,
        carries_member_base_lacks: 0,
        lacks_member_base_carries: 0,
        is_variant: 0,
      },
      {
        latest_ordinal: 2,
        shows_entity_otherwise: 1,
        names_param_base_lacks: 1,
        carries_member_base_lacks: 1,
        lacks_member_base_carries: 0,
        is_variant: 1,
      },
      {
        latest_ordinal: 3,
        shows_entity_otherwise: 0,
        names_param_base_lacks: 0,
        carries_member_base_lacks: 0,
        lacks_member_base_carries: 0,
        is_variant: 0,
      },
    ]);
  });

  it('ES-17 a row that shows an entity with other members is a variant even when it names nothing the base rows do not', () => {
    const db = store([
      {
        url: `${A}/api/v1/users?fields=*&lang=en`,
        body: [
          { id: 'u-1', name: 'Ann' },
          { id: 'u-2', name: 'Bo' },
        ],
      },
      { url: `${A}/api/v1/users?lang=en`, body: [{ id: 'u-1', name: 'Ann', bio: 'x' }] },
    ]);
    expect(
      rows(
        db,
        'select latest_ordinal, shows_entity_otherwise, names_param_base_lacks, is_variant from variant_rows order by latest_ordinal',
      ),
    ).toEqual([
      { latest_ordinal: 1, shows_entity_otherwise: 1, names_param_base_lacks: 0, is_variant: 0 },
      { latest_ordinal: 2, shows_entity_otherwise: 1, names_param_base_lacks: 0, is_variant: 1 },
    ]);
    // The base rows all name fields, the variant omits it: that key tells it apart (ES-19).
    expect(rows(db, 'select key_name, key_value, is_omitted from variant_keys')).toEqual([
      { key_name: 'fields', key_value: null, is_omitted: 1 },
    ]);
  });
});

describe('ES-19 variant_keys and unchecked_lines', () => {
  it('ES-19 OQ-16 keys: a name only the variant gives, a value the base never gives, a name every base row gives and the variant omits', () => {
    const db = store([
      { url: `${A}/api/v1/users?fields=*&view=short`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/users?view=long&include=roles`, body: [{ id: 'u-1', name: 'Ann', bio: 'x', roles: [] }] },
    ]);
    expect(rows(db, 'select line_id, key_name, key_value, is_omitted from variant_keys order by key_name, key_value, is_omitted')).toEqual([
      { line_id: 2, key_name: 'fields', key_value: null, is_omitted: 1 },
      { line_id: 2, key_name: 'include', key_value: null, is_omitted: 0 },
      { line_id: 2, key_name: 'view', key_value: 'long', is_omitted: 0 },
    ]);
    expect(
      rows(db, 'select latest_ordinal, is_projected, is_distinguished, is_unchecked from unchecked_lines order by latest_ordinal'),
    ).toEqual([
      { latest_ordinal: 1, is_projected: 0, is_distinguished: 0, is_unchecked: 0 },
      { latest_ordinal: 2, is_projected: 0, is_distinguished: 1, is_unchecked: 1 },
    ]);
  });

  it('ES-19 kept_observations leave out every record of an unchecked line, repeats included', () => {
    const db = store([
      { url: `${A}/api/v1/users?include=roles`, body: [{ id: 'u-1', name: 'Ann', roles: [] }] },
      { url: `${A}/api/v1/users`, body: [{ id: 'u-1', name: 'Ann' }] },
      { url: `${A}/api/v1/users?include=roles`, body: [{ id: 'u-1', name: 'Ann', roles: [] }] },
    ]);
    expect(db.prepare('select ordinal from entity_observations order by ordinal').pluck().all()).toEqual([1, 2, 3]);
    expect(db.prepare('select ordinal from kept_observations order by ordinal').pluck().all()).toEqual([2]);
  });
});

describe('ES-14 late_shaping_rows', () => {
  const book = (extra: Record<string, unknown> = {}) => ({ id: 'bk-1', title: 'Dune', shelfId: 's-1', ...extra });
  it('ES-14 a later ?expand= row with another member is listed; a later ?fields= row omitting an always-shown member too; a later plain repeat is not', () => {
    const db = store([
      { url: `${A}/api/books/bk-1`, body: book() },
      { method: 'PATCH', url: `${A}/api/books/bk-1`, body: book() },
      { url: `${A}/api/books/bk-1?expand=shelf`, body: book({ shelf: { id: 's-1' } }) },
      { url: `${A}/api/books/bk-1?fields=id,title`, body: { id: 'bk-1', title: 'Dune' } },
      { url: `${A}/api/books/bk-1?lang=en`, body: book() },
    ]);
    expect(
      rows(
        db,
        'select latest_ordinal, names_new_shaping_param, carries_member_checked_lack, lacks_member_checked_show from late_shaping_rows order by latest_ordinal',
      ),
    ).toEqual([
      { latest_ordinal: 3, names_new_shaping_param: 1, carries_member_checked_lack: 1, lacks_member_checked_show: 0 },
      { latest_ordinal: 4, names_new_shaping_param: 0, carries_member_checked_lack: 0, lacks_member_checked_show: 1 },
    ]);
  });
});

describe('OQ-17 projection_values', () => {
  it('OQ-17 the values checked rows gave and the values replayed (projected) rows gave', () => {
    const db = store([
      { url: `${A}/api/v1/users?fields=*`, body: [{ id: 'u-1', name: 'Ann', email: 'a' }] },
      { url: `${A}/api/v1/users?fields=id,name`, body: [{ id: 'u-1', name: 'Ann' }] },
    ]);
    expect(rows(db, 'select projection_value, is_replayed from projection_values order by projection_value')).toEqual([
      { projection_value: '*', is_replayed: 0 },
      { projection_value: 'id,name', is_replayed: 1 },
    ]);
  });
});

describe('ES-21 view_fields', () => {
  it('ES-21 ES-25 fields in first-shown order, required when every observation shows them; a root entity leaves out its per-response members', () => {
    const db = store([
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-1', name: 'A' },
          { id: 'it-2', name: 'B', color: 'red' },
        ],
      },
      { url: `${A}/api/v1/items/it-1`, body: { id: 'it-1', requestId: '0b6f3c1e-6a52-4c1f-9d3e-2f6a8b7c9d01', name: 'A', size: 3 } },
      { url: `${A}/api/v1/items/it-1`, body: { id: 'it-1', requestId: '0b6f3c1e-6a52-4c1f-9d3e-2f6a8b7c9d02', name: 'A', size: 3 } },
      { url: `${A}/api/v1/items/it-1`, body: { id: 'it-1', requestId: '0b6f3c1e-6a52-4c1f-9d3e-2f6a8b7c9d03', name: 'A', size: 3 } },
    ]);
    const fields = (tool: string, scope: string) =>
      db.prepare('select field, is_required from view_fields where tool = ? and scope = ? order by field_order').raw().all(tool, scope);
    // The list view: `color` is shown by one of two observations, so it is not required.
    expect(fields('get_api_v1_items', 'list')).toEqual([
      ['id', 1],
      ['name', 1],
      ['color', 0],
    ]);
    // The item view: requestId differs on every repeat (ES-23), so the root entity does not own it (ES-25).
    expect(fields('get_api_v1_items_by_id', 'all')).toEqual([
      ['id', 1],
      ['name', 1],
      ['size', 1],
    ]);
  });
});

describe('ES-24 view_per_response_members', () => {
  const uuid = (i: number) => `0b6f3c1e-6a52-4c1f-9d3e-2f6a8b7c9d${String(i).padStart(2, '0')}`;
  const perView = (db: Database.Database) =>
    db.prepare('select tool, member_key from view_per_response_members order by tool, member_key').raw().all();

  it("ES-24 a view names a generated member only when every path it answers proves it; the list's proof is not the items'", () => {
    const db = store([
      ...[0, 1, 2].map((i) => ({ url: `${A}/api/v1/items`, body: { requestId: uuid(i), items: [{ id: 'it-01' }, { id: 'it-02' }] } })),
      // it-01 has one record, so the item view's path /it-01 proves nothing: the item view names nothing.
      { url: `${A}/api/v1/items/it-01`, body: { requestId: uuid(7), item: { id: 'it-01' } } },
      ...[3, 4, 5].map((i) => ({ url: `${A}/api/v1/items/it-02`, body: { requestId: uuid(i), item: { id: 'it-02' } } })),
    ]);
    expect(rows(db, 'select path, member_key from per_response_members order by path')).toEqual([
      { path: '/api/v1/items', member_key: 'requestId' },
      { path: '/api/v1/items/it-02', member_key: 'requestId' },
    ]);
    expect(perView(db)).toEqual([['get_api_v1_items', 'requestId']]);
  });

  it('ES-24 with each item path proven three times over, the item view names it', () => {
    const db = store([
      ...[0, 1, 2].map((i) => ({ url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', requestId: uuid(i) } })),
      ...[3, 4, 5].map((i) => ({ url: `${A}/api/v1/items/it-02`, body: { id: 'it-02', requestId: uuid(i) } })),
    ]);
    expect(perView(db)).toEqual([['get_api_v1_items_by_id', 'requestId']]);
  });
});
