/** ES-21 (less ES-23's members at the body root, ES-25; kept observations, ES-19) as a view: fact rows in, `view_fields` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { itemsFacts, type FactStore } from './view-facts.js';

const dir = tempDir();

const items = () => itemsFacts(dir);

const fields = (f: FactStore) =>
  f.rows('select tool, scope, field, field_order, is_required from view_fields order by tool, scope, field_order');

describe('ES-21 view_fields, rows in and out', () => {
  it('ES-21 the ordered union of the members observations show, first shown first in body order; one all show is required', () => {
    const f = items();
    f.record({
      tool: f.list,
      path: '/api/items',
      body: [
        { archived: false, id: 'it-01' },
        { id: 'it-02', title: 'Two', archived: true },
      ],
    });
    f.record({ tool: f.item, path: '/api/items/it-01', pathParams: ['it-01'], body: { title: 'One', id: 'it-01', tags: [] } });
    f.record({ tool: f.item, path: '/api/items/it-02', pathParams: ['it-02'], body: { title: 'Two', id: 'it-02' } });
    // An item view counts all its observations ('all' only); a list view its list observations too.
    expect(fields(f)).toEqual([
      ['GET /api/items', 'all', 'archived', 0, 1],
      ['GET /api/items', 'all', 'id', 1, 1],
      ['GET /api/items', 'all', 'title', 2, 0],
      ['GET /api/items', 'list', 'archived', 0, 1],
      ['GET /api/items', 'list', 'id', 1, 1],
      ['GET /api/items', 'list', 'title', 2, 0],
      ['GET /api/items/{id}', 'all', 'title', 0, 1],
      ['GET /api/items/{id}', 'all', 'id', 1, 1],
      ['GET /api/items/{id}', 'all', 'tags', 2, 0],
    ]);
  });

  it('ES-21 a member the first observation lacks goes where its body has it, not after the first observation (Redmine: an optional category before subject)', () => {
    const f = items();
    f.record({
      tool: f.list,
      path: '/api/items',
      body: [
        { id: 'it-01', owner: 'a', title: 'One', done: false },
        { id: 'it-02', owner: 'b', category: 'c1', version: 'v1', title: 'Two', done: true },
        { id: 'it-03', priority: 1, owner: 'c', title: 'Three', done: false },
      ],
    });
    expect(
      fields(f)
        .filter((r) => r[1] === 'list')
        .map((r) => r[2]),
    ).toEqual(['id', 'priority', 'owner', 'category', 'version', 'title', 'done']);
  });

  it("ES-21 (ES-19) only kept initial observations count: a variant's extra member and a later read's omission change nothing", () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-01', archived: false }] });
    f.record({ tool: f.list, path: '/api/items', query: 'include=owner', body: [{ id: 'it-01', archived: false, owner: { id: 'u-1' } }] });
    f.record({ tool: f.patch, path: '/api/items/it-01', pathParams: ['it-01'], body: { id: 'it-01', title: 'New' } });
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-01', title: 'New' }] });
    // Relaxing `archived` from that later read is the write gate's step (ES-21 [gate]), not this view's.
    expect(fields(f)).toEqual([
      ['GET /api/items', 'all', 'id', 0, 1],
      ['GET /api/items', 'all', 'archived', 1, 1],
      ['GET /api/items', 'list', 'id', 0, 1],
      ['GET /api/items', 'list', 'archived', 1, 1],
    ]);
  });

  it('ES-21 (ES-23, ES-25) a member generated per response at the body root is no field, on the path that proves it', () => {
    const f = items();
    const uuid = (n: number) => `6f1c2b3a-4d5e-4f60-8a7b-${n.toString(16).padStart(12, '0')}`;
    for (const n of [1, 2, 3])
      f.record({ tool: f.item, path: '/api/items/it-01', pathParams: ['it-01'], body: { id: 'it-01', requestId: uuid(n), name: 'One' } });
    // it-02 is read once: its path proves nothing, so its `requestId` is shown (ES-24: no borrowing),
    // where its body has it: between `id` and `name` (decisions: "ES-21 / the ordered union").
    f.record({ tool: f.item, path: '/api/items/it-02', pathParams: ['it-02'], body: { id: 'it-02', requestId: uuid(4), name: 'Two' } });
    expect(fields(f)).toEqual([
      ['GET /api/items/{id}', 'all', 'id', 0, 1],
      ['GET /api/items/{id}', 'all', 'requestId', 1, 0],
      ['GET /api/items/{id}', 'all', 'name', 2, 1],
    ]);
  });
});
