/**
 * Issue 17 "producer quirks": exports of real producers that write fields capstate does
 * not need in a shape HAR 1.2 does not allow load, normalised to HAR's shape, and
 * `capstate info` (text and --json) lists what was normalised. Fields capstate reads as
 * facts stay strict. The fixtures are hand-trimmed to each producer's shape (their READMEs
 * say so).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, fixture, tempDir } from './helpers.js';

const dir = tempDir();

function loadFixture(name: string): { db: string; store: Database.Database } {
  const db = join(dir, `${name}.sqlite`);
  const r = cli(['load', fixture(name, 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  return { db, store: new Database(db, { readonly: true }) };
}

type Normalised = { quirk: string; field: string; records: number; first_record: number | null; note: string };

function normalised(db: string): Normalised[] {
  const r = cli(['info', '--db', db, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { captures: { normalised: Normalised[] }[] }).captures[0].normalised;
}

/** Loads a fixture after `patch` changed its document; returns the CLI result. */
function loadPatched(name: string, patch: (doc: any) => void) {
  const doc = JSON.parse(readFileSync(fixture(name, 'capture.har'), 'utf8'));
  patch(doc);
  const file = join(dir, `${name}-patched.har`);
  writeFileSync(file, JSON.stringify(doc));
  return cli(['load', file, '--db', join(dir, `${name}-patched.sqlite`)]);
}

