/**
 * Issue 16, serving the model: reads beyond the record, 404s, each write kind, documents,
 * sessions of their own, verification against the capture's later reads, the data plane.
 * Driven by a real MCP client over InMemoryTransport, on the recorded json-server fixture
 * and on small HARs built for one behaviour each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cli, fixture, sha256File, tempDir } from './helpers.js';
import { writeHar } from './har-builder.js';
import { serveHar, serveStore, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const db = join(dir, 'json-server.sqlite');
const A = 'http://localhost:3000/api';

type Answer = { status: number; source: string; body: unknown; why: string; record_ordinal: number };
const answer = (r: CallToolResult): Answer => {
  expect(r.isError, text(r)).toBeFalsy();
  return r.structuredContent as Answer;
};

beforeAll(() => {
  const r = cli(['load', fixture('json-server', 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
});

describe('reads beyond the record: an item read renders any id the model holds', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });

  it('an id only ever listed (GET /posts/2 is recorded only after the PUT) renders from state in the shared envelope', async () => {
    const a = answer(await s.call('get_posts_by_id', { id: '2' }));
    expect(a).toMatchObject({ status: 200, source: 'state', body: { id: 2, title: 'capstate notes', author: 'ada', views: 3 } });
    expect(a.why).toMatch(/shares/);
  });

  it("an id the model does not hold, on a type whose whole list is known, is the app's own 404 (the recorded 404's body)", async () => {
    const a = answer(await s.call('get_posts_by_id', { id: '77' }));
    expect(a).toMatchObject({ status: 404, source: 'state', body: {} });
    expect(a.why).toMatch(/app's own 404, shaped like record #(5|13)/);
  });
});

describe("writes that take effect on the session's model", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });

  it("POST creates with the next integer id, answers in the recorded POST's shape, and later item and list reads show it", async () => {
    const created = answer(await s.call('post_posts', { body: { title: 'new', author: 'lin' } }));
    expect(created).toMatchObject({ status: 201, source: 'state', body: { title: 'new', author: 'lin', id: 4 } });
    // No server default is invented: the recorded POST's `views` came from its request.
    expect(created.body).not.toHaveProperty('views');
    expect(answer(await s.call('get_posts_by_id', { id: '4' })).body).toEqual({ id: 4, title: 'new', author: 'lin' });
    const list = answer(await s.call('get_posts')).body as { id: number }[];
    expect(list.map((p) => p.id)).toEqual([1, 2, 3, 4]);
    expect(answer(await s.call('post_posts', { body: { title: 'next', author: 'lin' } })).body).toMatchObject({ id: 5 });
  });

  it('PATCH merges the body into the entity', async () => {
    expect(answer(await s.call('patch_posts_by_id', { id: '1', body: { views: 99 } })).body).toEqual({
      id: 1,
      title: 'json-server',
      author: 'typicode',
      views: 99,
    });
    expect(answer(await s.call('get_posts_by_id', { id: '1' })).body).toEqual({
      id: 1,
      title: 'json-server',
      author: 'typicode',
      views: 99,
    });
  });

  it('PUT replaces the entity: members the body leaves out are gone, the id stays', async () => {
    expect(answer(await s.call('put_posts_by_id', { id: '3', body: { title: 'final', author: 'ada' } })).body).toEqual({
      title: 'final',
      author: 'ada',
      id: 3,
    });
    expect(answer(await s.call('get_posts_by_id', { id: '3' })).body).toEqual({ id: 3, title: 'final', author: 'ada' });
  });

  it('DELETE removes the entity from its type and its list; a later read is the 404, a second DELETE too', async () => {
    expect(answer(await s.call('delete_posts_by_id', { id: '2' }))).toMatchObject({ status: 200, body: {} });
    expect(answer(await s.call('get_posts_by_id', { id: '2' })).status).toBe(404);
    expect((answer(await s.call('get_posts')).body as { id: number }[]).map((p) => p.id)).not.toContain(2);
    expect(answer(await s.call('delete_posts_by_id', { id: '2' })).status).toBe(404);
  });

  it('PATCH on a singular resource changes the document', async () => {
    expect(answer(await s.call('patch_profile', { body: { theme: 'solarized' } })).body).toEqual({ name: 'typicode', theme: 'solarized' });
    expect(answer(await s.call('get_profile')).body).toEqual({ name: 'typicode', theme: 'solarized' });
  });
});

describe('each session works on its own copy; the store never changes', () => {
  it('a write in one MCP session is not seen by another, and the store file keeps its bytes', async () => {
    const before = sha256File(db);
    const one = await serveStore(db);
    const two = await serveStore(db);
    try {
      answer(await one.call('patch_posts_by_id', { id: '1', body: { title: 'only in one' } }));
      expect(answer(await one.call('get_posts_by_id', { id: '1' })).body).toMatchObject({ title: 'only in one' });
      expect(answer(await two.call('get_posts_by_id', { id: '1' })).body).toMatchObject({ title: 'json-server' });
    } finally {
      await one.close();
      await two.close();
    }
    expect(sha256File(db)).toBe(before);
  });
});

describe("verified, not assumed: a write model is used only when the capture's later reads reproduce", () => {
  it('a PATCH whose later read shows what the model would not give replays its record, and check-effects says which read', async () => {
    const s = await serveHar(dir, [
      {
        url: `${A}/items`,
        body: [
          { id: 1, name: 'A' },
          { id: 2, name: 'B' },
        ],
      },
      { url: `${A}/items/1`, body: { id: 1, name: 'A' } },
      { method: 'PATCH', url: `${A}/items/1`, requestBody: { name: 'Z' }, body: { id: 1, name: 'Z' } },
      // The server did something else than merging: the read disagrees with the PATCH's effect.
      { url: `${A}/items/1`, body: { id: 1, name: 'Z (moderated)' } },
    ]);
    try {
      // Issue 45: replayed only for the recorded body; another body is declined.
      const q = await s.call('patch_api_items_by_id', { id: '1', body: { name: 'Q' } });
      expect(q.isError).toBe(true);
      expect(q.structuredContent).toMatchObject({ code: 'no-record' });
      const a = answer(await s.call('patch_api_items_by_id', { id: '1', body: { name: 'Z' } }));
      expect(a.source).toBe('replay');
      // Issue 44 (kind 7): the replayed PATCH is not the capture's, so no record tells what the
      // app answers for item 1 now: declined, never the recorded item from before the write.
      const after = await s.call('get_api_items_by_id', { id: '1' });
      expect(after.isError).toBe(true);
      expect(after.structuredContent).toMatchObject({ code: 'stale-record' });
      expect(answer(await s.call('get_api_items_by_id', { id: '2' })).body).toEqual({ id: 2, name: 'B' });
      const r = cli(['check-effects', '--db', s.ctx.file, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as {
        summary: string;
        write_tools: { verified: string[]; replayed: { tool: string; reason: string }[] };
        checks: { ordinal: number; reproduced: boolean; detail?: string }[];
      };
      expect(doc.write_tools.verified).toEqual([]);
      expect(doc.write_tools.replayed).toEqual([
        { tool: 'patch_api_items_by_id', reason: expect.stringMatching(/later read #4 .*\/name/) },
      ]);
      expect(doc.checks.find((c) => c.ordinal === 4)).toMatchObject({ reproduced: false });
      expect(doc.summary).toBe('3 of 4 responses reproduced');
    } finally {
      await s.close();
    }
  });

  it('ES-29/30 a server-stamped clock is set now, in the recorded spelling, inside the recorded wrapper ({"issue": …})', async () => {
    const s = await serveHar(dir, [
      { url: `${A}/issues.json`, body: { issues: [{ id: 12, subject: 'Old', updated_on: '2026-01-01T09:00:00Z' }], total_count: 1 } },
      { url: `${A}/issues/12.json`, body: { issue: { id: 12, subject: 'Old', updated_on: '2026-01-01T09:00:00Z' } } },
      {
        method: 'PUT',
        url: `${A}/issues/12.json`,
        requestBody: { issue: { subject: 'New' } },
        body: { issue: { id: 12, subject: 'New', updated_on: '2026-01-01T10:00:04Z' } },
      },
      { url: `${A}/issues/12.json`, body: { issue: { id: 12, subject: 'New', updated_on: '2026-01-01T10:00:04Z' } } },
    ]);
    try {
      const r = cli(['check-effects', '--db', s.ctx.file]);
      expect(r.stdout).toMatch(/4 of 4 responses reproduced\n$/);
      const before = Date.now();
      const put = answer(await s.call('put_api_issues_by_id_json', { id: '12', body: { issue: { subject: 'Newer' } } }));
      const stamped = (put.body as { issue: { updated_on: string } }).issue.updated_on;
      expect(put.body).toMatchObject({ issue: { id: 12, subject: 'Newer' } });
      expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(stamped)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(answer(await s.call('get_api_issues_by_id_json', { id: '12' })).body).toEqual({
        issue: { id: 12, subject: 'Newer', updated_on: stamped },
      });
    } finally {
      await s.close();
    }
  });

  it('a POST that answers only the new id ({"silenceID": …}) allocates a UUID when the capture shows one', async () => {
    const uuid = '5a1e9b74-c2d3-4f80-8b16-2e7c9d0a4f5b';
    const s = await serveHar(dir, [
      { url: `${A}/silences`, body: [{ id: '0c4f9e2a-1b2c-4d3e-8f4a-5b6c7d8e9f00', comment: 'a' }] },
      { method: 'POST', url: `${A}/silences`, requestBody: { comment: 'b' }, body: { silenceID: uuid } },
    ]);
    try {
      const a = answer(await s.call('post_api_silences', { body: { comment: 'c' } }));
      expect(a.source).toBe('state');
      const id = (a.body as { silenceID: string }).silenceID;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(id).not.toBe(uuid);
      // The new entity holds what was posted and its id, nothing of the recorded answer's wrapper.
      expect((answer(await s.call('get_api_silences')).body as { id: string }[]).at(-1)).toEqual({ id, comment: 'c' });
    } finally {
      await s.close();
    }
  });
});

describe('effects and ids the capture shows, compared by shape', () => {
  it('a PUT the capture shows acting as a merge (members the body left out stay) is verified as a merge', async () => {
    const s = await serveHar(dir, [
      { url: `${A}/items`, body: [{ id: 1, name: 'A', color: 'red' }] },
      { url: `${A}/items/1`, body: { id: 1, name: 'A', color: 'red' } },
      { method: 'PUT', url: `${A}/items/1`, requestBody: { name: 'Z' }, body: { id: 1, name: 'Z', color: 'red' } },
      { url: `${A}/items/1`, body: { id: 1, name: 'Z', color: 'red' } },
    ]);
    try {
      const r = cli(['check-effects', '--db', s.ctx.file, '--json']);
      const doc = JSON.parse(r.stdout) as { summary: string; write_tools: { verified: { tool: string; effect: string }[] } };
      expect(doc.write_tools.verified).toEqual([{ tool: 'put_api_items_by_id', effect: 'merge' }]);
      expect(doc.summary).toBe('4 of 4 responses reproduced');
      expect(answer(await s.call('put_api_items_by_id', { id: '1', body: { name: 'Q' } })).body).toEqual({
        id: 1,
        name: 'Q',
        color: 'red',
      });
    } finally {
      await s.close();
    }
  });

  it('a create answer whose member named like an id holds an object (`grid`) names no id: the POST is answered, never an internal error', async () => {
    const s = await serveHar(dir, [
      { url: `${A}/boards`, body: [{ id: 1, title: 'a' }] },
      { method: 'POST', url: `${A}/boards`, requestBody: { title: 'b' }, status: 201, body: { title: 'b', grid: { w: 2, h: 3 } } },
      {
        url: `${A}/boards`,
        body: [
          { id: 1, title: 'a' },
          { id: 2, title: 'b' },
        ],
      },
    ]);
    try {
      const r = await s.call('post_api_boards', { body: { title: 'c' } });
      expect(text(r)).not.toMatch(/internal/);
      // Answered by a model, or (issue 45) declined as a body no record shows: never an internal error.
      expect(r.isError ? (r.structuredContent as { code: string }).code : 'answered').toMatch(/^(answered|no-record)$/);
      expect(cli(['check-effects', '--db', s.ctx.file]).status).not.toBe(70);
    } finally {
      await s.close();
    }
  });

  it('a server counter that jumped (note-2 then note-9) is the same shape: check-effects goes on with it; serving allocates the next (note-3)', async () => {
    const s = await serveHar(dir, [
      {
        url: `${A}/notes`,
        body: [
          { id: 'note-1', text: 'a' },
          { id: 'note-2', text: 'b' },
        ],
      },
      { method: 'POST', url: `${A}/notes`, requestBody: { text: 'c' }, status: 201, body: { id: 'note-9', text: 'c' } },
      { url: `${A}/notes/note-9`, body: { id: 'note-9', text: 'c' } },
      {
        url: `${A}/notes`,
        body: [
          { id: 'note-1', text: 'a' },
          { id: 'note-2', text: 'b' },
          { id: 'note-9', text: 'c' },
        ],
      },
    ]);
    try {
      const r = cli(['check-effects', '--db', s.ctx.file]);
      expect(r.stdout).toMatch(/#3 +GET \/api\/notes\/note-9 +reproduced/);
      expect(r.stdout).toMatch(/4 of 4 responses reproduced\n$/);
      expect(answer(await s.call('post_api_notes', { body: { text: 'd' } })).body).toEqual({ id: 'note-3', text: 'd' });
    } finally {
      await s.close();
    }
  });
});

describe('a capture whose stored state failed (ES-39 budget-exceeded) replays instead of answering the error', () => {
  it('every GET replays its record', async () => {
    const har = writeHar(dir, 'budget.har', [
      { url: `${A}/items`, body: Array.from({ length: 200 }, (_, i) => ({ id: `it-${i}`, text: 'x'.repeat(200) })) },
    ]);
    const file = join(dir, 'budget.sqlite');
    const r = cli(['load', har, '--db', file], { env: { ...process.env, CAPSTATE_STATE_BUDGET_BYTES: '100000' } });
    expect(r.stderr).toMatch(/budget-exceeded/);
    const s = await serveStore(file);
    try {
      const a = answer(await s.call('get_api_items'));
      expect(a).toMatchObject({ status: 200, source: 'replay', record_ordinal: 1 });
      const g = await s.call('get_state');
      expect(g.isError).toBe(true);
      expect(text(g)).toMatch(/no stored environment state/);
    } finally {
      await s.close();
    }
  });
});

describe('the data plane: reset_state, get_state, load_state', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });
  const state = async () => {
    const r = await s.call('get_state');
    expect(r.isError, text(r)).toBeFalsy();
    // The state itself is the second text content, once (issue 42); structuredContent says where.
    const doc = r.structuredContent as { sha256: string; bytes: number; state_in: 'content[1].text' };
    return { ...doc, text: (r.content[1] as { text: string }).text };
  };

  it('get_state is byte-stable, with the SHA-256 of its text, in the shape of state --json entities and documents', async () => {
    const a = await state(),
      b = await state();
    expect(a.text).toBe(b.text);
    expect(a.sha256).toBe(b.sha256);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(a.text).digest('hex')).toBe(a.sha256);
    const stored = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as { entities: unknown[]; documents: unknown[] };
    expect(JSON.parse(a.text)).toMatchObject({ kind: 'served-state', entities: stored.entities, documents: stored.documents });
  });

  it("reset_state undoes the session's writes: the initial SHA-256 again", async () => {
    const initial = (await state()).sha256;
    answer(await s.call('delete_posts_by_id', { id: '1' }));
    expect((await state()).sha256).not.toBe(initial);
    const r = await s.call('reset_state');
    expect(r.structuredContent).toMatchObject({ ok: true, reset: true, sha256: initial });
    expect(answer(await s.call('get_posts_by_id', { id: '1' })).status).toBe(200);
  });

  it('load_state serves an edited state; reads show the edit', async () => {
    const doc = JSON.parse((await state()).text) as {
      entities: { id: string; value: Record<string, unknown> }[];
      documents: { value: Record<string, unknown> }[];
    };
    doc.entities[0].value.title = 'edited by hand';
    doc.entities.splice(2, 1);
    doc.documents[0].value = { name: 'x', theme: 'y' };
    const r = await s.call('load_state', { state: doc });
    expect(r.isError, text(r)).toBeFalsy();
    expect(answer(await s.call('get_posts_by_id', { id: '1' })).body).toMatchObject({ title: 'edited by hand' });
    expect(answer(await s.call('get_posts_by_id', { id: '3' })).status).toBe(404);
    expect(answer(await s.call('get_profile')).body).toEqual({ name: 'x', theme: 'y' });
    await s.call('reset_state');
  });

  it.each([
    [
      'an unknown type',
      (d: Doc) => {
        d.entities[0].collection = 'nope';
      },
      /state\.entities\[0\]\.collection "nope" is not a served type/,
    ],
    [
      'an id its value contradicts',
      (d: Doc) => {
        d.entities[1].id = '7';
      },
      /state\.entities\[1\]\.value\.id is 2, but state\.entities\[1\]\.id is "7"/,
    ],
    [
      'a repeated entity',
      (d: Doc) => {
        d.entities.push({ ...d.entities[0] });
      },
      /repeats posts entity 1/,
    ],
    [
      'a document tool that is not one',
      (d: Doc) => {
        d.documents[0].tool = 'get_posts';
      },
      /state\.documents\[0\]\.tool "get_posts" is not a document tool/,
    ],
    [
      'entities that are not a list',
      (d: Doc) => {
        (d as unknown as Record<string, unknown>).entities = {};
      },
      /state\.entities must be an array/,
    ],
  ])('load_state refuses %s, naming the field, and keeps serving the state it had', async (_what, edit, message) => {
    const before = (await state()).sha256;
    const doc = JSON.parse((await state()).text) as Doc;
    edit(doc);
    const r = await s.call('load_state', { state: doc });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ code: 'bad-state', message: expect.stringMatching(message) });
    expect((await state()).sha256).toBe(before);
  });
});

type Doc = {
  entities: { collection: string; id: string; value: Record<string, unknown> }[];
  documents: { tool: string; value: unknown }[];
};

describe("a created id of the server's shape, whatever the draw", () => {
  it("a random id keeps the recorded id's prefix, length, character classes and so its shape (never a counter by chance)", async () => {
    const { idShape, randomLike } = await import('../src/model/served/ids.js');
    for (const recorded of ['itm_5Wn4Ps8d', '5f3a9c0e', 'zz', 'ABCdefGHx', 'usr-Q9zk-aB', 'xxxxxxxxxxxxxxxxxxxxxxxx']) {
      for (let i = 0; i < 300; i++) {
        const id = randomLike(recorded);
        expect(idShape(id), `${recorded} → ${id}`).toBe(idShape(recorded));
        expect(id.length).toBe(recorded.length);
      }
      if (recorded.includes('_')) expect(randomLike(recorded).startsWith(recorded.slice(0, recorded.lastIndexOf('_') + 1))).toBe(true);
    }
  });
});
