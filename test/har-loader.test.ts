/**
 * HAR loader features (src/load/har.ts, writer.ts): each behaviour is checked on a tiny HAR
 * written here, loaded with the real CLI, and read back from the store (read-only).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { cli, tempDir } from './helpers.js';

type Json = Record<string, any>;

const dir = tempDir();
const opened: Database.Database[] = [];
afterAll(() => {
  for (const db of opened) db.close();
});

const T0 = Date.UTC(2024, 4, 1, 10, 0, 0); // 2024-05-01T10:00:00Z
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** `content` with the right byte `size` for `text`. */
function content(text: string, mimeType = 'application/json'): Json {
  return { size: Buffer.byteLength(text, 'utf8'), mimeType, text };
}

/** A complete, ordinary HAR 1.2 entry: GET, 200, a small JSON body, distinct start times. */
function entry(i: number, mutate: (e: Json) => void = () => {}): Json {
  const e: Json = {
    startedDateTime: new Date(T0 + i * 1000).toISOString(),
    time: 10,
    request: {
      method: 'GET',
      url: `http://127.0.0.1:3000/api/items/${i}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Accept', value: 'application/json' }],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: 200,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: content(JSON.stringify({ id: i })),
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 10, receive: 0 },
  };
  mutate(e);
  return e;
}

function writeHar(name: string, log: Json): string {
  const file = join(dir, `${name}.har`);
  writeFileSync(file, JSON.stringify({ log }, null, 2));
  return file;
}

function load(files: string | string[], store: string): void {
  const r = cli(['load', ...([] as string[]).concat(files), '--db', store, '--json']);
  expect(r.status, r.stderr).toBe(0);
}

function open(store: string): Database.Database {
  const db = new Database(store, { readonly: true });
  opened.push(db);
  return db;
}

/** Writes a HAR with `entries` (log members in the usual order), loads it into a new store, opens it read-only. */
function loadHar(name: string, entries: Json[], extra: Json = {}): Database.Database {
  const file = writeHar(name, { version: '1.2', creator: { name: 'capstate-test', version: '1' }, ...extra, entries });
  const store = join(dir, `${name}.sqlite`);
  load(file, store);
  return open(store);
}

/** Runs `f` once, on first use. */
function lazy<T>(f: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= f());
}

interface BodyRow {
  id: number;
  sha256: string;
  bytes: number;
  kind: string;
  is_usable: number;
  unusable_reason: string | null;
  content: string | Buffer | null;
}

function body(db: Database.Database, ordinal: number, side: 'request' | 'response' = 'response'): BodyRow {
  return db.prepare(`select b.* from record r join body b on b.id = r.${side}_body_id where r.ordinal = ?`).get(ordinal) as BodyRow;
}

const col = (db: Database.Database, sql: string, ...params: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .all(...params);
const memberCount = (db: Database.Database, bodyId: number) =>
  db.prepare('select count(*) from member where body_id = ?').pluck().get(bodyId) as number;

// ---------------------------------------------------------------- bodies

describe('HAR content.text: plain text and encoding "base64"', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200ff10c3', 'hex');
  const jsonB64 = '{"id":2,"name":"Désk"}';
  const db = lazy(() =>
    loadHar('content-encoding', [
      entry(1, (e) => {
        e.response.content = content('{"id":1,"name":"Lamp"}');
      }),
      entry(2, (e) => {
        e.response.content = {
          size: Buffer.byteLength(jsonB64),
          mimeType: 'application/json; charset=utf-8',
          text: Buffer.from(jsonB64).toString('base64'),
          encoding: 'base64',
        };
      }),
      entry(3, (e) => {
        e.response.content = { size: png.length, mimeType: 'image/png', text: png.toString('base64'), encoding: 'base64' };
      }),
      entry(4, (e) => {
        e.response.content = content('<p>hi</p>', 'text/html');
      }),
    ]),
  );

  it('plain JSON text is stored as text, classified json, hashed over its UTF-8 bytes', () => {
    const b = body(db(), 1);
    expect(b).toMatchObject({ kind: 'json', is_usable: 1, unusable_reason: null, content: '{"id":1,"name":"Lamp"}', bytes: 22 });
    expect(b.sha256).toBe(sha256('{"id":1,"name":"Lamp"}'));
  });

  it('base64 JSON is decoded first: kind json, content the decoded text, bytes the decoded length', () => {
    const b = body(db(), 2);
    expect(b).toMatchObject({ kind: 'json', content: jsonB64, bytes: Buffer.byteLength(jsonB64) });
    expect(b.sha256).toBe(sha256(Buffer.from(jsonB64)));
    expect(db().prepare("select value from member where body_id = ? and pointer = '/name'").pluck().get(b.id)).toBe('Désk');
  });

  it('base64 image/png stays base64: content is a BLOB equal to the decoded bytes, no members', () => {
    const b = body(db(), 3);
    expect(b).toMatchObject({ kind: 'base64', is_usable: 0, unusable_reason: 'binary', bytes: png.length });
    expect(Buffer.isBuffer(b.content)).toBe(true);
    expect(Buffer.compare(b.content as Buffer, png)).toBe(0);
    expect(b.sha256).toBe(sha256(png));
    expect(db().prepare('select typeof(content) from body where id = ?').pluck().get(b.id)).toBe('blob');
    expect(memberCount(db(), b.id)).toBe(0);
  });

  it('plain text/html is text (not-json) and keeps its text', () => {
    expect(body(db(), 4)).toMatchObject({ kind: 'text', unusable_reason: 'not-json', content: '<p>hi</p>' });
  });

  it('the media type is kept on the record', () => {
    expect(col(db(), 'select response_media_type from record order by ordinal')).toEqual([
      'application/json',
      'application/json; charset=utf-8',
      'image/png',
      'text/html',
    ]);
  });
});

describe('OQ-33 cut HAR bodies: content.size larger than the retained bytes, or a comment saying truncated', () => {
  const kept = '{"reviews":[{"id":1';
  const db = lazy(() =>
    loadHar('cut-bodies', [
      entry(1, (e) => {
        e.response.content = { size: 3999, mimeType: 'application/json', text: kept };
      }),
      // 13 UTF-8 bytes in 12 UTF-16 units: size counts bytes, so this is whole.
      entry(2, (e) => {
        e.response.content = { size: 13, mimeType: 'application/json', text: '{"name":"é"}' };
      }),
      entry(3, (e) => {
        e.response.content = { ...content('{"a":[1,2'), comment: 'body truncated by proxy' };
      }),
      entry(4, (e) => {
        e.response.content = { ...content('{"a":1}'), comment: 'TRUNCATED at 1 KiB' };
      }),
      entry(5, (e) => {
        e.response.content = { size: 141, mimeType: 'application/json', comment: 'Response bodies are not included.' };
      }),
      entry(6, (e) => {
        e.response.content = { size: 3, mimeType: 'image/png', text: 'AAEC', encoding: 'base64' };
      }),
      entry(7, (e) => {
        e.response.content = { size: 5, mimeType: 'image/png', text: 'AAEC', encoding: 'base64' };
      }),
      entry(8, (e) => {
        e.response.content = { ...content('{"a":1}'), comment: 'served from cache' };
      }),
      // Optic writes size as the length of the base64 text (4 for 3 bytes): whole.
      entry(9, (e) => {
        e.response.content = { size: 4, mimeType: 'image/png', text: 'AAEC', encoding: 'base64' };
      }),
      // Fiddler counts CRLF line endings it then wrote as LF; a gzip size is another count again: complete JSON is whole.
      entry(10, (e) => {
        e.response.content = { size: 30, mimeType: 'application/json', text: '{\n "id": 1,\n "ok": true\n}' };
      }),
      entry(11, (e) => {
        e.response.content = { size: 400, mimeType: 'text/html', text: '<p>hello</p>' };
      }),
    ]),
  );

  it('OQ-33 content.size larger than the retained text → cut, unusable, the retained part kept, no members', () => {
    const b = body(db(), 1);
    expect(b).toMatchObject({ kind: 'cut', is_usable: 0, unusable_reason: 'cut', content: kept, bytes: kept.length });
    expect(memberCount(db(), b.id)).toBe(0);
  });

  it('OQ-33 content.size equal to the retained UTF-8 bytes (not characters) → whole', () => {
    expect(body(db(), 2).kind).toBe('json');
  });

  it('OQ-33 a content.comment mentioning truncation → cut, whatever the case', () => {
    expect(body(db(), 3)).toMatchObject({ kind: 'cut', content: '{"a":[1,2' });
    expect(body(db(), 4).kind).toBe('cut');
  });

  it('OQ-33 no text and a comment that does not mention truncation → none', () => {
    expect(body(db(), 5)).toMatchObject({ kind: 'none', bytes: 0 });
    expect(body(db(), 8).kind).toBe('json');
  });

  it('OQ-33 base64 bodies are cut only when content.size exceeds both the decoded and the encoded length', () => {
    expect(body(db(), 6)).toMatchObject({ kind: 'base64', bytes: 3 });
    expect(body(db(), 7)).toMatchObject({ kind: 'cut', bytes: 3 });
    expect(body(db(), 9)).toMatchObject({ kind: 'base64', bytes: 3 });
  });

  it('OQ-33 (issue 17) a body that parses as complete JSON is not cut, whatever content.size says; other bodies still are', () => {
    expect(body(db(), 10)).toMatchObject({ kind: 'json', is_usable: 1 });
    expect(body(db(), 11)).toMatchObject({ kind: 'cut', unusable_reason: 'cut' });
  });
});

// ---------------------------------------------------------------- times

describe('HAR durations: time, else the sum of timings', () => {
  const db = lazy(() =>
    loadHar('durations', [
      entry(1, (e) => {
        e.time = -1;
        e.timings = { blocked: 1, dns: -1, connect: 10, ssl: 6, send: 0.5, wait: 20, receive: 3.25 };
      }),
      entry(2, (e) => {
        delete e.time;
        e.timings = { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1 };
      }),
      entry(3, (e) => {
        e.time = 12.5;
        e.timings = { send: 1, wait: 100, receive: 1 };
      }),
      entry(4, (e) => {
        delete e.time;
        delete e.timings;
      }),
      entry(5, (e) => {
        delete e.time;
        e.timings = { blocked: 2, _blocked_queueing: 100, wait: 3, receive: 0 };
      }),
    ]),
  );

  it('time -1 → duration is the sum of the non-negative phases blocked, dns, connect, send, wait, receive (ssl is inside connect)', () => {
    expect(col(db(), 'select duration_ms from record where ordinal = 1')).toEqual([34.75]);
  });

  it('time missing and every phase -1 → duration 0', () => {
    expect(col(db(), 'select duration_ms from record where ordinal = 2')).toEqual([0]);
  });

  it('a non-negative time wins over the timings', () => {
    expect(col(db(), 'select duration_ms from record where ordinal = 3')).toEqual([12.5]);
  });

  it('no time and no timings → 0; producer extras such as _blocked_queueing are not phases', () => {
    expect(col(db(), 'select duration_ms from record where ordinal in (4, 5) order by ordinal')).toEqual([0, 5]);
  });
});

describe('HAR startedDateTime → started_ms (epoch ms, any offset, fractions kept)', () => {
  const starts = [
    '2024-05-01T10:00:00.123Z',
    '2024-05-01T12:00:00.123456+02:00',
    '2024-05-01T04:30:01.5-05:30',
    '2024-05-01T10:00:02Z',
    '2024-03-01T00:15:00.25+02:00', // crosses back into a leap day
    '2024-05-01T10:00:05.000700Z',
    '2024-05-01T10:00:05.000400Z',
  ];
  const want = [
    Date.UTC(2024, 4, 1, 10, 0, 0, 123),
    Date.UTC(2024, 4, 1, 10, 0, 0, 123) + 0.456,
    Date.UTC(2024, 4, 1, 10, 0, 1, 500),
    Date.UTC(2024, 4, 1, 10, 0, 2),
    Date.UTC(2024, 1, 29, 22, 15, 0, 250),
    Date.UTC(2024, 4, 1, 10, 0, 5) + 0.7,
    Date.UTC(2024, 4, 1, 10, 0, 5) + 0.4,
  ];
  const db = lazy(() =>
    loadHar(
      'started',
      starts.map((s, i) =>
        entry(i + 1, (e) => {
          e.startedDateTime = s;
        }),
      ),
    ),
  );

  it.each(starts.map((s, i) => [s, i + 1] as const))('%s → the exact epoch ms (record %i)', (_s, ordinal) => {
    expect(db().prepare('select started_ms from record where ordinal = ?').pluck().get(ordinal)).toBe(want[ordinal - 1]);
  });

  it('ES-6 sub-millisecond fractions order the timeline (…000400Z before …000700Z)', () => {
    expect(col(db(), 'select ordinal from records_timeline order by timeline_position')).toEqual([5, 1, 2, 3, 4, 7, 6]);
  });
});

describe('ES-6 HAR timeline: one missing start time switches the capture to record order', () => {
  const db = lazy(() =>
    loadHar('missing-start', [
      entry(1, (e) => {
        e.startedDateTime = '2024-05-01T10:00:03.000Z';
      }),
      entry(2, (e) => {
        delete e.startedDateTime;
      }),
      entry(3, (e) => {
        e.startedDateTime = '2024-05-01T10:00:01.000Z';
      }),
    ]),
  );

  it('ES-6 a missing startedDateTime stores started_ms NULL for that record only', () => {
    expect(col(db(), 'select started_ms from record order by ordinal')).toEqual([T0 + 3000, null, T0 + 1000]);
  });

  it('ES-6 records_timeline uses record order for the whole capture, and capture_timeline says so', () => {
    expect(col(db(), 'select ordinal from records_timeline order by timeline_position')).toEqual([1, 2, 3]);
    expect(col(db(), 'select distinct timeline_order from records_timeline')).toEqual(['record-order']);
    expect(db().prepare('select timeline_order, records, records_with_start from capture_timeline').get()).toEqual({
      timeline_order: 'record-order',
      records: 3,
      records_with_start: 2,
    });
    expect(col(db(), 'select ended_ms from records_timeline order by ordinal')).toEqual([T0 + 3010, null, T0 + 1010]);
  });
});

describe('ES-6 HAR timeline: equal start times keep record order', () => {
  it('ES-6 ties in started_ms are broken by record order', () => {
    const db = loadHar('ties', [
      entry(1, (e) => {
        e.startedDateTime = '2024-05-01T10:00:05.000Z';
      }),
      entry(2, (e) => {
        e.startedDateTime = '2024-05-01T10:00:00.000Z';
      }),
      entry(3, (e) => {
        e.startedDateTime = '2024-05-01T12:00:00.000+02:00';
      }),
      entry(4, (e) => {
        e.startedDateTime = '2024-05-01T10:00:00Z';
      }),
    ]);
    expect(col(db, 'select ordinal from records_timeline order by timeline_position')).toEqual([2, 3, 4, 1]);
    expect(col(db, 'select distinct timeline_order from records_timeline')).toEqual(['start-time']);
  });
});

// ---------------------------------------------------------------- request bodies

describe('HAR request bodies: postData.text, else postData.params as a form', () => {
  const db = lazy(() =>
    loadHar('post-data', [
      entry(1, (e) => {
        e.request.method = 'POST';
        e.request.postData = { mimeType: 'application/json', text: '{"name":"Lamp","qty":2}' };
      }),
      entry(2, (e) => {
        e.request.method = 'POST';
        e.request.postData = {
          mimeType: 'application/x-www-form-urlencoded',
          params: [
            { name: 'a', value: '1' },
            { name: 'b', value: 'x y' },
          ],
        };
      }),
      entry(3),
      entry(4, (e) => {
        e.request.method = 'POST';
        e.request.postData = { mimeType: 'application/x-www-form-urlencoded', text: 'a=2', params: [{ name: 'a', value: '1' }] };
      }),
      entry(5, (e) => {
        e.request.method = 'POST';
        e.request.postData = { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'c&d', value: 'e=f' }, { name: 'g' }] };
      }),
    ]),
  );

  it('postData.text is the request body; application/json → kind json with members', () => {
    const b = body(db(), 1, 'request');
    expect(b).toMatchObject({ kind: 'json', content: '{"name":"Lamp","qty":2}' });
    expect(col(db(), 'select request_media_type from record where ordinal = 1')).toEqual(['application/json']);
    expect(db().prepare("select type, value from member where body_id = ? and pointer = '/qty'").get(b.id)).toEqual({
      type: 'integer',
      value: 2,
    });
  });

  it('postData.params without text → the form-encoded text a=1&b=x+y', () => {
    expect(body(db(), 2, 'request')).toMatchObject({ kind: 'text', content: 'a=1&b=x+y' });
  });

  it('form encoding escapes & and = in names and values; a param without value is empty', () => {
    expect(body(db(), 5, 'request').content).toBe('c%26d=e%3Df&g=');
  });

  it('postData.text wins over params', () => {
    expect(body(db(), 4, 'request').content).toBe('a=2');
  });

  it('no postData → request body none', () => {
    expect(body(db(), 3, 'request')).toMatchObject({ kind: 'none', bytes: 0 });
  });
});

// ---------------------------------------------------------------- pages, URLs

describe('HAR pages: page rows and record.page_id from pageref', () => {
  const pages = [
    { id: 'page_1', title: 'Items', startedDateTime: '2024-05-01T12:00:00.250+02:00', pageTimings: {} },
    { id: 'page_2', title: 'http://127.0.0.1:3000/items/2', startedDateTime: '2024-05-01T10:00:04Z', pageTimings: {} },
  ];
  const entries = [
    entry(1, (e) => {
      e.pageref = 'page_1';
    }),
    entry(2, (e) => {
      e.pageref = 'page_2';
    }),
    entry(3),
  ];

  it('pages before entries → one page row each, in order, with title and started_ms', () => {
    const db = loadHar('pages-first', entries, { pages });
    expect(db.prepare('select position, page_id, title, started_ms from page order by position').raw().all()).toEqual([
      [0, 'page_1', 'Items', T0 + 250],
      [1, 'page_2', 'http://127.0.0.1:3000/items/2', T0 + 4000],
    ]);
    expect(col(db, 'select page_id from record order by ordinal')).toEqual(['page_1', 'page_2', null]);
  });

  it('pages written after log.entries (keys in sorted order) are stored the same way', () => {
    const file = writeHar('pages-last', { creator: { name: 'sorted-keys', version: '2' }, entries, pages, version: '1.2' });
    const store = join(dir, 'pages-last.sqlite');
    load(file, store);
    const db = open(store);
    expect(db.prepare('select page_id, title, started_ms from page order by position').raw().all()).toEqual([
      ['page_1', 'Items', T0 + 250],
      ['page_2', 'http://127.0.0.1:3000/items/2', T0 + 4000],
    ]);
    expect(col(db, 'select page_id from record order by ordinal')).toEqual(['page_1', 'page_2', null]);
  });
});

describe('HAR capture row: log.version and log.creator', () => {
  it('log.version and log.creator before log.entries → format_version and creator', () => {
    const db = loadHar('meta-first', [entry(1)], { creator: { name: 'early-writer', version: '2.1' } });
    expect(db.prepare('select format, format_version, creator from capture').get()).toEqual({
      format: 'har',
      format_version: '1.2',
      creator: 'early-writer 2.1',
    });
  });

  it('log.version and log.creator written after log.entries still reach the capture row', () => {
    const file = writeHar('meta-last', { entries: [entry(1)], creator: { name: 'late-writer', version: '3' }, version: '1.2' });
    const store = join(dir, 'meta-last.sqlite');
    load(file, store);
    expect(open(store).prepare('select format, format_version, creator from capture').get()).toEqual({
      format: 'har',
      format_version: '1.2',
      creator: 'late-writer 3',
    });
  });
});

describe('HAR URLs: record origin/path/query and query_param rows', () => {
  const search = 'http://127.0.0.1:3000/api/search?b=2&a=1&a=%20x%2Fy&na%C3%AFve=caf%C3%A9&empty=&flag';
  const db = lazy(() =>
    loadHar('urls', [
      entry(1, (e) => {
        e.request.url = search;
      }),
      entry(2, (e) => {
        e.request.url = 'https://API.Example.COM:443/v1/Items/%7Eid/#top';
      }),
      entry(3, (e) => {
        e.request.url = 'http://127.0.0.1:8080/x?q=1#frag';
      }),
    ]),
  );

  it('query_param rows in URL order, percent-decoded, repeated keys kept, empty values empty', () => {
    const id = db().prepare('select id from record where ordinal = 1').pluck().get();
    expect(db().prepare('select position, name, value from query_param where record_id = ? order by position').raw().all(id)).toEqual([
      [0, 'b', '2'],
      [1, 'a', '1'],
      [2, 'a', ' x/y'],
      [3, 'naïve', 'café'],
      [4, 'empty', ''],
      [5, 'flag', ''],
    ]);
  });

  it('record.url is the raw URL; origin is normalised; path and query are split off; no query → NULL', () => {
    expect(db().prepare('select url, origin, path, query from record order by ordinal').raw().all()).toEqual([
      [search, 'http://127.0.0.1:3000', '/api/search', 'b=2&a=1&a=%20x%2Fy&na%C3%AFve=caf%C3%A9&empty=&flag'],
      ['https://API.Example.COM:443/v1/Items/%7Eid/#top', 'https://api.example.com', '/v1/Items/%7Eid/', null],
      ['http://127.0.0.1:8080/x?q=1#frag', 'http://127.0.0.1:8080', '/x', 'q=1'],
    ]);
    expect(col(db(), 'select count(*) from query_param qp join record r on r.id = qp.record_id where r.ordinal <> 1')).toEqual([1]);
  });
});

describe('OQ-8 is_url_redacted marks URLs carrying a redaction marker', () => {
  it('OQ-8 [REDACTED] and %5BREDACTED%5D (any case) set is_url_redacted 1; other URLs 0', () => {
    const db = loadHar('redacted-urls', [
      entry(1, (e) => {
        e.request.url = 'http://127.0.0.1:3000/api/items?token=[REDACTED]';
      }),
      entry(2, (e) => {
        e.request.url = 'http://127.0.0.1:3000/api/items?token=%5BREDACTED%5D';
      }),
      entry(3, (e) => {
        e.request.url = 'http://127.0.0.1:3000/api/users/%5bredacted%5d/profile';
      }),
      entry(4, (e) => {
        e.request.url = 'http://127.0.0.1:3000/api/items?q=redacted';
      }),
    ]);
    expect(col(db, 'select is_url_redacted from record order by ordinal')).toEqual([1, 1, 1, 0]);
    expect(col(db, 'select is_url_redacted from records_timeline order by ordinal')).toEqual([1, 1, 1, 0]);
  });
});

// ---------------------------------------------------------------- headers and cookies

describe('BS-65 HAR headers: order and duplicates kept, credential values dropped', () => {
  const reqHeaders = [
    { name: 'Accept', value: 'application/json' },
    { name: 'Authorization', value: 'Bearer SECRET-h1' },
    { name: 'Cookie', value: 'sid=SECRET-h2' },
    { name: 'Proxy-Authorization', value: 'Basic SECRET-h3' },
    { name: 'X-Api-Key', value: 'SECRET-h4' },
    { name: 'X-Auth-Token', value: 'SECRET-h5' },
    { name: 'X-Redmine-API-Key', value: 'SECRET-h6' },
    { name: 'X-CSRF-Token', value: 'SECRET-h7' },
    { name: 'X-CSRFToken', value: 'SECRET-h8' },
    { name: 'Content-Type', value: 'application/json' },
    { name: 'Accept', value: 'text/plain' },
    { name: 'authorization', value: 'SECRET-h9' },
  ];
  const resHeaders = [
    { name: 'Content-Type', value: 'application/json; charset=utf-8' },
    { name: 'Set-Cookie', value: 'sid=SECRET-h10; HttpOnly' },
    { name: 'Set-Cookie', value: 'csrf=SECRET-h11' },
    { name: 'Cache-Control', value: 'no-store' },
  ];
  const store = join(dir, 'headers.sqlite');
  const db = lazy(() => {
    load(
      writeHar('headers', {
        version: '1.2',
        creator: { name: 't', version: '1' },
        entries: [
          entry(1, (e) => {
            e.request.headers = reqHeaders;
            e.response.headers = resHeaders;
          }),
        ],
      }),
      store,
    );
    return open(store);
  });
  const rows = (side: string) =>
    db()
      .prepare("select position, name, value, is_redacted from header where side = ? and source = 'header' order by position")
      .raw()
      .all(side);

  it('BS-65 request headers: every header in order, duplicates kept, credential values NULL with is_redacted 1', () => {
    const credential = new Set([
      'authorization',
      'cookie',
      'proxy-authorization',
      'x-api-key',
      'x-auth-token',
      'x-redmine-api-key',
      'x-csrf-token',
      'x-csrftoken',
    ]);
    expect(rows('request')).toEqual(
      reqHeaders.map((h, i) => (credential.has(h.name.toLowerCase()) ? [i, h.name, null, 1] : [i, h.name, h.value, 0])),
    );
    expect(rows('request')[9]).toEqual([9, 'Content-Type', 'application/json', 0]);
  });

  it('BS-65 response headers: Set-Cookie (twice) NULL and redacted, Content-Type kept', () => {
    expect(rows('response')).toEqual([
      [0, 'Content-Type', 'application/json; charset=utf-8', 0],
      [1, 'Set-Cookie', null, 1],
      [2, 'Set-Cookie', null, 1],
      [3, 'Cache-Control', 'no-store', 0],
    ]);
  });

  it('BS-65 no credential value is anywhere in the store file', () => {
    db();
    expect(readFileSync(store).includes(Buffer.from('SECRET-'))).toBe(false);
  });
});

describe('BS-65 HAR cookies arrays: names kept as header rows of source cookie, values dropped', () => {
  it('BS-65 request and response cookies → header rows (source cookie) with value NULL, is_redacted 1, in order', () => {
    const store = join(dir, 'cookies.sqlite');
    load(
      writeHar('cookies', {
        version: '1.2',
        creator: { name: 't', version: '1' },
        entries: [
          entry(1, (e) => {
            e.request.cookies = [
              { name: 'sid', value: 'SECRET-c1' },
              { name: 'theme', value: 'dark' },
            ];
            e.response.cookies = [{ name: 'sid', value: 'SECRET-c2', path: '/', httpOnly: true, secure: false }];
          }),
        ],
      }),
      store,
    );
    const db = open(store);
    expect(
      db.prepare("select side, position, name, value, is_redacted from header where source = 'cookie' order by side, position").raw().all(),
    ).toEqual([
      ['request', 0, 'sid', null, 1],
      ['request', 1, 'theme', null, 1],
      ['response', 0, 'sid', null, 1],
    ]);
    expect(readFileSync(store).includes(Buffer.from('SECRET-c'))).toBe(false);
  });
});

// ---------------------------------------------------------------- body dedup and members

describe('body dedup: identical bodies are stored once (sha256 identity)', () => {
  const same = '{"id":1,"tags":["a","b"]}';
  const store = join(dir, 'dedup.sqlite');
  const db = lazy(() => {
    const first = writeHar('dedup-1', {
      version: '1.2',
      creator: { name: 'dedup', version: '1' },
      entries: [
        entry(1, (e) => {
          e.response.content = content(same);
        }),
        entry(2, (e) => {
          e.response.content = content(same);
        }),
        entry(3, (e) => {
          e.response.content = content('{"id":3}');
        }),
        entry(4, (e) => {
          e.response.content = content(same, 'text/html');
        }),
      ],
    });
    load(first, store);
    const second = writeHar('dedup-2', {
      version: '1.2',
      creator: { name: 'dedup', version: '2' },
      entries: [
        entry(9, (e) => {
          e.response.content = content(same);
        }),
      ],
    });
    load(second, store); // into the existing store
    return open(store);
  });

  it('two records with the same response bytes point at one body row; a different body gets its own', () => {
    const ids = col(db(), 'select response_body_id from record where capture_id = 1 order by ordinal') as number[];
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(col(db(), "select count(*) from body where sha256 = ? and kind = 'json'", sha256(same))).toEqual([1]);
  });

  it('its members exist once (5 rows for {"id":1,"tags":["a","b"]})', () => {
    const id = body(db(), 1).id;
    expect(db().prepare('select count(*) n, count(distinct pointer) d from member where body_id = ?').get(id)).toEqual({ n: 5, d: 5 });
    expect(col(db(), "select count(*) from member where pointer = '/tags/1' and value = 'b'")).toEqual([1]);
  });

  it('a later capture loaded into the same store reuses the body row', () => {
    const ids = col(
      db(),
      'select r.response_body_id from record r join capture c on c.id = r.capture_id where r.ordinal = 1 order by c.id',
    ) as number[];
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  it('the same bytes classified differently (text/html) are a separate body row without members', () => {
    const html = body(db(), 4);
    expect(html.kind).toBe('text');
    expect(html.sha256).toBe(sha256(same));
    expect(html.id).not.toBe(body(db(), 1).id);
    expect(memberCount(db(), html.id)).toBe(0);
  });
});

describe('ES-4 member rows of a JSON body', () => {
  const text =
    '{"id":9223372036854775807,"n":-9007199254740993,"r":1.5,"s":"000123","t":true,"f":false,"z":null,"a/b~c":[10,{"k":"v"}],"e":{}}';
  const db = lazy(() =>
    loadHar('members', [
      entry(1, (e) => {
        e.response.content = content(text);
      }),
      entry(2, (e) => {
        e.response.content = content('{"z":1,"10":2,"2":3}');
      }),
      entry(3, (e) => {
        e.response.content = content('{"cut":', 'application/json');
        e.response.content.size = 999;
      }),
      entry(4, (e) => {
        e.response.content = content('{"looks":"json"}', 'text/html');
      }),
      entry(5, (e) => {
        e.response.content = { size: 4, mimeType: 'image/png', text: 'iVBORw==', encoding: 'base64' };
      }),
      entry(6, (e) => {
        e.response.content = { size: 0, mimeType: 'x-unknown' };
      }),
      entry(7, (e) => {
        e.response.content = content('{"n":1180591620717411303424}');
      }),
      entry(8, (e) => {
        e.response.content = content('{"b":{"2":"x","1":"y"},"a":[{"10":1,"9":2}],"1":{"z":0,"y":{"k\\"":1,"0":2}}}');
      }),
    ]),
  );

  it('ES-4 pointer, parent_pointer, key, position, depth and type for every member, the root included', () => {
    const id = body(db(), 1).id;
    expect(
      db()
        .prepare('select pointer, parent_pointer, key, position, depth, type from member where body_id = ? order by pointer')
        .raw()
        .all(id),
    ).toEqual([
      ['', null, null, 0, 0, 'object'],
      ['/a~1b~0c', '', 'a/b~c', 7, 1, 'array'],
      ['/a~1b~0c/0', '/a~1b~0c', null, 0, 2, 'integer'],
      ['/a~1b~0c/1', '/a~1b~0c', null, 1, 2, 'object'],
      ['/a~1b~0c/1/k', '/a~1b~0c/1', 'k', 0, 3, 'string'],
      ['/e', '', 'e', 8, 1, 'object'],
      ['/f', '', 'f', 5, 1, 'false'],
      ['/id', '', 'id', 0, 1, 'integer'],
      ['/n', '', 'n', 1, 1, 'integer'],
      ['/r', '', 'r', 2, 1, 'real'],
      ['/s', '', 's', 3, 1, 'string'],
      ['/t', '', 't', 4, 1, 'true'],
      ['/z', '', 'z', 6, 1, 'null'],
    ]);
  });

  it('ES-4 values are exact: 64-bit integers read back digit for digit with safeIntegers, "000123" stays text', () => {
    const id = body(db(), 1).id;
    const values = Object.fromEntries(
      db().prepare('select pointer, value from member where body_id = ?').safeIntegers(true).raw().all(id) as [string, unknown][],
    );
    expect(values['/id']).toBe(9223372036854775807n);
    expect(values['/n']).toBe(-9007199254740993n);
    // Compared as numbers here; their storage class is checked below.
    const plain = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, typeof v === 'bigint' && k !== '/id' && k !== '/n' ? Number(v) : v]),
    );
    expect(plain).toEqual({
      '': null,
      '/id': 9223372036854775807n,
      '/n': -9007199254740993n,
      '/r': 1.5,
      '/s': '000123',
      '/t': 1,
      '/f': 0,
      '/z': null,
      '/a~1b~0c': null,
      '/a~1b~0c/0': 10,
      '/a~1b~0c/1': null,
      '/a~1b~0c/1/k': 'v',
      '/e': null,
    });
    expect(db().prepare("select typeof(value) from member where body_id = ? and pointer = '/s'").pluck().get(id)).toBe('text');
    expect(db().prepare("select typeof(value) from member where body_id = ? and pointer = '/r'").pluck().get(id)).toBe('real');
  });

  it('ES-4 integer, true and false members are stored as SQLite integers (typeof(value) = integer), small ones too', () => {
    const id = body(db(), 1).id;
    expect(
      db()
        .prepare("select pointer, typeof(value) from member where body_id = ? and type in ('integer', 'true', 'false') order by pointer")
        .raw()
        .all(id),
    ).toEqual([
      ['/a~1b~0c/0', 'integer'],
      ['/f', 'integer'],
      ['/id', 'integer'],
      ['/n', 'integer'],
      ['/t', 'integer'],
    ]);
  });

  it('ES-4 position is the key order in the body, also for integer-like keys', () => {
    const id = body(db(), 2).id;
    expect(db().prepare("select key, position from member where body_id = ? and pointer <> '' order by position").raw().all(id)).toEqual([
      ['z', 0],
      ['10', 1],
      ['2', 2],
    ]);
  });

  it('ES-4 nested objects keep their key order at every depth, integer-like keys or not', () => {
    const id = body(db(), 8).id;
    expect(
      db()
        .prepare('select pointer, key, position from member where body_id = ? and key is not null order by parent_pointer, position')
        .raw()
        .all(id),
    ).toEqual([
      ['/b', 'b', 0],
      ['/a', 'a', 1],
      ['/1', '1', 2],
      ['/1/z', 'z', 0],
      ['/1/y', 'y', 1],
      ['/1/y/k"', 'k"', 0],
      ['/1/y/0', '0', 1],
      ['/a/0/10', '10', 0],
      ['/a/0/9', '9', 1],
      ['/b/2', '2', 0],
      ['/b/1', '1', 1],
    ]);
  });

  it('ES-4 bodies of kind json have members; cut, text, base64 and none bodies have none', () => {
    const kinds = db()
      .prepare(`select b.kind, count(m.pointer) members from body b left join member m on m.body_id = b.id
      where b.id in (select response_body_id from record) group by b.id order by b.id`)
      .raw()
      .all() as [string, number][];
    expect(kinds.map(([k]) => k).sort()).toEqual(['base64', 'cut', 'json', 'json', 'json', 'none', 'text', 'text']);
    for (const [kind, members] of kinds) {
      if (kind === 'json') expect(members, kind).toBeGreaterThan(0);
      else expect(members, kind).toBe(0);
    }
  });
});
