/**
 * Issue 45 (kind 5, deletes) and issue 44 (kind 7): what a delete does to the entities naming
 * the deleted one is learned from the capture (src/model/served/delete-cascade.ts), and so is
 * how the API's filters treat the null a cleared reference leaves (src/model/served/null-filters.ts).
 * json-server 1.0's capture (bench/fidelity/, recorded in Debian's Chromium) deletes post 5 and
 * then lists `?postId=2` with comments 5 and 6 shown with `postId: null`; json-server 0.17's shows
 * nothing of the kind. Expectations are the real apps' answers (truth.json).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { servedFidelityApp, type ServedFidelityApp } from './fidelity-served.js';
import { join } from 'node:path';
import { cli, tempDir } from './helpers.js';
import { serveHar, text } from './serve-helpers.js';

const v10 = servedFidelityApp('json-server-1.0');
const v017 = servedFidelityApp('json-server-0.17');

const call = (app: ServedFidelityApp, method: string, path: string, body?: unknown) => app.send(method, path, body);

beforeEach(async () => {
  for (const app of [v10, v017]) await app.reset();
});

describe('issue 45 kind 5: the API delete cascade, learned from the capture', () => {
  it('api-delete-cascade: a held-out delete clears the references as the capture showed after its own delete', async () => {
    // The capture showed comments 5 and 6 with postId null after DELETE /posts/5; post 6 is
    // named by comment 7 only, and the app answered so after the held-out DELETE /posts/6.
    await v10.replayCapture();
    const del = await call(v10, 'DELETE', '/posts/6');
    expect(del.status).toBe(200);
    expect(del.h('capstate-convention')).toBe('api-delete-cascade');
    expect(del.h('capstate-answer')).toBe('convention');
    const comments = await call(v10, 'GET', '/comments?postId=6');
    expect(comments.status).toBe(200);
    expect(comments.json).toEqual(v10.truth('read-after-write-78').json);
  });

  it('api-delete-cascade: the comments of a post deleted in the capture read as the app shows them (postId null)', async () => {
    await v10.replayCapture();
    const five = await call(v10, 'GET', '/comments/5');
    expect(five.status).toBe(200);
    expect(five.json).toEqual(v10.truth('after-write-48').json);
  });

  it('with no delete of the capture showing a cascade (json-server 0.17), reads that depend on it stay declined', async () => {
    expect((await call(v017, 'DELETE', '/posts/5')).h('capstate-convention')).toBeNull();
    const r = await call(v017, 'GET', '/comments?postId=5');
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
    expect((r.json as { code: string }).code).toBe('stale-record');
  });
});

describe('issue 44: how the API filters a null value, learned from the capture', () => {
  it('api-null-filter: json-server 1.0 lists a cleared comment under any postId, as its recorded ?postId=2 read showed', async () => {
    await v10.replayCapture();
    for (const [path, id] of [
      ['/comments?postId=7', 'filter-14'],
      ['/comments?postId=5', 'after-write-47'],
    ] as const) {
      const r = await call(v10, 'GET', path);
      expect(r.json, path).toEqual(v10.truth(id).json);
      expect(r.h('capstate-convention'), path).toContain('api-null-filter');
    }
    // Embeds match the reference itself: the cleared comments are not post 2's (the app's answer).
    expect((await call(v10, 'GET', '/posts/2?_embed=comments')).json).toEqual(v10.truth('after-write-52').json);
  });

  it('a null value passes no filter where the capture shows no such read (json-server 0.17)', async () => {
    // PATCH by the API's write convention leaves comment 3 with postId null.
    const patched = await call(v017, 'PATCH', '/comments/3', { postId: null });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: 3, postId: null });
    const r = await call(v017, 'GET', '/comments?postId=2');
    expect(r.status).toBe(200);
    expect((r.json as { id: number }[]).map((c) => c.id)).not.toContain(3);
    expect(r.h('capstate-convention') ?? '').not.toContain('api-null-filter');
  });
});

describe('issue 45 kind 5: the other cascades, learned the same way', () => {
  const A = 'http://localhost:3000/api';
  const before = [
    { url: `${A}/posts`, body: [{ id: 1 }, { id: 2 }, { id: 3 }] },
    {
      url: `${A}/comments`,
      body: [
        { id: 1, postId: 1 },
        { id: 2, postId: 2 },
        { id: 3, postId: 3 },
      ],
    },
    { url: `${A}/comments/2`, body: { id: 2, postId: 2 } },
    { method: 'DELETE', url: `${A}/posts/1`, status: 204 },
  ];
  const bodyOf = (r: CallToolResult) => (r.structuredContent as { body: unknown }).body;

  it("api-delete-cascade (deleted): the capture's whole comment list after its delete leaves the post's comment out, so a held-out delete takes its comments too", async () => {
    const s = await serveHar(tempDir(), [
      ...before,
      {
        url: `${A}/comments`,
        body: [
          { id: 2, postId: 2 },
          { id: 3, postId: 3 },
        ],
      },
    ]);
    try {
      const del = await s.call('delete_api_posts_by_id', { id: '2' });
      expect(del.isError, text(del)).toBeFalsy();
      expect(text(del)).toContain('deleted with it');
      // This session deleted post 2 only: comment 1 stays, as it was before the capture's writes.
      expect(bodyOf(await s.call('get_api_comments', {}))).toEqual([
        { id: 1, postId: 1 },
        { id: 3, postId: 3 },
      ]);
    } finally {
      await s.close();
    }
  });

  it("api-delete-cascade (kept): a comment shown with its reference after the capture's delete keeps it, so the comments read from state after a held-out delete", async () => {
    const s = await serveHar(tempDir(), [...before, { url: `${A}/comments/1`, body: { id: 1, postId: 1 } }]);
    try {
      expect((await s.call('delete_api_posts_by_id', { id: '2' })).isError).toBeFalsy();
      const r = await s.call('get_api_comments_by_id', { id: '2' });
      expect(r.isError, text(r)).toBeFalsy();
      expect(bodyOf(r)).toEqual({ id: 2, postId: 2 });
    } finally {
      await s.close();
    }
  });

  it('no cascade is picked where the capture shows two (one comment kept, another cleared)', async () => {
    const s = await serveHar(tempDir(), [
      ...before.slice(0, 1),
      {
        url: `${A}/comments`,
        body: [
          { id: 1, postId: 1 },
          { id: 2, postId: 1 },
          { id: 3, postId: 2 },
        ],
      },
      { method: 'DELETE', url: `${A}/posts/1`, status: 204 },
      { url: `${A}/comments/1`, body: { id: 1, postId: 1 } },
      { url: `${A}/comments/2`, body: { id: 2, postId: null } },
    ]);
    try {
      expect((await s.call('delete_api_posts_by_id', { id: '2' })).isError).toBeFalsy();
      const r = await s.call('get_api_comments', {});
      expect(r.isError).toBe(true);
      expect(text(r)).toContain('stale-record');
    } finally {
      await s.close();
    }
  });
});

describe('issues 44/45: capstate state names the habits serving learned from the records', () => {
  it('json-server 1.0 shows both (with --explain, their names); json-server 0.17 neither', () => {
    const v10State = cli(['state', join(v10.app, 'capture.har'), '--explain']);
    expect(v10State.status, v10State.stderr).toBe(0);
    expect(v10State.stdout).toContain(
      'a filter lists the entities whose field is null, whatever the value asked [api-null-filter]: shown by get_comments',
    );
    expect(v10State.stdout).toMatch(
      /a delete clears the references to what it deleted \(null\) \[api-delete-cascade\]: shown by record #\d+/,
    );
    const v017State = cli(['state', join(v017.app, 'capture.har'), '--explain']);
    expect(v017State.status, v017State.stderr).toBe(0);
    expect(v017State.stdout).not.toContain('api-null-filter');
    expect(v017State.stdout).not.toContain('api-delete-cascade');
  });
});
