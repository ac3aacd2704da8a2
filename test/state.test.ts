/**
 * The environment-state view end to end: a small capture per rule, loaded and read back with
 * `capstate state --json`; each test asserts the view facts its rule decides.
 */
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
let n = 0;

interface Plan {
  tool: string;
  kind: string;
  reason?: string;
  detail?: string;
  [k: string]: unknown;
}
interface State {
  format_version: number;
  kind: string;
  sha256: string;
  timeline_order: string;
  limitations: string[];
  evidence: {
    status: string;
    unknown: string[];
    write_effects: { verified: { tool: string; effect: string }[]; replayed: { tool: string; reason: string }[] };
  };
  types: { collection: string; root_path: string; identity: string; identity_source: string; initial_order: string[] }[];
  entities: {
    collection: string;
    id: string;
    value: Record<string, unknown>;
    view_values: Record<string, Record<string, unknown>>;
    state_order: number;
    record_ordinals: number[];
  }[];
  documents: { tool: string; path: string; value: unknown; record_ordinal: number }[];
  plans: Plan[];
}

function stateOf(exchanges: Exchange[], extra: string[] = []): State {
  const file = writeHar(dir, `state-${n++}.har`, exchanges);
  const r = cli(['state', file, '--json', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}
const entity = (s: State, collection: string, id: string) => s.entities.find((e) => e.collection === collection && e.id === id);
const ids = (s: State, collection: string) => s.entities.filter((e) => e.collection === collection).map((e) => e.id);
const plan = (s: State, tool: string) => {
  const p = s.plans.find((x) => x.tool === tool);
  if (!p) throw new Error(`no plan for ${tool}; plans: ${s.plans.map((x) => x.tool).join(', ')}`);
  return p;
};
const kinds = (s: State) => Object.fromEntries(s.plans.map((p) => [p.tool, p.kind === 'record' ? `record:${p.reason}` : p.kind]));

describe('ES-1 the view kind', () => {
  it('ES-1 inspect-analysis-view --view {"kind":"environment-state"} prints the same bytes as state --json', () => {
    const file = writeHar(dir, 'es1.har', [{ url: `${A}/api/items`, body: [{ id: 'it-01' }, { id: 'it-02' }] }]);
    const a = cli(['state', file, '--json']);
    const b = cli(['inspect-analysis-view', file, '--view', '{"kind":"environment-state"}']);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(JSON.parse(b.stdout).kind).toBe('environment-state');
  });

  it('ES-1 another view kind is a usage error naming the kinds it knows', () => {
    const file = writeHar(dir, 'es1b.har', [{ url: `${A}/api/items`, body: [] }]);
    const r = cli(['inspect-analysis-view', file, '--view', '{"kind":"nope"}']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/environment-state/);
  });
});

describe('ES-2 admissible parents', () => {
  it('ES-2 a parent the manifest rejects is rejected by the view (URL userinfo)', () => {
    const file = writeHar(dir, 'es2.har', [{ url: 'http://user:hunter22@app.test/api/items', body: [] }]);
    const r = cli(['state', file]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
  });

  it('ES-2 records of other origins are not read by the view', () => {
    const s = stateOf([
      { url: `${A}/api/items`, body: [{ id: 'it-01' }] },
      { url: 'http://cdn.other.test/api/items', body: [{ id: 'x-99' }] },
    ]);
    expect(ids(s, 'items')).toEqual(['it-01']);
  });
});

describe('ES-3 grouping records into tools', () => {
  it('ES-3 every plan names a manifest tool, one plan per read tool and none for writes', () => {
    const file = writeHar(dir, 'es3.har', [
      { url: `${A}/api/items`, body: [{ id: 'it-01' }] },
      { url: `${A}/api/items/it-01`, body: { id: 'it-01' } },
      { method: 'POST', url: `${A}/api/items`, status: 201, body: { id: 'it-02' } },
    ]);
    const m = JSON.parse(cli(['manifest', file, '--json']).stdout).manifests[0];
    const s = JSON.parse(cli(['state', file, '--json']).stdout) as State;
    const reads = m.tools
      .filter((t: { method: string }) => t.method === 'GET')
      .map((t: { name: string }) => t.name)
      .sort();
    expect(s.plans.map((p) => p.tool).sort()).toEqual(reads);
  });
});

describe('ES-4 usable response bodies', () => {
  it('ES-4 a list whose latest initial body is not usable JSON is body-unusable', () => {
    const s = stateOf([{ url: `${A}/api/report`, body: '<html>no</html>', mimeType: 'text/html' }]);
    expect(plan(s, 'get_api_report')).toMatchObject({ kind: 'record', reason: 'body-unusable' });
  });

  it('ES-4 a body with a __proto__ member is unusable and yields no entity', () => {
    const s = stateOf([{ url: `${A}/api/items`, body: '[{"id":"it-01","__proto__":{"x":1}}]' }]);
    expect(s.entities).toEqual([]);
    expect(plan(s, 'get_api_items')).toMatchObject({ kind: 'record', reason: 'body-unusable' });
  });

  it('ES-4 64-bit integers keep every digit in entity values', () => {
    const file = writeHar(dir, 'es4big.har', [
      { url: `${A}/api/items`, body: '[{"id":"it-01","big":9007199254740993},{"id":"it-02","big":1}]' },
    ]);
    const r = cli(['state', file, '--json']);
    expect(r.stdout).toContain('"big": 9007199254740993');
  });
});

describe('ES-6 timeline order', () => {
  it('ES-6 the view states start-time order when every record has a start time', () => {
    expect(stateOf([{ url: `${A}/api/items`, body: [] }]).timeline_order).toBe('start-time');
  });

  it('ES-6 one record without a start time puts the whole capture in record order', () => {
    const s = stateOf([
      { url: `${A}/api/items`, body: [{ id: 'it-01', name: 'A' }], start: null },
      { method: 'PATCH', url: `${A}/api/items/it-01`, body: { id: 'it-01', name: 'B' }, start: '10:00:00.000' },
    ]);
    expect(s.timeline_order).toBe('record-order');
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', name: 'A' });
  });
});

describe('ES-7 type root path', () => {
  it('ES-7 types carry their root path: API base, version segment and one more segment', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01' }, { id: 'it-02' }] },
      { url: `${A}/api/folders`, body: [{ uid: 'f-1' }, { uid: 'f-2' }] },
    ]);
    expect(s.types.map((t) => [t.collection, t.root_path, t.identity])).toEqual([
      ['folders', '/api/folders', 'uid'],
      ['items', '/api/v1/items', 'id'],
    ]);
  });
});

