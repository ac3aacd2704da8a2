/** ES-9 (with ES-10, OQ-10) as a view: fact rows in, `post_created_ids` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Projects (list and item tools) and imports (a POST tool under another type root). */
function projects(): FactStore & { list: number; item: number; imports: number } {
  const f = factStore(dir);
  return Object.assign(f, {
    list: f.tool({ template: '/api/projects' }),
    item: f.tool({ template: '/api/projects/{id}' }),
    imports: f.tool({ method: 'POST', template: '/api/imports' }),
  });
}

const created = (f: FactStore) =>
  f.rows('select root_path, post_ordinal, created_id from post_created_ids order by post_ordinal, created_id, root_path');

describe('ES-9 post_created_ids, rows in and out', () => {
  it('ES-9 a top-level identity member of 4+ characters that the type shows only after the POST', () => {
    const f = projects();
    f.record({ tool: f.list, path: '/api/projects', start: 0, duration: 40, body: [{ id: 'prj-1001', name: 'Alpha' }] });
    f.record({ tool: f.imports, path: '/api/imports', start: 1000, duration: 90, status: 201, body: { id: 'prj-2002', status: 'done' } });
    f.record({ tool: f.list, path: '/api/projects', start: 2000, duration: 40, body: [{ id: 'prj-1001' }, { id: 'prj-2002' }] });
    expect(created(f)).toEqual([['/api/projects', 2, 'prj-2002']]);
    expect(f.rows('select post_record_id, post_timeline_position, post_started_ms, post_ended_ms from post_created_ids')).toEqual([
      [2, 2, Date.UTC(2026, 0, 1) + 1000, Date.UTC(2026, 0, 1) + 1090],
    ]);
  });

  it('ES-9 an id a read completed before the POST showed was not created by it', () => {
    const f = projects();
    f.record({ tool: f.list, path: '/api/projects', start: 0, body: [{ id: 'prj-2002' }] });
    f.record({ tool: f.imports, path: '/api/imports', start: 1000, status: 201, body: { id: 'prj-2002' } });
    f.record({ tool: f.list, path: '/api/projects', start: 2000, body: [{ id: 'prj-2002' }] });
    expect(created(f)).toEqual([]);
  });

  it('ES-9 an id named by several POSTs was created by the first only: every later one has a read before it showing the id', () => {
    // The shape of a session repeated (issue 49's single-app capture): the same id is named
    // again and again; the rule reads each id's earliest showing once, not once per POST.
    const f = projects();
    f.record({ tool: f.list, path: '/api/projects', start: 0, body: [{ id: 'prj-1001' }] });
    for (const start of [1000, 3000, 5000]) {
      f.record({ tool: f.imports, path: '/api/imports', start, status: 201, body: { id: 'prj-2002' } });
      f.record({ tool: f.list, path: '/api/projects', start: start + 1000, body: [{ id: 'prj-1001' }, { id: 'prj-2002' }] });
    }
    expect(created(f)).toEqual([['/api/projects', 2, 'prj-2002']]);
  });

  it('ES-9 (OQ-10) a read in flight when the POST started counts as after when it shows the id', () => {
    const f = projects();
    f.record({ tool: f.list, path: '/api/projects', start: 0, duration: 20, body: [{ id: 'prj-1001' }] });
    f.record({ tool: f.list, path: '/api/projects', start: 900, duration: 300, body: [{ id: 'prj-1001' }, { id: 'prj-2002' }] });
    f.record({ tool: f.imports, path: '/api/imports', start: 1000, duration: 50, status: 201, body: { id: 'prj-2002' } });
    expect(created(f)).toEqual([['/api/projects', 3, 'prj-2002']]);
  });

  it("ES-9 (OQ-10) an identity member inside the object held by the body's single wrapper member", () => {
    const f = projects();
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { data: { id: 'prj-3003', name: 'Gamma' } } });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { data: { uuid: 'prj-3004' }, meta: {} } });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { data: { wrap: { id: 'prj-3005' } } } });
    f.record({ tool: f.list, path: '/api/projects', body: [{ id: 'prj-3003' }, { id: 'prj-3004' }, { id: 'prj-3005' }] });
    // Two top-level members is no single wrapper; an id two wrappers deep is not looked for.
    expect(created(f)).toEqual([['/api/projects', 1, 'prj-3003']]);
  });

  it('ES-9 a bare scalar body names the id: a string, or an integer by its decimal spelling', () => {
    const f = projects();
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: 'prj-4004' });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: 40050 });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: true });
    f.record({ tool: f.list, path: '/api/projects', body: [{ id: 'prj-4004' }, { id: 40050 }, { id: 'true' }] });
    expect(created(f)).toEqual([
      ['/api/projects', 1, 'prj-4004'],
      ['/api/projects', 2, '40050'],
    ]);
  });

  it('ES-9 the sole scalar member of the body object names the id; two scalars name none unless one is an identity member', () => {
    const f = projects();
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { ref: 'prj-5005', items: [], meta: { n: 1 } } });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { ref: 'prj-5006', state: 'ok' } });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { key: 'prj-5007', uid: 'prj-5008' } });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: [{ id: 'prj-5009' }] });
    f.record({
      tool: f.list,
      path: '/api/projects',
      body: ['prj-5005', 'prj-5006', 'prj-5007', 'prj-5008', 'prj-5009'].map((id) => ({ id })),
    });
    // `key` is never an identity name; a root array is not an object body.
    expect(created(f)).toEqual([
      ['/api/projects', 1, 'prj-5005'],
      ['/api/projects', 3, 'prj-5008'],
    ]);
  });

  it('ES-9 an id under four characters needs a read of the type before the POST and an item read naming it after', () => {
    const f = projects();
    f.record({ tool: f.list, path: '/api/projects', body: [{ id: 1 }] });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { id: 7 } });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { id: 8 } });
    f.record({ tool: f.list, path: '/api/projects', body: [{ id: 1 }, { id: 7 }, { id: 8 }] });
    f.record({ tool: f.item, path: '/api/projects/7', pathParams: ['7'], body: { id: 7 } });
    expect(created(f)).toEqual([['/api/projects', 2, '7']]);

    const unread = projects();
    unread.record({ tool: unread.imports, path: '/api/imports', status: 201, body: { id: 7 } });
    unread.record({ tool: unread.item, path: '/api/projects/7', pathParams: ['7'], body: { id: 7 } });
    expect(created(unread)).toEqual([]);
  });

  it("ES-9 a failed POST, a POST under the type's own root and a query POST are no ES-9 bound", () => {
    const f = projects();
    const own = f.tool({ method: 'POST', template: '/api/projects' });
    const search = f.tool({ method: 'POST', template: '/api/imports/search', root: '/api/imports', isQueryPost: true });
    f.record({ tool: f.imports, path: '/api/imports', status: 500, body: { id: 'prj-6006' } });
    f.record({ tool: own, path: '/api/projects', status: 201, body: { id: 'prj-6007' } });
    f.record({ tool: search, path: '/api/imports/search', body: { id: 'prj-6008' } });
    f.record({ tool: f.list, path: '/api/projects', body: [{ id: 'prj-6006' }, { id: 'prj-6007' }, { id: 'prj-6008' }] });
    expect(created(f)).toEqual([]);
  });

  it('ES-9 with record order (a record lacks a start time), "before" is earlier in record order', () => {
    const f = projects();
    f.record({ tool: f.list, path: '/api/projects', start: null, body: [{ id: 'prj-1001' }] });
    f.record({ tool: f.imports, path: '/api/imports', start: 5000, status: 201, body: { id: 'prj-2002' } });
    f.record({ tool: f.list, path: '/api/projects', start: 0, body: [{ id: 'prj-2002' }] });
    expect(f.rows('select distinct timeline_order from records_timeline')).toEqual([['record-order']]);
    expect(created(f)).toEqual([['/api/projects', 2, 'prj-2002']]);
  });

  it('ES-9 each type that shows the id only after the POST gets its own row', () => {
    const f = projects();
    const tasks = f.tool({ template: '/api/tasks' });
    f.record({ tool: f.imports, path: '/api/imports', status: 201, body: { id: 'obj-7007' } });
    f.record({ tool: f.list, path: '/api/projects', body: [{ id: 'obj-7007' }] });
    f.record({ tool: tasks, path: '/api/tasks', body: [{ id: 'obj-7007' }] });
    expect(created(f)).toEqual([
      ['/api/projects', 1, 'obj-7007'],
      ['/api/tasks', 1, 'obj-7007'],
    ]);
  });
});
