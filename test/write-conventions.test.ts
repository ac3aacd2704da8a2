/**
 * Issue 45: the app's write conventions, learned from the writes the capture verified and
 * applied to every collection of the API (src/model/served/write-route.ts), and no write
 * answered wrongly in silence. On the fidelity benchmark's captures (bench/fidelity/, recorded
 * from the real apps in Debian's Chromium). Expectations are what the apps answered to the same
 * requests (truth.json's held-out writes, recorded from json-server 0.17.4, 1.0.0-beta.3 and
 * Redmine 5.0.4), or the seed the session read.
 */
import { describe, expect, it } from 'vitest';
import { servedFidelityApp, type ServedFidelityApp } from './fidelity-served.js';
import { tempDir } from './helpers.js';
import { serveHar, text } from './serve-helpers.js';

const v017 = servedFidelityApp('json-server-0.17');
const v10 = servedFidelityApp('json-server-1.0');
const redmine = servedFidelityApp('redmine');

const send = (app: ServedFidelityApp, method: string, path: string, body?: unknown) => app.send(method, path, body);

describe('issue 45 kind 1: writes on routes the capture never wrote to, by the API verified writes', () => {
  it('api-write: POST /users creates as POST /posts did (next integer id), and the users list shows it', async () => {
    const r = await send(v017, 'POST', '/users', { name: 'Dan', email: 'dan@example.test' });
    expect(r.status).toBe(201);
    expect(r.json).toEqual(v017.truth('POST', '/users').json);
    expect(r.h('capstate-answer')).toBe('convention');
    expect(r.h('capstate-convention')).toContain('api-write');
    expect((await v017.get('/users/4')).json).toEqual(v017.truth('GET', '/users/4').json);
    expect(((await v017.get('/users')).json as { id: number }[]).map((u) => u.id)).toEqual([1, 2, 3, 4]);
  });

  it('api-write: PATCH /comments/2 merges as PATCH /posts/{id} did; DELETE /comments/3 removes as DELETE /posts/{id} did', async () => {
    const patched = await send(v017, 'PATCH', '/comments/2', { body: 'Edited, held out' });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual(v017.truth('PATCH', '/comments/2').json);
    expect((await v017.get('/comments/2')).json).toEqual(v017.truth('GET', '/comments/2').json);
    const deleted = await send(v017, 'DELETE', '/comments/3');
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({});
    expect(deleted.h('capstate-convention')).toContain('api-write');
    const gone = await send(v017, 'GET', '/comments/3');
    expect(gone.status).toBe(404);
  });

  it("kind 5: an entity deleted by convention reads as not found by the item route, though another entity's reference spells its id (json-server 1.0's string ids)", async () => {
    await v10.reset();
    // Comments name posts and users by string ids (`"postId": "3"`): no sign that /comments/3 names a comment by another key.
    expect((await send(v10, 'DELETE', '/comments/3')).status).toBe(200);
    const gone = await send(v10, 'GET', '/comments/3');
    expect(gone.status).toBe(404);
    expect(gone.h('capstate-convention')).toBe('default-not-found');
  });

  it('api-write: PATCH of the /profile document merges by the API PATCH', async () => {
    const r = await send(v017, 'PATCH', '/profile', { name: 'capstate demo, renamed' });
    expect(r.status).toBe(200);
    expect(r.json).toEqual(v017.truth('PATCH', '/profile').json);
    expect((await v017.get('/profile')).json).toEqual(v017.truth('GET', '/profile').json);
  });

  it('no-convention: a PUT the capture verified nowhere is declined (json-server replaces, Redmine merges), and the entity it named is declined after it', async () => {
    const r = await send(v017, 'PUT', '/users/2', { name: 'Robert', email: 'bob@example.test' });
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
    const after = await v017.get('/users/2');
    expect(after.status).toBe(501);
    // Another user is still answered from the model.
    expect((await v017.get('/users/1')).status).toBe(200);
  });
});