describe('ES-8 the first write bounds a type', () => {
  const example: Exchange[] = [
    { url: `${A}/api/v1/items`, start: '10:00:00.000', time: 50, body: [{ id: 'it-01', name: 'A' }] },
    { method: 'PATCH', url: `${A}/api/v1/items/it-01`, start: '10:00:01.000', time: 80, body: { id: 'it-01', name: 'B' } },
    { url: `${A}/api/v1/items/it-01`, start: '10:00:01.050', time: 40, body: { id: 'it-01', name: 'B' } },
    { url: `${A}/api/v1/items`, start: '10:00:02.000', time: 30, body: [{ id: 'it-01', name: 'B' }] },
  ];

  it('ES-8 the spec example: it-01 = {"id":"it-01","name":"A"}; the list plan reproduces #1; the item tool has no initial record', () => {
    const s = stateOf(example);
    expect(s.entities).toMatchObject([{ collection: 'items', id: 'it-01', value: { id: 'it-01', name: 'A' }, record_ordinals: [1] }]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'list', lines: [{ record_ordinal: 1 }] });
    expect(plan(s, 'get_api_v1_items_by_id')).toMatchObject({ kind: 'record', reason: 'no-initial-record' });
  });

  it('ES-8 a query POST bounds nothing', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01', name: 'A' }] },
      { method: 'POST', url: `${A}/api/v1/items/search`, requestBody: { q: 'A' }, body: [{ id: 'it-01', name: 'A' }] },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01', name: 'A2' }] },
    ]);
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', name: 'A2' });
  });

  it('ES-8 a write with a redacted URL bounds every type and the view counts it in a limitation note', () => {
    // The write's URL echoes the bearer token, so the loader redacts it (is_url_redacted).
    const auth = [{ name: 'Authorization', value: 'Bearer s3cr3tT0ken99xyz' }];
    const s = stateOf([
      { url: `${A}/api/a`, headers: auth, body: [{ id: 'a-01', v: 1 }] },
      { method: 'POST', url: `${A}/api/b/s3cr3tT0ken99xyz`, headers: auth, body: {} },
      { url: `${A}/api/a`, headers: auth, body: [{ id: 'a-01', v: 2 }] },
    ]);
    expect(s.limitations).toEqual(['1 write with a redacted URL bounds every type (ES-8)']);
    expect(entity(s, 'a', 'a-01')?.value).toEqual({ id: 'a-01', v: 1 });
  });
});

describe('ES-9 a POST elsewhere that created an entity', () => {
  it('ES-9 the spec example: the import created prj-2002; the state holds prj-1001 only', () => {
    const s = stateOf([
      { url: `${A}/api/projects`, start: '10:00:00.000', time: 40, body: [{ id: 'prj-1001', name: 'Alpha' }] },
      { method: 'POST', url: `${A}/api/imports`, start: '10:00:01.000', time: 90, status: 201, body: { id: 'prj-2002', status: 'done' } },
      {
        url: `${A}/api/projects`,
        start: '10:00:02.000',
        time: 40,
        body: [
          { id: 'prj-1001', name: 'Alpha' },
          { id: 'prj-2002', name: 'Beta' },
        ],
      },
    ]);
    expect(ids(s, 'projects')).toEqual(['prj-1001']);
    expect(plan(s, 'get_api_projects')).toMatchObject({ kind: 'list', lines: [{ record_ordinal: 1 }] });
  });

  it('ES-9 without a read showing the id after the POST nothing is bounded', () => {
    const s = stateOf([
      { url: `${A}/api/projects`, body: [{ id: 'prj-1001', name: 'Alpha' }] },
      { method: 'POST', url: `${A}/api/imports`, status: 201, body: { id: 'imp-9', status: 'done' } },
      { url: `${A}/api/projects`, body: [{ id: 'prj-1001', name: 'Alpha' }] },
    ]);
    expect(plan(s, 'get_api_projects')).toMatchObject({ kind: 'list', lines: [{ record_ordinal: 3 }] });
  });
});

