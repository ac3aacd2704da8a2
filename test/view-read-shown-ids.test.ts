/** ES-10 (with ES-38, IDN-1, IDN-2) as a view: fact rows in, `read_shown_ids` rows out. */
import { describe, expect, it } from 'vitest';
import { type JsonValue } from '../src/json/exact.js';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

const shown = (f: FactStore) => f.rows('select ordinal, root_path, shown_id, shown_by from read_shown_ids order by ordinal, shown_id');

describe('ES-10 read_shown_ids, rows in and out', () => {
  it("ES-10 a list read shows the ids its entries carry, not a foreign key beside them or a nested entity's id", () => {
    const f = factStore(dir);
    const tasks = f.tool({ template: '/api/tasks' });
    f.record({
      tool: tasks,
      path: '/api/tasks',
      body: [
        { id: 'task-1', projectId: 'prj-2002', owner: { id: 'usr-0009' } },
        { id: 7, projectId: 'prj-2002', owner: { id: 'usr-0010' } },
      ],
    });
    // An integer id is shown by its decimal spelling.
    expect(shown(f)).toEqual([
      [1, '/api/tasks', '7', 'list'],
      [1, '/api/tasks', 'task-1', 'list'],
    ]);
  });

  it('ES-10 (IDN-1, IDN-2) without an identity name, the first suffix-named field distinct over two entries; one entry shows none', () => {
    const f = factStore(dir);
    const memberships = f.tool({ template: '/api/memberships' });
    f.record({
      tool: memberships,
      path: '/api/memberships',
      body: [
        { userId: 'usr-1', projectId: 'prj-1001', role: 'admin' },
        { userId: 'usr-1', projectId: 'prj-2002', role: 'viewer' },
      ],
    });
    // `userId` comes first but repeats; a one-entry list proves nothing (IDN-2).
    f.record({ tool: memberships, path: '/api/memberships', query: 'page=2', body: [{ projectId: 'prj-3003', role: 'admin' }] });
    expect(shown(f)).toEqual([
      [1, '/api/memberships', 'prj-1001', 'list'],
      [1, '/api/memberships', 'prj-2002', 'list'],
    ]);
  });

  it('ES-10 (ES-38) a successful item read shows its path id when its entity repeats it; null, an error or a deeper repeat show none', () => {
    const f = factStore(dir);
    const item = f.tool({ template: '/api/projects/{id}' });
    const read = (id: string, body: JsonValue, status = 200) =>
      f.record({ tool: item, path: `/api/projects/${id}`, pathParams: [id], status, body });
    read('prj-1', { id: 'prj-1', name: 'Alpha' });
    read('prj-2', { data: { id: 'prj-2', name: 'Beta' } });
    read('prj-3', null);
    read('prj-4', { id: 'prj-4', name: 'Gone' }, 404);
    read('prj-5', { data: { owner: { id: 'prj-5', name: 'Eve' } } });
    expect(shown(f)).toEqual([
      [1, '/api/projects', 'prj-1', 'item'],
      [2, '/api/projects', 'prj-2', 'item'],
    ]);
  });

  it("ES-10 a sub-resource list (a list template with a parameter) does not show its root's ids", () => {
    const f = factStore(dir);
    const members = f.tool({ template: '/api/teams/{id}/members' });
    f.record({ tool: members, path: '/api/teams/t-1/members', pathParams: ['t-1'], body: [{ id: 'usr-1' }, { id: 'usr-2' }] });
    expect(shown(f)).toEqual([]);
  });
});
