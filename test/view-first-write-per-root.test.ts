/** ES-8 (with OQ-8) as a view: fact rows in, `first_write_per_root` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();
const T0 = Date.UTC(2026, 0, 1);

/** Items (list, item and write tools under /api/items) and orders (a POST under /api/orders). */
function items(): FactStore & { list: number; patch: number; remove: number; orders: number } {
  const f = factStore(dir);
  return Object.assign(f, {
    list: f.tool({ template: '/api/items' }),
    patch: f.tool({ method: 'PATCH', template: '/api/items/{id}' }),
    remove: f.tool({ method: 'DELETE', template: '/api/items/{id}' }),
    orders: f.tool({ method: 'POST', template: '/api/orders' }),
  });
}

const bounds = (f: FactStore) =>
  f.rows('select root_path, write_ordinal, write_timeline_position, is_redacted_bound from first_write_per_root order by root_path');

describe('ES-8 first_write_per_root, rows in and out', () => {
  it('ES-8 the first write under a root on the timeline bounds it, whatever its status; a later write does not', () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', start: 0 });
    f.record({ tool: f.patch, path: '/api/items/it-1', start: 5000, pathParams: ['it-1'] });
    f.record({ tool: f.remove, path: '/api/items/it-2', start: 3000, duration: 60, status: 500, pathParams: ['it-2'] });
    // #3 started before #2: it is the first write on the timeline (position 2), though later in record order.
    expect(bounds(f)).toEqual([['/api/items', 3, 2, 0]]);
    expect(f.rows('select write_record_id, write_started_ms, write_ended_ms from first_write_per_root')).toEqual([
      [3, T0 + 3000, T0 + 3060],
    ]);
  });

  it('ES-8 a write bounds only its own root; reads and query POSTs are no writes', () => {
    const f = items();
    const search = f.tool({ method: 'POST', template: '/api/items/search', root: '/api/items', isQueryPost: true });
    const head = f.tool({ method: 'HEAD', template: '/api/items' });
    f.record({ tool: f.list, path: '/api/items' });
    f.record({ tool: search, path: '/api/items/search' });
    f.record({ tool: head, path: '/api/items' });
    f.record({ tool: f.orders, path: '/api/orders', status: 201 });
    expect(bounds(f)).toEqual([['/api/orders', 4, 4, 0]]);
  });

  it('ES-8 (OQ-8) a write whose URL is redacted bounds every root, unless a root has an earlier write of its own', () => {
    const f = items();
    const tags = f.tool({ template: '/api/tags' });
    f.record({ tool: f.orders, path: '/api/orders', start: 0, status: 201 });
    f.record({ tool: f.patch, path: '/api/items/it-1', start: 1000, redacted: true, pathParams: ['it-1'] });
    f.record({ tool: f.remove, path: '/api/items/it-2', start: 2000, pathParams: ['it-2'] });
    f.record({ tool: tags, path: '/api/tags', start: 3000 });
    expect(bounds(f)).toEqual([
      ['/api/items', 2, 2, 1],
      ['/api/orders', 1, 1, 0],
      ['/api/tags', 2, 2, 1],
    ]);
  });

  it('ES-8 with record order (a record lacks a start time), the first write is the first in record order', () => {
    const f = items();
    f.record({ tool: f.patch, path: '/api/items/it-1', start: 5000, pathParams: ['it-1'] });
    f.record({ tool: f.remove, path: '/api/items/it-2', start: 1000, pathParams: ['it-2'] });
    f.record({ tool: f.list, path: '/api/items', start: null });
    expect(bounds(f)).toEqual([['/api/items', 1, 1, 0]]);
  });
});
