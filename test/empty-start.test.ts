/**
 * OQ-11 (5), ES-35 and issue 44 on an app that starts empty (src/state/plan-empty-start.ts,
 * src/model/served/later-queries.ts): json-server 0.17.4 with empty `lists` and `todos`, the
 * session recorded in Debian's Chromium creating every entity (bench/fidelity/json-server-empty).
 * Before, its `[]` lists were documents — answered `[]` after every create — its item reads
 * replayed, and no filter the session used after its creates was learned.
 *
 * Truth: json-server's own answers to the held-out requests (truth.json), sent after the
 * capture's requests, as here.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readVocabulary } from '../src/store/vocabulary.js';
import { kyselyFor } from '../src/store/open.js';
import { emptyListIsWhole } from '../src/state/plan-empty-start.js';
import { servedFidelityApp } from './fidelity-served.js';
import { cli, migratedStore, root, tempDir } from './helpers.js';
import { serveHar } from './serve-helpers.js';

const app = servedFidelityApp('json-server-empty');
const capture = join(root, 'bench', 'fidelity', 'json-server-empty', 'capture.har');

interface PlanJson {
  tool: string;
  kind: string;
  membership?: string | null;
  fields?: string[];
  list_queries?: { filter: string[]; sort: string[] };
}

function loaded(): string {
  const db = join(tempDir(), 'empty.sqlite');
  expect(cli(['load', capture, '--db', db]).status).toBe(0);
  return db;
}

describe('an app that starts empty (OQ-11 (5), ES-35)', () => {
  it('OQ-11 (5): an initial [] is the list where the later reads list entities: every entity, not a document; its members from those reads', () => {
    const db = loaded();
    const state = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as { plans: PlanJson[]; documents: unknown[] };
    const todos = state.plans.find((p) => p.tool === 'get_todos')!;
    expect(todos).toMatchObject({ kind: 'list', membership: 'all' });
    expect(todos.fields).toEqual(['listId', 'title', 'done', 'id']);
    expect(state.plans.find((p) => p.tool === 'get_lists')).toMatchObject({ kind: 'list', membership: 'all' });
    expect(state.documents).toEqual([]);
    // The item tool, read only after the creates, is an item view of the state.
    expect(state.plans.find((p) => p.tool === 'get_todos_by_id')).toMatchObject({ kind: 'item' });
  });

  it('OQ-11 (5): the creates show up in the list: check-effects reproduces every recorded response from the model', () => {
    const r = JSON.parse(cli(['check-effects', '--db', loaded(), '--json']).stdout) as {
      summary: string;
      write_tools: { verified: { tool: string; effect: string }[] };
      checks: { reproduced: boolean; source: string; tool: string }[];
    };
    expect(r.checks.every((c) => c.reproduced)).toBe(true);
    expect(r.write_tools.verified.map((v) => v.tool).sort()).toEqual([
      'delete_todos_by_id',
      'patch_todos_by_id',
      'post_lists',
      'post_todos',
    ]);
    // The page the session ran in is no API answer; every API answer is the model's.
    expect(r.checks.filter((c) => c.source === 'replay').map((c) => c.tool)).toEqual(['get_index_html']);
  });

  it("OQ-11 (5): after the capture's writes, another item and the list answer from state like the app; an id never created is a 404", async () => {
    await app.replayCapture();
    const one = await app.get('/todos/1');
    expect(one.h('capstate-answer')).toBe('state');
    expect(one.json).toEqual(app.truth('unread-item-01').json);
    expect((await app.get('/lists/1')).json).toEqual(app.truth('unread-item-02').json);
    expect((await app.get('/todos/99')).status).toBe(app.truth('not-found-04').status);
    // The capture removed todo 3, its highest id: json-server gives the next create 3 again, an app
    // counting ids 4, and the capture shows neither (ids.ts refuseReusedTop), so it is declined.
    const created = await app.send('POST', '/todos', { listId: 1, title: 'Held-out todo', done: false });
    expect(created.status).toBe(501);
    expect((created.json as { detail: string }).detail).toContain('removed todos 3, the highest id it held');
    expect(app.truth('write-12').json).toMatchObject({ id: 3 });
  });

  it("issue 44: filter keys the reads after the capture's verified writes reproduced are learned, and the API's filter convention applies to its other fields", async () => {
    const state = JSON.parse(cli(['state', '--db', loaded(), '--json']).stdout) as { plans: PlanJson[] };
    expect(state.plans.find((p) => p.tool === 'get_todos')!.list_queries).toMatchObject({ filter: ['done', 'listId'], sort: [] });
    await app.replayCapture();
    const held: [string, string][] = [
      ['filter-06', '/todos?done=true'],
      ['filter-07', '/todos?listId=1&done=false'],
      // `title` was never a recorded key: the API's equality-filter convention (done, listId) gives it.
      ['filter-08', '/todos?title=Buy%20milk'],
      ['filter-09', '/todos?listId=2'],
    ];
    for (const [id, path] of held) {
      const r = await app.get(path);
      expect(r.h('capstate-answer'), path).not.toBe('declined');
      expect(r.json, path).toEqual(app.truth(id).json);
    }
  });

  it('issue 44: a read after a write the model did not apply teaches no key, even where the model happens to reproduce it', async () => {
    const A = 'http://localhost:3000/api';
    const s = await serveHar(tempDir(), [
      { url: `${A}/notes`, body: [] },
      {
        method: 'POST',
        url: `${A}/notes`,
        requestBody: { text: 'a', pinned: true },
        status: 201,
        body: { id: 7, text: 'a', pinned: true },
      },
      { url: `${A}/notes`, body: [{ id: 7, text: 'a', pinned: true }] },
      // No model of this write (it replays): after it, the model no longer stands where the app did.
      { method: 'POST', url: `${A}/notes/7/archive`, status: 200, body: { ok: true } },
      { url: `${A}/notes?pinned=true`, body: [{ id: 7, text: 'a', pinned: true }] },
    ]);
    try {
      const state = JSON.parse(cli(['state', '--db', s.ctx.file, '--json']).stdout) as { plans: PlanJson[] };
      const notes = state.plans.find((p) => p.tool === 'get_api_notes')!;
      expect(notes).toMatchObject({ kind: 'list', membership: 'all' });
      expect(notes.list_queries?.filter ?? []).not.toContain('pinned');
    } finally {
      await s.close();
    }
  });

  it("OQ-11 (5): an item tool whose only initial read is a 404 (before the create) is an item view: a create reads from state, another id is the app's own 404", async () => {
    const A = 'http://localhost:3000/api';
    const s = await serveHar(tempDir(), [
      { url: `${A}/todos`, body: [] },
      { url: `${A}/todos/1`, status: 404, body: {} },
      { method: 'POST', url: `${A}/todos`, requestBody: { title: 'a' }, status: 201, body: { title: 'a', id: 1 } },
      { url: `${A}/todos/1`, body: { title: 'a', id: 1 } },
      { url: `${A}/todos`, body: [{ title: 'a', id: 1 }] },
    ]);
    try {
      await s.call('post_api_todos', { body: { title: 'b' } });
      const one = (await s.call('get_api_todos_by_id', { id: '1' })).structuredContent as { source: string; body: unknown };
      expect(one).toMatchObject({ source: 'state', body: { title: 'b', id: 1 } });
      const two = (await s.call('get_api_todos_by_id', { id: '2' })).structuredContent as { source: string; status: number; body: unknown };
      expect(two).toMatchObject({ source: 'state', status: 404, body: {} });
    } finally {
      await s.close();
    }
  });

  it("a `[]` no later read shows as a list stays a document, and after the session's writes to its collection the state does not answer it (never `[]` in silence)", async () => {
    const A = 'http://localhost:3000/api';
    const s = await serveHar(tempDir(), [
      { url: `${A}/todos`, body: [] },
      { method: 'POST', url: `${A}/todos`, requestBody: { title: 'a' }, status: 201, body: { title: 'a', id: 1 } },
      { url: `${A}/todos/1`, body: { title: 'a', id: 1 } },
    ]);
    try {
      expect(((await s.call('get_api_todos', {})).structuredContent as { body: unknown }).body).toEqual([]);
      expect((await s.call('post_api_todos', { body: { title: 'b' } })).structuredContent).toMatchObject({ source: 'state' });
      const after = (await s.call('get_api_todos', {})).structuredContent as { source: string | null; body?: unknown };
      expect(after.source).not.toBe('state');
      expect(after.body).not.toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("ES-36: an empty envelope's item total (0, as it lists) is a counter, recounted as the session's creates fill the list", async () => {
    const A = 'http://localhost:3000/api';
    const s = await serveHar(tempDir(), [
      { url: `${A}/items`, body: { data: [], total: 0 } },
      { method: 'POST', url: `${A}/items`, requestBody: { name: 'a' }, status: 201, body: { id: 1, name: 'a' } },
      { url: `${A}/items`, body: { data: [{ id: 1, name: 'a' }], total: 1 } },
    ]);
    try {
      expect((await s.call('post_api_items', { body: { name: 'b' } })).structuredContent).toMatchObject({ source: 'state' });
      const list = (await s.call('get_api_items', {})).structuredContent as { source: string; body: unknown };
      expect(list.source).toBe('state');
      expect(list.body).toEqual({ data: [{ id: 1, name: 'b' }], total: 1 });
    } finally {
      await s.close();
    }
  });

  it('ES-35: an empty list whose envelope says there is more (an item total other than 0, a next token) is not the whole collection', async () => {
    const db = migratedStore(join(tempDir(), 'v.sqlite'));
    const v = await readVocabulary(kyselyFor(db));
    expect(emptyListIsWhole([], '', v)).toBe(true);
    expect(emptyListIsWhole({ items: [], total_count: 0, limit: 25 }, '/items', v)).toBe(true);
    expect(emptyListIsWhole({ items: [], totalCount: 12 }, '/items', v)).toBe(false);
    expect(emptyListIsWhole({ items: [], meta: { next: 'abc' } }, '/items', v)).toBe(false);
    expect(emptyListIsWhole({ items: [], has_more: false, total_pages: 3 }, '/items', v)).toBe(true);
    db.close();
  });
});
