import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { hintsFor } from '../src/serve/hints.js';
import { kyselyFor, openStore } from '../src/store/open.js';
import { readVocabulary } from '../src/store/vocabulary.js';
import { tempDir } from './helpers.js';
import { METHOD_EXCHANGES, METHOD_HINTS, serveHar, text, type Served } from './serve-helpers.js';

const dir = tempDir();
let s: Served;

beforeAll(async () => {
  s = await serveHar(dir, METHOD_EXCHANGES);
});
afterAll(async () => {
  await s?.close();
});

const byMethod = (method: string, template?: string) =>
  s.tools.find((t) => (t.description ?? '').startsWith(`${method} ${template ?? ''}`))!;

describe('MCP-1 hints per method (ACC-7: advertised by the in-process server)', () => {
  for (const [method, template, hints] of METHOD_HINTS) {
    it(`${method} ${template ?? ''}`.trim(), () => {
      const t = byMethod(method, template);
      expect(t, `${method} ${template}`).toBeDefined();
      // OQ-38: exactly these keys; destructiveHint only for DELETE.
      expect(t.annotations).toEqual(hints);
    });
  }

  it('TRACE is a safe method too; methods compare case-insensitively', async () => {
    const k = kyselyFor(openStore(join(dir, 'vocabulary.sqlite'), { write: true }));
    const { isSafeMethod } = await readVocabulary(k);
    await k.destroy();
    const hints = (method: string, isQueryPost: boolean) => hintsFor(method, isQueryPost, isSafeMethod(method));
    expect(isSafeMethod('trace')).toBe(true);
    expect(hints('TRACE', false)).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(hints('delete', false).destructiveHint).toBe(true);
    expect(hints('POST', true).idempotentHint).toBe(false);
  });
});

describe('MCP-2 ownership of hints', () => {
  it('the tool definition carries the hints and the catalog reserve is charged with them', () => {
    const serialized = s.tools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
    expect(s.catalog.bytes).toBe(serialized);
    expect(s.tools.filter((t) => t.name !== 'capture_browser_scenario').every((t) => t.annotations?.openWorldHint === false)).toBe(true);
  });
});

describe('OQ-7 request bodies: schema, query-POST replay, writes', () => {
  it('a query POST replays the record with the same request body, and refuses another body', async () => {
    const search = byMethod('POST', '/api/v1/search');
    const schema = search.inputSchema as unknown as {
      properties: { body: { type: string; properties: Record<string, { type: string }> } };
    };
    expect(schema.properties.body).toMatchObject({ type: 'object', properties: { q: { type: 'string' } } });
    const b = await s.call(search.name, { body: { q: 'b' } });
    expect((b.structuredContent as { record_ordinal: number; why: string }).record_ordinal).toBe(5);
    expect((b.structuredContent as { why: string }).why).toMatch(/same request body/);
    const none = await s.call(search.name, { body: { q: 'zzz' } });
    expect(none.isError).toBe(true);
    expect(text(none)).toMatch(/no retained record answers POST \/api\/v1\/search with this request body/);
  });

  it('a write whose model the capture does not verify replays its record only for the same body; another body is declined (issue 45)', async () => {
    // A later read shows what the POST's model would not give (the server moderated the name), so the POST replays.
    const v = await serveHar(dir, [
      { url: 'http://localhost:3000/api/v1/tags', body: [{ id: 'tg-1', name: 'A' }] },
      {
        method: 'POST',
        url: 'http://localhost:3000/api/v1/tags',
        requestBody: { name: 'C' },
        status: 201,
        body: { id: 'tg-2', name: 'C' },
      },
      {
        url: 'http://localhost:3000/api/v1/tags',
        body: [
          { id: 'tg-1', name: 'A' },
          { id: 'tg-2', name: 'C (moderated)' },
        ],
      },
    ]);
    try {
      const same = await v.call('post_api_v1_tags', { body: { name: 'C' } });
      expect(same.isError, text(same)).toBeFalsy();
      expect(same.structuredContent).toMatchObject({ source: 'replay', body: { id: 'tg-2', name: 'C' } });
      // The app's answer to another body (the tag it created) is not its answer to this one.
      const other = await v.call('post_api_v1_tags', { body: { name: 'other' } });
      expect(other.isError).toBe(true);
      expect(text(other)).toMatch(/no retained record answers POST \/api\/v1\/tags with this request body/);
    } finally {
      await v.close();
    }
  });

  it('a write whose answer the capture reproduces takes effect with the body the call gives', async () => {
    const patch = byMethod('PATCH');
    const r = await s.call(patch.name, { id: 'it-01', body: { name: 'other' } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ source: 'state', body: { id: 'it-01', name: 'other' } });
    expect((r.structuredContent as { why: string }).why).toMatch(/write took effect/);
  });
});

describe('ES-8 which record replays (latest initial record of the request line, else the latest)', () => {
  it('before the bound, after it, and with no bound', async () => {
    const api = 'http://localhost:3000/api/v1';
    const t = await serveHar(tempDir(), [
      { url: `${api}/items`, body: [{ id: 'it-01', name: 'A' }] },
      { url: `${api}/items`, body: [{ id: 'it-01', name: 'A2' }] },
      { method: 'PATCH', url: `${api}/items/it-01`, requestBody: { name: 'B' }, body: { id: 'it-01', name: 'B' } },
      { url: `${api}/items`, body: [{ id: 'it-01', name: 'B' }] },
      { url: `${api}/items?page=2`, body: [] },
      { url: `${api}/tags`, body: [{ id: 'tg-1' }] },
    ]);
    try {
      // The list plan answers from state: the entity as the latest initial record (#2) showed it.
      const before = (await t.call('get_api_v1_items', {})).structuredContent as {
        record_ordinal: number;
        why: string;
        source: string;
        body: unknown;
      };
      expect(before).toMatchObject({ record_ordinal: 2, source: 'state', body: [{ id: 'it-01', name: 'A2' }] });
      expect(before.why).toMatch(/^rendered from state: items list/);
      const after = (await t.call('get_api_v1_items', { query: { page: '2' } })).structuredContent as {
        record_ordinal: number;
        why: string;
      };
      expect(after.record_ordinal).toBe(5);
      expect(after.why).toMatch(
        /^latest record of GET \/api\/v1\/items\?page=2: none of its records is an initial read .*first write is #3/,
      );
      const free = (await t.call('get_api_v1_tags', {})).structuredContent as { source: string; body: unknown };
      expect(free).toMatchObject({ source: 'state', body: [{ id: 'tg-1' }] });
    } finally {
      await t.close();
    }
  });
});
