import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeRecords,
  describeReturns,
  describeStatuses,
  minimalDescription,
  sampleName,
  DESCRIPTION_BUDGET,
  UNTRUSTED_CATALOG_WARNING,
} from '../src/serve/descriptions.js';
import { CATALOG_RESERVE_BYTES } from '../src/serve/catalog.js';
import { writeHar, type Exchange } from './har-builder.js';
import { cli, tempDir } from './helpers.js';
import { line, serveHar, serveStore, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const open: Served[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

/** Serves the exchanges and returns the description line of the one tool named `name`. */
async function describe1(exchanges: Exchange[], name: string): Promise<string> {
  const s = await serveHar(dir, exchanges);
  open.push(s);
  return line(s.tool(name));
}

const API = 'http://localhost:3000/api';

describe('DESC-1 description format', () => {
  it('METHOD template; <returns>; recorded statuses; what state answers (issue 16) or that it replays; its records, in plain words (issue 19); no warning (issue 46: once, in the instructions)', async () => {
    const s = await serveHar(dir, [
      { url: `${API}/folders`, body: [{ id: 1, uid: 'ab12cd34', title: 'x' }] },
      { url: `${API}/folders/ab12cd34`, body: { id: 1, uid: 'ab12cd34', title: 'x' } },
    ]);
    open.push(s);
    const t = s.tool('get_api_folders_by_uid');
    expect(t.description).not.toContain(UNTRUSTED_CATALOG_WARNING);
    expect(line(t)).toBe(
      'GET /api/folders/{uid}; returns object with fields "id", "uid", "title"; recorded statuses 200; ' +
        "answers any id the state holds from state (an id it lacks: the app's 404); seen in record 2",
    );
    expect(line(t)).not.toMatch(/\[#|evidence ev_|\b(ES|OQ|DESC|DOC)-\d/);
  });

  it("issue 16: says what is answered from state — a list's recorded lines, a document, what a write the capture verifies does — and nothing for a tool that only replays", async () => {
    const s = await serveHar(dir, [
      { url: `${API}/folders`, body: [{ id: 1, uid: 'ab12cd34', title: 'x' }] },
      { url: `${API}/profile`, body: { name: 'n' } },
      { url: `${API}/tags?view=a`, body: [{ id: 'tg-1', name: 'A' }] },
      { url: `${API}/tags?view=b`, body: [{ id: 'tg-1', name: 'A*' }] },
      { method: 'PATCH', url: `${API}/profile`, requestBody: { name: 'm' }, body: { name: 'm' } },
    ]);
    open.push(s);
    expect(line(s.tool('get_api_folders'))).toMatch(/; answers its recorded request lines from state; seen in record 1$/);
    expect(line(s.tool('get_api_profile'))).toMatch(/; answers from state; seen in record 2$/);
    // Issue 46: the load verified it (its own answer), so it says what it does.
    expect(line(s.tool('patch_api_profile'))).toMatch(
      /; changes the fields it sends of the document \/api\/profile; later reads show the change; seen in record 5$/,
    );
    expect(line(s.tool('get_api_tags'))).toMatch(/; replays its recorded answers; seen in records 3 and 4$/);
  });

  it('lists record ordinals in timeline order, at most 8 then …', async () => {
    const ex: Exchange[] = Array.from({ length: 10 }, (_, i) => ({
      url: `${API}/items?page=${i}`,
      body: [{ id: `it-${i}` }],
      start: `10:00:${String(59 - i).padStart(2, '0')}.000`,
    }));
    expect(await describe1(ex, 'get_api_items')).toMatch(/seen in records 10, 9, 8, 7, 6, 5, 4, 3, …$/);
  });

  it('names one record, two records, or none in words', () => {
    expect([describeRecords([]), describeRecords([4]), describeRecords([4, 2]), describeRecords([1, 2, 3])]).toEqual([
      'no retained record',
      'seen in record 4',
      'seen in records 4 and 2',
      'seen in records 1, 2 and 3',
    ]);
  });
});

describe('DESC-2 <returns>', () => {
  it("an object's fields, an array of objects' fields (in order of first appearance), an envelope's list", async () => {
    const s = await serveHar(dir, [
      { url: `${API}/user`, body: { id: 1, login: 'admin' } },
      {
        url: `${API}/folders`,
        body: [
          { id: 1, uid: 'a' },
          { id: 2, uid: 'b', title: 'x' },
        ],
      },
      {
        url: `${API}/posts`,
        body: {
          meta: { total: 2 },
          posts: [
            { id: 'p1', title: 'Hi' },
            { id: 'p2', title: 'Yo' },
          ],
        },
      },
      { url: `${API}/wrapped`, body: { data: { items: [{ id: 'w1' }, { id: 'w2' }] }, ok: true } },
    ]);
    open.push(s);
    expect(line(s.tool('get_api_user'))).toMatch(/; returns object with fields "id", "login";/);
    expect(line(s.tool('get_api_folders'))).toMatch(/; returns array of objects with fields "id", "uid", "title";/);
    expect(line(s.tool('get_api_posts'))).toMatch(
      /; returns object with fields "meta", "posts" \(list of objects with fields "id", "title"\);/,
    );
    expect(line(s.tool('get_api_wrapped'))).toMatch(
      /; returns object with fields "data" \(object whose "items" lists objects with fields "id"\), "ok";/,
    );
  });

  it('ACC-6 the first of several JSON records (timeline order) supplies the description', async () => {
    // #1 starts after #2: the timeline (ES-6) puts #2 first.
    const l = await describe1(
      [
        { url: `${API}/items`, body: [{ id: 'a', late: 1 }], start: '10:00:05.000' },
        { url: `${API}/items?x=1`, body: [{ id: 'a', early: 1 }], start: '10:00:01.000' },
      ],
      'get_api_items',
    );
    expect(l).toMatch(/returns array of objects with fields "id", "early";/);
  });

  it('ACC-6 empty, scalar and field-less bodies', async () => {
    const s = await serveHar(dir, [
      { url: `${API}/empty`, status: 204 },
      { url: `${API}/count`, body: 42 },
      { url: `${API}/name`, body: '"ok"' },
      { url: `${API}/flag`, body: true },
      { url: `${API}/nothing`, body: 'null' },
      { url: `${API}/blank`, body: {} },
      { url: `${API}/none`, body: [] },
      { url: `${API}/blanks`, body: [{}, {}] },
      { url: `${API}/tags`, body: ['a', 'b'] },
    ]);
    open.push(s);
    expect(line(s.tool('get_api_empty'))).toMatch(/^GET \/api\/empty; recorded statuses 204; replays/);
    expect(line(s.tool('get_api_count'))).toMatch(/; returns number;/);
    expect(line(s.tool('get_api_name'))).toMatch(/; returns string;/);
    expect(line(s.tool('get_api_flag'))).toMatch(/; returns boolean;/);
    expect(line(s.tool('get_api_nothing'))).toMatch(/; returns null;/);
    expect(line(s.tool('get_api_blank'))).toMatch(/; returns object with no fields;/);
    expect(line(s.tool('get_api_none'))).toMatch(/; returns empty array;/);
    expect(line(s.tool('get_api_blanks'))).toMatch(/; returns array of objects with no fields;/);
    expect(line(s.tool('get_api_tags'))).toMatch(/; returns array of strings;/);
  });
});

describe('DESC-3 fallback to another status', () => {
  it('ACC-6 the 2xx record is preferred over an earlier error body', async () => {
    expect(
      await describe1(
        [
          { url: `${API}/folders/ab12cd34`, status: 404, body: { message: 'not found' } },
          { url: `${API}/folders/ab12cd34`, body: { id: 1, uid: 'a', title: 'x' } },
        ],
        'get_api_folders_by_id',
      ),
    ).toMatch(/; returns object with fields "id", "uid", "title"; recorded statuses 200, 404;/);
  });

  it('ACC-6 labelled fallback when no 2xx record is JSON; omitted with no JSON record', async () => {
    const s = await serveHar(dir, [
      { url: `${API}/folders/ab12cd34`, status: 404, body: { message: 'not found' } },
      { url: `${API}/page`, body: '<html>hi</html>', mimeType: 'text/html' },
      { url: `${API}/page?x=1`, status: 400, body: { error: 'bad' } },
      { url: `${API}/plain`, body: 'just text', mimeType: 'text/plain' },
    ]);
    open.push(s);
    expect(line(s.tool('get_api_folders_by_id'))).toMatch(
      /^GET \/api\/folders\/\{id\}; status 404 returns object with fields "message"; recorded statuses 404;/,
    );
    expect(line(s.tool('get_api_page'))).toMatch(/; status 400 returns object with fields "error"; recorded statuses 200, 400;/);
    expect(line(s.tool('get_api_plain'))).toMatch(/^GET \/api\/plain; recorded statuses 200;/);
  });
});

describe('DESC-4 recorded statuses', () => {
  it("ACC-6 the manifest tool's statuses, ascending, at most 8 then …", async () => {
    const statuses = [503, 200, 404, 201, 400, 409, 410, 422, 500];
    const s = await serveHar(
      dir,
      statuses.map((status, i) => ({ url: `${API}/things?i=${i}`, status, body: { ok: status < 300 } })),
    );
    open.push(s);
    const manifestTool = s.ctx.manifest.tools.find((t) => t.name === 'get_api_things')!;
    expect(manifestTool.statuses).toEqual([...statuses].sort((a, b) => a - b));
    expect(line(s.tool('get_api_things'))).toMatch(/; recorded statuses 200, 201, 400, 404, 409, 410, 422, 500, …;/);
  });

  it('an empty set (every request failed, or none) shows as no recorded response', () => {
    expect(describeStatuses([])).toBe('no recorded response');
  });
});

describe('DESC-5 sampling budget and catalog reserve', () => {
  it('at most 12 field names, then …', async () => {
    const body = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`f${String(i).padStart(2, '0')}`, i]));
    const l = await describe1([{ url: `${API}/wide`, body }], 'get_api_wide');
    expect(l).toMatch(/returns object with fields "f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "f08", "f09", "f10", "f11", …;/);
  });

  it('ACC-6 truncated member names and names whose JSON quoting exceeds the sample', async () => {
    const long = 'a'.repeat(60);
    const controls = '\u0001'.repeat(20); // 20 characters, 122 when JSON-quoted
    const quotes = '"'.repeat(30);
    const l = await describe1([{ url: `${API}/odd`, body: { [long]: 1, [controls]: 2, [quotes]: 3, ok: 4 } }], 'get_api_odd');
    expect(l).toContain(`returns object with fields "${'a'.repeat(39)}…", …, …, "ok";`);
    expect(sampleName('b'.repeat(40))).toBe(`"${'b'.repeat(40)}"`);
    expect(sampleName('b'.repeat(41))).toBe(`"${'b'.repeat(39)}…"`);
    expect(sampleName('\\'.repeat(23))).toBe(`"${'\\\\'.repeat(23)}"`); // quotes to exactly 48 characters: kept
    expect(sampleName('\\'.repeat(24))).toBe('…'); // 50 characters quoted
  });

  it('a description stays within its budget of characters', async () => {
    const body = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`${'n'.repeat(36)}${String(i).padStart(3, '0')}`, [{ ['k'.repeat(38) + i]: 1 }]]),
    );
    const value = { list: Array.from({ length: 3 }, (_, i) => ({ id: `x${i}`, ...body })) };
    const l = await describe1([{ url: `${API}/huge`, body: value }], 'get_api_huge');
    expect(l.length).toBeLessThanOrEqual(DESCRIPTION_BUDGET.descriptionMax);
    expect(l).toMatch(/^GET \/api\/huge; returns object with fields "list" \(list of objects with fields "id", /);
    expect(describeReturns({ a: 1 }, null, 0)).toBe('returns object with fields …');
  });

  it('ACC-6 the catalog reserve: descriptions fall back to METHOD template, then tools are left out and counted', async () => {
    const letters = (i: number) => String.fromCharCode(97 + Math.floor(i / 26)) + String.fromCharCode(97 + (i % 26));
    const body = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`${'field'.repeat(7)}${letters(i)}`, i]));
    const ex: Exchange[] = Array.from({ length: 16 }, (_, i) => ({ url: `${API}/res${letters(i)}`, body }));
    const db = join(dir, 'catalog-reserve.sqlite');
    const r = cli(['load', writeHar(dir, 'catalog-reserve.har', ex), '--db', db, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    // What the reserve charges (OQ-37): the UTF-8 bytes of each serialized definition, hints included.
    const bytesOf = (t: Tool) => Buffer.byteLength(JSON.stringify(t), 'utf8');

    // Within the default reserve of 64 KiB every definition is served whole: measure them, and
    // each one's definition with its description cut to METHOD template.
    const whole = await serveStore(db);
    open.push(whole);
    expect(whole.catalog.reserveBytes).toBe(CATALOG_RESERVE_BYTES);
    expect([whole.catalog.shortened, whole.catalog.leftOut, whole.catalog.limitations]).toEqual([[], [], []]);
    const env = whole.catalog.environmentTools;
    const names = env.map((t) => t.name);
    expect(names).toEqual(ex.map((_, i) => `get_api_res${letters(i)}`));
    const fixed = whole.catalog.tools.filter((t) => !env.includes(t));
    const fixedBytes = fixed.reduce((n, t) => n + bytesOf(t), 0);
    const full = env.map(bytesOf);
    const least = env.map((t) => bytesOf({ ...t, description: minimalDescription(whole.ctx.tools.get(t.name)!) }));
    expect(whole.catalog.bytes).toBe(fixedBytes + full.reduce((a, b) => a + b, 0));
    expect(whole.catalog.bytes).toBeLessThanOrEqual(CATALOG_RESERVE_BYTES);

    // A reserve with room for the first two whole definitions and one byte short of the third.
    const reserve = fixedBytes + full[0] + full[1] + full[2] - 1;
    // OQ-37, tool by tool in manifest order: whole if it fits, else METHOD template if that fits, else left out and counted.
    const expected = { kept: [] as string[], shortened: [] as string[], leftOut: [] as string[], bytes: fixedBytes };
    for (const [i, name] of names.entries()) {
      const size = expected.bytes + full[i] <= reserve ? full[i] : expected.bytes + least[i] <= reserve ? least[i] : undefined;
      if (size === undefined) expected.leftOut.push(name);
      else {
        if (size !== full[i]) expected.shortened.push(name);
        expected.kept.push(name);
        expected.bytes += size;
      }
    }
    expect(expected.shortened).toContain(names[2]);
    expect(expected.leftOut.length).toBeGreaterThan(0);
    const s = await serveStore(db, { reserveBytes: reserve });
    open.push(s);
    expect(s.catalog.environmentTools.map((t) => t.name)).toEqual(expected.kept);
    expect(s.catalog.shortened).toEqual(expected.shortened);
    expect(s.catalog.leftOut).toEqual(expected.leftOut);
    expect(s.catalog.bytes).toBe(expected.bytes);
    expect(s.catalog.bytes).toBeLessThanOrEqual(reserve);
    // The client lists exactly the definitions charged (the array adds its brackets and commas).
    expect(s.tools.map((t) => t.name)).toEqual([...fixed.map((t) => t.name), ...expected.kept]);
    expect(bytesOf(s.tools as unknown as Tool)).toBe(s.catalog.bytes + s.tools.length + 1);
    expect(s.tool(names[1]).description).toBe(env[1].description);
    expect(line(s.tool(names[2]))).toBe('GET /api/resac');
    expect(s.catalog.limitations).toHaveLength(2);
    expect(s.catalog.limitations[0]).toMatch(
      new RegExp(`^${expected.shortened.length} tool descriptions? shortened to METHOD template\\b.* ${reserve} bytes`),
    );
    expect(s.catalog.limitations[1]).toMatch(new RegExp(`^${expected.leftOut.length} tools? left out\\b.* ${reserve} bytes`));
    // A tool left out is not served either.
    const left = await s.call(s.catalog.leftOut[0], {});
    expect(left.isError).toBe(true);
    expect(text(left)).toMatch(/left out of the catalog/);
  });
});

