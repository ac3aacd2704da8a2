/**
 * Requests that never got a response (issue 17): HAR status 0 (Firefox, Charles) or -1
 * (Chromium through Playwright, `_failureText` beside it) are failed requests. They are
 * kept as records but are no recorded status, and replaying one says there is no recorded
 * response instead of answering "HTTP 0".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, tempDir } from './helpers.js';
import { loadHar } from './har-builder.js';
import { line, serveHar, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const A = 'http://app.test';
const served: Served[] = [];
afterAll(async () => {
  for (const s of served) await s.close();
});

describe('requests without a response (status 0 or -1)', () => {
  it('the Playwright export in fixtures/ carries one: status -1 with a failure text', () => {
    const har = JSON.parse(readFileSync(join(root, 'fixtures', 'news-site-playwright', 'capture.har'), 'utf8')) as {
      log: { entries: { response: { status: number; _failureText?: string } }[] };
    };
    expect(har.log.entries.filter((e) => e.response.status <= 0).map((e) => e.response._failureText)).toEqual(['net::ERR_EMPTY_RESPONSE']);
  });

  it('DESC-4 a failed request is no recorded status of its tool', () => {
    const db = loadHar(dir, [
      { url: `${A}/api/v1/report`, body: { total: 3 } },
      { url: `${A}/api/v1/report`, status: -1 },
      { url: `${A}/api/v1/health`, status: 0 },
    ]);
    expect(db.prepare('select tool, status from tool_statuses order by tool, status').raw().all()).toEqual([['get_api_v1_report', 200]]);
    expect(db.prepare('select ordinal, status from record order by ordinal').raw().all()).toEqual([
      [1, 200],
      [2, -1],
      [3, 0],
    ]);
    db.close();
  });

  it('a tool whose every record failed says so in its description, and a call says there is no recorded response', async () => {
    const s = await serveHar(dir, [
      { url: `${A}/api/v1/items`, body: [{ id: 'it-1' }] },
      { url: `${A}/api/v1/health`, status: 0 },
    ]);
    served.push(s);
    expect(line(s.tool('get_api_v1_health'))).toMatch(/no recorded response/);
    const r = await s.call('get_api_v1_health');
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/recorded GET \/api\/v1\/health but no response to it/);
    expect(text(r)).not.toMatch(/HTTP 0/);
  });
});