describe('ES-10 which ids a read shows', () => {
  it("ES-10 a foreign key beside the id and a nested entity's id are not the list's ids", () => {
    const s = stateOf([
      { url: `${A}/api/tasks`, body: [{ id: 'task-1', projectId: 'prj-2002', owner: { id: 'usr-0009' } }] },
      {
        url: `${A}/api/memberships`,
        body: [
          { projectId: 'prj-1001', role: 'admin' },
          { projectId: 'prj-2002', role: 'viewer' },
        ],
      },
    ]);
    expect(ids(s, 'tasks')).toEqual(['task-1']);
    expect(ids(s, 'memberships')).toEqual(['prj-1001', 'prj-2002']);
  });
});

describe('ES-11 identity from path values, otherwise from identity names', () => {
  it('ES-11 the spec example: uid proven by the item path; list and item merge into one entity', () => {
    const s = stateOf([
      { url: `${A}/api/folders`, body: [{ id: 1, uid: 'nErXDvCkzz', title: 'Dept' }] },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { id: 1, uid: 'nErXDvCkzz', title: 'Dept', version: 1 } },
    ]);
    expect(s.types).toMatchObject([{ collection: 'folders', identity: 'uid', identity_source: 'path' }]);
    expect(s.entities).toMatchObject([
      { id: 'nErXDvCkzz', value: { id: 1, uid: 'nErXDvCkzz', title: 'Dept', version: 1 }, record_ordinals: [1, 2] },
    ]);
    expect(kinds(s)).toEqual({ get_api_folders: 'list', get_api_folders_by_uid: 'item' });
  });

  it('ES-11 without the item read the identity comes from the identity names (id, carried by the one entry)', () => {
    const s = stateOf([{ url: `${A}/api/folders`, body: [{ id: 1, uid: 'nErXDvCkzz', title: 'Dept' }] }]);
    expect(s.types).toMatchObject([{ identity: 'id', identity_source: 'name' }]);
    expect(ids(s, 'folders')).toEqual(['1']);
  });
});

describe('ES-22 an envelope that is an entity is not a list', () => {
  it('ES-22 the team is the entity; members is one of its members', () => {
    const s = stateOf([{ url: `${A}/api/teams/team-1`, body: { id: 'team-1', name: 'Ops', members: [{ id: 'usr-1' }, { id: 'usr-2' }] } }]);
    expect(s.entities).toEqual([expect.objectContaining({ collection: 'teams', id: 'team-1' })]);
    expect(entity(s, 'teams', 'team-1')?.value.members).toEqual([{ id: 'usr-1' }, { id: 'usr-2' }]);
    expect(plan(s, 'get_api_teams_by_id')).toMatchObject({ kind: 'item', entity_pointer: '' });
  });
});

describe('ES-26 one entity per collection and identity', () => {
  const example: Exchange[] = [
    { url: `${A}/api/v1/items`, body: [{ id: 'it-01', name: 'A', views: 10 }] },
    { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'A', views: 11, notes: 'x' } },
    { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'A', views: 12, notes: 'x' } },
  ];

  it('ES-26 the spec example: views is volatile, the entity keeps 12 and the list view its own 10', () => {
    const s = stateOf(example);
    expect(s.entities).toEqual([
      expect.objectContaining({
        id: 'it-01',
        value: { id: 'it-01', name: 'A', views: 12, notes: 'x' },
        view_values: { get_api_v1_items: { views: 10 } },
        record_ordinals: [1, 2, 3],
      }),
    ]);
    // Each view renders its own value, so both plans reproduce their records.
    expect(kinds(s)).toEqual({ get_api_v1_items: 'list', get_api_v1_items_by_id: 'item' });
  });

  it('ES-26 list views fill only fields no item view shows', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'Item' } },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01', name: 'Listed', rank: 3 }] },
    ]);
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', name: 'Item', rank: 3 });
  });
});

describe("ES-33 a collection's initial order", () => {
  it('ES-33 the spec example: the unsorted complete row decides tg-c, tg-a, tg-b', () => {
    const s = stateOf([
      { url: `${A}/api/v1/tags?_sort=name`, body: [{ id: 'tg-a' }, { id: 'tg-b' }, { id: 'tg-c' }] },
      { url: `${A}/api/v1/tags`, body: [{ id: 'tg-c' }, { id: 'tg-a' }, { id: 'tg-b' }] },
    ]);
    expect(s.types[0].initial_order).toEqual(['tg-c', 'tg-a', 'tg-b']);
    expect(ids(s, 'tags')).toEqual(['tg-c', 'tg-a', 'tg-b']);
  });

  it('ES-33 without it, earliest appearance: tg-a, tg-b, tg-c; the sorted row cannot be rendered from an all-membership list in that order… and it is', () => {
    const s = stateOf([{ url: `${A}/api/v1/tags?_sort=name`, body: [{ id: 'tg-a' }, { id: 'tg-b' }, { id: 'tg-c' }] }]);
    expect(s.types[0].initial_order).toEqual(['tg-a', 'tg-b', 'tg-c']);
    expect(plan(s, 'get_api_v1_tags').kind).toBe('list');
  });
});

