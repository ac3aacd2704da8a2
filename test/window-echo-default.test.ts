/**
 * Issue 44 (kind 1): an envelope member that echoes the request's window (Feathers' `limit`,
 * Redmine's `limit`) is written from the call's own window, or from the default the recorded lines
 * showed for calls that name none. Where no line showed that default, a call naming no window key
 * is declined: the template's recorded `"limit": 2` is another request's echo, and Feathers answers
 * such a call with its own default (`"limit": 5`) — a plausible wrong answer a probe of the real
 * app found. So is a page larger than any the capture asked for or saw by default, whose size the
 * answer echoes: Feathers caps `$limit=100` at its `paginate.max` and echoes 20.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHar } from './har-builder.js';
import { tempDir } from './helpers.js';
import { serveHttp } from './serve-helpers.js';

const dir = tempDir();
const notes = [
  { id: 1, title: 'a' },
  { id: 2, title: 'b' },
];

describe('issue 44: a window echo whose default the capture never showed', () => {
  let base = '';
  let close: () => Promise<void>;
  beforeAll(async () => {
    const har = writeHar(dir, 'echo.har', [
      // Every line names $limit: the echo's default (a call without it) is never shown.
      { url: 'http://api.test/notes?%24limit=2', body: { total: 2, limit: 2, skip: 0, data: notes } },
      { url: 'http://api.test/notes?%24sort%5Bid%5D=-1&%24limit=1', body: { total: 2, limit: 1, skip: 0, data: [notes[1]] } },
    ]);
    ({ base, close } = await serveHttp(har, join(dir, 'echo.sqlite')));
  });
  afterAll(() => close?.());

  const get = async (path: string) => {
    const r = await fetch(base + path);
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };

  it('a call naming its window echoes it; one naming none is declined, not given another request’s "limit"', async () => {
    expect(await get('/notes?$sort[id]=-1&$limit=2')).toEqual({
      status: 200,
      json: { total: 2, limit: 2, skip: 0, data: [notes[1], notes[0]] },
    });
    expect((await get('/notes?$sort[id]=-1')).status).toBe(501);
  });

  it('a page larger than any the capture asked for, echoed, is declined: the app may cap it (Feathers lists 20 for $limit=100)', async () => {
    const r = await get('/notes?$limit=3');
    expect(r.status).toBe(501);
    expect(r.json.detail).toContain('asks for pages of 3, more than any request of the capture asked for (2)');
    expect((await get('/notes?$limit=1')).status).toBe(200);
  });
});
