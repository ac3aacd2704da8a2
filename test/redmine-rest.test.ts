/**
 * Issue 16's Redmine-style target on a real Redmine 5.0.4 (Debian's `redmine`,
 * fixtures/redmine-rest): entities wrapped (`{"issue": {…}}`), server-stamped clocks, a POST
 * whose answer is a projection of what later reads show, ids given as `tracker_id` and
 * answered as objects, a PUT and a DELETE answered 204, lists newest first. check-effects
 * reproduces every recorded response, and serving answers what the capture never asked the
 * way Redmine itself answered it outside the capture (expected/truth.json).
 *
 * Issue 44 kind 9 (ES-35): the capture lists issues only through `?project_id=garden`, a
 * filter, which never proves the whole list. So on the capture itself an issue the state lacks
 * is declined, not a 404, and the list read after the writes, keeping the ids it listed,
 * cannot show their effects: the writes replay. The readings are checked on the same capture
 * with that list read as `GET /issues.json` (`WHOLE`): with one project (and every issue
 * open) Redmine lists the same issues there, and a list without a filter proves the whole list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, type Served } from './serve-helpers.js';

const CAPTURE = fixture('redmine-rest', 'capture.har');
const FILTERED = '/issues.json?project_id=garden';
/** The capture with its issue list read without the project filter (same answers: one project). */
const WHOLE = (() => {
  const har = JSON.parse(readFileSync(CAPTURE, 'utf8')) as {
    log: { entries: { request: { url: string; queryString: unknown[] } }[] };
  };
  for (const { request } of har.log.entries)
    if (request.url.endsWith(FILTERED)) {
      request.url = request.url.slice(0, -'?project_id=garden'.length);
      request.queryString = [];
    }
  const file = join(tempDir(), 'redmine-whole-list.har');
  writeFileSync(file, JSON.stringify(har));
  return file;
})();
type Truth = { method: string; path: string; request?: unknown; status: number; body: unknown };
const truth = JSON.parse(readFileSync(fixture('redmine-rest', 'expected', 'truth.json'), 'utf8')) as Truth[];
const truthOf = (method: string, path: string) => truth.find((t) => t.method === method && t.path === path)!;

/** Clocks the server stamps (`2026-12-01T21:20:13Z`) compared by shape: as the spelling, not the instant. */
const CLOCK = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const clocksByShape = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v), (_k, x) => (typeof x === 'string' && CLOCK.test(x) ? 'YYYY-MM-DDTHH:MM:SSZ' : x));
/** Byte for byte (member order too), clocks by shape. */
const sameText = (a: unknown, b: unknown) => expect(JSON.stringify(clocksByShape(a))).toBe(JSON.stringify(clocksByShape(b)));

const answer = (r: CallToolResult) => r.structuredContent as { status: number; body: unknown; source: string };