describe("ES-34 an entity's state order and record references", () => {
  it('ES-34 state order follows the collection order; record ordinals are in timeline order, whichever view saw the entity first', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items/it-02`, start: '10:00:00.000', body: { id: 'it-02' } },
      { url: `${A}/api/v1/items`, start: '10:00:02.000', body: [{ id: 'it-01' }, { id: 'it-02' }] },
      { url: `${A}/api/v1/items/it-01`, start: '10:00:01.000', body: { id: 'it-01' } },
    ]);
    expect(s.entities.map((e) => [e.id, e.state_order, e.record_ordinals])).toEqual([
      ['it-01', 0, [3, 2]],
      ['it-02', 1, [1, 2]],
    ]);
  });
});

describe('ES-35 all membership and ES-36 counters', () => {
  it('ES-35 ES-36 the spec example: #1 is all with the counter /pageInfo/totalRows; #2 is recorded (total 5, next set)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, body: { items: [{ id: 'it-01' }, { id: 'it-02' }], pageInfo: { totalRows: 2, isLastPage: true } } },
      {
        url: `${A}/api/v1/items?limit=2`,
        body: { items: [{ id: 'it-01' }, { id: 'it-02' }], total: 5, next: '/api/v1/items?limit=2&offset=2' },
      },
    ]);
    const p = plan(s, 'get_api_v1_items');
    // The two lines' envelopes differ beyond the list (ES-25): the tool stays recorded.
    expect(p).toMatchObject({ kind: 'record', reason: 'fields-differ' });
    const one = stateOf([
      { url: `${A}/api/v1/items`, body: { items: [{ id: 'it-01' }, { id: 'it-02' }], pageInfo: { totalRows: 2, isLastPage: true } } },
    ]);
    expect(plan(one, 'get_api_v1_items')).toMatchObject({
      kind: 'list',
      list_pointer: '/items',
      membership: 'all',
      counters: ['/pageInfo/totalRows'],
    });
    const two = stateOf([
      {
        url: `${A}/api/v1/items?limit=2`,
        body: { items: [{ id: 'it-01' }, { id: 'it-02' }], total: 5, next: '/api/v1/items?limit=2&offset=2' },
      },
    ]);
    expect(plan(two, 'get_api_v1_items')).toMatchObject({
      kind: 'list',
      membership: 'recorded',
      counters: [],
      lines: [{ listed_ids: ['it-01', 'it-02'] }],
    });
  });
});

describe('ES-35 OQ-25 a recorded list renders what it listed', () => {
  it('ES-35 a page with total 5 lists its two entities, not the third the state knows from an item read', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items/it-03`, body: { id: 'it-03' } },
      { url: `${A}/api/v1/items?limit=2`, body: { items: [{ id: 'it-01' }, { id: 'it-02' }], total: 5 } },
    ]);
    expect(ids(s, 'items').sort()).toEqual(['it-01', 'it-02', 'it-03']);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({
      kind: 'list',
      membership: 'recorded',
      lines: [{ listed_ids: ['it-01', 'it-02'] }],
    });
  });

  it('ES-35 an all list renders the whole collection, so it cannot be reproduced when the state knows more than it listed (membership-differs, issue 18)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items/it-03`, body: { id: 'it-03' } },
      { url: `${A}/api/v1/items`, body: { items: [{ id: 'it-01' }, { id: 'it-02' }], total: 2 } },
    ]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'record', reason: 'membership-differs' });
    expect(plan(s, 'get_api_v1_items').detail).toMatch(/2 of the collection's 3 entities/);
  });
});