describe('issue 45: no write answered wrongly in silence', () => {
  it("a write the model does not apply is never replayed for another body (Redmine's POST /issues.json is not verified)", async () => {
    const r = await send(redmine, 'POST', '/issues.json', { issue: { project_id: 1, tracker_id: 2, subject: 'Held out' } });
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
    expect((r.json as { code: string }).code).toBe('no-record');
  });

  it("kind 5: a delete that answers the entity answers the one removed (json-server 1.0's DELETE /posts/6), and its item reads as not found", async () => {
    const r = await send(v10, 'DELETE', '/posts/6');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(v10.truth('DELETE', '/posts/6').json);
    const gone = await send(v10, 'GET', '/posts/6');
    expect(gone.status).toBe(404);
  });

  it('a write no route answers still marks the reads it may change: after DELETE /issues/5.json, Redmine issue 5 is declined, not replayed', async () => {
    expect((await redmine.get('/issues/5.json')).status).toBe(200);
    const del = await send(redmine, 'DELETE', '/issues/5.json');
    expect(del.status).toBe(501);
    const after = await send(redmine, 'GET', '/issues/5.json');
    expect(after.status).toBe(501);
    expect(after.h('capstate-answer')).toBe('declined');
  });
});

describe('issue 45 kind 3: server-kept fields', () => {
  it('server-kept fields: an update keeps a clock its recorded update left as it was (createdAt) and stamps one it changed (updatedAt)', async () => {
    const A = 'http://localhost:3000/api';
    const item = (id: number, title: string, createdAt: string, updatedAt: string) => ({ id, title, createdAt, updatedAt });
    const s = await serveHar(tempDir(), [
      {
        url: `${A}/items`,
        body: [
          item(1, 'a', '2026-01-01T09:00:00.000Z', '2026-01-01T09:00:00.000Z'),
          item(2, 'b', '2026-01-02T09:00:00.000Z', '2026-01-02T09:00:00.000Z'),
        ],
      },
      { url: `${A}/items/1`, body: item(1, 'a', '2026-01-01T09:00:00.000Z', '2026-01-01T09:00:00.000Z') },
      {
        method: 'PATCH',
        url: `${A}/items/1`,
        requestBody: { title: 'z' },
        body: item(1, 'z', '2026-01-01T09:00:00.000Z', '2026-01-05T10:00:00.000Z'),
      },
      { url: `${A}/items/1`, body: item(1, 'z', '2026-01-01T09:00:00.000Z', '2026-01-05T10:00:00.000Z') },
    ]);
    try {
      const r = await s.call('patch_api_items_by_id', { id: '2', body: { title: 'y' } });
      expect(r.isError, text(r)).toBeFalsy();
      const body = (r.structuredContent as { body: { createdAt: string; updatedAt: string; title: string } }).body;
      expect(body.title).toBe('y');
      expect(body.createdAt).toBe('2026-01-02T09:00:00.000Z');
      expect(body.updatedAt).not.toBe('2026-01-02T09:00:00.000Z');
      expect(body.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      await s.close();
    }
  });
});

describe('issue 45 kind 5: deletes', () => {
  it('kind 5: an entity this session deleted reads as the app’s not-found even where the whole collection is unknown (no replay of its recorded 200)', async () => {
    const A = 'http://localhost:3000/api';
    const s = await serveHar(tempDir(), [
      // Read only through a filter: the whole membership is never known (issue 44 kind 9).
      {
        url: `${A}/items?tag=a`,
        body: [
          { id: 1, tag: 'a' },
          { id: 2, tag: 'a' },
        ],
      },
      { url: `${A}/items/1`, body: { id: 1, tag: 'a' } },
      { url: `${A}/items/2`, body: { id: 2, tag: 'a' } },
      { method: 'DELETE', url: `${A}/items/1`, status: 204 },
      { url: `${A}/items/1`, status: 404, body: { error: 'gone' } },
    ]);
    try {
      const del = await s.call('delete_api_items_by_id', { id: '2' });
      expect(del.isError, text(del)).toBeFalsy();
      expect((del.structuredContent as { source: string }).source).toBe('state');
      const r = await s.call('get_api_items_by_id', { id: '2' });
      expect(r.structuredContent).toMatchObject({ status: 404, body: { error: 'gone' } });
    } finally {
      await s.close();
    }
  });
});
