/**
 * Issue 45 (kinds 2, 3 and 4) on Redmine 5.0.4's capture (bench/fidelity/redmine, recorded in
 * Debian's Chromium): its `PUT /issues/{id}.json` answers 204 with no body, so what an update
 * does is learned from the reads after the capture's own (src/model/served/update-effects.ts):
 * `X_id` sets the reference `X` as the API's create showed, `updated_on` is stamped by every
 * update, `closed_on` when the status becomes a closed one. Expectations are Redmine's own
 * answers to the held-out requests (truth.json), its clocks masked as the benchmark masks them.
 */
import { describe, expect, it } from 'vitest';
import { servedFidelityApp } from './fidelity-served.js';
import { cli } from './helpers.js';

const redmine = servedFidelityApp('redmine');
const CLOCKS = ['created_on', 'updated_on', 'closed_on'];
const mask = (v: unknown) =>
  JSON.parse(JSON.stringify(v), (k, x: unknown) => (CLOCKS.includes(k) && x !== null ? '<clock>' : x)) as unknown;

const send = (method: string, path: string, body?: unknown) => redmine.send(method, path, body);

type Issue = { issue: Record<string, unknown> };

describe("issue 45: Redmine's updates, learned from the reads after the capture's own", () => {
  it('check-effects verifies Redmine’s PUT (merge) and POST (create with the type’s defaults): every recorded response reproduced', () => {
    const r = cli(['check-effects', `${redmine.app}/capture.har`, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      write_tools: { verified: { tool: string; effect: string }[] };
      reproduced: number;
      responses: number;
    };
    expect(report.write_tools.verified).toEqual(
      expect.arrayContaining([
        { tool: 'put_issues_by_id_json', effect: 'merge' },
        { tool: 'post_issues_json', effect: 'create-with-defaults' },
      ]),
    );
    expect(report.reproduced).toBe(report.responses);
  });

  it('api-reference: priority_id in an update sets the priority object other issues show (PUT /issues/3.json)', async () => {
    await redmine.replayCapture();
    const before = (await send('GET', '/issues/3.json')).json as Issue;
    const put = await send('PUT', '/issues/3.json', { issue: { priority_id: 4 } });
    expect(put.status).toBe(204);
    const after = await send('GET', '/issues/3.json');
    expect(mask(after.json)).toEqual(mask(redmine.truth('read-after-write-60').json));
    // Server-kept: updated_on stamped by the update, created_on kept.
    const a = (after.json as Issue).issue;
    expect(a.updated_on).not.toBe(before.issue.updated_on);
    expect(a.created_on).toBe(before.issue.created_on);
  });

  it('server-kept fields: closed_on is stamped when an update closes the issue, and stays null otherwise', async () => {
    await redmine.replayCapture();
    await send('PUT', '/issues/7.json', { issue: { status_id: 5 } });
    const closed = ((await send('GET', '/issues/7.json')).json as Issue).issue;
    expect(closed.status).toEqual({ id: 5, name: 'Closed', is_closed: true });
    expect(closed.closed_on).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await send('PUT', '/issues/2.json', { issue: { done_ratio: 50 } });
    const open = (await send('GET', '/issues/2.json')).json;
    expect(mask(open)).toEqual(mask(redmine.truth('read-after-write-58').json));
    expect((open as Issue).issue.closed_on).toBeNull();
  });

  it('a create that leaves out what the recorded create gave is declined where the app adds members of its own, and the id it may have made is not called absent', async () => {
    await redmine.replayCapture();
    const post = await send('POST', '/issues.json', { issue: { project_id: 1, tracker_id: 2, priority_id: 2, subject: 'Held-out issue' } });
    expect(post.status).toBe(501);
    expect(post.h('capstate-answer')).toBe('declined');
    expect((await send('GET', '/issues/14.json')).status).toBe(501);
  });

  it("kind 9: a line naming only the key that lifts the default filter (status_id=*) lists the whole collection: an unknown issue is the app's own 404", async () => {
    await redmine.reset();
    const r = await send('GET', '/issues/0.json');
    expect(r.status).toBe(redmine.truth('not-found-07').status);
    expect(r.json).toBeUndefined();
    expect(r.h('capstate-answer')).toBe('state');
    // After the capture's writes the whole list renders from state, as the app lists it.
    await redmine.replayCapture();
    const all = await send('GET', '/issues.json?status_id=*');
    expect(all.h('capstate-answer')).toBe('state');
    expect(mask(all.json)).toEqual(mask(redmine.truth('repeat-53').json));
  });
});
