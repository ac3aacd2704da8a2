/**
 * The environment-state view: per-response members, variants and
 * projections, changes across writes under other roots, clock formats and the budget.
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
  entities: {
    collection: string;
    id: string;
    value: Record<string, unknown>;
    view_values: Record<string, Record<string, unknown>>;
    record_ordinals: number[];
  }[];
  documents: { path: string; value: unknown }[];
  plans: Plan[];
}

function stateOf(exchanges: Exchange[]): State {
  const file = writeHar(dir, `p2-${n++}.har`, exchanges);
  const r = cli(['state', file, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}
const plan = (s: State, tool: string) => {
  const p = s.plans.find((x) => x.tool === tool);
  if (!p) throw new Error(`no plan for ${tool}; plans: ${s.plans.map((x) => x.tool).join(', ')}`);
  return p;
};
const entity = (s: State, collection: string, id: string) => s.entities.find((e) => e.collection === collection && e.id === id);
const uuid = (i: number) =>
  `${(0x0b6f3c1e + i * 7919).toString(16).padStart(8, '0')}-6a52-4c1f-9d3e-2f6a8b7c9d${String(i).padStart(2, '0')}`;

describe('ES-23 members generated per response', () => {
  it('ES-23 ES-25 the spec example: requestId differs on both repeats; the list view names it and its plan holds', () => {
    const s = stateOf(
      [0, 1, 2].map((i) => ({
        url: `${A}/api/v1/items`,
        start: `10:00:0${i * 4}.000`,
        body: { requestId: uuid(i), items: [{ id: 'it-01' }] },
      })),
    );
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'list', per_response_members: ['requestId'] });
  });

  it('ES-23 two records are not enough: at least two repeats are needed', () => {
    const s = stateOf([0, 1].map((i) => ({ url: `${A}/api/v1/items`, body: { requestId: uuid(i), items: [{ id: 'it-01' }] } })));
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ per_response_members: [] });
  });

  it('ES-23 a value that stays the same once is not generated per response', () => {
    const s = stateOf([0, 1, 1].map((i) => ({ url: `${A}/api/v1/items`, body: { requestId: uuid(i), items: [{ id: 'it-01' }] } })));
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ per_response_members: [] });
  });

  it('ES-23 an updatedAt changed only across writes is not a request id (OQ-18)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/board`, body: { updatedAt: '2026-01-01T10:00:00Z', items: [{ id: 'b-1' }] } },
      { method: 'POST', url: `${A}/api/v1/other`, status: 201, body: {} },
      { url: `${A}/api/v1/board`, body: { updatedAt: '2026-01-01T10:00:01Z', items: [{ id: 'b-1' }] } },
      { method: 'POST', url: `${A}/api/v1/other`, status: 201, body: {} },
      { url: `${A}/api/v1/board`, body: { updatedAt: '2026-01-01T10:00:03Z', items: [{ id: 'b-1' }] } },
    ]);
    expect(plan(s, 'get_api_v1_board')).toMatchObject({ per_response_members: [] });
  });
});

describe('ES-24 per-path proof', () => {
  it("ES-24 the collection's proof does not name the member for its item view; each item path needs its own three records", () => {
    const s = stateOf([
      ...[0, 1, 2].map((i) => ({ url: `${A}/api/v1/items`, body: { requestId: uuid(i), items: [{ id: 'it-01' }, { id: 'it-02' }] } })),
      { url: `${A}/api/v1/items/it-01`, body: { requestId: uuid(7), item: { id: 'it-01' } } },
      ...[3, 4, 5].map((i) => ({ url: `${A}/api/v1/items/it-02`, body: { requestId: uuid(i), item: { id: 'it-02' } } })),
    ]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ per_response_members: ['requestId'] });
    // it-01 has one record: the item view answers /it-01 too, so it cannot name requestId; its envelopes then differ.
    expect(plan(s, 'get_api_v1_items_by_id')).toMatchObject({ kind: 'record', reason: 'fields-differ' });
    expect(plan(s, 'get_api_v1_items_by_id').detail).toMatch(/\/requestId \(ES-25\)/);
  });

  it('ES-24 ES-25 an item view whose every path proves it names it, and the entity at the root does not own it', () => {
    const s = stateOf([
      ...[0, 1, 2].map((i) => ({ url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', name: 'A', requestId: uuid(i) } })),
      ...[3, 4, 5].map((i) => ({ url: `${A}/api/v1/items/it-02`, body: { id: 'it-02', name: 'B', requestId: uuid(i) } })),
    ]);
    expect(plan(s, 'get_api_v1_items_by_id')).toMatchObject({ kind: 'item', per_response_members: ['requestId'] });
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', name: 'A' });
  });
});

describe('ES-12 projected item reads', () => {
  it('ES-12 the spec example: ?fields=title does not return the item; it proves nothing, is not checked, and is listed', () => {
    const s = stateOf([
      { url: `${A}/api/books/bk-1017`, body: { id: 'bk-1017', title: 'Dune', year: 1965 } },
      { url: `${A}/api/books/bk-1017?fields=title`, body: { title: 'Dune' } },
    ]);
    expect(plan(s, 'get_api_books_by_id')).toMatchObject({ kind: 'item', projected_record_ordinals: [2] });
    expect(entity(s, 'books', 'bk-1017')?.value).toEqual({ id: 'bk-1017', title: 'Dune', year: 1965 });
  });
});

describe('ES-13 projected list rows', () => {
  it('ES-13 a ?fields=id,name list row is listed and observes nothing; the whole rows make the plan', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-01', name: 'Ann', email: 'a@x.test' },
          { id: 'u-02', name: 'Bo', email: 'b@x.test' },
        ],
      },
      {
        url: `${A}/api/v1/users?fields=id,name`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
    ]);
    expect(plan(s, 'get_api_v1_users')).toMatchObject({
      kind: 'list',
      projected_record_ordinals: [2],
      projection_values: { checked: [], replayed: ['id,name'] },
    });
    expect(entity(s, 'users', 'u-01')?.record_ordinals).toEqual([1]);
  });

  it('ES-13 a projection the server ignored shows whole entities and is an ordinary row', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?fields=id`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
    ]);
    expect(plan(s, 'get_api_v1_users')).toMatchObject({ kind: 'list', projected_record_ordinals: [] });
  });
});

describe('ES-14 late shaping rows', () => {
  it('ES-14 the spec example: a later ?expand=shelf read is listed', () => {
    const s = stateOf([
      { url: `${A}/api/books/bk-1017`, body: { id: 'bk-1017', title: 'Dune', shelfId: 's-1' } },
      { method: 'PATCH', url: `${A}/api/books/bk-1017`, body: { id: 'bk-1017', title: 'Dune Messiah', shelfId: 's-1' } },
      {
        url: `${A}/api/books/bk-1017?expand=shelf`,
        body: { id: 'bk-1017', title: 'Dune Messiah', shelfId: 's-1', shelf: { id: 's-1', name: 'SF' } },
      },
    ]);
    expect(plan(s, 'get_api_books_by_id')).toMatchObject({ kind: 'item', projected_record_ordinals: [3] });
  });

  it('ES-14 a later ?fields=id,name read that omits members the other rows always show is listed', () => {
    const s = stateOf([
      { url: `${A}/api/books/bk-1017`, body: { id: 'bk-1017', title: 'Dune', year: 1965 } },
      { method: 'PATCH', url: `${A}/api/books/bk-1017`, body: { id: 'bk-1017', title: 'Dune' } },
      { url: `${A}/api/books/bk-1017?fields=id,title`, body: { id: 'bk-1017', title: 'Dune' } },
    ]);
    expect(plan(s, 'get_api_books_by_id')).toMatchObject({ projected_record_ordinals: [3] });
  });
});

describe('ES-17 ES-18 ES-19 representation variants', () => {
  const example: Exchange[] = [
    {
      url: `${A}/api/v1/users?page=1`,
      body: [
        { id: 'u-01', name: 'Ann' },
        { id: 'u-02', name: 'Bo' },
      ],
    },
    {
      url: `${A}/api/v1/users?page=1&include=roles`,
      body: [
        { id: 'u-01', name: 'Ann', roles: ['admin'] },
        { id: 'u-02', name: 'Bo', roles: [] },
      ],
    },
  ];

  it('ES-17 ES-19 the spec example: #2 is a variant told apart by include; entities keep id and name; the plan holds', () => {
    const s = stateOf(example);
    expect(plan(s, 'get_api_v1_users')).toMatchObject({
      kind: 'list',
      projected_record_ordinals: [2],
      projected_query_keys: [{ name: 'include' }],
    });
    expect(entity(s, 'users', 'u-01')?.value).toEqual({ id: 'u-01', name: 'Ann' });
  });

  it('ES-18 with no row free of shaping parameters, the rows requesting every field (*) are the base', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/users?fields=*`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?include=roles`,
        body: [
          { id: 'u-01', name: 'Ann', roles: [] },
          { id: 'u-02', name: 'Bo', roles: [] },
        ],
      },
    ]);
    // #2 names include (the base does not) and omits fields, which every base row names: both keys tell it apart (OQ-16).
    expect(plan(s, 'get_api_v1_users')).toMatchObject({
      kind: 'list',
      projected_record_ordinals: [2],
      projected_query_keys: [{ name: 'fields', omitted: true }, { name: 'include' }],
    });
  });

  it('ES-19 a value the base rows never give distinguishes; a parameter all base rows name and the variant omits too', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/users?view=short`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?view=short`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?view=long`,
        body: [
          { id: 'u-01', name: 'Ann', bio: 'x' },
          { id: 'u-02', name: 'Bo', bio: 'y' },
        ],
      },
    ]);
    // No row is free of shaping parameters and none asks for *: the rows agreeing most (view=short) are the base.
    expect(plan(s, 'get_api_v1_users')).toMatchObject({
      kind: 'list',
      projected_record_ordinals: [3],
      projected_query_keys: [{ name: 'view', value: 'long' }],
    });
  });

  it('ES-19 ES-33 a variant leaves the observations the order is taken from: the base row decides, not an earlier variant row', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/users?include=roles`,
        body: [
          { id: 'u-02', name: 'Bo', roles: [] },
          { id: 'u-01', name: 'Ann', roles: ['admin'] },
        ],
      },
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
    ]) as State & { types: { collection: string; initial_order: string[]; order_source: string }[] };
    expect(plan(s, 'get_api_v1_users')).toMatchObject({ kind: 'list', projected_record_ordinals: [1] });
    expect(s.types.find((t) => t.collection === 'users')).toMatchObject({ initial_order: ['u-01', 'u-02'], order_source: 'row' });
    expect(s.entities.filter((e) => e.collection === 'users').map((e) => e.id)).toEqual(['u-01', 'u-02']);
  });

  it('ES-19 an indistinguishable variant stays an ordinary row, and the plan fails', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-01', name: 'Ann' },
          { id: 'u-02', name: 'Bo' },
        ],
      },
      {
        url: `${A}/api/v1/users?page=2`,
        body: [
          { id: 'u-01', name: 'Ann', roles: [] },
          { id: 'u-03', name: 'Cy', roles: [] },
        ],
      },
    ]);
    expect(plan(s, 'get_api_v1_users')).toMatchObject({ kind: 'record', reason: 'fields-differ' });
  });
});

describe('ES-27 changes caused by writes under another root', () => {
  it('ES-27 the spec example: stock changed across the orders POST; the initial read ends there and stock = 5', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, start: '10:00:00.000', body: [{ id: 'it-01', stock: 5 }] },
      { method: 'POST', url: `${A}/api/v1/orders`, start: '10:00:01.000', time: 40, status: 201, body: { id: 'ord-77', itemId: 'it-01' } },
      { url: `${A}/api/v1/items`, start: '10:00:02.000', body: [{ id: 'it-01', stock: 4 }] },
    ]);
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', stock: 5 });
    expect(entity(s, 'items', 'it-01')?.record_ordinals).toEqual([1]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'list', lines: [{ record_ordinal: 1 }] });
    expect(
      (s as unknown as { types: { collection: string; bound: unknown }[] }).types.find((t) => t.collection === 'items')?.bound,
    ).toEqual({ rule: 'ES-27', write_ordinal: 2 });
  });

  it("ES-27 the file's initial_reads ends the type's initial read at that write too, as serving's replay reads it", async () => {
    const file = writeHar(dir, 'es27-file.har', [
      { url: `${A}/api/v1/items`, start: '10:00:00.000', body: [{ id: 'it-01', stock: 5 }] },
      { method: 'POST', url: `${A}/api/v1/orders`, start: '10:00:01.000', time: 40, status: 201, body: { id: 'ord-77', itemId: 'it-01' } },
      { url: `${A}/api/v1/items`, start: '10:00:02.000', body: [{ id: 'it-01', stock: 4 }] },
    ]);
    const db = `${dir}/es27-file.sqlite`;
    expect(cli(['load', file, '--db', db]).status).toBe(0);
    const rows = JSON.parse(
      cli([
        'sql',
        '--db',
        db,
        '--json',
        "select ordinal, bound_rule, bound_ordinal from initial_reads where root_path = '/api/v1/items' order by ordinal",
      ]).stdout,
    ) as { rows: unknown[] };
    expect(rows.rows).toEqual([{ ordinal: 1, bound_rule: 'ES-27', bound_ordinal: 2 }]);
    const stored = JSON.parse(cli(['sql', '--db', db, '--json', 'select root_path, write_ordinal from state_change_bounds']).stdout) as {
      rows: unknown[];
    };
    expect(stored.rows).toEqual([{ root_path: '/api/v1/items', write_ordinal: 2 }]);
  });

  it('ES-27 a value that changed with no write between is volatile: no bound, the latest value wins (ES-26)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01', stock: 5 }] },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01', stock: 4 }] },
    ]);
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', stock: 4 });
  });

  it('ES-27 clock spellings of one instant are not a change (OQ-21)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/events`, body: [{ id: 'ev-1', at: '2024-05-01 10:00:00.000+00:00' }] },
      { method: 'POST', url: `${A}/api/v1/other`, status: 201, body: {} },
      { url: `${A}/api/v1/events/ev-1`, body: { id: 'ev-1', at: '2024-05-01T10:00:00Z' } },
    ]);
    expect(entity(s, 'events', 'ev-1')?.record_ordinals).toEqual([1, 3]);
  });
});

describe('ES-28 membership and field presence; distinct request lines', () => {
  it('ES-28 a list line whose membership changed across a write ends the initial read there', () => {
    const s = stateOf([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01' }, { id: 'it-02' }] },
      { method: 'POST', url: `${A}/api/v1/jobs`, status: 201, body: { id: 'job-1' } },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01' }] },
    ]);
    expect(s.entities.map((e) => e.id)).toEqual(['it-01', 'it-02']);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'list', lines: [{ record_ordinal: 1 }] });
  });

  it('ES-28 different query strings stay distinct lines; a field one line omits does not erase it', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-01', note: 'x' },
          { id: 'it-02', note: 'y' },
        ],
      },
      { url: `${A}/api/v1/items?page=1`, body: [{ id: 'it-01' }, { id: 'it-02' }] },
    ]);
    expect(entity(s, 'items', 'it-01')?.value).toEqual({ id: 'it-01', note: 'x' });
  });
});

describe("ES-29 naming a view's clock spelling", () => {
  it('ES-29 the spec example: the list view always spells at with a space, 3 digits and +00:00; the item view stores Z', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/events`,
        body: [
          { id: 'ev-1', at: '2024-05-01 10:00:00.000+00:00' },
          { id: 'ev-2', at: '2024-05-02 11:00:00.000+00:00' },
        ],
      },
      { url: `${A}/api/v1/events/ev-1`, body: { id: 'ev-1', at: '2024-05-01T10:00:00Z' } },
      { url: `${A}/api/v1/events/ev-2`, body: { id: 'ev-2', at: '2024-05-02T11:00:00Z' } },
    ]);
    expect(entity(s, 'events', 'ev-1')?.value).toEqual({ id: 'ev-1', at: '2024-05-01T10:00:00Z' });
    expect(plan(s, 'get_api_v1_events')).toMatchObject({
      kind: 'list',
      clock_formats: { at: { separator: ' ', fraction_digits: 3, offset: '+00:00' } },
    });
    expect(plan(s, 'get_api_v1_events_by_id')).toMatchObject({ kind: 'item', clock_formats: {} });
  });

  it('ES-29 a view that also shows the stored spelling names nothing', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/events`,
        body: [
          { id: 'ev-1', at: '2024-05-01 10:00:00.000+00:00' },
          { id: 'ev-2', at: '2024-05-02 11:00:00.000+00:00' },
        ],
      },
      { url: `${A}/api/v1/events/ev-1`, body: { id: 'ev-1', at: '2024-05-01T10:00:00Z' } },
    ]);
    // ev-2 is stored as the list spelled it: the list shows the stored way.
    expect(plan(s, 'get_api_v1_events')).toMatchObject({ clock_formats: {} });
  });
});

describe("ES-30 rendering unrecorded instants in the view's spelling", () => {
  it('ES-30 the spec example: .5Z renders as .500+00:00; six digits keep all six; epoch seconds from the instant', async () => {
    const { renderClock } = await import('../src/model/plan/clocks.js');
    const view = { separator: ' ' as const, fraction_digits: 3, offset: '+00:00' };
    expect(renderClock('at', '2024-06-02T08:30:15.5Z', view)).toBe('2024-06-02 08:30:15.500+00:00');
    expect(renderClock('at', '2024-06-02T08:30:15.123456Z', view)).toBe('2024-06-02 08:30:15.123456+00:00');
    expect(renderClock('at', '2024-05-01T10:00:00Z', { epoch: 's' })).toBe(1714557600);
    expect(renderClock('at', '2024-05-01T10:00:00.250Z', { epoch: 'ms' })).toBe(1714557600250);
    // The view's time zone is the fixed offset it spells.
    expect(renderClock('at', '2024-05-01T23:30:00Z', { separator: 'T', fraction_digits: 0, offset: '+02:00' })).toBe(
      '2024-05-02T01:30:00+02:00',
    );
  });

  it("ES-30 the renderer applies the view's spelling to a stored value the view never recorded", async () => {
    const { renderEntity } = await import('../src/model/plan/render.js');
    const e = {
      collection: 'events',
      id: 'ev-9',
      value: { id: 'ev-9', at: '2024-06-02T08:30:15.5Z' },
      view_values: {},
      state_order: 0,
      record_ordinals: [],
    };
    expect(
      renderEntity(e, {
        tool: 'get_api_v1_events',
        fields: ['id', 'at'],
        clock_formats: { at: { separator: ' ', fraction_digits: 3, offset: '+00:00' } },
      }),
    ).toEqual({ id: 'ev-9', at: '2024-06-02 08:30:15.500+00:00' });
  });
});

describe('ES-39 memory budget', () => {
  it('ES-39 OQ-32 a view that needs more than its budget fails naming the phase, and prints no partial state', () => {
    const file = writeHar(dir, 'budget.har', [
      { url: `${A}/api/v1/items`, body: Array.from({ length: 200 }, (_, i) => ({ id: `it-${i}`, text: 'x'.repeat(200) })) },
    ]);
    const r = cli(['state', file, '--json'], { env: { ...process.env, CAPSTATE_STATE_BUDGET_BYTES: '100000' } });
    expect(r.status).toBe(1);
    // --json prints the one error document, never a partial state.
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: false, code: 'budget-exceeded' });
    expect(doc.entities).toBeUndefined();
    expect(doc.message).toMatch(/more than its 100000 transient bytes in the (bodies|values) phase of type \/api\/v1\/items/);
    // Plain words (issue 19): the message cites no rule; `rules` names it.
    expect(doc.rules).toEqual(['ES-39']);
    expect(doc.context).toMatchObject({ type: '/api/v1/items' });
    // The same capture fits the real 96 MiB budget.
    expect(cli(['state', file, '--json']).status).toBe(0);
  });

  it('OQ-32 the budget bounds bytes held at one time: a capture whose types together exceed it, but each fits, gives the same state bytes', () => {
    // Six types of about 40 kB of bodies each (~240 kB of bodies, more again as values), with
    // writes, later reads for the gate and a change across another root's write (ES-27).
    const types = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const rows = (t: string, extra: Record<string, unknown> = {}) =>
      Array.from({ length: 40 }, (_, i) => ({ id: `${t}-${i}`, text: `${t} ${'x'.repeat(300)}`, tags: ['a', 'b'], ...extra }));
    const exchanges: Exchange[] = [
      ...types.map((t) => ({ url: `${A}/api/v1/${t}`, body: rows(t, { stock: 5 }) })),
      { method: 'POST', url: `${A}/api/v1/orders`, status: 201, body: { id: 'ord-1' } },
      { url: `${A}/api/v1/alpha`, body: rows('alpha', { stock: 4 }) },
      ...types.map((t) => ({
        method: 'PATCH',
        url: `${A}/api/v1/${t}/${t}-1`,
        requestBody: { text: 'changed' },
        body: { id: `${t}-1`, text: 'changed' },
      })),
      ...types.map((t) => ({
        url: `${A}/api/v1/${t}`,
        body: rows(t, { stock: 3 }).map((r, i) => (i === 1 ? { ...r, text: 'changed' } : r)),
      })),
    ];
    const file = writeHar(dir, 'budget-units.har', exchanges);
    const full = cli(['state', file, '--json']);
    expect(full.status, full.stderr).toBe(0);
    // One type's bodies and values fit in 300 kB; the six together need several times that.
    const small = cli(['state', file, '--json'], { env: { ...process.env, CAPSTATE_STATE_BUDGET_BYTES: '300000' } });
    expect(small.status, small.stderr).toBe(0);
    expect(small.stdout).toBe(full.stdout);
    const doc = JSON.parse(full.stdout) as { types: { collection: string; bound: unknown }[]; entities: unknown[] };
    expect(doc.entities).toHaveLength(6 * 40);
    expect(doc.types.find((t) => t.collection === 'alpha')?.bound).toEqual({ rule: 'ES-27', write_ordinal: 7 });
    // Held all at once, as the budget counted before OQ-32's revision, the same capture fails.
    const tiny = cli(['state', file, '--json'], { env: { ...process.env, CAPSTATE_STATE_BUDGET_BYTES: '120000' } });
    expect(tiny.status).toBe(1);
  });

  it('ES-39 OQ-32 costs and release: strings 2 per unit + 16, numbers 8, containers 16 + members; a finished type stops counting', async () => {
    const { Budget, valueCost } = await import('../src/state/budget.js');
    expect(valueCost({ ab: 'xyz', n: 1, t: true, l: [null] })).toBe(
      16 + (4 + 16 + 6 + 16) + (2 + 16 + 8) + (2 + 16 + 4) + (2 + 16 + 16 + 4),
    );
    const b = new Budget(1000);
    b.charge('records', 50);
    await b.unit('/api/a', async () => {
      b.charge('planning', 900);
    });
    expect(b.bytes).toBe(50);
    await b.unit('/api/b', async () => {
      b.charge('planning', 900);
    });
    // A unit that throws releases too.
    await expect(
      b.unit('/api/c', async () => {
        b.charge('bodies', 100);
        throw new Error('x');
      }),
    ).rejects.toThrow('x');
    expect(b.bytes).toBe(50);
    await expect(
      b.unit('/api/d', async () => {
        b.charge('values', 951);
      }),
    ).rejects.toThrow(/values phase of type \/api\/d/);
    expect(() => b.charge('values', 951)).toThrow(/values phase \(/);
  });
});

describe('ES-40 no network, nothing served', () => {
  it('ES-40 the state pass imports no network module', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    // The pass (src/state/, its steps/) and the plan library it builds with (src/model/plan/).
    const files = ['state', join('model', 'plan')].flatMap((d) =>
      (readdirSync(join(__dirname, '..', 'src', d), { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(__dirname, '..', 'src', d, f)),
    );
    expect(files.some((f) => f.includes(join('state', 'steps')))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/from '(node:)?(http|https|net|dgram|dns|tls)'|playwright|fetch\(/);
    }
  });
});

describe('ES-21 required fields', () => {
  it('ES-21 the spec example: the list requires archived until the gate sees the app omit it from it-01', () => {
    const example: Exchange[] = [
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-01', archived: false },
          { id: 'it-02', archived: true },
        ],
      },
      { method: 'PATCH', url: `${A}/api/v1/items/it-01`, requestBody: { title: 'New' }, body: { id: 'it-01', title: 'New' } },
      { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01', title: 'New' } },
    ];
    expect(plan(stateOf(example.slice(0, 1)), 'get_api_v1_items')).toMatchObject({ required_fields: ['id', 'archived'] });
    expect(plan(stateOf(example), 'get_api_v1_items')).toMatchObject({ required_fields: ['id'] });
  });

  it('ES-16 ES-21 a read naming a projection parameter teaches nothing', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-01', archived: false },
          { id: 'it-02', archived: true },
        ],
      },
      { method: 'PATCH', url: `${A}/api/v1/items/it-01`, requestBody: { title: 'New' }, body: { id: 'it-01', title: 'New' } },
      { url: `${A}/api/v1/items/it-01?fields=id,title`, body: { id: 'it-01', title: 'New' } },
    ]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ required_fields: ['id', 'archived'] });
  });
});

describe('ES-31 ES-32 sorted arrays', () => {
  const example: Exchange[] = [
    { url: `${A}/api/v1/notes/note-0001`, body: { id: 'note-0001', tags: ['alpha', 'beta'] } },
    {
      method: 'PUT',
      url: `${A}/api/v1/notes/note-0001`,
      requestBody: { tags: ['zeta', 'alpha', 'mid'] },
      body: { id: 'note-0001', tags: ['zeta', 'alpha', 'mid'] },
    },
    { url: `${A}/api/v1/notes/note-0001`, body: { id: 'note-0001', tags: ['alpha', 'mid', 'zeta'] } },
  ];

  it('ES-31 ES-32 the spec example: the counted read lists the written tags sorted: the item view names tags', () => {
    expect(plan(stateOf(example), 'get_api_v1_notes_by_id')).toMatchObject({ kind: 'item', sorted_arrays: ['tags'] });
  });

  it('ES-32 a read in write order teaches nothing', () => {
    const s = stateOf([example[0], example[1], { ...example[2], body: { id: 'note-0001', tags: ['zeta', 'alpha', 'mid'] } }]);
    expect(plan(s, 'get_api_v1_notes_by_id')).toMatchObject({ sorted_arrays: [] });
  });

  it('ES-32 a read in initial-state-first order teaches nothing', () => {
    const s = stateOf([
      { url: `${A}/api/v1/notes/note-0001`, body: { id: 'note-0001', tags: ['alpha', 'mid'] } },
      { method: 'PUT', url: `${A}/api/v1/notes/note-0001`, requestBody: { tags: ['zeta', 'mid', 'alpha'] }, body: {} },
      // initial-state-first: alpha, mid (held first), then zeta — which here is also code-point order
      { url: `${A}/api/v1/notes/note-0001`, body: { id: 'note-0001', tags: ['alpha', 'mid', 'zeta'] } },
    ]);
    expect(plan(s, 'get_api_v1_notes_by_id')).toMatchObject({ sorted_arrays: [] });
  });

  it('ES-31 a field the initial entity shows unsorted is no candidate', () => {
    const s = stateOf([{ url: `${A}/api/v1/notes/note-0001`, body: { id: 'note-0001', tags: ['beta', 'alpha'] } }, example[1], example[2]]);
    expect(plan(s, 'get_api_v1_notes_by_id')).toMatchObject({ sorted_arrays: [] });
  });

  it('OQ-23 code-point order differs from UTF-16 order outside the BMP', async () => {
    const { codePointSorted } = await import('../src/model/plan/json.js');
    expect(codePointSorted(['\u{1F600}', '\uFFFF'])).toEqual(['\uFFFF', '\u{1F600}']);
    expect(['\u{1F600}', '\uFFFF'].sort()).toEqual(['\u{1F600}', '\uFFFF']);
  });
});

describe('ES-16 ES-20 the gate counts only reads that serving answers from state', () => {
  const users = (roles: boolean) => [
    { id: 'u-01', name: 'Ann', active: true, ...(roles ? { roles: ['admin'] } : {}) },
    { id: 'u-02', name: 'Bo', active: false, ...(roles ? { roles: [] } : {}) },
  ];

  it("ES-20 a later read of a variant's request line (?include=roles) is replayed, so the field it omits stays required", () => {
    const s = stateOf([
      { url: `${A}/api/v1/users`, body: users(false) },
      { url: `${A}/api/v1/users?include=roles`, body: users(true) },
      { method: 'PATCH', url: `${A}/api/v1/users/u-01`, requestBody: { name: 'Ann B' }, body: { id: 'u-01', name: 'Ann B' } },
      {
        url: `${A}/api/v1/users?include=roles`,
        body: [
          { id: 'u-01', name: 'Ann B', roles: ['admin'] },
          { id: 'u-02', name: 'Bo', active: false, roles: [] },
        ],
      },
    ]);
    const p = plan(s, 'get_api_v1_users');
    expect(p).toMatchObject({ kind: 'list', projected_query_keys: [{ name: 'include' }] });
    expect(p.required_fields).toContain('active');
  });

  it('ES-20 the same omission on a line serving answers from state does relax it (ES-21)', () => {
    const s = stateOf([
      { url: `${A}/api/v1/users`, body: users(false) },
      { method: 'PATCH', url: `${A}/api/v1/users/u-01`, requestBody: { name: 'Ann B' }, body: { id: 'u-01', name: 'Ann B' } },
      {
        url: `${A}/api/v1/users`,
        body: [
          { id: 'u-01', name: 'Ann B' },
          { id: 'u-02', name: 'Bo', active: false },
        ],
      },
    ]);
    expect(plan(s, 'get_api_v1_users').required_fields).not.toContain('active');
  });

  it('ES-14 ES-20 a later late shaping row (?expand=shelf) is replayed, so the member it drops stays required', () => {
    const s = stateOf([
      { url: `${A}/api/v1/books/bk-0001`, body: { id: 'bk-0001', title: 'A', shelf_id: 'sh-1' } },
      { url: `${A}/api/v1/books/bk-0002`, body: { id: 'bk-0002', title: 'B', shelf_id: 'sh-2' } },
      {
        method: 'PATCH',
        url: `${A}/api/v1/books/bk-0001`,
        requestBody: { title: 'A2' },
        body: { id: 'bk-0001', title: 'A2', shelf_id: 'sh-1' },
      },
      { url: `${A}/api/v1/books/bk-0001?expand=shelf`, body: { id: 'bk-0001', title: 'A2', shelf: { id: 'sh-1', name: 'Top' } } },
    ]);
    const p = plan(s, 'get_api_v1_books_by_id');
    expect(p.projected_record_ordinals).toContain(4);
    expect(p.required_fields).toContain('shelf_id');
  });

  it('ES-31 a counted read listing an unwritten entity\'s tags unsorted (["b","a"]) stops tags from being a candidate', () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/notes`,
        body: [
          { id: 'note-0001', tags: ['alpha', 'beta'] },
          { id: 'note-0002', tags: ['a', 'b'] },
        ],
      },
      { method: 'PUT', url: `${A}/api/v1/notes/note-0001`, requestBody: { tags: ['zeta', 'alpha', 'mid'] }, body: {} },
      {
        url: `${A}/api/v1/notes`,
        body: [
          { id: 'note-0001', tags: ['alpha', 'mid', 'zeta'] },
          { id: 'note-0002', tags: ['b', 'a'] },
        ],
      },
    ]);
    expect(plan(s, 'get_api_v1_notes')).toMatchObject({ kind: 'list', sorted_arrays: [] });
    // Without the unsorted row the same capture learns tags (ES-32).
    const learned = stateOf([
      {
        url: `${A}/api/v1/notes`,
        body: [
          { id: 'note-0001', tags: ['alpha', 'beta'] },
          { id: 'note-0002', tags: ['a', 'b'] },
        ],
      },
      { method: 'PUT', url: `${A}/api/v1/notes/note-0001`, requestBody: { tags: ['zeta', 'alpha', 'mid'] }, body: {} },
      {
        url: `${A}/api/v1/notes`,
        body: [
          { id: 'note-0001', tags: ['alpha', 'mid', 'zeta'] },
          { id: 'note-0002', tags: ['a', 'b'] },
        ],
      },
    ]);
    expect(plan(learned, 'get_api_v1_notes')).toMatchObject({ sorted_arrays: ['tags'] });
  });
});

describe('OQ-20 the write gate reports, never decides', () => {
  it("OQ-20 a later read that disagrees with the gate's model is a finding; the plans stay as checked", () => {
    const s = stateOf([
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-01', name: 'A' },
          { id: 'it-02', name: 'B' },
        ],
      },
      { method: 'PATCH', url: `${A}/api/v1/items/it-01`, requestBody: { name: 'B1' }, body: { id: 'it-01', name: 'B1' } },
      {
        url: `${A}/api/v1/items`,
        body: [
          { id: 'it-01', name: 'server-made' },
          { id: 'it-02', name: 'B' },
        ],
      },
    ]) as State & { gate_findings: string[] };
    expect(s.gate_findings).toEqual(["#3 shows items it-01 with name other than the gate's model"]);
    expect(plan(s, 'get_api_v1_items')).toMatchObject({ kind: 'list' });
  });
});
