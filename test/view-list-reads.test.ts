/** `list_reads` (no rule of its own; the list is OQ-11's, ES-22's): fact rows in, view rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

const reads = (f: FactStore) => f.rows('select ordinal, tool, list_pointer, entries from list_reads order by ordinal');

describe('OQ-11 list_reads, rows in and out', () => {
  it("OQ-11 a successful list read with a list: the list's pointer (root, top-level member, inside a wrapper) and its entry count", () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    const tags = f.tool({ template: '/api/tags' });
    const users = f.tool({ template: '/api/users' });
    f.record({ tool: items, path: '/api/items', body: [{ id: 'it-1' }, { id: 'it-2' }] });
    f.record({ tool: tags, path: '/api/tags', body: { total: 3, data: [{ id: 't-1' }, { id: 't-2' }, { id: 't-3' }] } });
    f.record({ tool: users, path: '/api/users', body: { result: { users: [{ id: 'u-1' }] }, requestId: 'r-1' } });
    expect(reads(f)).toEqual([
      [1, 'GET /api/items', '', 2],
      [2, 'GET /api/tags', '/data', 3],
      [3, 'GET /api/users', '/result/users', 1],
    ]);
  });

  it('OQ-11 item reads and failed reads are no list reads, whatever their body holds', () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    const item = f.tool({ template: '/api/items/{id}' });
    f.record({ tool: item, path: '/api/items/it-1', body: [{ id: 'it-1' }], pathParams: ['it-1'] });
    f.record({ tool: items, path: '/api/items', status: 500, body: [{ id: 'it-1' }] });
    f.record({ tool: items, path: '/api/items', status: 304, body: [{ id: 'it-1' }] });
    f.record({ tool: items, path: '/api/items', status: 206, body: [{ id: 'it-1' }] });
    expect(reads(f)).toEqual([[4, 'GET /api/items', '', 1]]);
  });

  it('OQ-11 (ES-22) a list read whose body has no list is none: an entity envelope, an empty array, scalars, no body', () => {
    const f = factStore(dir);
    const teams = f.tool({ template: '/api/teams' });
    f.record({ tool: teams, path: '/api/teams', body: { id: 't-1', members: [{ id: 'u-1' }, { id: 'u-2' }] } });
    f.record({ tool: teams, path: '/api/teams', body: [] });
    f.record({ tool: teams, path: '/api/teams', body: ['t-1', 't-2'] });
    f.record({ tool: teams, path: '/api/teams', body: [{ id: 't-1' }, 't-2'] });
    f.record({ tool: teams, path: '/api/teams' });
    f.record({ tool: teams, path: '/api/teams', body: { teams: [{ id: 't-1' }, { id: 't-2' }] } });
    expect(reads(f)).toEqual([[6, 'GET /api/teams', '/teams', 2]]);
  });
});
