import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hintsFor } from '../src/serve/hints.js';
import { tempDir } from './helpers.js';
import { METHOD_EXCHANGES, METHOD_HINTS, serveHar, text, type Served } from './serve-helpers.js';

const dir = tempDir();
let s: Served;

beforeAll(async () => {
  s = await serveHar(dir, METHOD_EXCHANGES);
});
afterAll(async () => { await s?.close(); });

const byMethod = (method: string, template?: string) =>
  s.tools.find((t) => (t.description ?? '').split('\n')[1]?.startsWith(`${method} ${template ?? ''}`))!;

describe('MCP-1 hints per method (ACC-7: advertised by the in-process server)', () => {
  for (const [method, template, hints] of METHOD_HINTS) {
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