describe('ES-37 keeping a plan', () => {
  it('ES-37 a list view that shows two values for one entity on two request lines cannot reproduce both: fields-differ', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/items?view=a`,
        body: [
          { id: 'it-01', name: 'A' },
          { id: 'it-02', name: 'B' },
        ],
      },
      {
        url: `${A}/api/v1/items?view=b`,
        body: [
          { id: 'it-01', name: 'A*' },
          { id: 'it-02', name: 'B' },
        ],
      },
    ]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'record', reason: 'fields-differ' });
    expect(plan(s, 'get_api_v1_items').detail).toMatch(/\/0\/name/);
  });

  it('ES-37 an all-membership list whose order is not the collection order is reproduced only by the sort it names (issue 18)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/tags`, body: [{ id: 'tg-c' }, { id: 'tg-a' }] },
      { url: `${A}/api/v1/tags?_sort=id`, body: [{ id: 'tg-a' }, { id: 'tg-c' }] },
      { url: `${A}/api/v1/tags?view=x`, body: [{ id: 'tg-a' }, { id: 'tg-c' }] },
    ]);
    expect(s.types[0].initial_order).toEqual(['tg-c', 'tg-a']);
    const p = plan(s, 'get_api_v1_tags') as Plan & { lines: { query: string | null; sort?: unknown; reason?: string }[] };
    expect(p.kind).toBe('list');
    expect(p.lines.find((l) => l.query === '_sort=id')).toMatchObject({ sort: { field: 'id', direction: 'asc' } });
    expect(p.lines.find((l) => l.query === 'view=x')).toMatchObject({ reason: 'membership-differs' });
  });

  it('ES-37 member order does not matter; each checked line is its latest initial record', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'A', size: 1 } },
      {
        url: `${A}/api/v1/items`,
        body: [
          { size: 1, name: 'A', id: 'it-01' },
          { id: 'it-02', name: 'B', size: 2 },
        ],
      },
    ]);
    expect(kinds(s)).toEqual({ get_api_v1_items: 'list', get_api_v1_items_by_id: 'item' });
  });

  it('ES-37 an item read answered 404 for an entity the state does not hold is reproduced (absence)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01' } },
      { url: `${A}/api/v1/items/it-99`, status: 404, body: { message: 'not found' } },
    ]);
    expect(plan(s, 'get_api_v1_items_by_id')).toMatchObject({ kind: 'item' });
  });

  it('ES-37 an item read answered 404 for an entity the state holds is not reproduced', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01' }, { id: 'it-02' }] },
      { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01' } },
      { url: `${A}/api/v1/items/it-02`, status: 404, body: { message: 'not found' } },
    ]);
    expect(plan(s, 'get_api_v1_items_by_id')).toMatchObject({ kind: 'record', reason: 'fields-differ' });
  });
});

describe('ES-38 entity location inside a body', () => {
  it('ES-38 a Grafana-shaped dashboard is read from its /dashboard wrapper', () => {
    const s = stateOf([
      { url: `${A}/api/folders`, body: [] },
      {
        url: `${A}/api/dashboards/uid/abc123XYZ`,
        body: { dashboard: { id: 7, uid: 'abc123XYZ', title: 'Service' }, meta: { slug: 'service' } },
      },
    ]);
    expect(s.entities).toEqual([
      expect.objectContaining({ collection: 'dashboards', id: 'abc123XYZ', value: { id: 7, uid: 'abc123XYZ', title: 'Service' } }),
    ]);
    expect(plan(s, 'get_api_dashboards_uid_by_uid')).toMatchObject({ kind: 'item', entity_pointer: '/dashboard' });
  });
});

describe('ES-41 evidence marking', () => {
  it('ES-41 the evidence is inferred; authorization and response semantics are unknown; a capture with no write tool has no write effect to know (issue 16)', () => {
    expect(stateOf([{ url: `${A}/api/items`, body: [] }]).evidence).toEqual({
      status: 'inferred',
      unknown: ['authorization', 'response-semantics'],
      write_effects: { verified: [], replayed: [] },
    });
  });

  it('ES-41 extended (issue 16): a write tool whose model the later reads contradict replays, and write effects stay unknown', () => {
    // The create answers an id, but the later list does not show the new item: the capture contradicts a create.
    const s = stateOf([
      { url: `${A}/api/items`, body: [{ id: 1, name: 'a' }] },
      { method: 'POST', url: `${A}/api/items`, status: 201, requestBody: { name: 'b' }, body: { id: 2, name: 'b' } },
      { url: `${A}/api/items`, body: [{ id: 1, name: 'a' }] },
    ]);
    expect(s.evidence).toMatchObject({
      status: 'inferred',
      unknown: ['authorization', 'response-semantics', 'write-effects'],
      write_effects: { verified: [] },
    });
    expect(s.evidence.write_effects.replayed).toEqual([{ tool: 'post_api_items', reason: expect.stringMatching(/not reproduced/) }]);
  });
});

describe('IDN-1 field-name identity (ACC-4)', () => {
  it('IDN-1 the spec example: orderId, not customerId', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/orders`,
        body: [
          { orderId: 'o-1', customerId: 'c-9', total: 5 },
          { orderId: 'o-2', customerId: 'c-9', total: 7 },
        ],
      },
    ]);
    expect(s.types).toMatchObject([{ identity: 'orderId', identity_source: 'suffix' }]);
    expect(ids(s, 'orders')).toEqual(['o-1', 'o-2']);
  });

  it('IDN-1 both keys qualify: key order picks ownerId, and the entities keep their key order', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/things`,
        body: [
          { ownerId: 'u-1', itemId: 'i-1' },
          { ownerId: 'u-2', itemId: 'i-2' },
        ],
      },
    ]);
    expect(s.types).toMatchObject([{ identity: 'ownerId' }]);
    expect(Object.keys(entity(s, 'things', 'u-1')!.value)).toEqual(['ownerId', 'itemId']);
  });
});

describe('IDN-2 why two entries are required (ACC-4)', () => {
  it('IDN-2 a list that only ever held one entry with a suffix-named field stays a document', () => {
    const s = stateOf([{ url: `${A}/api/reactions`, body: [{ userId: 'u-1', emoji: '+1' }] }]);
    expect(s.types).toEqual([]);
    expect(s.documents).toEqual([expect.objectContaining({ path: '/api/reactions', value: [{ userId: 'u-1', emoji: '+1' }] })]);
  });
});

