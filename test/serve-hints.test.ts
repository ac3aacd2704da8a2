import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hintsFor } from '../src/serve/hints.js';
import { tempDir } from './helpers.js';
import { serveHar, text, type Served } from './serve-helpers.js';

const API = 'http://localhost:3000/api/v1';
const dir = tempDir();
let s: Served;

beforeAll(async () => {
  s = await serveHar(dir, [
    { url: `${API}/items`, body: [{ id: 'it-01', name: 'A' }, { id: 'it-02', name: 'B' }] },
    { method: 'HEAD', url: `${API}/items/it-01` },
    { method: 'OPTIONS', url: `${API}/items`, status: 204 },
    { method: 'POST', url: `${API}/search`, requestBody: { q: 'a' }, body: { hits: [{ id: 'it-01' }] } },
    { method: 'POST', url: `${API}/search`, requestBody: { q: 'b' }, body: { hits: [] } },
    { method: 'POST', url: `${API}/items`, requestBody: { name: 'C' }, status: 201, body: { id: 'it-03', name: 'C' } },
    { method: 'PATCH', url: `${API}/items/it-01`, requestBody: { name: 'Z' }, body: { id: 'it-01', name: 'Z' } },
    { method: 'PUT', url: `${API}/items/it-02`, requestBody: { id: 'it-02', name: 'Y' }, body: { id: 'it-02', name: 'Y' } },
    { method: 'DELETE', url: `${API}/items/it-03`, status: 204 },
  ]);
});
afterAll(async () => { await s?.close(); });

const byMethod = (method: string, template?: string) =>
  s.tools.find((t) => (t.description ?? '').split('\n')[1]?.startsWith(`${method} ${template ?? ''}`))!;

describe('MCP-1 hints per method (ACC-7: advertised by the in-process server)', () => {
  const table: [string, string | undefined, Record<string, unknown>][] = [
    ['GET', '/api/v1/items', { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
    ['HEAD', undefined, { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
    ['OPTIONS', undefined, { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
    ['POST', '/api/v1/search', { readOnlyHint: true, idempotentHint: false, openWorldHint: false }],
    ['POST', '/api/v1/items', { readOnlyHint: false, idempotentHint: false, openWorldHint: false }],
    ['PATCH', undefined, { readOnlyHint: false, idempotentHint: false, openWorldHint: false }],
    ['PUT', undefined, { readOnlyHint: false, idempotentHint: true, openWorldHint: false }],
    ['DELETE', undefined, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }],
  ];
  for (const [method, template, hints] of table) {
    it(`${method} ${template ?? ''}`.trim(), () => {
      const t = byMethod(method, template);
      expect(t, `${method} ${template}`).toBeDefined();
      // OQ-38: exactly these keys; destructiveHint only for DELETE.
      expect(t.annotations).toEqual(hints);
    });
  }

  it('TRACE is a safe method too; methods compare case-insensitively', () => {
    expect(hintsFor('TRACE', false)).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(hintsFor('delete', false).destructiveHint).toBe(true);
    expect(hintsFor('POST', true).idempotentHint).toBe(false);
  });
});

describe('MCP-2 ownership of hints', () => {
  it('the tool definition carries the hints and the catalog reserve is charged with them', () => {
    const serialized = s.tools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
    expect(s.catalog.bytes).toBe(serialized);
    expect(s.tools.every((t) => t.annotations?.openWorldHint === false)).toBe(true);
  });
});

describe('request bodies: schema and replay', () => {
  it('a query POST replays the record with the same request body, and refuses another body', async () => {
    const search = byMethod('POST', '/api/v1/search');
    const schema = search.inputSchema as { properties: { body: { type: string; properties: Record<string, { type: string }> } } };
    expect(schema.properties.body).toMatchObject({ type: 'object', properties: { q: { type: 'string' } } });
    const b = await s.call(search.name, { body: { q: 'b' } });
    expect((b.structuredContent as { record_ordinal: number; why: string }).record_ordinal).toBe(5);
    expect((b.structuredContent as { why: string }).why).toMatch(/same request body/);
    const none = await s.call(search.name, { body: { q: 'zzz' } });
    expect(none.isError).toBe(true);
    expect(text(none)).toMatch(/no retained record answers POST \/api\/v1\/search with this request body/);
  });

  it('a write replays its record whatever body the call gives, and says so', async () => {
    const patch = byMethod('PATCH');
    const r = await s.call(patch.name, { id: 'it-01', body: { name: 'other' } });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { why: string }).why).toMatch(/body is not matched/);
  });
});