describe('DESC-6 body classification through the single owner', () => {
  it('ACC-6 a body under 256 KiB whose rendered JSON exceeds it: described as JSON, replayed from the recorded body (DOC-4)', async () => {
    const raw = '[' + Array(50_000).fill('1e15').join(',') + ']';
    expect(Buffer.byteLength(raw)).toBeLessThan(256 * 1024);
    const s = await serveHar(dir, [{ url: `${API}/numbers`, body: raw }]);
    open.push(s);
    expect(line(s.tool('get_api_numbers'))).toMatch(/; returns array of numbers;/);
    const r = await s.call('get_api_numbers', {});
    const sc = r.structuredContent as { body: unknown; body_kind: string; body_note: string };
    expect(sc.body_kind).toBe('json');
    expect(sc.body).toBeNull();
    expect(sc.body_note).toMatch(/rendered-oversize/);
    expect((r.content[1] as { text: string }).text).toBe(raw);
  });

  it('ACC-6 non-JSON bodies (text, over 256 KiB, invalid, duplicate keys) give no <returns> and replay as text', async () => {
    const s = await serveHar(dir, [
      { url: `${API}/html`, body: '<p>x</p>', mimeType: 'text/html' },
      { url: `${API}/big`, body: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }) },
      { url: `${API}/broken`, body: '{"a":' },
      { url: `${API}/dup`, body: '{"a":1,"a":2}' },
    ]);
    open.push(s);
    for (const name of ['get_api_html', 'get_api_big', 'get_api_broken', 'get_api_dup']) {
      expect(line(s.tool(name))).toMatch(/^GET \/api\/[a-z]+; recorded statuses 200;/);
      const r = await s.call(name, {});
      expect((r.structuredContent as { body_kind: string }).body_kind).toBe('text');
      expect((r.structuredContent as { body: unknown }).body).toBeNull();
    }
  });
});
