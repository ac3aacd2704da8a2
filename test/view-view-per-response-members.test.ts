/** ES-24 (over ES-23's per-path proof) as a view: fact rows in, `view_per_response_members` rows out. */
import { describe, expect, it } from 'vitest';
import { type JsonObject } from '../src/json/exact.js';
import { tempDir } from './helpers.js';
import { itemsFacts, type FactStore } from './view-facts.js';

const dir = tempDir();

const uuid = (n: number) => `6f1c2b3a-4d5e-4f60-8a7b-${n.toString(16).padStart(12, '0')}`;

const items = () => itemsFacts(dir);

let n = 0;
/** A successful read of an item path, with a fresh request id. */
const readItem = (f: ReturnType<typeof items>, id: string, query?: string, body: JsonObject = { id, name: id }) =>
  f.record({ tool: f.item, path: `/api/items/${id}`, query, pathParams: [id], body: { ...body, requestId: uuid(n++) } });

const named = (f: FactStore) => f.rows('select tool, member_key from view_per_response_members order by tool, member_key');

describe('ES-24 view_per_response_members, rows in and out', () => {
  it('ES-24 a view names the per-response member that the one path it answers proves', () => {
    const f = items();
    for (let i = 0; i < 3; i++) f.record({ tool: f.list, path: '/api/items', body: { requestId: uuid(n++), items: [{ id: 'it-01' }] } });
    expect(named(f)).toEqual([['GET /api/items', 'requestId']]);
  });

  it("ES-24 every path the view answers must prove it: a collection's proof, or one item path's, does not carry over", () => {
    const f = items();
    for (let i = 0; i < 3; i++) f.record({ tool: f.list, path: '/api/items', body: { requestId: uuid(n++), items: [{ id: 'it-01' }] } });
    for (let i = 0; i < 3; i++) readItem(f, 'it-01');
    readItem(f, 'it-02');
    expect(named(f)).toEqual([['GET /api/items', 'requestId']]);
    for (let i = 0; i < 2; i++) readItem(f, 'it-02');
    expect(named(f)).toEqual([
      ['GET /api/items', 'requestId'],
      ['GET /api/items/{id}', 'requestId'],
    ]);
  });

  it('ES-24 (ES-19) a path answered only after the bound, or only by unchecked lines, is no path the view answers', () => {
    const f = items();
    for (let i = 0; i < 3; i++) readItem(f, 'it-01');
    // ES-12: a projected read that does not return the item.
    f.record({ tool: f.item, path: '/api/items/it-03', query: 'fields=name', pathParams: ['it-03'], body: { name: 'it-03' } });
    f.record({ tool: f.patch, path: '/api/items/it-01', pathParams: ['it-01'], body: { id: 'it-01' } });
    readItem(f, 'it-02');
    expect(named(f)).toEqual([['GET /api/items/{id}', 'requestId']]);
  });
});
