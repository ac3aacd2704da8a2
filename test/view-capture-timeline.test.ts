/** ES-6 as a view: fact rows in, `capture_timeline` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

const timeline = (f: FactStore) => f.rows('select timeline_order, records, records_with_start from capture_timeline');

describe('ES-6 capture_timeline, rows in and out', () => {
  it('ES-6 every record has a start time: the capture is read in start-time order', () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    f.record({ tool: items, path: '/api/items', start: 2000 });
    f.record({ tool: items, path: '/api/items', start: 0 });
    f.record({ tool: items, path: '/api/items', start: 0 });
    expect(timeline(f)).toEqual([['start-time', 3, 3]]);
  });

  it('ES-6 one record without a start time switches the whole capture to record order', () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    const save = f.tool({ method: 'POST', template: '/api/items' });
    f.record({ tool: items, path: '/api/items', start: 0 });
    f.record({ tool: save, path: '/api/items', start: null, status: 201 });
    f.record({ tool: items, path: '/api/items', start: 3000 });
    expect(timeline(f)).toEqual([['record-order', 3, 2]]);
  });

  it('ES-6 (OQ-3) a record no tool groups is no primary-source record: it neither counts nor switches the order', () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    f.record({ tool: items, path: '/api/items', start: 0 });
    f.record({ tool: null, path: '/cdn/app.js', start: null });
    f.record({ tool: items, path: '/api/items', start: 1000 });
    expect(timeline(f)).toEqual([['start-time', 2, 2]]);
  });

  it('ES-6 a capture without primary-source records has no timeline row', () => {
    const f = factStore(dir);
    f.tool({ template: '/api/items' });
    expect(timeline(f)).toEqual([]);
    f.record({ tool: null, path: '/cdn/app.js' });
    expect(timeline(f)).toEqual([]);
  });
});