describe('Redmine 5.0.4 (fixtures/redmine-rest): the initial state', () => {
  it('holds the three seeded issues as Redmine lists them outside the capture, newest first', () => {
    const r = cli(['state', CAPTURE, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as { entities: { collection: string; id: string; value: unknown }[] };
    const seeded = (truthOf('GET', '/issues.json?project_id=garden').body as { issues: { id: number }[] }).issues.filter((i) => i.id <= 3);
    expect(s.entities.filter((e) => e.collection === 'issues').map((e) => e.value)).toEqual(seeded);
  });
});

describe('Redmine 5.0.4: write effects verified (check-effects), each difference blamed on the latest write before it, first differences first', () => {
  it('issue 44 kind 9: the only list is filtered (?project_id=garden), so it keeps the ids it listed; the reads after the writes differ and the writes replay', () => {
    const r = cli(['check-effects', CAPTURE, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      summary: string;
      write_tools: { verified: unknown[]; replayed: { tool: string; reason: string }[] };
    };
    expect(doc.summary).toBe('9 of 12 responses reproduced');
    expect(doc.write_tools.verified).toEqual([]);
    expect(doc.write_tools.replayed.find((w) => w.tool === 'delete_issues_by_id_json')!.reason).toMatch(
      // Issue 45 kind 5: issue 2, deleted by the candidate DELETE, reads as not found (#24 reproduces);
      // the filtered list #25, whose whole membership is unknown, still differs.
      /^not reproduced: a later read #25 \(GET \/issues\.json\?project_id=garden\): the JSON body differs at \/issues/,
    );
  });

  it("with the list read whole: reproduces all 12 admitted responses: the create with its type's defaults, the PUT as a merge, the DELETE (the create's first failure no longer takes the PUT and the DELETE with it)", () => {
    const r = cli(['check-effects', WHOLE, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      summary: string;
      checks: { reproduced: boolean }[];
      write_tools: { verified: { tool: string; effect: string }[]; replayed: unknown[] };
    };
    expect(doc.summary).toBe('12 of 12 responses reproduced');
    expect(doc.checks.filter((c) => c.reproduced)).toHaveLength(12);
    expect(doc.checks).toHaveLength(12);
    expect(doc.write_tools.verified).toEqual(
      expect.arrayContaining([
        { tool: 'post_issues_json', effect: 'create-with-defaults' },
        { tool: 'put_issues_by_id_json', effect: 'merge' },
        { tool: 'delete_issues_by_id_json', effect: 'remove' },
      ]),
    );
    expect(doc.write_tools.replayed).toEqual([]);
  });
});

describe('Redmine 5.0.4: serving what the capture never asked, as Redmine answered it', () => {
  const dir = tempDir();
  let s: Served;
  let whole: Served;
  beforeAll(async () => {
    const served = async (capture: string, name: string) => {
      const db = join(dir, name);
      const r = cli(['load', capture, '--db', db]);
      expect(r.status, r.stderr).toBe(0);
      return serveStore(db);
    };
    s = await served(CAPTURE, 'redmine.sqlite');
    whole = await served(WHOLE, 'redmine-whole-list.sqlite');
  });
  afterAll(async () => {
    await s?.close();
    await whole?.close();
  });

  it('an issue only the list showed (#3) is answered from state in the item envelope, byte for byte', async () => {
    const a = answer(await s.call('get_issues_by_id_json', { id: '3' }));
    const t = truthOf('GET', '/issues/3.json');
    expect(a.status).toBe(t.status);
    expect(a.source).toBe('state');
    sameText(a.body, t.body);
  });

  it('issue 44 kind 9: an issue Redmine does not hold (#99) is declined, not a 404: only a filtered list was read', async () => {
    expect(truthOf('GET', '/issues/99.json').status).toBe(404);
    const r = await s.call('get_issues_by_id_json', { id: '99' });
    expect(r.isError).toBe(true);
    expect(r._meta?.['capstate/answer']).toBe('declined');
  });

  it('with the list read whole: an issue Redmine does not hold (#99) is a 404, as Redmine answers it', async () => {
    const a = answer(await whole.call('get_issues_by_id_json', { id: '99' }));
    expect(a.status).toBe(truthOf('GET', '/issues/99.json').status);
  });

  it("with the list read whole: a create the capture never made: the answer and the list after it are Redmine's, clocks aside (tracker_id 2 answered as the Feature tracker)", async () => {
    await whole.call('reset_state', {});
    const t = truthOf('POST', '/issues.json');
    const created = answer(await whole.call('post_issues_json', { body: t.request as Record<string, unknown> }));
    expect(created.status).toBe(t.status);
    expect(created.source).toBe('state');
    sameText(created.body, t.body);
    expect((created.body as { issue: { tracker: unknown } }).issue.tracker).toEqual({ id: 2, name: 'Feature' });
    const list = answer(await whole.call('get_issues_json'));
    sameText(list.body, truthOf('GET', FILTERED).body);
  });

  it("a page size the capture never used is refused, naming the query keys it did use (no guess at Redmine's paging)", async () => {
    const r = await s.call('get_issues_json', { query: { project_id: 'garden', limit: '2' } });
    expect(r.isError).toBe(true);
    const error = JSON.parse((r.content as { text: string }[])[0].text) as { code: string; message: string };
    expect(error.code).toBe('bad-arguments');
    expect(error.message).toMatch(/unknown query key "limit"; recorded keys: project_id/);
  });
});
