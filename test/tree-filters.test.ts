/**
 * Issue 44: a reference key that lists what sits under the entity named too
 * (src/model/served/tree-filters.ts), on Redmine 5.0.4 recorded in Debian's Chromium
 * (bench/fidelity/redmine): its `/issues.json?project_id=1` lists the open issues of project 1
 * and of its subproject 3 (`"parent": {"id": 1, "name": "Aurora"}`), which equality on
 * `project.id` does not reproduce. Truth: Redmine's own answers to the held-out requests
 * (truth.json), sent after the capture's requests, as here; server clocks masked as the
 * benchmark masks them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { servedFidelityApp } from './fidelity-served.js';
import { cli, root, tempDir } from './helpers.js';

const redmine = servedFidelityApp('redmine');
const mask = (v: unknown) =>
  JSON.parse(JSON.stringify(v), (k, x: unknown) => (['created_on', 'updated_on', 'closed_on'].includes(k) ? '<masked>' : x)) as unknown;

describe('reference keys that list what sits under the entity named (tree)', () => {
  it("tree: Redmine's project_id=1, listing subproject 3's issues too, is learned as standing for the project and those under it", () => {
    const db = join(tempDir(), 'redmine.sqlite');
    expect(cli(['load', join(root, 'bench', 'fidelity', 'redmine', 'capture.har'), '--db', db]).status).toBe(0);
    const state = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as {
      plans: { tool: string; list_queries?: { filter: string[]; tree?: string[] } }[];
    };
    expect(state.plans.find((p) => p.tool === 'get_issues_json')!.list_queries).toMatchObject({
      filter: ['project_id'],
      tree: ['project_id'],
    });
  });

  it('tree: another project, with the default filter or lifting it, answers like Redmine', async () => {
    await redmine.replayCapture();
    for (const [id, path] of [
      ['filter-12', '/issues.json?project_id=3'],
      ['default-filter-24', '/issues.json?project_id=2&status_id=*'],
      ['filter-19', '/issues.json?project_id=1&tracker_id=1'],
    ]) {
      const r = await redmine.get(path);
      expect(r.h('capstate-answer'), path).not.toBe('declined');
      expect(mask(r.json), path).toEqual(mask(redmine.truth(id).json));
    }
  });

  it("tree: the API's other reference keys borrow the habit, and a member naming another collection's entity is no parent (a tracker's default_status)", async () => {
    await redmine.replayCapture();
    const r = await redmine.get('/issues.json?tracker_id=1');
    expect(r.h('capstate-convention')).toBe('api-reference-filter');
    expect(mask(r.json)).toEqual(mask(redmine.truth('after-write-42').json));
  });
});
