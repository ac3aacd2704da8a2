/**
 * `shown_objects` (@rule none: the entity objects the latest record of a request line shows,
 * OQ-35: an item read's entity, ES-38, or a list read's objects, OQ-11) as a view: fact rows
 * in, rows out.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Each object a line's set shows, by the record showing it. */
const objects = (f: FactStore) =>
  f.rows(`select r.ordinal, o.set_pointer, o.object_pointer, o.list_index, o.object_count
    from shown_objects o join record r on r.response_body_id = o.body_id
    order by r.ordinal, o.list_index`);

/** Teams: list and item reads, and a write under their root. */
function teams(): FactStore & { list: number; item: number; post: number } {
  const f = factStore(dir);
  return Object.assign(f, {
    list: f.tool({ template: '/api/teams' }),
    item: f.tool({ template: '/api/teams/{id}' }),
    post: f.tool({ method: 'POST', template: '/api/teams' }),
  });
}

describe('shown_objects (OQ-35, ES-38, OQ-11), rows in and out', () => {
  it("ES-38 (OQ-11) an item read's located entity is one object; a list read's listed objects are counted in list order", () => {
    const f = teams();
    f.record({ tool: f.item, path: '/api/teams/t-1', pathParams: ['t-1'], body: { meta: {}, data: { id: 't-1', name: 'Ops' } } });
    f.record({ tool: f.list, path: '/api/teams', body: { teams: [{ id: 't-1' }, { id: 't-2' }], count: 2 } });
    expect(objects(f)).toEqual([
      [1, '/data', '/data', 0, 1],
      [2, '/teams', '/teams/0', 0, 2],
      [2, '/teams', '/teams/1', 1, 2],
    ]);
  });

  it("OQ-35 only each line's latest record: an earlier record of the line, and a later read of a line with initial reads, show none", () => {
    const f = teams();
    f.record({ tool: f.list, path: '/api/teams', body: [{ id: 't-1' }] });
    f.record({ tool: f.list, path: '/api/teams', body: [{ id: 't-1' }, { id: 't-2' }] });
    f.record({ tool: f.post, path: '/api/teams', status: 201, body: { id: 't-3' } });
    f.record({ tool: f.list, path: '/api/teams', body: [{ id: 't-1' }, { id: 't-2' }, { id: 't-3' }] });
    expect(objects(f)).toEqual([
      [2, '', '/0', 0, 2],
      [2, '', '/1', 1, 2],
    ]);
  });

  it('ES-38 (OQ-11) a read that locates no entity and has no list, or failed, shows no set', () => {
    const f = teams();
    f.record({ tool: f.item, path: '/api/teams/t-1', pathParams: ['t-1'], body: { message: 'moved' } });
    f.record({ tool: f.item, path: '/api/teams/t-2', pathParams: ['t-2'], status: 404, body: { id: 't-2' } });
    f.record({ tool: f.list, path: '/api/teams', body: { teams: 'none', total: 0 } });
    f.record({ tool: f.list, path: '/api/teams', query: 'page=2', body: [1, 2] });
    expect(objects(f)).toEqual([]);
  });
});
