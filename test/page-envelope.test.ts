/**
 * Issue 44 (kinds 1 and 8): a page envelope the window explains (src/model/served/page-envelope.ts).
 * json-server 1.0's capture (bench/fidelity/, recorded in Debian's Chromium) reads one page,
 * `/posts?_page=1&_per_page=3`, answered `{"first":1,"prev":null,"next":2,"last":3,"pages":3,
 * "items":8,"data":[…]}`. Expectations are the app's own answers (truth.json), sent after the
 * capture's requests as here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { servedFidelityApp } from './fidelity-served.js';
import { tempDir } from './helpers.js';
import { serveHar, text } from './serve-helpers.js';

const v10 = servedFidelityApp('json-server-1.0');

describe('issue 44: pages in the page envelope a recorded page proved', () => {
  beforeAll(async () => {
    await v10.replayCapture();
  });

  it('page envelope: other pages of /posts render their members (first, prev, next, last, pages, items) as the app does', async () => {
    for (const [path, id] of [
      ['/posts?_page=2&_per_page=3', 'page-29'],
      ['/posts?_page=3&_per_page=3', 'page-30'],
      ['/posts?userId=1&_page=1&_per_page=2', 'page-37'],
    ] as const) {
      const r = await v10.get(path);
      expect(r.status, path).toBe(200);
      expect(r.json, path).toEqual(v10.truth(id).json);
      expect(r.h('capstate-answer'), path).toBe('state');
    }
  });

  it('api-page-envelope: /comments pages in the envelope /posts proved, and its input schema says so', async () => {
    const r = await v10.get('/comments?_page=1&_per_page=4');
    expect(r.json).toEqual(v10.truth('page-32').json);
    expect(r.h('capstate-convention')).toBe('api-page-envelope');
    const schema = v10.mcp().tool('get_comments').inputSchema as unknown as {
      properties: { query: { properties: Record<string, { description: string }> } };
    };
    expect(schema.properties.query.properties._page.description).toContain('api-page-envelope');
  });

  it('a page past the last, or a page with no page size, is declined: the capture shows neither', async () => {
    for (const path of ['/posts?_page=9&_per_page=3', '/posts?_page=2']) {
      const r = await v10.get(path);
      expect(r.status, path).toBe(501);
      expect(r.h('capstate-answer'), path).toBe('declined');
    }
  });

  it('an envelope member no one quantity explains leaves the pages to replay (two members 1 on the only page)', async () => {
    const A = 'http://localhost:3000/api';
    const items = [{ id: 1 }, { id: 2 }];
    const s = await serveHar(tempDir(), [
      { url: `${A}/items`, body: items },
      { url: `${A}/items?page=1&per_page=5`, body: { start: 1, count: 1, total: 2, data: items } },
    ]);
    try {
      const r = await s.call('get_api_items', { query: { page: '2', per_page: '1' } });
      expect(r.isError, text(r)).toBe(true);
    } finally {
      await s.close();
    }
  });
});
