/** OQ-35 as a view: fact rows in, `line_records` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { itemsFacts, type FactStore } from './view-facts.js';

const dir = tempDir();

const items = () => itemsFacts(dir);

/** Each record on a line, with its path, query, whether it is initial, and the ordinal of the record naming its line. */
const lines = (f: FactStore) =>
  f.rows(
    'select l.ordinal, l.path, l.query, l.is_initial, r.ordinal from line_records l join record r on r.id = l.line_id order by l.ordinal',
  );

describe('OQ-35 line_records, rows in and out', () => {
  it("OQ-35 a line is one tool's path and query string; its repeats are one line, named by the latest on the timeline", () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', start: 3000, body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', start: 1000, body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', query: 'page=2', start: 2000, body: [{ id: 'it-2' }] });
    f.record({ tool: f.item, path: '/api/items/it-1', start: 4000, body: { id: 'it-1' }, pathParams: ['it-1'] });
    f.record({ tool: f.item, path: '/api/items/it-2', start: 5000, body: { id: 'it-2' }, pathParams: ['it-2'] });
    // #1 started last of the /api/items repeats: it names their line, though #2 is later in record order.
    expect(lines(f)).toEqual([
      [1, '/api/items', null, 1, 1],
      [2, '/api/items', null, 1, 1],
      [3, '/api/items', 'page=2', 1, 3],
      [4, '/api/items/it-1', null, 1, 4],
      [5, '/api/items/it-2', null, 1, 5],
    ]);
  });

  it('OQ-35 only successful GET reads are on lines: not a failed read, a HEAD, a query POST or a write', () => {
    const f = items();
    const head = f.tool({ method: 'HEAD', template: '/api/items' });
    const search = f.tool({ method: 'POST', template: '/api/search', isQueryPost: true });
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-1' }] });
    f.record({ tool: f.item, path: '/api/items/it-9', status: 404, body: { error: 'not found' }, pathParams: ['it-9'] });
    f.record({ tool: head, path: '/api/items' });
    f.record({ tool: search, path: '/api/search', body: [{ id: 'it-1' }] });
    f.record({ tool: f.patch, path: '/api/items/it-1', body: { id: 'it-1' }, pathParams: ['it-1'] });
    expect(lines(f)).toEqual([[1, '/api/items', null, 1, 1]]);
  });

  it('OQ-35 a later read joins a line only when the line has no initial read; such a line is named by its latest later read', () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-1' }] });
    f.record({ tool: f.patch, path: '/api/items/it-1', body: { id: 'it-1' }, pathParams: ['it-1'] });
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', query: 'sort=id', body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', query: 'sort=id', body: [{ id: 'it-1' }] });
    // #4 is after the write (ES-8) on a line with initial reads: on no line, and not its name (#2 is).
    expect(lines(f)).toEqual([
      [1, '/api/items', null, 1, 2],
      [2, '/api/items', null, 1, 2],
      [5, '/api/items', 'sort=id', 0, 6],
      [6, '/api/items', 'sort=id', 0, 6],
    ]);
  });

  it('OQ-35 the query string is compared as recorded: the same parameters in another order are another line', () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', query: 'page=1&sort=id', body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', query: 'sort=id&page=1', body: [{ id: 'it-1' }] });
    f.record({ tool: f.list, path: '/api/items', query: 'page=1&sort=id', body: [{ id: 'it-1' }] });
    expect(lines(f)).toEqual([
      [1, '/api/items', 'page=1&sort=id', 1, 3],
      [2, '/api/items', 'sort=id&page=1', 1, 2],
      [3, '/api/items', 'page=1&sort=id', 1, 3],
    ]);
  });
});
