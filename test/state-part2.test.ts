/**
 * The environment-state view, part 2 (issue 5): per-response members, variants and
 * projections, changes across writes under other roots, clock formats and the budget.
 */
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
let n = 0;

interface Plan { tool: string; kind: string; reason?: string; detail?: string; [k: string]: unknown }
interface State {
  entities: { collection: string; id: string; value: Record<string, unknown>; view_values: Record<string, Record<string, unknown>>; record_ordinals: number[] }[];
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
const uuid = (i: number) => `${(0x0b6f3c1e + i * 7919).toString(16).padStart(8, '0')}-6a52-4c1f-9d3e-2f6a8b7c9d${String(i).padStart(2, '0')}`;

describe('ES-23 members generated per response', () => {
  it('ES-23 ES-25 the spec example: requestId differs on both repeats; the list view names it and its plan holds', () => {
    const s = stateOf([0, 1, 2].map((i) => ({ url: `${A}/api/v1/items`, start: `10:00:0${i * 4}.000`, body: { requestId: uuid(i), items: [{ id: 'it-01' }] } })));
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
  it('ES-24 the collection\'s proof does not name the member for its item view; each item path needs its own three records', () => {
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
