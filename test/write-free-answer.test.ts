/**
 * Issue 45 on json-server 0.17.4, recorded in Chromium (bench/fidelity/json-server-0.17): the
 * capture never sends a `PUT`, so the model declines one (json-server replaces, Redmine merges;
 * no evidence says which) and every read it may have changed was declined with it. A read that
 * answers the same whatever the `PUT` did — replaced the post, merged into it, or was not made —
 * answers from state (cascade.ts, writeFreeAnswer); one that depends on it still declines.
 * Truth: json-server's own answers (truth.json) where the held-out list has the same read.
 */
import { describe, expect, it } from 'vitest';
import { servedFidelityApp } from './fidelity-served.js';

const js = servedFidelityApp('json-server-0.17');

describe('reads past a write the model did not apply', () => {
  it('writeFreeAnswer: after a declined PUT of post 4 (userId 3 before and after), /posts?userId=2 answers from state; /posts and /posts/4 do not', async () => {
    await js.replayCapture();
    const before = await js.get('/posts?userId=2');
    const put = await js.send('PUT', '/posts/4', { userId: 3, author: 'carol', title: 'Why HAR files, rewritten' });
    expect(put.status).toBe(501);
    const after = await js.get('/posts?userId=2');
    expect(after.h('capstate-answer')).not.toBe('declined');
    expect(after.json).toEqual(before.json);
    for (const path of ['/posts', '/posts/4']) expect((await js.get(path)).status, path).toBe(501);
  });

  it('writeFreeAnswer: a PUT that moves the post into the filter leaves the filtered read declined', async () => {
    await js.replayCapture();
    expect((await js.send('PUT', '/posts/4', { userId: 2, author: 'bob', title: 'Moved' })).status).toBe(501);
    expect((await js.get('/posts?userId=2')).status).toBe(501);
    expect((await js.get('/posts?userId=1')).h('capstate-answer')).not.toBe('declined');
  });
});