describe('IDN-3 empty records (ACC-4)', () => {
  it('IDN-3 an empty initial record constrains nothing: identity from the other record; the empty line renders empty', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items?status=archived`, body: [] },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01' }, { id: 'it-02' }] },
    ]);
    expect(s.types).toMatchObject([{ identity: 'id' }]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'list' });
  });

  it('IDN-3 a list tool that only ever answered [] is a document', () => {
    const s = stateOf([{ url: `${A}/api/v1/alerts`, body: [] }]);
    expect(s.documents).toEqual([expect.objectContaining({ path: '/api/v1/alerts', value: [] })]);
  });
});

describe('IDN-4 identity names keep priority (ACC-4)', () => {
  it('IDN-4 the owners array (id) is chosen over widgets (widgetId)', () => {
    const s = stateOf([{ url: `${A}/api/board`, body: { widgets: [{ widgetId: 'w-1' }, { widgetId: 'w-2' }], owners: [{ id: 'u-1' }] } }]);
    expect(plan(s, 'get_api_board')).toMatchObject({ kind: 'list', list_pointer: '/owners' });
    expect(ids(s, 'board')).toEqual(['u-1']);
  });
});

describe('IDN-5 entities inside single-element arrays (ACC-4)', () => {
  it('IDN-5 Ghost-like posts under trailing-slash paths: the item at /posts/0 merges with the list view', () => {
    const s = stateOf([
      {
        url: `${A}/ghost/api/admin/posts/`,
        body: {
          posts: [
            { id: '64a1', title: 'Hi' },
            { id: '64a2', title: 'Yo' },
          ],
        },
      },
      { url: `${A}/ghost/api/admin/posts/64a1/`, body: { posts: [{ id: '64a1', title: 'Hi' }] } },
    ]);
    expect(s.types).toMatchObject([{ collection: 'posts', identity: 'id', identity_source: 'path' }]);
    expect(entity(s, 'posts', '64a1')?.record_ordinals).toEqual([1, 2]);
    const item = s.plans.find((p) => p.kind === 'item');
    expect(item).toMatchObject({ entity_pointer: '/posts/0' });
    expect(s.plans.filter((p) => p.kind === 'list')).toHaveLength(1);
  });

  it('IDN-5 a root single-element array locates its entity at /0', () => {
    const s = stateOf([{ url: `${A}/api/v1/users/usr-7`, body: [{ id: 'usr-7', name: 'Ann' }] }]);
    expect(plan(s, 'get_api_v1_users_by_id')).toMatchObject({ kind: 'item', entity_pointer: '/0' });
    expect(entity(s, 'users', 'usr-7')?.value).toEqual({ id: 'usr-7', name: 'Ann' });
  });

  it('IDN-5 a single-element filtered list whose filter value is not a path value stays a list, not an item (§12)', () => {
    const s = stateOf([{ url: `${A}/api/v1/users?email=ann@example.test`, body: [{ id: 'u-7', email: 'ann@example.test' }] }]);
    expect(s.plans.some((p) => p.kind === 'item')).toBe(false);
  });
});

describe('IDN-6 at and replaceAt (ACC-4)', () => {
  it('IDN-6 the renderer reads and replaces /0 and /<member>/0 so item plans reproduce those bodies', () => {
    const s = stateOf([
      { url: `${A}/api/v1/users/usr-7`, body: [{ id: 'usr-7', name: 'Ann' }] },
      { url: `${A}/api/v1/notes/note-1`, body: { notes: [{ id: 'note-1', text: 'x' }], meta: { v: 1 } } },
    ]);
    expect(plan(s, 'get_api_v1_users_by_id')).toMatchObject({ kind: 'item', entity_pointer: '/0' });
    expect(plan(s, 'get_api_v1_notes_by_id')).toMatchObject({ kind: 'item', entity_pointer: '/notes/0' });
  });
});

describe('DOC-1 documents', () => {
  it('DOC-1 a write path whose reads are not entities becomes a document from its initial read', () => {
    const s = stateOf([
      { url: `${A}/api/org/preferences`, body: { theme: 'dark' } },
      { method: 'PUT', url: `${A}/api/org/preferences`, body: { theme: 'light' } },
      { url: `${A}/api/org/preferences`, body: { theme: 'light' } },
    ]);
    expect(s.documents).toEqual([
      {
        tool: 'get_api_org_preferences',
        path: '/api/org/preferences',
        query: null,
        status: 200,
        value: { theme: 'dark' },
        record_ordinal: 1,
      },
    ]);
  });

  it('DOC-1 item-shaped paths get no document: their reads stay recorded (no-identity)', () => {
    const s = stateOf([{ url: `${A}/api/v1/reports/1042`, body: { rows: 3 } }]);
    expect(s.documents).toEqual([]);
    expect(plan(s, 'get_api_v1_reports_by_id')).toMatchObject({ kind: 'record', reason: 'no-identity' });
  });
});

describe('DOC-2 when a GET list tool becomes a document', () => {
  it('DOC-2 the spec example: one request line, no entities: the latest initial value (#2)', () => {
    const s = stateOf([
      { url: `${A}/api/org/preferences`, body: { theme: 'dark', weekStart: 'monday' } },
      { url: `${A}/api/org/preferences`, body: { theme: 'dark', weekStart: 'monday' } },
    ]);
    expect(s.documents).toMatchObject([{ path: '/api/org/preferences', value: { theme: 'dark', weekStart: 'monday' }, record_ordinal: 2 }]);
    expect(plan(s, 'get_api_org_preferences')).toEqual({
      tool: 'get_api_org_preferences',
      kind: 'document',
      path: '/api/org/preferences',
      record_ordinal: 2,
    });
  });

  it('DOC-2 a repeat that changed with no write between keeps the latest value (volatile)', () => {
    const s = stateOf([
      { url: `${A}/api/health`, body: { uptime: 1 } },
      { url: `${A}/api/health`, body: { uptime: 2 } },
    ]);
    expect(s.documents).toMatchObject([{ value: { uptime: 2 }, record_ordinal: 2 }]);
  });
});

describe('DOC-3 fields-differ for documents', () => {
  it('DOC-3 the spec example: the value changed across a write under another root', () => {
    const s = stateOf([
      { url: `${A}/api/org/preferences`, body: { theme: 'dark' } },
      { method: 'PUT', url: `${A}/api/user/preferences`, body: { theme: 'light' } },
      { url: `${A}/api/org/preferences`, body: { theme: 'light' } },
    ]);
    expect(plan(s, 'get_api_org_preferences')).toMatchObject({ kind: 'record', reason: 'fields-differ' });
    expect(s.documents).toEqual([]);
  });

  it('DOC-3 an unchanged value across a write stays a document', () => {
    const s = stateOf([
      { url: `${A}/api/org/preferences`, body: { theme: 'dark' } },
      { method: 'PUT', url: `${A}/api/user/preferences`, body: { theme: 'light' } },
      { url: `${A}/api/org/preferences`, body: { theme: 'dark' } },
    ]);
    expect(s.documents).toMatchObject([{ record_ordinal: 3 }]);
  });
});

describe('DOC-4 rendered-oversize', () => {
  it('DOC-4 a body within 256 KiB whose rendered JSON exceeds it stays recorded', () => {
    // 1e5 spelled in 3 bytes renders as 100000: 60,000 of them grow past the limit.
    const text = `{"v":[${Array.from({ length: 60_000 }, () => '1e5').join(',')}]}`;
    expect(Buffer.byteLength(text)).toBeLessThan(256 * 1024);
    const s = stateOf([{ url: `${A}/api/big`, body: text }]);
    expect(plan(s, 'get_api_big')).toMatchObject({ kind: 'record', reason: 'rendered-oversize' });
  });
});

describe('DOC-5 path-varies and query-varies (ACC-4)', () => {
  it('DOC-5 the spec example: single-entry member lists on two paths: path-varies', () => {
    const s = stateOf([
      { url: `${A}/api/teams/1/members`, body: [{ teamId: 1, userId: 7 }] },
      { url: `${A}/api/teams/2/members`, body: [{ teamId: 2, userId: 9 }] },
    ]);
    expect(s.plans).toEqual([
      expect.objectContaining({ tool: expect.stringMatching(/^get_api_teams_by_\w+_members$/), kind: 'record', reason: 'path-varies' }),
    ]);
  });

  it('DOC-5 the spec example: one path, two query strings: query-varies', () => {
    const s = stateOf([
      { url: `${A}/api/search?q=alpha`, body: { hits: ['a1'] } },
      { url: `${A}/api/search?q=beta`, body: { hits: ['b2'] } },
    ]);
    expect(plan(s, 'get_api_search')).toMatchObject({ kind: 'record', reason: 'query-varies' });
  });
});

describe('DOC-6 reason vocabulary', () => {
  it('DOC-6 reasons come from the closed vocabulary and never not-entity; no-identity names item tools only', () => {
    const s = stateOf([
      { url: `${A}/api/v1/reports/1042`, body: { rows: 3 } },
      { url: `${A}/api/search?q=a`, body: { hits: [] } },
      { url: `${A}/api/search?q=b`, body: { hits: [] } },
      { method: 'HEAD', url: `${A}/api/ping` },
      { url: `${A}/api/page`, body: 'hi', mimeType: 'text/plain' },
    ]);
    const reasons = s.plans.filter((p) => p.kind === 'record').map((p) => p.reason);
    expect(
      reasons.every((r) =>
        [
          'fields-differ',
          'no-identity',
          'path-varies',
          'query-varies',
          'body-unusable',
          'rendered-oversize',
          'no-initial-record',
          'not-planned',
        ].includes(r!),
      ),
    ).toBe(true);
    expect(kinds(s)).toMatchObject({
      get_api_v1_reports_by_id: 'record:no-identity',
      get_api_search: 'record:query-varies',
      head_api_ping: 'record:not-planned',
      get_api_page: 'record:body-unusable',
    });
  });

  it('DOC-6 OQ-26 a list read only after its own first write: no-initial-record', () => {
    const s = stateOf([
      { method: 'POST', url: `${A}/api/annotations`, status: 201, body: { id: 17, message: 'Annotation added' } },
      { url: `${A}/api/annotations`, body: [{ id: 17, text: 'b' }] },
    ]);
    expect(plan(s, 'get_api_annotations')).toMatchObject({ kind: 'record', reason: 'no-initial-record' });
  });

  it('DOC-6 OQ-27 precedence: an unusable body outranks path-varies', () => {
    const s = stateOf([
      { url: `${A}/api/teams/1/members`, body: '<html/>', mimeType: 'text/html' },
      { url: `${A}/api/teams/2/members`, body: [{ teamId: 2, userId: 9 }] },
    ]);
    expect(s.plans).toEqual([expect.objectContaining({ kind: 'record', reason: 'body-unusable' })]);
  });
});

describe('ACC-2 synthetic captures cover every recorded reason', () => {
  it('ACC-2 one capture yields each reason of the closed vocabulary (OQ-31)', () => {
    const s = stateOf([
      { url: `${A}/api/page`, body: '<html></html>', mimeType: 'text/html' }, // body-unusable
      { url: `${A}/api/big`, body: `{"v":[${Array.from({ length: 60_000 }, () => '1e5').join(',')}]}` }, // rendered-oversize
      { url: `${A}/api/v1/reports/1042`, body: { rows: 3 } }, // no-identity
      { url: `${A}/api/teams/1/members`, body: [{ teamId: 1, userId: 7 }] }, // path-varies
      { url: `${A}/api/teams/2/members`, body: [{ teamId: 2, userId: 9 }] },
      { url: `${A}/api/find?q=a`, body: { hits: [] } }, // query-varies
      { url: `${A}/api/find?q=b`, body: { hits: [1] } },
      { method: 'POST', url: `${A}/api/notes`, status: 201, body: { id: 'note-9' } }, // no-initial-record
      { url: `${A}/api/notes`, body: [{ id: 'note-9' }] },
      {
        url: `${A}/api/v1/tags?view=a`,
        body: [
          { id: 'tg-1', name: 'A' },
          { id: 'tg-2', name: 'B' },
        ],
      }, // fields-differ
      {
        url: `${A}/api/v1/tags?view=b`,
        body: [
          { id: 'tg-1', name: 'A*' },
          { id: 'tg-2', name: 'B' },
        ],
      },
      { method: 'HEAD', url: `${A}/api/ping` }, // not-planned
    ]);
    const reasons = new Set(s.plans.filter((p) => p.kind === 'record').map((p) => p.reason));
    expect([...reasons].sort()).toEqual([
      'body-unusable',
      'fields-differ',
      'no-identity',
      'no-initial-record',
      'not-planned',
      'path-varies',
      'query-varies',
      'rendered-oversize',
    ]);
  });
});

describe('byte-stable result (OQ-36)', () => {
  it('OQ-36 the same store prints the same bytes, and sha256 is the digest of the compact view', async () => {
    const file = writeHar(dir, 'stable.har', [
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-01', n: 1 },
          { id: 'it-02', n: 2 },
        ],
      },
      { url: `${A}/api/org/preferences`, body: { theme: 'dark' } },
    ]);
    const db = `${dir}/stable.sqlite`;
    expect(cli(['load', file, '--db', db]).status).toBe(0);
    const a = cli(['state', '--db', db, '--json']);
    const b = cli(['state', '--db', db, '--json', '--out', `${dir}/stable.json`]);
    expect(a.stdout).toBe(b.stdout);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${dir}/stable.json`, 'utf8')).toBe(a.stdout);
    const doc = JSON.parse(a.stdout);
    const { createHash } = await import('node:crypto');
    const { format_version: _v, sha256, ...view } = doc;
    expect(createHash('sha256').update(JSON.stringify(view)).digest('hex')).toBe(sha256);
    expect(doc.format_version).toBe(1);
  });

  it('OQ-36 the human output names types, documents, plans and the digest', () => {
    const file = writeHar(dir, 'human.har', [{ url: `${A}/api/v1/items`, body: [{ id: 'it-01' }] }]);
    const r = cli(['state', file]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/items {2}\/api\/v1\/items {2}keyed by id \(its name says so\) {2}1 entity: it-01/);
    expect(r.stdout).toMatch(/get_api_v1_items +a list of items from the state/);
    expect(r.stdout).toMatch(/sha256 [0-9a-f]{64}/);
  });

  it('issue 46: a store with several captures reads the latest without --capture, and says so', () => {
    const db = `${dir}/multi.sqlite`;
    expect(cli(['load', writeHar(dir, 'm1.har', [{ url: `${A}/api/a`, body: [] }]), '--db', db]).status).toBe(0);
    expect(cli(['load', writeHar(dir, 'm2.har', [{ url: `${A}/api/b`, body: [] }]), '--db', db]).status).toBe(0);
    const r = cli(['state', '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(cli(['state', '--db', db, '--capture', '2', '--json']).stdout);
    expect(r.stderr).toMatch(
      /holds 2 captures; reading the latest, 2 \(.*m2\.har\); the other: 1 \(.*m1\.har\); choose one with --capture ID/,
    );
    expect(cli(['state', '--db', db, '--capture', '2']).status).toBe(0);
    // A capture the store does not hold is an error, not an empty state.
    const missing = cli(['state', '--db', db, '--capture', '9']);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/no capture 9 in .*multi\.sqlite; captures: 1, 2/);
  });
});
