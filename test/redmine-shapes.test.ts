/**
 * Issue 18 on a real Redmine 5.0.4 (fixtures/redmine-shapes, reads only): alternate keys
 * (`/projects/garden.json` and `/projects/2.json` read the same kind of entity, by its
 * `identifier` and by its `id`) and filtered lists (Redmine's default `/issues.json` hides
 * closed issues next to `?status_id=*` and `?status_id=closed`) and a nested collection with no
 * flat list (`/projects/{id}/memberships.json`, one project read by its identifier). The state's entities and
 * the served answers are compared with Redmine's own answers outside the capture
 * (expected/truth.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alternateKeyOf, collectionsOf } from '../src/model/plan/render.js';
import type { ItemPlan, ListPlan, Plan } from '../src/model/plan/types.js';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, type Served } from './serve-helpers.js';

const CAPTURE = fixture('redmine-shapes', 'capture.har');
type Truth = { method: string; path: string; status: number; body: unknown };
const truth = JSON.parse(readFileSync(fixture('redmine-shapes', 'expected', 'truth.json'), 'utf8')) as Truth[];
const truthOf = (path: string) => truth.find((t) => t.path === path)!;

interface State {
  types: { collection: string; identity: string }[];
  entities: { collection: string; id: string; value: unknown }[];
  plans: Plan[];
}
const state = (() => {
  const r = cli(['state', CAPTURE, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
})();
const plan = (tool: string) => state.plans.find((p) => p.tool === tool)!;
const answer = (r: CallToolResult) => r.structuredContent as { status: number; body: unknown; source: string };

describe('issue 18, alternate keys: one entity read by its id and by its identifier', () => {
  it("the projects type is keyed by id (an identity name), one entity per project, each equal to Redmine's item read", () => {
    expect(state.types.find((t) => t.collection === 'projects')!.identity).toBe('id');
    const projects = state.entities.filter((e) => e.collection === 'projects');
    expect(projects.map((e) => e.id)).toEqual(['1', '2']);
    expect(projects.map((e) => e.value)).toEqual(
      [truthOf('/projects/1.json').body, truthOf('/projects/ops-runbook.json').body].map((b) => (b as { project: unknown }).project),
    );
  });

  it('the item plan learns identifier as the alternate key and reproduces the reads by either key', () => {
    const p = plan('get_projects_by_id_json') as ItemPlan;
    expect(p.kind).toBe('item');
    expect(p.alternate_key).toBe('identifier');
    expect(p.lines.map((l) => l.id)).toEqual(['ops-runbook', '2', 'garden']);
  });

  it("an alternate key must tell every entity apart: repeated values, or a value that is another entity's id, are none", () => {
    const c = (values: [string, string][]) =>
      collectionsOf(
        values.map(([id, slug], i) => ({
          collection: 'p',
          id,
          value: { id: Number(id), slug },
          view_values: {},
          state_order: i,
          record_ordinals: [],
        })),
      );
    expect(
      alternateKeyOf(
        c([
          ['1', 'a'],
          ['2', 'b'],
        ]),
        'p',
        [{ path_value: 'b', entity_id: '2' }],
      ),
    ).toBe('slug');
    expect(
      alternateKeyOf(
        c([
          ['1', 'a'],
          ['2', 'a'],
        ]),
        'p',
        [{ path_value: 'a', entity_id: '2' }],
      ),
    ).toBeUndefined();
    expect(
      alternateKeyOf(
        c([
          ['1', '2'],
          ['2', 'x'],
        ]),
        'p',
        [{ path_value: 'x', entity_id: '2' }],
      ),
    ).toBeUndefined();
    expect(
      alternateKeyOf(
        c([
          ['1', 'a'],
          ['2', 'b'],
        ]),
        'p',
        [{ path_value: '2', entity_id: '2' }],
      ),
    ).toBeUndefined();
  });
});

describe("issue 18, filtered lists: Redmine's default issue list hides closed issues", () => {
  it('?status_id=* lists every issue and its key lifts the default filter, so it lists the whole collection (issue 44 kind 9); the default line is a default filter (kind 4); ?status_id=closed lists its own issues, and the plan stays', () => {
    const p = plan('get_issues_json') as ListPlan;
    expect(p.kind).toBe('list');
    const byQuery = Object.fromEntries(p.lines.map((l) => [l.query ?? '', l]));
    // Issue 44 kind 9 (ES-35): `status_id` lifts the default filter (it lists the closed issue the
    // plain line leaves out): a line naming only it widens the plain line and is no filter.
    expect(byQuery['status_id=*']).toMatchObject({ membership: 'all' });
    expect(byQuery['status_id=*'].listed_ids).toBeUndefined();
    expect(byQuery['status_id=*'].reason).toBeUndefined();
    expect(byQuery[''].membership).toBe('recorded');
    expect(byQuery[''].listed_ids).toEqual(['4', '3', '1']);
    // Issue 44 kind 4: the default line is read as the open issues (plan-default-filter.ts).
    expect(p.default_filter).toEqual({ field: 'status.is_closed', values: ['false'], lifted_by: ['status_id'] });
    expect(byQuery[''].filter).toEqual([{ field: 'status.is_closed', values: ['false'] }]);
    expect(byQuery[''].reason).toBeUndefined();
    expect(byQuery['status_id=closed'].listed_ids).toEqual(['2']);
    expect(byQuery['status_id=closed'].reason).toBe('membership-differs');
  });
});

describe('issue 18, nested collections without a flat list: memberships under a project', () => {
  it('ES-7: /projects/{id}/memberships.json, read for two projects, lists a type of its own (/memberships), not projects', () => {
    const m = JSON.parse(cli(['manifest', CAPTURE, '--json']).stdout) as {
      manifests: { tools: { name: string; root_path: string }[]; notes: string[] }[];
    };
    expect(m.manifests[0].tools.find((t) => t.name === 'get_projects_by_id_memberships_json')!.root_path).toBe('/memberships');
    expect(state.types.map((t) => t.collection)).toEqual(['issues', 'memberships', 'projects']);
    expect(state.types.find((t) => t.collection === 'memberships')!.identity).toBe('id');
  });

  it('its entities are the memberships Redmine lists under each project, one each', () => {
    const got = state.entities.filter((e) => e.collection === 'memberships').map((e) => e.value);
    const listed = ['/projects/1/memberships.json', '/projects/ops-runbook/memberships.json'].flatMap(
      (p) => (truthOf(p).body as { memberships: unknown[] }).memberships,
    );
    expect(got).toEqual(listed);
  });

  it('ES-37: the list plan learns the parent in project.id, and reads the path value garden as project 1 (the project item read by garden showed it)', () => {
    const p = plan('get_projects_by_id_memberships_json') as ListPlan;
    expect(p).toMatchObject({
      kind: 'list',
      collection: 'memberships',
      parent: { param: 'id', field: 'project.id', collection: 'projects' },
      counters: ['/total_count'],
    });
    expect(p.lines.map((l) => [l.path, l.filter, l.listed_ids, l.total_members])).toEqual([
      ['/projects/garden/memberships.json', [{ field: 'project.id', values: ['1'] }], ['1'], ['/total_count']],
      ['/projects/2/memberships.json', [{ field: 'project.id', values: ['2'] }], ['2'], ['/total_count']],
    ]);
  });
});

describe('Redmine 5.0.4 (fixtures/redmine-shapes): serving what the capture never asked, as Redmine answered it', () => {
  const dir = tempDir();
  let s: Served;
  beforeAll(async () => {
    const db = join(dir, 'shapes.sqlite');
    const r = cli(['load', CAPTURE, '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });

  it("a project read by a key no record used (its id 1) and by its identifier, each from state and equal to Redmine's answer", async () => {
    for (const [id, path] of [
      ['1', '/projects/1.json'],
      ['garden', '/projects/garden.json'],
      ['ops-runbook', '/projects/ops-runbook.json'],
    ]) {
      const a = answer(await s.call('get_projects_by_id_json', { id }));
      expect(a.source, id).toBe('state');
      expect(a.status).toBe(200);
      expect(JSON.stringify(a.body), id).toBe(JSON.stringify(truthOf(path).body));
    }
  });

  it('the closed issue only ?status_id=* listed is answered by its item read as Redmine answers it', async () => {
    const a = answer(await s.call('get_issues_by_id_json', { id: '2' }));
    expect(a.source).toBe('state');
    expect(JSON.stringify(a.body)).toBe(JSON.stringify(truthOf('/issues/2.json').body));
  });

  it('memberships under a project no record read by that key are answered from state as Redmine answered them: by id (1) and by identifier (ops-runbook)', async () => {
    for (const [id, path] of [
      ['1', '/projects/1/memberships.json'],
      ['ops-runbook', '/projects/ops-runbook/memberships.json'],
    ]) {
      const a = answer(await s.call('get_projects_by_id_memberships_json', { id }));
      expect(a.source, id).toBe('state');
      expect(a.status, id).toBe(truthOf(path).status);
      expect(JSON.stringify(a.body), id).toBe(JSON.stringify(truthOf(path).body));
    }
  });

  it('a project the state does not hold gets no answer from state (Redmine answers 404 there; no such record to replay)', async () => {
    const r = await s.call('get_projects_by_id_memberships_json', { id: '77' });
    expect(r.isError).toBe(true);
  });
});
