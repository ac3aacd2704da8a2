/**
 * Scenario Evidence loader (src/load/scenario.ts, docs/evidence-format.md): the two
 * scenario fixtures and small Evidence files written here, loaded with the real CLI and
 * read back from the store (read-only).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { cli, fixture, tempDir } from './helpers.js';

type Json = Record<string, any>;

const dir = tempDir();
const opened: Database.Database[] = [];
afterAll(() => {
  for (const db of opened) db.close();
});

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const ms = (iso: string) => Date.parse(iso);

function open(store: string): Database.Database {
  const db = new Database(store, { readonly: true });
  opened.push(db);
  return db;
}

function loadFile(name: string, file: string): { db: Database.Database; stderr: string } {
  const store = join(dir, `${name}.sqlite`);
  const r = cli(['load', file, '--db', store, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return { db: open(store), stderr: r.stderr };
}

/** Runs `f` once, on first use. */
function lazy<T>(f: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= f());
}

const mini = lazy(() => loadFile('scenario-mini', fixture('scenario-mini', 'evidence.json')).db);
const legacy = lazy(() => loadFile('scenario-legacy', fixture('scenario-legacy', 'evidence.json')).db);

// ---------------------------------------------------------------- Evidence builders

const ORIGIN = 'http://127.0.0.1:3000';

function evidence(
  events: Json[],
  scenario: Json = { start_url: `${ORIGIN}/`, network_content: { request_body: true, response_body: true, header_values: true } },
): Json {
  return { schema_version: 1, scenario, initial_state: {}, steps: [{ step_id: 's1', action: 'click', status: 'completed' }], events };
}

const request = (sequence: number, tx: string, extra: Json = {}): Json => ({
  sequence,
  kind: 'request',
  step_id: 's1',
  transaction_id: tx,
  redirected_from_transaction_id: null,
  method: 'GET',
  url: `${ORIGIN}/api/${tx}`,
  resource_type: 'fetch',
  ...extra,
});
const response = (sequence: number, tx: string, status = 200, extra: Json = {}): Json => ({
  sequence,
  kind: 'response',
  step_id: 's1',
  transaction_id: tx,
  status,
  ...extra,
});
const finished = (sequence: number, tx: string, extra: Json = {}): Json => ({
  sequence,
  kind: 'request-finished',
  step_id: 's1',
  transaction_id: tx,
  ...extra,
});

/** A `captured` body with matching base64, bytes and sha256. */
function captured(text: string | Buffer, mediaType: string | null = 'application/json'): Json {
  const b = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  return {
    state: 'captured',
    base64: b.toString('base64'),
    bytes: b.length,
    ...(mediaType ? { media_type: mediaType } : {}),
    sha256: sha256(b),
  };
}
const contentEv = (sequence: number, tx: string, source: number, extra: Json): Json => ({
  sequence,
  kind: 'network-content',
  step_id: 's1',
  transaction_id: tx,
  source_event_sequence: source,
  ...extra,
});

let fileNo = 0;
function writeEvidence(name: string, doc: Json | string): string {
  const file = join(dir, `${String(++fileNo).padStart(2, '0')}-${name}.json`);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
  return file;
}

function loadEvidence(name: string, doc: Json | string): { db: Database.Database; stderr: string } {
  return loadFile(name, writeEvidence(name, doc));
}

const col = (db: Database.Database, sql: string, ...params: unknown[]) =>
  db
    .prepare(sql)
    .pluck()
    .all(...params);

function body(db: Database.Database, tx: string, side: 'request' | 'response'): Json {
  return db.prepare(`select b.* from record r join body b on b.id = r.${side}_body_id where r.transaction_id = ?`).get(tx) as Json;
}

// ---------------------------------------------------------------- records

