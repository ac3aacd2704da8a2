/** ES-23 (with OQ-18) as a view: fact rows in, `per_response_members` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { itemsFacts, type FactStore } from './view-facts.js';

const dir = tempDir();

/** A UUID that differs by `n` (OQ-18: 8-4-4-4-12 hex digits). */
const uuid = (n: number) => `6f1c2b3a-4d5e-4f60-8a7b-${n.toString(16).padStart(12, '0')}`;

const items = () => itemsFacts(dir);

const generated = (f: FactStore) => f.rows('select path, member_key from per_response_members order by path, member_key');

describe('ES-23 per_response_members, rows in and out', () => {
  it('ES-23 a top-level UUID or date-time that differs on each of three GETs of one path (query ignored) is generated per response', () => {
    const f = items();
    const queries = ['page=1', undefined, 'page=2'];
    queries.forEach((query, n) =>
      f.record({
        tool: f.list,
        path: '/api/items',
        query,
        body: {
          requestId: uuid(n),
          servedAt: `2026-01-01T10:00:0${n}Z`,
          name: 'items',
          items: [{ id: 'it-01', uuid: uuid(10 + n) }],
        },
      }),
    );
    // The steady `name` and the UUID inside a listed entry (not top-level) are not.
    expect(generated(f)).toEqual([
      ['/api/items', 'requestId'],
      ['/api/items', 'servedAt'],
    ]);
  });

  it('ES-23 (OQ-18) two GETs are no proof, and a value one consecutive pair repeats never is; only consecutive pairs compare', () => {
    const f = items();
    const read = (id: string, n: number) =>
      f.record({ tool: f.item, path: `/api/items/${id}`, pathParams: [id], body: { id, requestId: uuid(n) } });
    read('it-01', 1);
    read('it-01', 2);
    read('it-02', 1);
    read('it-02', 2);
    read('it-02', 2);
    // A, B, A: every consecutive pair differs.
    read('it-03', 1);
    read('it-03', 2);
    read('it-03', 1);
    expect(generated(f)).toEqual([['/api/items/it-03', 'requestId']]);
  });

  it('ES-23 (OQ-18) a clock that changes only across writes is data; one consecutive pair with no write between suffices', () => {
    const f = items();
    const read = (id: string, n: number) =>
      f.record({
        tool: f.item,
        path: `/api/items/${id}`,
        pathParams: [id],
        body: { id, updatedAt: 1767261600000 + n, serial: 1767261600000 + n },
      });
    const patch = (id: string) => f.record({ tool: f.patch, path: `/api/items/${id}`, pathParams: [id], body: { id } });
    read('it-01', 1);
    patch('it-01');
    read('it-01', 2);
    patch('it-01');
    read('it-01', 3);
    read('it-02', 1);
    patch('it-02');
    read('it-02', 2);
    read('it-02', 3);
    // A 13-digit integer counts as a clock only under a clock-like name (`serial` is not one).
    expect(generated(f)).toEqual([['/api/items/it-02', 'updatedAt']]);
  });

  it("ES-23 the member must be on every one of the path's successful GETs; a failed GET is not one of them", () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', body: { requestId: uuid(1), traceId: uuid(11), items: [] } });
    f.record({ tool: f.list, path: '/api/items', status: 500, body: { requestId: uuid(1), traceId: uuid(11) } });
    f.record({ tool: f.list, path: '/api/items', body: { requestId: uuid(2), items: [] } });
    f.record({ tool: f.list, path: '/api/items', body: { requestId: uuid(3), traceId: uuid(13), items: [] } });
    // The 500 repeats #1's values but is no successful GET; `traceId` is missing from #3.
    expect(generated(f)).toEqual([['/api/items', 'requestId']]);
  });
});
