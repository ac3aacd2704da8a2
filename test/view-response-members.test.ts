/**
 * `response_members` (@rule none: a view for exploring captures with SQL; its members are those
 * of usable bodies, ES-4) as a view: fact rows in, rows out.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore } from './view-facts.js';
import { unusableBody, withoutTool } from './view-facts-more.js';

const dir = tempDir();

describe('response_members (ES-4 usable bodies), rows in and out', () => {
  it("ES-4 each record's response members with pointer, parent, key, position, depth, type and value, the root included", () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    f.record({ tool: items, path: '/api/items', query: 'page=1', status: 206, body: { id: 'it-01', 'a/b': 2, tags: ['x'] } });
    expect(
      f.rows(`select ordinal, method, path, query, status, pointer, parent_pointer, key, position, depth, type, value
        from response_members order by pointer`),
    ).toEqual([
      [1, 'GET', '/api/items', 'page=1', 206, '', null, null, 0, 0, 'object', null],
      [1, 'GET', '/api/items', 'page=1', 206, '/a~1b', '', 'a/b', 1, 1, 'integer', 2],
      [1, 'GET', '/api/items', 'page=1', 206, '/id', '', 'id', 0, 1, 'string', 'it-01'],
      [1, 'GET', '/api/items', 'page=1', 206, '/tags', '', 'tags', 2, 1, 'array', null],
      [1, 'GET', '/api/items', 'page=1', 206, '/tags/0', '/tags', null, 0, 2, 'string', 'x'],
    ]);
  });

  it('ES-4 a record with no body or an unusable body has no members; a record of no tool (another origin) keeps its own', () => {
    const f = factStore(dir);
    const items = f.tool({ template: '/api/items' });
    f.record({ tool: items, path: '/api/items' });
    const html = f.record({ tool: items, path: '/api/items', body: { id: 'it-02' } });
    unusableBody(f, html);
    const cdn = f.record({ tool: items, path: '/cdn/config', body: { theme: 'dark' } });
    withoutTool(f, cdn);
    f.record({ tool: items, path: '/api/items', method: 'DELETE', status: 204, body: null });
    expect(f.rows('select ordinal, method, path, pointer, type, value from response_members order by ordinal, pointer')).toEqual([
      [3, 'GET', '/cdn/config', '', 'object', null],
      [3, 'GET', '/cdn/config', '/theme', 'string', 'dark'],
      [4, 'DELETE', '/api/items', '', 'null', null],
    ]);
  });
});