describe('OQ-3 scenario records: one per transaction with a response event', () => {
  it('OQ-3 / BS-66 scenario-mini: t1–t5 are records, t6 (request-failed) and t7 (request-unfinished) are not', () => {
    expect(col(mini(), 'select transaction_id from record order by ordinal')).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(col(mini(), "select count(*) from record where transaction_id in ('t6', 't7')")).toEqual([0]);
  });

  it('OQ-3 ordinals follow request-event order, not response order (t3 answers before t2 and is still #3)', () => {
    expect(mini().prepare('select ordinal, method, path, status, status_text from record order by ordinal').raw().all()).toEqual([
      [1, 'GET', '/api/items', 200, 'OK'],
      [2, 'GET', '/api/items/it-01', 200, 'OK'],
      [3, 'GET', '/api/v0/items/it-01/notes', 302, 'Found'],
      [4, 'GET', '/api/items/it-01/notes', 200, 'OK'],
      [5, 'GET', '/api/items/it-01/history', 200, 'OK'],
    ]);
  });

  it('OQ-3 small capture: failed, unfinished and response-less transactions are skipped; a response without a request is reported', () => {
    const { db, stderr } = loadEvidence(
      'oq3-records',
      evidence([
        request(1, 'a'),
        request(2, 'b'),
        request(3, 'c'),
        response(4, 'c', 404),
        { sequence: 5, kind: 'request-failed', step_id: 's1', transaction_id: 'b', error_text: 'net::ERR_FAILED' },
        response(6, 'a', 200),
        request(7, 'd'),
        { sequence: 8, kind: 'request-unfinished', step_id: 's1', transaction_id: 'd' },
        response(9, 'ghost', 200),
      ]),
    );
    expect(db.prepare('select ordinal, transaction_id, status from record order by ordinal').raw().all()).toEqual([
      [1, 'a', 200],
      [2, 'c', 404],
    ]);
    expect(stderr).toContain('1 response event(s) without a request event were skipped');
  });
});

describe('BS-58 / BS-59 / ES-6 scenario start time and duration', () => {
  it('BS-58 / BS-59 start = request-finished started_at, else the request observed_at; duration = elapsed_ms, else 0 (scenario-mini)', () => {
    expect(mini().prepare('select transaction_id, started_ms, duration_ms from record order by ordinal').raw().all()).toEqual([
      ['t1', ms('2026-11-29T10:00:00.012Z'), 55.8], // started_at, not observed_at .031
      ['t2', ms('2026-11-29T10:00:01.236Z'), 0], // request-finished without started_at/elapsed_ms
      ['t3', ms('2026-11-29T10:00:01.214Z'), 29.3],
      ['t4', ms('2026-11-29T10:00:01.245Z'), 22.1],
      ['t5', ms('2026-11-29T10:00:02.538Z'), 96.4],
    ]);
  });

  it('BS-59 small capture: started_at without elapsed_ms, no request-finished at all, and a request-failed after the response', () => {
    const { db } = loadEvidence(
      'bs59-times',
      evidence([
        request(1, 'a', { observed_at: '2026-11-29T10:00:00.500Z' }),
        response(2, 'a'),
        finished(3, 'a', { started_at: '2026-11-29T11:00:00.100+01:00' }),
        request(4, 'b', { observed_at: '2026-11-29T10:00:01.000Z' }),
        response(5, 'b'),
        request(6, 'c', { observed_at: '2026-11-29T10:00:02.000Z' }),
        response(7, 'c'),
        {
          sequence: 8,
          kind: 'request-failed',
          step_id: 's1',
          transaction_id: 'c',
          error_text: 'net::ERR_ABORTED',
          started_at: '2026-11-29T10:00:01.900Z',
          elapsed_ms: 7.25,
        },
      ]),
    );
    expect(db.prepare('select transaction_id, started_ms, duration_ms from record order by ordinal').raw().all()).toEqual([
      ['a', ms('2026-11-29T10:00:00.100Z'), 0],
      ['b', ms('2026-11-29T10:00:01.000Z'), 0],
      ['c', ms('2026-11-29T10:00:01.900Z'), 7.25],
    ]);
    expect(col(db, 'select distinct timeline_order from records_timeline')).toEqual(['start-time']);
  });

  it('ES-6 a record with neither started_at nor observed_at switches the whole capture to record order', () => {
    const { db } = loadEvidence(
      'es6-one-missing',
      evidence([
        request(1, 'a', { observed_at: '2026-11-29T10:00:05.000Z' }),
        response(2, 'a'),
        request(3, 'b'),
        response(4, 'b'),
        request(5, 'c', { observed_at: '2026-11-29T10:00:01.000Z' }),
        response(6, 'c'),
      ]),
    );
    expect(col(db, 'select started_ms from record order by ordinal')).toEqual([
      ms('2026-11-29T10:00:05.000Z'),
      null,
      ms('2026-11-29T10:00:01.000Z'),
    ]);
    expect(col(db, 'select ordinal from records_timeline order by timeline_position')).toEqual([1, 2, 3]);
    expect(col(db, 'select timeline_order from capture_timeline')).toEqual(['record-order']);
  });

  it('ES-6 / BS-60 scenario-legacy (no timing fields at all) loads: no start times, durations 0, record order', () => {
    expect(legacy().prepare('select ordinal, started_ms, duration_ms from record order by ordinal').raw().all()).toEqual([
      [1, null, 0],
      [2, null, 0],
      [3, null, 0],
      [4, null, 0],
      [5, null, 0],
    ]);
    expect(legacy().prepare('select timeline_order, records, records_with_start from capture_timeline').get()).toEqual({
      timeline_order: 'record-order',
      records: 5,
      records_with_start: 0,
    });
    expect(col(legacy(), 'select ended_ms from records_timeline')).toEqual([null, null, null, null, null]);
  });
});

