import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { tempDir } from './helpers.js';
import { loadHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
const load = (exchanges: Exchange[]) => loadHar(dir, exchanges);

/**
 * Each admitted read as `initial_reads` (the one initial-read truth) places it: `initial`
 * before its type's bound, `unbounded` when nothing bounds its type, `excluded` when it
 * overlaps or follows the bound (ES-8).
 */
const positions = (db: Database.Database) =>
  Object.fromEntries(
    db
      .prepare(`select r.ordinal,
        case when i.record_id is null then 'excluded' when i.bound_ordinal is null then 'unbounded' else 'initial' end
      from read_records r left join initial_reads i on i.record_id = r.record_id order by r.ordinal`)
      .raw()
      .all() as [number, string][],
  );

describe('ES-8 the first write bounds a type', () => {
  it('ES-8 the spec example: #1 is before the PATCH, #3 overlaps it, #4 comes after', () => {
    const db = load([
      { start: '10:00:00.000', time: 50, url: `${A}/api/v1/items`, body: [{ id: 'it-01', name: 'A' }] },
      { start: '10:00:01.000', time: 80, method: 'PATCH', url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'B' } },
      { start: '10:00:01.050', time: 40, url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'B' } },
      { start: '10:00:02.000', time: 30, url: `${A}/api/v1/items`, body: [{ id: 'it-01', name: 'B' }] },
    ]);
    expect(positions(db)).toEqual({ 1: 'initial', 3: 'excluded', 4: 'excluded' });
    expect(db.prepare('select root_path, write_ordinal from first_write_per_root').raw().all()).toEqual([['/api/v1/items', 2]]);
  });

  it('ES-8 a read that ends exactly when the write starts overlaps it (closed intervals)', () => {
    const db = load([
      { start: '10:00:00.000', time: 1000, url: `${A}/api/things`, body: [] },
      { start: '10:00:01.000', time: 10, method: 'POST', url: `${A}/api/things`, body: { id: 'th-1' }, status: 201 },
    ]);
    expect(positions(db)).toEqual({ 1: 'excluded' });
  });

  it('ES-8 a zero-length read starting in the same millisecond as the write overlaps it', () => {
    const db = load([
      { start: '10:00:00.000', time: 0, url: `${A}/api/things`, body: [] },
      { start: '10:00:00.000', time: 5, method: 'POST', url: `${A}/api/things`, body: { id: 'th-1' }, status: 201 },
    ]);
    expect(positions(db)).toEqual({ 1: 'excluded' });
  });

  it('ES-8 a query POST does not count as a write', () => {
    const db = load([
      { url: `${A}/api/v1/items`, body: [] },
      { method: 'POST', url: `${A}/api/v1/items/search`, requestBody: { q: 'x' }, body: [] },
      { url: `${A}/api/v1/items`, body: [] },
    ]);
    expect(db.prepare('select count(*) from writes').pluck().get()).toBe(0);
    expect(positions(db)).toEqual({ 1: 'unbounded', 2: 'unbounded', 3: 'unbounded' });
  });

  it('ES-8 a write bounds its type whatever its status (OQ-8)', () => {
    const db = load([
      { url: `${A}/api/v1/items`, body: [] },
      { method: 'DELETE', url: `${A}/api/v1/items/it-01`, status: 500, body: { error: 'x' } },
      { url: `${A}/api/v1/items`, body: [] },
    ]);
    expect(positions(db)).toEqual({ 1: 'initial', 3: 'excluded' });
  });

  it('ES-8 a write bounds only its own type root', () => {
    const db = load([
      { url: `${A}/api/v1/items`, body: [] },
      { method: 'POST', url: `${A}/api/v1/orders`, body: { id: 'ord-1' }, status: 201 },
      { url: `${A}/api/v1/items`, body: [] },
      { url: `${A}/api/v1/orders`, body: [] },
    ]);
    expect(positions(db)).toEqual({ 1: 'unbounded', 3: 'unbounded', 4: 'excluded' });
  });

  it('ES-8 a write whose URL is redacted bounds every type', () => {
    const db = load([
      { url: `${A}/api/v1/items`, body: [] },
      { url: `${A}/api/v1/users`, body: [] },
      { method: 'POST', url: `${A}/api/v1/sessions/%5BREDACTED%5D`, body: {}, status: 201 },
      { url: `${A}/api/v1/items`, body: [] },
    ]);
    expect(positions(db)).toEqual({ 1: 'initial', 2: 'initial', 4: 'excluded' });
    expect(
      db.prepare('select root_path, write_ordinal, is_redacted_bound from first_write_per_root order by root_path').raw().all(),
    ).toEqual([
      ['/api/v1/items', 3, 1],
      ['/api/v1/sessions', 3, 1],
      ['/api/v1/users', 3, 1],
    ]);
  });

  it('ES-8 with record order (a start time missing) "before" means earlier in record order, with no overlap test', () => {
    const db = load([
      { start: null, url: `${A}/api/v1/items`, body: [] },
      { start: '10:00:00.000', time: 5000, method: 'PUT', url: `${A}/api/v1/items/it-01`, body: {} },
      { start: '10:00:01.000', url: `${A}/api/v1/items`, body: [] },
    ]);
    expect(db.prepare('select distinct timeline_order from records_timeline').pluck().get()).toBe('record-order');
    expect(positions(db)).toEqual({ 1: 'initial', 3: 'excluded' });
  });
});
