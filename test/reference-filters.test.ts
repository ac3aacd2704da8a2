/**
 * Issue 44 on a real Redmine 5.0.4 (fixtures/redmine-references, reads only): filters by a
 * reference's id (`?tracker_id=2` filters `tracker.id`), learned where a recorded line reproduced
 * and applied to the list's other references by the API's convention; the decline where plain
 * equality is not what the value asks (a project heading subprojects, an identifier); and a
 * `.json` list read once as a collection (kind 5), not a document. The served answers are
 * compared with Redmine's own answers outside the capture (expected/truth.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { learnReadConventions, widenQueries } from '../src/model/plan/conventions.js';
import type { ListPlan, Plan } from '../src/model/plan/types.js';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStoreHttp } from './serve-helpers.js';

const CAPTURE = fixture('redmine-references', 'capture.har');
type Truth = { method: string; path: string; status: number; body: { issues: { id: number }[]; total_count: number } };
const truth = JSON.parse(readFileSync(fixture('redmine-references', 'expected', 'truth.json'), 'utf8')) as Truth[];
const truthOf = (path: string) => truth.find((t) => t.path === path)!;

const state = (() => {
  const r = cli(['state', CAPTURE, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    types: { collection: string }[];
    entities: { collection: string }[];
    documents: unknown[];
    plans: Plan[];
  };
})();
const issues = () => state.plans.find((p) => p.tool === 'get_issues_json') as ListPlan;

let served: { base: string; close: () => Promise<void> };
beforeAll(async () => {
  const db = join(tempDir(), 'redmine-references.sqlite');
  const r = cli(['load', CAPTURE, '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  served = await serveStoreHttp(db);
});
afterAll(() => served.close());

const get = async (path: string) => {
  const r = await fetch(served.base + path);
  return {
    status: r.status,
    answer: r.headers.get('capstate-answer'),
    convention: r.headers.get('capstate-convention'),
    json: await r.json(),
  };
};

describe('issue 44 kind 5: a list of objects with identities read once is a collection', () => {
  it('/projects.json, read once, is the type projects with its three entities, not a document', () => {
    expect(state.types.map((t) => t.collection)).toEqual(['issues', 'projects']);
    expect(state.entities.filter((e) => e.collection === 'projects')).toHaveLength(3);
    expect(state.documents).toEqual([]);
  });
});

describe("issue 44: filters by a reference's id", () => {
  it('the recorded tracker_id and assigned_to_id lines are learned as filters on tracker.id and assigned_to.id, under the default filter', () => {
    const p = issues();
    expect(p.list_queries?.filter).toEqual(['assigned_to_id', 'tracker_id']);
    expect(p.default_filter).toEqual({ field: 'status.is_closed', values: ['false'], lifted_by: ['status_id'] });
    const line = (q: string) => p.lines.find((l) => l.query === q)!;
    expect(line('tracker_id=2').filter).toEqual([
      { field: 'status.is_closed', values: ['false'] },
      { field: 'tracker.id', values: ['2'] },
    ]);
    // `status_id=*` lifts the default filter: it filters nothing of its own.
    expect(line('assigned_to_id=5&status_id=*').filter).toEqual([{ field: 'assigned_to.id', values: ['5'] }]);
  });

  it('capstate state names the convention and the list that proved it', () => {
    const r = cli(['state', CAPTURE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("filters by a reference's id as <field>_id (project_id=1: project.id is 1): proved by get_issues_json");
  });

  it('the tool card names the learned reference keys, and promises several values of one key only where a recorded line proved it', () => {
    const card = (capture: string) => {
      const r = cli(['card', capture]);
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    const redmine = card(CAPTURE);
    expect(redmine).toContain('filters on assigned_to_id or tracker_id, and by the API');
    expect(redmine).toContain('api-reference-filter (project_id, status_id, priority_id');
    expect(redmine).not.toContain('one value or several');
    // json-server 0.17 lists what any of a repeated key's values picks: its capture reads `?userId=1&userId=2`.
    expect(card(fixture('json-server-lists', 'capture.har'))).toContain('filters on id or userId (one value or several)');
  });

  it.each([
    ['/issues.json?priority_id=4', 'convention'],
    ['/issues.json?priority_id=2&status_id=*', 'convention'],
    ['/issues.json?tracker_id=1&assigned_to_id=6', 'state'],
    ['/issues.json?status_id=5', 'convention'],
    ['/issues.json?project_id=3', 'convention'],
  ])('%s is answered as Redmine answers it (%s)', async (path, how) => {
    const a = await get(path);
    const t = truthOf(path);
    expect(a.status).toBe(t.status);
    expect(a.answer).toBe(how);
    if (how === 'convention') expect(a.convention).toBe('api-reference-filter');
    expect(a.json.issues.map((i: { id: number }) => i.id)).toEqual(t.body.issues.map((i) => i.id));
    expect(a.json.issues).toEqual(t.body.issues.map((i) => expect.objectContaining({ id: i.id })));
    expect(a.json.total_count).toBe(t.body.total_count);
  });

  it('a project another project names as its parent is declined: Redmine lists the subproject issues too, which equality would leave out', async () => {
    expect(truthOf('/issues.json?project_id=1').body.issues.map((i) => i.id)).toEqual([12, 10, 9, 3, 2, 1]);
    const a = await get('/issues.json?project_id=1');
    expect(a.status).toBe(501);
    expect(a.answer).toBe('declined');
    expect(a.json.detail).toContain('project_id=1 names project 1, which projects 3 names by its parent');
  });

  it('a value no issue references is declined: Redmine reads it as the project identifier', async () => {
    expect(truthOf('/issues.json?project_id=borealis').body.total_count).toBe(3);
    const a = await get('/issues.json?project_id=borealis');
    expect(a.status).toBe(501);
    expect(a.json.detail).toContain('project_id=borealis names no project that an entity of issues references');
  });

  it("a key the list's own recorded line did not reproduce is not borrowed from the API's convention", () => {
    const p = issues();
    const conv = learnReadConventions([p]);
    expect([...conv.reference.keys()]).toEqual(['_id']);
    expect([...widenQueries(p, conv, ['project', 'priority'])!.borrowed.keys()]).toEqual(['project_id', 'priority_id']);
    // Redmine's `project_id=1` lists subprojects' issues too: a line the state did not reproduce.
    const failed: ListPlan = {
      ...p,
      lines: [
        ...p.lines,
        { path: '/issues.json', query: 'project_id=1', record_ordinal: 9, status: 200, membership: 'recorded', listed_ids: ['1'] },
      ],
    };
    expect([...widenQueries(failed, conv, ['project', 'priority'])!.borrowed.keys()]).toEqual(['priority_id']);
  });
});