describe('BS-61 redirects keep their link', () => {
  it('BS-61 t4 is linked to t3 by redirected_from_transaction_id; the others have none (scenario-mini and -legacy)', () => {
    for (const db of [mini(), legacy()]) {
      expect(db.prepare('select transaction_id, redirected_from_transaction_id from record order by ordinal').raw().all()).toEqual([
        ['t1', null],
        ['t2', null],
        ['t3', null],
        ['t4', 't3'],
        ['t5', null],
      ]);
    }
  });
});

describe('BS-61 redirect state', () => {
  it('BS-61 a predecessor the capture observed is linked; the browser saying "root" is root; a null predecessor without a state is unknown', () => {
    const { db } = loadEvidence(
      'redirect-states',
      evidence([
        request(1, 'a', { redirected_from_transaction_state: 'root' }),
        response(2, 'a', 302),
        request(3, 'b', { redirected_from_transaction_id: 'a' }),
        response(4, 'b'),
        request(5, 'c'),
        response(6, 'c'),
        request(7, 'd', { redirected_from_transaction_id: 'never-seen' }),
        response(8, 'd'),
      ]),
    );
    expect(
      db.prepare('select transaction_id, redirected_from_transaction_id, redirect_state from record order by ordinal').raw().all(),
    ).toEqual([
      ['a', null, 'root'],
      ['b', 'a', 'linked'],
      ['c', null, 'unknown'],
      ['d', null, 'unknown'],
    ]);
  });

  it('BS-61 a state other than root or unknown is malformed', () => {
    const file = writeEvidence(
      'redirect-bogus',
      evidence([request(1, 'a', { redirected_from_transaction_state: 'bogus' }), response(2, 'a')]),
    );
    const r = cli(['load', file, '--db', join(dir, 'bogus.sqlite'), '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'bad-field', context: { path: 'events[0].redirected_from_transaction_state' } });
  });
});

describe('scenario records keep transaction_id, step_id and resource_type', () => {
  it('each record carries its transaction and step', () => {
    expect(mini().prepare('select transaction_id, step_id, resource_type, origin from record order by ordinal').raw().all()).toEqual([
      ['t1', 'load-list', 'fetch', ORIGIN],
      ['t2', 'open-item', 'fetch', ORIGIN],
      ['t3', 'open-item', 'fetch', ORIGIN],
      ['t4', 'open-item', 'fetch', ORIGIN],
      ['t5', 'show-history', 'fetch', ORIGIN],
    ]);
    // Scenario records have no HAR page.
    expect(col(mini(), 'select count(*) from record where page_id is not null')).toEqual([0]);
  });
});

// ---------------------------------------------------------------- bodies

describe('BS-63 network-content is matched to the request or the response by source_event_sequence', () => {
  it("BS-63 scenario-mini: t2's body arrives late (BS-68) and still lands on t2's response; GET requests have no body", () => {
    expect(body(mini(), 't2', 'response')).toMatchObject({
      kind: 'json',
      content: '{"id":"it-01","name":"Lamp","stock":4,"updatedAt":"2026-11-29T09:58:12Z"}',
    });
    expect(body(mini(), 't1', 'response')).toMatchObject({
      kind: 'json',
      content: '[{"id":"it-01","name":"Lamp","stock":4},{"id":"it-02","name":"Desk","stock":1}]',
    });
    expect(col(mini(), 'select distinct b.kind from record r join body b on b.id = r.request_body_id')).toEqual(['none']);
  });

  const db = lazy(
    () =>
      loadEvidence(
        'bs63-sides',
        evidence([
          request(1, 'p', { method: 'POST', url: `${ORIGIN}/api/items` }),
          // The response's content arrives before the response event it belongs to.
          contentEv(2, 'p', 3, {
            headers: { state: 'captured', values: [{ name: 'Content-Type', value: 'application/problem+json' }] },
            body: captured('{"ok":true}', 'application/problem+json'),
          }),
          response(3, 'p', 201, { status_text: 'Created' }),
          // The request's content arrives after the response.
          contentEv(4, 'p', 1, {
            headers: { state: 'captured', values: [{ name: 'Content-Type', value: 'application/json' }] },
            body: captured('{"name":"Lamp"}', 'application/json'),
          }),
        ]),
      ).db,
  );

  it('BS-63 a content event pointing at the request event is the request body, even when it comes last', () => {
    expect(body(db(), 'p', 'request')).toMatchObject({ kind: 'json', content: '{"name":"Lamp"}' });
    expect(col(db(), 'select request_media_type from record')).toEqual(['application/json']);
  });

  it('BS-63 a content event pointing at the response event is the response body, even when it comes first', () => {
    expect(body(db(), 'p', 'response')).toMatchObject({ kind: 'json', content: '{"ok":true}' });
    expect(col(db(), 'select response_media_type from record')).toEqual(['application/problem+json']);
  });

  it('BS-63 headers go to the side their content event points at', () => {
    expect(db().prepare("select side, name, value from header where source = 'header' order by side, position").raw().all()).toEqual([
      ['request', 'Content-Type', 'application/json'],
      ['response', 'Content-Type', 'application/problem+json'],
    ]);
  });
});

describe('OQ-33 scenario body states', () => {
  it('OQ-33 scenario-mini: body-size-limit without bytes → cut (t5); unavailable → none (t3)', () => {
    expect(body(mini(), 't5', 'response')).toMatchObject({ kind: 'cut', is_usable: 0, unusable_reason: 'cut', bytes: 0 });
    expect(body(mini(), 't3', 'response')).toMatchObject({ kind: 'none', bytes: 0 });
    expect(col(mini(), 'select response_media_type from record order by ordinal')).toEqual([
      'application/json',
      'application/json',
      null,
      'application/json',
      'application/json',
    ]);
  });

  it('OQ-33 body-size-limit and body-allocation-limit with partial bytes → cut, the partial bytes kept; other states → none', () => {
    const part = Buffer.from('{"items":[{"id":1},');
    const { db } = loadEvidence(
      'oq33-states',
      evidence([
        request(1, 'a'),
        response(2, 'a'),
        contentEv(3, 'a', 2, {
          body: {
            state: 'body-size-limit',
            base64: part.toString('base64'),
            media_type: 'application/json',
            observed_bytes: 90000,
            allowed_bytes: part.length,
          },
        }),
        request(4, 'b'),
        response(5, 'b'),
        contentEv(6, 'b', 5, { body: { state: 'body-allocation-limit', media_type: 'application/json' } }),
        request(7, 'c'),
        response(8, 'c'),
        contentEv(9, 'c', 8, { body: { state: 'not-selected', media_type: 'application/json' } }),
        request(10, 'd'),
        response(11, 'd'),
        contentEv(12, 'd', 11, { body: captured('[1,2]') }),
      ]),
    );
    expect(body(db, 'a', 'response')).toMatchObject({ kind: 'cut', bytes: part.length, content: part.toString('utf8') });
    expect(body(db, 'b', 'response')).toMatchObject({ kind: 'cut', bytes: 0 });
    expect(body(db, 'c', 'response')).toMatchObject({ kind: 'none' });
    expect(body(db, 'd', 'response')).toMatchObject({ kind: 'json', content: '[1,2]' });
    expect(col(db, "select count(*) from member m join body b on b.id = m.body_id where b.kind = 'cut'")).toEqual([0]);
  });
});

describe('BS-63 / BS-64 scenario body integrity: base64, bytes and sha256 must agree', () => {
  const events = (sha: string): Json[] => {
    const b = Buffer.from('{"name":"Lamp"}');
    return [
      request(1, 'p', { method: 'POST' }),
      response(2, 'p', 201),
      contentEv(3, 'p', 2, { body: captured('{"ok":true}') }),
      contentEv(4, 'p', 1, { body: { ...captured(b), sha256: sha } }),
    ];
  };

  it('a request body whose sha256 does not match its bytes is a load error: exit 1, bad-field at events[3].body.sha256, no store', () => {
    const file = writeEvidence('sha-mismatch', evidence(events(sha256('{"name":"Lamb"}'))));
    const store = join(dir, 'sha-mismatch.sqlite');
    const r = cli(['load', file, '--db', store, '--json']);
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: false, code: 'bad-field', context: { file, path: 'events[3].body.sha256' } });
    expect(existsSync(store)).toBe(false);
  });

  it('the same capture with the matching sha256 (upper-case hex) loads', () => {
    const { db } = loadEvidence('sha-upper', evidence(events(sha256('{"name":"Lamp"}').toUpperCase())));
    expect(body(db, 'p', 'request')).toMatchObject({ kind: 'json', content: '{"name":"Lamp"}' });
  });

  it('body.bytes that disagrees with the decoded base64 is bad-field at events[N].body.bytes', () => {
    const ev = events(sha256('{"name":"Lamp"}'));
    ev[2].body.bytes = 99;
    const r = cli(['load', writeEvidence('bytes-mismatch', evidence(ev)), '--db', join(dir, 'bytes-mismatch.sqlite'), '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'bad-field', context: { path: 'events[2].body.bytes' } });
  });
});

// ---------------------------------------------------------------- headers, other events, capture row

describe('BS-65 scenario headers: credential values never reach the store', () => {
  it('BS-65 scenario-mini: Set-Cookie and Cookie (null in the file) stay NULL; X-Api-Key, which the producer kept, is dropped by capstate', () => {
    const rows = (side: string) =>
      mini()
        .prepare(
          "select h.position, h.name, h.value, h.is_redacted from header h join record r on r.id = h.record_id where r.transaction_id = 't1' and h.side = ? order by h.position",
        )
        .raw()
        .all(side);
    expect(rows('request')).toEqual([
      [0, 'Accept', 'application/json', 0],
      [1, 'X-Api-Key', null, 1],
      [2, 'Cookie', null, 1],
      [3, 'Referer', 'http://127.0.0.1:3000/', 0],
    ]);
    expect(rows('response')).toEqual([
      [0, 'Content-Type', 'application/json; charset=utf-8', 0],
      [1, 'Content-Length', '79', 0],
      [2, 'Set-Cookie', null, 1],
      [3, 'Cache-Control', 'no-store', 0],
    ]);
    expect(col(mini(), "select count(*) from header where name = 'X-Api-Key' and (value is not null or is_redacted <> 1)")).toEqual([0]);
  });

  it('BS-65 header values the producer did not redact (Set-Cookie, Authorization) are dropped by capstate', () => {
    const store = join(dir, 'bs65-headers.sqlite');
    const file = writeEvidence(
      'bs65-headers',
      evidence([
        request(1, 'a'),
        contentEv(2, 'a', 1, {
          headers: {
            state: 'captured',
            values: [
              { name: 'Authorization', value: 'Bearer SECRET-e1' },
              { name: 'Accept', value: '*/*' },
            ],
          },
        }),
        response(3, 'a'),
        contentEv(4, 'a', 3, {
          headers: {
            state: 'captured',
            values: [
              { name: 'Set-Cookie', value: 'sid=SECRET-e2' },
              { name: 'X-Note', value: null, redacted: true },
            ],
          },
        }),
      ]),
    );
    const r = cli(['load', file, '--db', store]);
    expect(r.status, r.stderr).toBe(0);
    const db = open(store);
    expect(db.prepare('select side, name, value, is_redacted from header order by side, position').raw().all()).toEqual([
      ['request', 'Authorization', null, 1],
      ['request', 'Accept', '*/*', 0],
      ['response', 'Set-Cookie', null, 1],
      ['response', 'X-Note', null, 1],
    ]);
    expect(readFileSync(store).includes(Buffer.from('SECRET-e'))).toBe(false);
  });
});

describe('scenario: console and other non-network events are skipped', () => {
  it('console, page-error and frame events (with fields no network event allows) load and make no records', () => {
    const { db } = loadEvidence(
      'other-events',
      evidence([
        { sequence: 1, kind: 'console', step_id: 's1', level: 'log', text: 'hello', observed_at: '2026-11-29T10:00:00.000Z' },
        request(2, 'a'),
        { sequence: 3, kind: 'page-error', step_id: 's1', message: 'TypeError: x is undefined', stack: 'at y' },
        { sequence: 4, kind: 'console', step_id: 's1', transaction_id: 'a', status: 500, level: 'error', text: 'GET /api/a 500' },
        response(5, 'a'),
        { sequence: 6, kind: 'frame-navigated', url: `${ORIGIN}/next` },
      ]),
    );
    expect(db.prepare('select ordinal, transaction_id, status from record').raw().all()).toEqual([[1, 'a', 200]]);
  });
});

describe('BS-62 scenario capture row records the content selection', () => {
  it('BS-62 scenario-mini: format scenario-evidence, format_version 1, start_url and the network_content selection', () => {
    expect(
      mini()
        .prepare(
          'select format, format_version, creator, start_url, request_bodies_selected, response_bodies_selected, header_values_selected from capture',
        )
        .get(),
    ).toEqual({
      format: 'scenario-evidence',
      format_version: '1',
      creator: null,
      start_url: 'http://127.0.0.1:3000/',
      request_bodies_selected: 1,
      response_bodies_selected: 1,
      header_values_selected: 1,
    });
  });

  it('BS-57 / BS-62 start_url given as {url}, request bodies not selected, header_values absent → start_url, 0, 1, NULL', () => {
    const { db } = loadEvidence(
      'capture-row',
      evidence([request(1, 'a'), response(2, 'a')], {
        start_url: { url: 'http://127.0.0.1:3000/app' },
        network_content: { request_body: false, response_body: true },
      }),
    );
    expect(
      db
        .prepare(
          'select format, format_version, start_url, request_bodies_selected, response_bodies_selected, header_values_selected from capture',
        )
        .get(),
    ).toEqual({
      format: 'scenario-evidence',
      format_version: '1',
      start_url: 'http://127.0.0.1:3000/app',
      request_bodies_selected: 0,
      response_bodies_selected: 1,
      header_values_selected: null,
    });
  });

  it('root members written after "events" (keys in sorted order) are read too', () => {
    const doc = evidence([request(1, 'a'), response(2, 'a')], {
      start_url: 'http://127.0.0.1:3000/sorted',
      network_content: { request_body: false, response_body: true, header_values: true },
    });
    const sorted = Object.fromEntries(
      Object.keys(doc)
        .sort()
        .map((k) => [k, doc[k]]),
    );
    expect(Object.keys(sorted)[0]).toBe('events');
    const file = writeEvidence('sorted-keys', sorted);
    const store = join(dir, 'sorted-keys.sqlite');
    const r = cli(['load', file, '--db', store, '--json']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(open(store).prepare('select format_version, start_url, request_bodies_selected from capture').get()).toEqual({
      format_version: '1',
      start_url: 'http://127.0.0.1:3000/sorted',
      request_bodies_selected: 0,
    });
  });
});