describe('issue 17 quirk header-value-array and mime-type-array (Polly.JS)', () => {
  it('header values written as arrays are joined with ", "; credential headers stay NULL; info lists both quirks', () => {
    const { db, store } = loadFixture('polly-js');
    expect(store.prepare("select value from header where record_id = 1 and side = 'request' and name = 'accept'").pluck().get()).toBe(
      'application/json, text/plain',
    );
    expect(store.prepare("select value from header where record_id = 1 and side = 'response' and name = 'vary'").pluck().get()).toBe(
      'Origin, Accept-Encoding',
    );
    expect(store.prepare("select value, is_redacted from header where record_id = 1 and name = 'set-cookie'").raw().get()).toEqual([
      null,
      1,
    ]);
    expect(store.prepare('select request_media_type from record where ordinal = 3').pluck().get()).toBe('application/json');
    expect(normalised(db).map(({ quirk, field, records, first_record }) => [quirk, field, records, first_record])).toEqual([
      ['header-value-array', 'request.headers[].value', 2, 1],
      ['header-value-array', 'response.headers[].value', 3, 1],
      ['mime-type-array', 'request.postData.mimeType', 1, 3],
    ]);
    const text = cli(['info', '--db', db]).stdout;
    expect(text).toMatch(
      /normalised: header values written as arrays \(Polly\.JS\) were joined with ", " \(request\.headers\[\]\.value, 2 records from #1\)/,
    );
  });

  it('a header value array holding a non-string is refused, naming the element', () => {
    const r = loadPatched('polly-js', (doc) => {
      doc.log.entries[1].request.headers[0].value = ['text/plain', 7];
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/record #2 \(log\.entries\[1\]\.request\.headers\[0\]\.value\[1\]\).*must be a string/);
  });

  it('fields capstate reads stay strict: a method written as an array is refused', () => {
    const r = loadPatched('polly-js', (doc) => {
      doc.log.entries[0].request.method = ['GET'];
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/record #1 \(log\.entries\[0\]\.request\.method\).*"method" must be a string/);
  });
});

describe('issue 17 quirk body-chunks (Polly.JS compressed bodies)', () => {
  const bodies = (store: Database.Database) =>
    store
      .prepare(`select r.ordinal, b.kind, b.content from record r join body b on b.id = r.response_body_id
      where r.capture_id = (select max(id) from capture) order by r.ordinal`)
      .raw()
      .all();

  it("Polly 6's base64 chunks of gzip and brotli bodies are joined and decompressed into usable JSON; info lists the quirk", () => {
    const { db, store } = loadFixture('polly-js-compressed');
    expect(bodies(store)).toEqual([
      [1, 'json', '[{"id":1,"title":"Write the report","done":false},{"id":2,"title":"Review the plan","done":true}]'],
      [2, 'json', '{"id":1,"title":"Write the report","done":false}'],
      [3, 'json', '{"id":2,"title":"Review the plan","done":true}'],
    ]);
    store.close();
    expect(normalised(db)).toEqual([
      { quirk: 'body-chunks', field: 'response.content.text', records: 2, first_record: 1, note: expect.stringMatching(/Polly\.JS/) },
    ]);
  });

  it("older Polly's hex chunks flagged _isBinary are read the same way", () => {
    const r = loadPatched('polly-js-compressed', (doc) => {
      const c = doc.log.entries[0].response.content;
      const wire = Buffer.concat((JSON.parse(c.text) as string[]).map((p) => Buffer.from(p, 'base64')));
      doc.log.entries[0].response.content = {
        mimeType: c.mimeType,
        size: c.size,
        _isBinary: true,
        text: JSON.stringify([wire.subarray(0, 10).toString('hex'), wire.subarray(10).toString('hex')]),
      };
    });
    expect(r.status, r.stderr).toBe(0);
    const store = new Database(join(dir, 'polly-js-compressed-patched.sqlite'), { readonly: true });
    expect(bodies(store)[0]).toEqual([
      1,
      'json',
      '[{"id":1,"title":"Write the report","done":false},{"id":2,"title":"Review the plan","done":true}]',
    ]);
    store.close();
  });

  it('chunks that are not what Content-Encoding says stay as recorded: loaded, not usable', () => {
    const r = loadPatched('polly-js-compressed', (doc) => {
      doc.log.entries[0].response.content.text = JSON.stringify([Buffer.from([0x1f, 0x8b, 0xff, 0x00]).toString('base64')]);
      doc.log.entries[0].response.content.size = 4; // a larger size would explain the failure as a cut body
    });
    expect(r.status, r.stderr).toBe(0);
    const store = new Database(join(dir, 'polly-js-compressed-patched.sqlite'), { readonly: true });
    expect(
      store
        .prepare(
          'select b.kind, b.is_usable, b.unusable_reason from record r join body b on b.id = r.response_body_id where r.ordinal = 1 and r.capture_id = (select max(id) from capture)',
        )
        .raw()
        .get(),
    ).toEqual(['text', 0, 'invalid-utf8']);
    store.close();
  });
});

describe('issue 17 complete bodies are not cut (mitmproxy: content.size counts the compressed bytes)', () => {
  it('OQ-33 [] and {} whose gzip is larger than their text load as usable JSON, as documents', () => {
    const { db, store } = loadFixture('mitmproxy');
    expect(
      store
        .prepare(`select r.path, b.kind, b.content from record r join body b on b.id = r.response_body_id
      where r.path in ('/api/archived', '/api/settings') order by r.ordinal`)
        .raw()
        .all(),
    ).toEqual([
      ['/api/archived', 'json', '[]'],
      ['/api/settings', 'json', '{}'],
    ]);
    store.close();
    const har = JSON.parse(readFileSync(fixture('mitmproxy', 'capture.har'), 'utf8')) as {
      log: { entries: { request: { url: string }; response: { content: { size: number; text: string } } }[] };
    };
    const archived = har.log.entries.find((e) => e.request.url.endsWith('/api/archived'))!.response.content;
    expect([archived.size, archived.text]).toEqual([22, '[]']);
    const r = cli(['state', '--db', db, '--json']);
    expect((JSON.parse(r.stdout) as { documents: { path: string; value: unknown }[] }).documents.map((d) => [d.path, d.value])).toEqual([
      ['/api/archived', []],
      ['/api/settings', {}],
    ]);
  });
});

describe('issue 17 a real chrome-har export', () => {
  it("param-value-object: a JSON POST written as params (arrays repeated, an object value) loads; the state is the app's initial notes", () => {
    const { db, store } = loadFixture('chrome-har-real');
    expect(
      store.prepare("select b.content from record r join body b on b.id = r.request_body_id where r.method = 'POST'").pluck().get(),
    ).toBe('title=Plan+trip&tags=home&tags=travel&meta=%7B%22pinned%22%3Atrue%7D');
    store.close();
    expect(normalised(db).map((n) => [n.quirk, n.field, n.records])).toEqual([
      ['param-value-object', 'request.postData.params[].value', 1],
    ]);
    const truth = JSON.parse(readFileSync(fixture('chrome-har-real', 'expected', 'truth.json'), 'utf8')) as { initial_notes: unknown[] };
    const state = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as { entities: { value: unknown }[] };
    expect(state.entities.map((e) => e.value)).toEqual(truth.initial_notes);
  });
});

describe('issue 17 quirk cookie-object (IE11)', () => {
  it('a lone cookie written as an object is read as a one-cookie array, its name kept and its value dropped', () => {
    const { db, store } = loadFixture('ie11');
    expect(
      store
        .prepare(
          "select r.ordinal, h.side, h.name, h.value from header h join record r on r.id = h.record_id where h.source = 'cookie' order by r.ordinal",
        )
        .raw()
        .all(),
    ).toEqual([
      [1, 'request', 'ASP.NET_SessionId', null],
      [2, 'response', 'lastSeen', null],
    ]);
    expect(normalised(db).map((q) => [q.quirk, q.field, q.records, q.first_record])).toEqual([
      ['cookie-object', 'request.cookies', 1, 1],
      ['cookie-object', 'response.cookies', 1, 2],
    ]);
  });
});

describe('issue 17 quirk pages-null (Fiddler)', () => {
  it('"pages": null is read as absent: no page rows, the subject comes from the JSON answers, info says so', () => {
    const { db, store } = loadFixture('fiddler');
    expect(store.prepare('select count(*) from page').pluck().get()).toBe(0);
    expect(store.prepare('select subject_origin, subject_source from manifest').raw().get()).toEqual([
      'http://localhost:4000',
      'json-responses',
    ]);
    expect(normalised(db)).toEqual([
      { quirk: 'pages-null', field: 'log.pages', records: 0, first_record: null, note: expect.stringMatching(/read as absent/) },
    ]);
  });

  it('"pages" of another wrong type is still refused', () => {
    const r = loadPatched('fiddler', (doc) => {
      doc.log.pages = 'none';
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/log\.pages: "pages" must be an array/);
  });
});

describe('issue 17 quirk param-value-object (chrome-har)', () => {
  it('a param value array (querystring.parse of a repeated name) is rebuilt as repeated form fields', () => {
    const { db, store } = loadFixture('chrome-har');
    expect(
      String(store.prepare('select b.content from record r join body b on b.id = r.request_body_id where r.ordinal = 2').pluck().get()),
    ).toBe('title=Ship+it&tags=a&tags=b');
    expect(normalised(db).map((q) => [q.quirk, q.records, q.first_record])).toEqual([['param-value-object', 1, 2]]);
  });

  it('an object value is kept as its JSON text', () => {
    const r = loadPatched('chrome-har', (doc) => {
      doc.log.entries[1].request.postData.params[1].value = { x: '1' };
    });
    expect(r.status, r.stderr).toBe(0);
    const s = new Database(join(dir, 'chrome-har-patched.sqlite'), { readonly: true });
    expect(
      String(s.prepare('select b.content from record r join body b on b.id = r.request_body_id where r.ordinal = 2').pluck().get()),
    ).toBe(`title=Ship+it&tags=${encodeURIComponent('{"x":"1"}')}`);
  });
});

describe('issue 17 a capture without quirks records none', () => {
  it('capstate info --json lists no normalisation for a DevTools export', () => {
    const db = join(dir, 'grafana-mini.sqlite');
    expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', db]).status).toBe(0);
    expect(normalised(db)).toEqual([]);
  });
});
