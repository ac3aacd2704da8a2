/** DESC-4 as a view: fact rows in, `tool_statuses` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';
import { withoutTool } from './view-facts-more.js';

const dir = tempDir();

const statuses = (f: FactStore) => f.rows('select tool, status, records from tool_statuses order by tool, status');

describe('DESC-4 tool_statuses, rows in and out', () => {
  it("DESC-4 a tool's recorded statuses are the distinct statuses of its own records, with how many records gave each", () => {
    const f = factStore(dir);
    const item = f.tool({ template: '/api/items/{id}' });
    const post = f.tool({ method: 'POST', template: '/api/items' });
    f.record({ tool: item, path: '/api/items/it-1', pathParams: ['it-1'], body: { id: 'it-1' } });
    f.record({ tool: item, path: '/api/items/it-2', pathParams: ['it-2'], status: 404, body: { error: 'not found' } });
    f.record({ tool: item, path: '/api/items/it-1', pathParams: ['it-1'], body: { id: 'it-1' } });
    f.record({ tool: post, path: '/api/items', status: 201, body: { id: 'it-3' } });
    f.record({ tool: post, path: '/api/items', status: 422, body: { error: 'invalid' } });
    expect(statuses(f)).toEqual([
      ['GET /api/items/{id}', 200, 2],
      ['GET /api/items/{id}', 404, 1],
      ['POST /api/items', 201, 1],
      ['POST /api/items', 422, 1],
    ]);
  });

  it('DESC-4 a request that got no response (status 0 or -1) has no status, and a record of no tool belongs to none', () => {
    const f = factStore(dir);
    const item = f.tool({ template: '/api/items/{id}' });
    const aborted = f.tool({ template: '/api/slow' });
    f.record({ tool: item, path: '/api/items/it-1', pathParams: ['it-1'], status: 0 });
    f.record({ tool: item, path: '/api/items/it-1', pathParams: ['it-1'], status: -1 });
    f.record({ tool: aborted, path: '/api/slow', status: 0 });
    withoutTool(f, f.record({ tool: item, path: '/cdn/items/it-1', status: 503 }));
    f.record({ tool: item, path: '/api/items/it-1', pathParams: ['it-1'], status: 304 });
    // `/api/slow` got no response at all: it has no row (shown as "no recorded status").
    expect(statuses(f)).toEqual([['GET /api/items/{id}', 304, 1]]);
  });
});
