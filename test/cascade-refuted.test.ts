/**
 * Issue 44 (kind 7) on json-server 0.17.4, recorded in Chromium (bench/fidelity/json-server-0.17):
 * the capture deletes post 5 and never reads comments 5 and 6, which named it, so what the
 * delete did to them (deleted, kept, cleared) is not known (cascade.ts). A read filtering on
 * `postId` was declined outright, since json-server 1.0 lists a cleared (null) `postId` under any
 * value. Here the capture's own `/comments?postId=2` after that delete does not list them, which
 * refutes that habit for them: a filter by another value leaves them out whatever the delete did.
 * Truth: json-server's own answers (truth.json), sent after the capture's requests, as here.
 */
import { describe, expect, it } from 'vitest';
import { servedFidelityApp } from './fidelity-served.js';

const js = servedFidelityApp('json-server-0.17');

describe("a filter on a deleted entity's reference, where the capture refutes a cleared reference listed under any value", () => {
  it("cascade: after the capture's delete of post 5, /comments?postId=7 answers from state like the app", async () => {
    await js.replayCapture();
    for (const [id, path] of [
      ['filter-15', '/comments?postId=7'],
      ['after-write-52', '/comments?postId=2&_sort=id&_order=desc'],
    ]) {
      const r = await js.get(path);
      expect(r.h('capstate-answer'), path).not.toBe('declined');
      expect(r.json, path).toEqual(js.truth(id).json);
    }
  });

  it('cascade: a delete no recorded read came after (post 6, held out) leaves a filter on postId declined', async () => {
    await js.replayCapture();
    expect((await js.send('DELETE', '/posts/6')).status).toBe(200);
    const r = await js.get('/comments?postId=1');
    expect(r.status).toBe(501);
    expect(r.h('capstate-answer')).toBe('declined');
  });
});
