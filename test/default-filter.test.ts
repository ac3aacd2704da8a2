/**
 * Issue 44, kind 4: lists whose default hides members. Redmine's `/issues.json` lists open
 * issues only (`?status_id=*` lists all); replayed as a snapshot, new or closed issues never
 * moved in or out, and every other query of the list was declined. The plain line is now read
 * as a default filter over one field (src/state/plan-default-filter.ts), every recorded line
 * without its lifting key is checked with it, and the list answers from state.
 *
 * Expectations come from the app: the Redmine capture's own records (recorded in Debian's
 * Chromium, bench/fidelity/redmine) and the truth the app gave to held-out requests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { servedFidelityApp } from './fidelity-served.js';
import { serveHttp } from './serve-helpers.js';
import type { ListPlan, Plan } from '../src/model/plan/types.js';

const served = servedFidelityApp('redmine');
const { get } = served;
const dir = tempDir();

interface Issue {
  id: number;
  subject: string;
  status: { is_closed: boolean };
}
type Page = { issues: Issue[]; total_count: number; offset: number; limit: number };

/** The capture's recorded answer to `GET <path>` (the first record of that line). */
function recorded(path: string): unknown {
  const har = JSON.parse(readFileSync(join(served.app, 'capture.har'), 'utf8')) as {
    log: { entries: { request: { method: string; url: string }; response: { content: { text: string } } }[] };
  };
  const e = har.log.entries.find(
    (x) => x.request.method === 'GET' && new URL(x.request.url).pathname + new URL(x.request.url).search === path,
  );
  return JSON.parse(e!.response.content.text);
}

const plansOf = (har: string): Plan[] => {
  const r = cli(['state', har, '--json', '-q']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { plans: Plan[] }).plans;
};

describe('issue 44 kind 4: a default filter over one field, learned from the plain line', () => {
  it('default filter: Redmine lists issues whose status.is_closed is false unless status_id is named', () => {
    const p = plansOf(join(served.app, 'capture.har')).find((x) => x.tool === 'get_issues_json') as ListPlan;
    expect(p.kind).toBe('list');
    expect(p.default_filter).toEqual({ field: 'status.is_closed', values: ['false'], lifted_by: ['status_id'] });
    // Lines without the lifting key are checked with it: the sort and the window reproduce and are learned.
    expect(p.list_queries).toMatchObject({ sort: ['sort'], window: ['limit', 'offset'] });
    expect(p.lines.find((l) => l.query === 'sort=priority:desc')?.reason).toBeUndefined();
  });

  it('default filter: another window and another sort of the open issues answer from state, with the envelope echoing the window', async () => {
    const open = (recorded('/issues.json') as Page).issues;
    const page = await get('/issues.json?limit=2');
    expect(page.status).toBe(200);
    expect(page.h('capstate-answer')).toBe('state');
    const body = page.json as Page;
    expect(body.issues.map((i) => i.id)).toEqual(open.slice(0, 2).map((i) => i.id));
    expect([body.total_count, body.offset, body.limit]).toEqual([open.length, 0, 2]);

    // `sort=field:desc` (Redmine's spelling), learned from `sort=priority:desc`.
    const bySubject = (await get('/issues.json?sort=subject:desc')).json as Page;
    expect(bySubject.issues.map((i) => i.id)).toEqual(
      [...open].sort((a, b) => (a.subject < b.subject ? 1 : a.subject > b.subject ? -1 : 0)).map((i) => i.id),
    );
  });

  it('default filter: the lifting key with a value no line proved declines rather than guess (status_id=closed)', async () => {
    const r = await get('/issues.json?status_id=closed');
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
  });

  it("api-window echoes: /projects.json?limit=1&offset=1 echoes offset and limit as the issues list's envelope proved (truth from Redmine)", async () => {
    const truth = (
      JSON.parse(readFileSync(join(served.app, 'truth.json'), 'utf8')) as { answers: { path: string; json: unknown }[] }
    ).answers.find((a) => a.path === '/projects.json?limit=1&offset=1')!;
    const r = await get('/projects.json?limit=1&offset=1');
    expect(r.json).toEqual(truth.json);
    expect(r.h('capstate-convention')).toContain('api-window');
  });

  it('default filter: an entity a verified write closes leaves the default list and stays in the lifted one', async () => {
    const A = 'http://localhost:3000';
    const t = (id: number, done: boolean) => ({ id, title: `task ${id}`, done });
    const exchanges: Exchange[] = [
      { url: `${A}/tasks`, body: [t(1, false), t(3, false)] },
      { url: `${A}/tasks?include_done=1`, body: [t(1, false), t(3, false), t(2, true)] },
      { url: `${A}/tasks/1`, body: t(1, false) },
      { method: 'PATCH', url: `${A}/tasks/1`, requestBody: { done: true }, body: t(1, true) },
      { url: `${A}/tasks/1`, body: t(1, true) },
      { url: `${A}/tasks`, body: [t(3, false)] },
    ];
    const har = writeHar(dir, 'default-filter-tasks.har', exchanges);
    const p = plansOf(har).find((x) => x.tool === 'get_tasks') as ListPlan;
    expect(p.default_filter).toEqual({ field: 'done', values: ['false'], lifted_by: ['include_done'] });
    const { base, close } = await serveHttp(har, join(dir, 'default-filter-tasks.sqlite'));
    try {
      const ids = async (path: string) => ((await (await fetch(base + path)).json()) as { id: number }[]).map((x) => x.id);
      expect(await ids('/tasks')).toEqual([1, 3]);
      const w = await fetch(`${base}/tasks/3`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"done":true}' });
      expect(w.status).toBe(200);
      expect(await ids('/tasks')).toEqual([1]);
    } finally {
      await close();
    }
  });
});
