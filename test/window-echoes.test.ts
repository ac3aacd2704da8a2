/**
 * Issue 44, kind 1: envelope members that echo the request's window are rendered from the
 * window, never treated as data. Redmine 5.0.4's issue list (bench/fidelity/redmine, recorded in
 * Debian's Chromium) answers `{"issues": […], "total_count": …, "offset": 0, "limit": 25}`, and
 * `?limit=2&offset=2` answers `"offset": 2, "limit": 2`: before, the two envelopes differed
 * (ES-25) and the whole list was a record view.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderList, collectionsOf } from '../src/model/plan/render.js';
import type { ListPlan, StateEntity } from '../src/model/plan/types.js';
import { cli, root } from './helpers.js';

const capture = join(root, 'bench', 'fidelity', 'redmine', 'capture.har');

describe('issue 44 kind 1: window echoes', () => {
  it('the Redmine issue list forms a plan whose offset and limit echo the request (defaults 0 and 25)', () => {
    const r = cli(['state', capture, '--json', '-q']);
    expect(r.status, r.stderr).toBe(0);
    const plan = (JSON.parse(r.stdout) as { plans: ListPlan[] }).plans.find((p) => p.tool === 'get_issues_json')!;
    expect(plan.kind).toBe('list');
    expect(plan.window_echoes).toEqual([
      { member: '/offset', role: 'offset', keys: ['offset'], default: 0 },
      { member: '/limit', role: 'size', keys: ['limit'], default: 25 },
    ]);
  });

  it('the renderer writes an echo from the line’s window, else the value its query names, else the default', () => {
    const e = (id: number): StateEntity => ({
      collection: 'issues',
      id: String(id),
      value: { id },
      view_values: {},
      state_order: id,
      record_ordinals: [],
    });
    const plan = {
      tool: 't',
      kind: 'list',
      collection: 'issues',
      fields: ['id'],
      list_pointer: '/issues',
      counters: [],
      window_echoes: [
        { member: '/offset', role: 'offset', keys: ['offset'], default: 0 },
        { member: '/limit', role: 'size', keys: ['limit'], default: 25 },
      ],
    } as unknown as ListPlan;
    const envelope = { issues: [], total_count: 5, offset: 7, limit: 7 };
    const state = collectionsOf([1, 2, 3, 4, 5].map(e));
    const base = { path: '/issues.json', record_ordinal: 1, status: 200, membership: 'all' as const };
    const body = (line: object) => {
      const r = renderList(plan, { ...base, query: null, ...line }, envelope, state);
      return r.status === 'rendered' ? r.body : null;
    };
    expect(body({ window: { offset: 2, size: 2 } })).toMatchObject({ issues: [{ id: 3 }, { id: 4 }], offset: 2, limit: 2 });
    expect(body({ query: 'offset=4&limit=1', membership: 'recorded', listed_ids: ['5'] })).toMatchObject({ offset: 4, limit: 1 });
    expect(body({})).toMatchObject({ offset: 0, limit: 25 });
    // A plan without echoes keeps the envelope's recorded values.
    const none = renderList({ ...plan, window_echoes: undefined }, { ...base, query: null }, envelope, state);
    expect(none.status === 'rendered' && none.body).toMatchObject({ offset: 7, limit: 7 });
  });
});
