/**
 * Issue 15 "Secrets reach the store": every class of planted credential is kept out of the
 * `.sqlite` file (BS-65, OQ-2). Each capture is loaded with the CLI and the whole store
 * file (and its -wal, if any) is byte-scanned for every planted value and for its base64
 * spelling; the names stay where the issue says the name is kept.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
let n = 0;

type HarDoc = {
  log: { pages: { id?: string; title: string }[]; entries: { request: Record<string, any>; response: Record<string, any> }[] };
};

/** Writes a HAR from exchanges, lets `patch` edit the document, loads it with the CLI. */
function load(exchanges: Exchange[], patch: (doc: HarDoc) => void = () => {}, opts: { pageTitle?: string } = {}) {
  const file = writeHar(dir, `k${n}.har`, exchanges, opts);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as HarDoc;
  patch(doc);
  writeFileSync(file, JSON.stringify(doc));
  const db = join(dir, `k${n++}.sqlite`);
  const r = cli(['load', file, '--db', db]);
  return { r, db };
}

/** As load, with extra CLI arguments (`--redact`). */
function loadWith(args: string[], exchanges: Exchange[]) {
  const file = writeHar(dir, `k${n}.har`, exchanges);
  const db = join(dir, `k${n++}.sqlite`);
  return { r: cli(['load', file, '--db', db, ...args]), db };
}

/** The store's bytes: the database file and its write-ahead log, if one is left. */
function storeBytes(db: string): Buffer {
  return Buffer.concat([readFileSync(db), ...(existsSync(`${db}-wal`) ? [readFileSync(`${db}-wal`)] : [])]);
}

/** Asserts that no planted value, nor its base64 spelling, is anywhere in the store file. */
function expectKeptOut(db: string, planted: string[]): void {
  const bytes = storeBytes(db);
  const found = planted.filter(
    (v) =>
      bytes.includes(Buffer.from(v)) ||
      (v.length >= 8 && bytes.includes(Buffer.from(Buffer.from(v).toString('base64').replace(/=+$/, '')))),
  );
  expect(found).toEqual([]);
}

const open = (db: string) => new Database(db, { readonly: true });
const memberValue = (db: string, ordinal: number, side: 'request' | 'response', pointer: string) =>
  open(db)
    .prepare(`select m.value from record r join member m on m.body_id = r.${side}_body_id and m.pointer = ? where r.ordinal = ?`)
    .pluck()
    .get(pointer, ordinal);
const bodyText = (db: string, ordinal: number, side: 'request' | 'response') =>
  open(db)
    .prepare(`select cast(b.content as text) from record r join body b on b.id = r.${side}_body_id where r.ordinal = ?`)
    .pluck()
    .get(ordinal) as string;

describe('BS-65 passwords and tokens in request bodies', () => {
  it('BS-65 a JSON {"username","password"} body keeps the username and the password member, not its value (short values too)', () => {
    const { r, db } = load([
      { method: 'POST', url: `${A}/api/login`, requestBody: { username: 'ann', password: 'pw-Json-77f1a' }, body: { ok: true } },
      { method: 'POST', url: `${A}/api/login2`, requestBody: { user: { name: 'bob', newPassword: 'Pw5hrt7' } }, body: { ok: true } },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['pw-Json-77f1a', 'Pw5hrt7']);
    expect(bodyText(db, 1, 'request')).toBe('{"username":"ann","password":"[REDACTED]"}');
    expect(memberValue(db, 2, 'request', '/user/newPassword')).toBe('[REDACTED]');
  });

  it('BS-65 a form body password=… (as text and as HAR params) keeps the name', () => {
    const { r, db } = load(
      [
        { method: 'POST', url: `${A}/session`, body: { ok: true } },
        { method: 'POST', url: `${A}/session2`, body: { ok: true } },
      ],
      (doc) => {
        doc.log.entries[0].request.postData = {
          mimeType: 'application/x-www-form-urlencoded',
          text: 'username=ann&password=pw-Form-90a2b&remember=1',
        };
        doc.log.entries[1].request.postData = {
          mimeType: 'application/x-www-form-urlencoded',
          params: [
            { name: 'login', value: 'ann' },
            { name: 'user[password]', value: 'pw-Params-1c3d' },
          ],
        };
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['pw-Form-90a2b', 'pw-Params-1c3d']);
    expect(bodyText(db, 1, 'request')).toBe('username=ann&password=[REDACTED]&remember=1');
    expect(bodyText(db, 2, 'request')).toBe('login=ann&user%5Bpassword%5D=[REDACTED]');
  });

  it('BS-65 GraphQL: a string argument named like a credential in the query text, and credential-named variables', () => {
    const { r, db } = load(
      [
        {
          method: 'POST',
          url: `${A}/graphql`,
          requestBody: { query: 'mutation { login(username: "ann", password: "pw-Gql-31c4e") { ok } }' },
          body: { data: {} },
        },
        {
          method: 'POST',
          url: `${A}/graphql`,
          requestBody: {
            query: 'mutation Login($pw: String!) { login(password: $pw) { ok } }',
            variables: { username: 'ann', password: 'pw-GqlVar-8e2d' },
          },
          body: { data: {} },
        },
        { method: 'POST', url: `${A}/graphql`, body: { data: {} } },
      ],
      (doc) => {
        doc.log.entries[2].request.postData = {
          mimeType: 'application/graphql',
          text: 'mutation { signIn(input: {email: "a@b.c", clientSecret: "cs-Raw-5f6a"}) { ok } }',
        };
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['pw-Gql-31c4e', 'pw-GqlVar-8e2d', 'cs-Raw-5f6a']);
    expect(memberValue(db, 1, 'request', '/query')).toBe('mutation { login(username: "ann", password: "[REDACTED]") { ok } }');
    expect(memberValue(db, 2, 'request', '/variables/password')).toBe('[REDACTED]');
    expect(bodyText(db, 3, 'request')).toBe('mutation { signIn(input: {email: "a@b.c", clientSecret: "[REDACTED]"}) { ok } }');
  });
});

describe("BS-65 the second pass skips a body's name scan only where the first pass scanned it the same way", () => {
  it('BS-65 a GraphQL body under a media type array (read as its first type) keeps its credential argument out, request and response', () => {
    const { r, db } = load(
      [
        { method: 'POST', url: `${A}/graphql`, body: { data: {} } },
        { method: 'POST', url: `${A}/graphql2`, body: { data: {} } },
      ],
      (doc) => {
        doc.log.entries[0].request.postData = {
          mimeType: ['application/graphql'],
          text: 'mutation { login(user: "ann", password: "pw-GqlArr-4b7c") { ok } }',
        };
        doc.log.entries[1].response.content = {
          mimeType: ['application/graphql'],
          size: 60,
          text: 'query { me(apiKey: "ak-GqlArr-91d0e") { id } }',
        };
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['pw-GqlArr-4b7c', 'ak-GqlArr-91d0e']);
    expect(bodyText(db, 1, 'request')).toBe('mutation { login(user: "ann", password: "[REDACTED]") { ok } }');
    expect(bodyText(db, 2, 'response')).toBe('query { me(apiKey: "[REDACTED]") { id } }');
  });
});

describe("BS-65 the first pass shared between the load's two threads", () => {
  // The worker scans the even entries' credentials, the writer's thread the odd ones
  // (pipeline.ts); every value either finds must be kept out of every entry.
  it("BS-65 a token one thread's share finds is replaced where the other share echoes it, both ways; a short value under a credential name in an odd entry is still replaced by name", () => {
    const { r, db } = load([
      { url: `${A}/api/even`, body: { echo: 't-OddShare-5b6c7d8e' } },
      {
        method: 'POST',
        url: `${A}/api/odd`,
        headers: [{ name: 'Authorization', value: 'Bearer t-OddShare-5b6c7d8e' }],
        requestBody: { user: 'ann', password: 'hunter2' },
        body: { echo: 't-EvenShare-1f2a3b4c' },
      },
      { url: `${A}/api/even2`, headers: [{ name: 'Authorization', value: 'Bearer t-EvenShare-1f2a3b4c' }], body: { ok: true } },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['t-OddShare-5b6c7d8e', 't-EvenShare-1f2a3b4c', 'hunter2']);
    expect(memberValue(db, 1, 'response', '/echo')).toBe('[REDACTED]');
    expect(memberValue(db, 2, 'response', '/echo')).toBe('[REDACTED]');
    expect(memberValue(db, 2, 'request', '/password')).toBe('[REDACTED]');
    expect(memberValue(db, 2, 'request', '/user')).toBe('ann');
  });
});

describe("BS-65 echoes are a capture's own", () => {
  it("BS-65 two captures in one load: a header echoing one capture's credential is replaced there, and kept in the other that never held it", () => {
    const echo = { name: 'X-Echo', value: 't-OnlyInFirst-9a8b7c6d' };
    const first = writeHar(dir, `k${n}a.har`, [
      { url: `${A}/api/me`, headers: [{ name: 'Authorization', value: 'Bearer t-OnlyInFirst-9a8b7c6d' }], body: { ok: true } },
      { url: `${A}/api/a`, headers: [echo], body: { ok: true } },
    ]);
    // The second capture sends the same header (name and value) but holds no such credential:
    // the writer remembers stored headers by name and value, for one capture's redactor only.
    const second = writeHar(dir, `k${n}b.har`, [{ url: `${A}/api/b`, headers: [echo], body: { ok: true } }]);
    const db = join(dir, `k${n++}.sqlite`);
    const r = cli(['load', first, second, '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    const store = new Database(db, { readonly: true });
    const values = store
      .prepare(
        "select c.id as capture, h.value from header h join record r on r.id = h.record_id join capture c on c.id = r.capture_id where h.name = 'X-Echo' order by c.id",
      )
      .all();
    store.close();
    expect(values).toEqual([
      { capture: 1, value: '[REDACTED]' },
      { capture: 2, value: 't-OnlyInFirst-9a8b7c6d' },
    ]);
  });
});

describe('BS-65 token members in response bodies', () => {
  it('BS-65 access_token, refresh_token, id_token, client_secret, api_key, apiKey, password in snake, camel and kebab spellings; their echoes too', () => {
    const planted = {
      access_token: 'at-Snake-0a1b2c',
      refreshToken: 'rt-Camel-3d4e5f',
      'id-token': 'it-Kebab-6a7b8c',
      client_secret: 'cs-Snake-9d0e1f',
      api_key: 'ak-Snake-2a3b4c',
      apiKey: 'ak-Camel-5d6e7f',
      PASSWORD: 'pw-Upper-8a9b0c',
      'Access-Token': 'at-Kebab-1d2e3f',
    };
    const { r, db } = load([
      { method: 'POST', url: `${A}/oauth/token`, body: { ...planted, token_type: 'bearer', expires_in: 3600 } },
      { url: `${A}/api/debug/at-Snake-0a1b2c`, body: { seen: 'rt-Camel-3d4e5f' } },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, Object.values(planted));
    for (const name of Object.keys(planted)) expect(memberValue(db, 1, 'response', `/${name}`), name).toBe('[REDACTED]');
    expect(memberValue(db, 1, 'response', '/token_type')).toBe('bearer');
    expect(open(db).prepare('select kind from record r join body b on b.id = r.response_body_id where r.ordinal = 1').pluck().get()).toBe(
      'json',
    );
    expect(open(db).prepare('select url from record where ordinal = 2').pluck().get()).toBe(`${A}/api/debug/[REDACTED]`);
  });
});

describe('OQ-2 query parameters the refusal rule misses', () => {
  it('OQ-2 accessToken, refreshToken, key, code, jwt, sessionid and X-Amz-Credential values are replaced; the names stay', () => {
    const params = {
      accessToken: 'q-at-11aa22',
      refreshToken: 'q-rt-33bb44',
      key: 'q-key-55cc66',
      code: 'q-code-77dd88',
      jwt: 'q-jwt-99ee00',
      sessionid: 'q-sid-12ab34',
      'X-Amz-Credential': 'q-amz-56cd78',
    };
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const { r, db } = load([
      { url: `${A}/api/items?${query}&page=2`, body: [] },
      { url: `${A}/api/echo`, body: { code: 'q-code-77dd88' } },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, Object.values(params));
    const s = open(db);
    expect(s.prepare('select name, value from query_param order by position').raw().all()).toEqual([
      ...Object.keys(params).map((k) => [k, '[REDACTED]']),
      ['page', '2'],
    ]);
    expect(s.prepare('select is_url_redacted from record where ordinal = 1').pluck().get()).toBe(1);
  });

  it('OQ-2 a credential query value on a record outside the admitted origin is replaced, and does not refuse the capture', () => {
    const { r, db } = load([
      { url: `${A}/api/items`, body: [] },
      { url: 'https://cdn.other.test/lib.js?access_token=q-other-9f8e7d', body: 'x', mimeType: 'text/javascript' },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['q-other-9f8e7d']);
    expect(open(db).prepare('select url from record where ordinal = 2').pluck().get()).toBe(
      'https://cdn.other.test/lib.js?access_token=[REDACTED]',
    );
  });

  it('OQ-2 a credential query value on an admitted record refuses the capture, naming the parameter but never the value', () => {
    const { r, db } = load([
      { url: `${A}/api/items`, body: [] },
      { url: `${A}/api/items?api_key=q-admitted-4c5d6e`, body: [] },
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/record #2 \(log\.entries\[1\]\.request\.url\).*"api_key"/);
    expect(r.stderr).not.toContain('q-admitted-4c5d6e');
    expect(existsSync(db)).toBe(false);
  });

  it('OQ-2 the refusal offers load --redact, which stores the admitted value as [REDACTED] instead', () => {
    const { r } = load([
      { url: `${A}/api/items`, body: [] },
      { url: `${A}/api/items?api_key=q-redact-7a8b9c&page=2`, body: [] },
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--redact/);
    const again = loadWith(
      ['--redact'],
      [
        { url: `${A}/api/items`, body: [] },
        { url: `${A}/api/items?api_key=q-redact-7a8b9c&page=2`, body: [] },
      ],
    );
    expect(again.r.status, again.r.stderr).toBe(0);
    expectKeptOut(again.db, ['q-redact-7a8b9c']);
    const s = open(again.db);
    expect(s.prepare('select url, is_url_redacted from record where ordinal = 2').raw().get()).toEqual([
      `${A}/api/items?api_key=[REDACTED]&page=2`,
      1,
    ]);
    expect(s.prepare('select tool_id is not null from record where ordinal = 2').pluck().get()).toBe(1);
  });

  it('OQ-2 URL userinfo on a record that is not admitted is replaced by the marker, and the capture loads', () => {
    const { r, db } = load([
      { url: `${A}/api/items`, body: [] },
      { url: 'https://bob:pw-Third-5d6e7f@img.other.test/a.png', body: 'x', mimeType: 'image/png' },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['pw-Third-5d6e7f']);
    const s = open(db);
    expect(s.prepare('select url, origin, tool_id from record where ordinal = 2').raw().get()).toEqual([
      'https://bob:[REDACTED]@img.other.test/a.png',
      'https://img.other.test',
      null,
    ]);
  });

  it('OQ-2 URL userinfo on an admitted record refuses the capture naming the record, never the password; --redact stores the marker', () => {
    const ex: Exchange[] = [
      { url: `${A}/api/items`, body: [] },
      { url: 'http://ann:pw-Adm-1a2b3c@app.test/api/items/1', body: {} },
    ];
    const { r, db } = load(ex);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/record #2 \(log\.entries\[1\]\.request\.url\).*user:password@.*--redact/);
    expect(r.stderr).not.toContain('pw-Adm-1a2b3c');
    expect(existsSync(db)).toBe(false);
    const again = loadWith(['--redact'], ex);
    expect(again.r.status, again.r.stderr).toBe(0);
    expectKeptOut(again.db, ['pw-Adm-1a2b3c']);
    expect(open(again.db).prepare('select url from record where ordinal = 2').pluck().get()).toBe(
      'http://ann:[REDACTED]@app.test/api/items/1',
    );
  });

  it('OQ-2 an error about a relative URL never prints its credential value', () => {
    const { r } = load([
      { url: `${A}/api/items`, body: [] },
      { url: '/api/items?access_token=q-rel-2c3d4e', body: [] },
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not an absolute URL: "\/api\/items\?access_token=\[REDACTED\]"/);
    expect(r.stderr).not.toContain('q-rel-2c3d4e');
  });
});

describe('BS-65 page titles, Referer/Location and status text', () => {
  it('BS-65 a page title with ?access_token= or an OAuth #access_token= fragment keeps the URL and the names', () => {
    const { r, db } = load(
      [{ url: `${A}/api/items`, body: [] }],
      (doc) => {
        doc.log.pages.push({ ...doc.log.pages[0], id: 'page_2', title: `${A}/#access_token=t-Frag-2b3c4d&token_type=bearer&state=xyz` });
      },
      { pageTitle: `${A}/cb?access_token=t-Title-5e6f7a&x=1` },
    );
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['t-Title-5e6f7a', 't-Frag-2b3c4d']);
    expect(open(db).prepare('select title from page order by position').pluck().all()).toEqual([
      `${A}/cb?access_token=[REDACTED]&x=1`,
      `${A}/#access_token=[REDACTED]&token_type=bearer&state=xyz`,
    ]);
  });

  it('BS-65 a Referer with user:password@ or a Location with a token query, and status text echoing a bearer', () => {
    const { r, db } = load(
      [
        { url: `${A}/api/items`, body: [] },
        { url: `${A}/api/old`, status: 401, body: {} },
      ],
      (doc) => {
        doc.log.entries[0].request.headers.push({ name: 'Referer', value: 'http://ann:pw-Referer-8a9b@app.test/start' });
        doc.log.entries[0].response.headers.push({ name: 'Location', value: `${A}/next?accessToken=t-Location-0c1d` });
        doc.log.entries[1].response.statusText = 'Unauthorized: Bearer t-Status-2e3f4a expired';
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['pw-Referer-8a9b', 't-Location-0c1d', 't-Status-2e3f4a']);
    const s = open(db);
    expect(s.prepare("select name, is_redacted from header where name in ('Referer', 'Location') order by side").raw().all()).toEqual([
      ['Referer', 1],
      ['Location', 1],
    ]);
    expect(s.prepare('select status_text from record where ordinal = 2').pluck().get()).toBe('Unauthorized: Bearer [REDACTED] expired');
  });
});

describe('BS-65 credential headers by value, whatever they are called', () => {
  it("BS-65 Bearer, Basic and Digest values under any name are dropped; a Digest header's parts echoed elsewhere are replaced", () => {
    const basic = Buffer.from('ann:pw-Basic-3a4b5c').toString('base64');
    const digest =
      'Digest username="ann", realm="app", nonce="dg-nonce-6d7e8f", uri="/api/a", response="dg-resp-9a0b1c", cnonce="dg-cn-2d3e4f", qop=auth, nc=00000001';
    const { r, db } = load([
      {
        url: `${A}/api/a`,
        headers: [
          { name: 'X-JWT-Assertion', value: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.sig-Jwt-5a6b7c' },
          { name: 'X-Bearer', value: 'Bearer t-XBearer-8d9e0f' },
          { name: 'X-Access', value: `basic ${basic}` },
          { name: 'X-Custom', value: digest },
          { name: 'Accept', value: 'application/json' },
        ],
        body: { seen: ['dg-nonce-6d7e8f', 'dg-resp-9a0b1c', 'dg-cn-2d3e4f'] },
      },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, [
      'sig-Jwt-5a6b7c',
      't-XBearer-8d9e0f',
      basic,
      'pw-Basic-3a4b5c',
      'dg-nonce-6d7e8f',
      'dg-resp-9a0b1c',
      'dg-cn-2d3e4f',
    ]);
    expect(open(db).prepare("select name, value, is_redacted from header where side = 'request' order by position").raw().all()).toEqual([
      ['X-JWT-Assertion', null, 1],
      ['X-Bearer', null, 1],
      ['X-Access', null, 1],
      ['X-Custom', null, 1],
      ['Accept', 'application/json', 0],
    ]);
  });
});

describe('BS-65 a credential echoed base64-encoded', () => {
  it('BS-65 a bearer token and a password echoed base64-encoded (padded or not, base64url) in bodies and headers are replaced', () => {
    const token = 't-B64-Token-7f8e9d';
    const password = 'pw-B64-Secret-6c5b?';
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const b64url = (s: string) => Buffer.from(s).toString('base64url');
    const { r, db } = load([
      { method: 'POST', url: `${A}/api/login`, requestBody: { username: 'ann', password }, body: { ok: true } },
      {
        url: `${A}/api/a`,
        headers: [
          { name: 'Authorization', value: `Bearer ${token}` },
          { name: 'X-Echo', value: b64(token) },
        ],
        body: { blob: b64(token), pw: b64url(password), again: b64(password) },
      },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, [token, password, b64(token), b64url(password), b64(password)]);
    expect(memberValue(db, 2, 'response', '/blob')).toBe('[REDACTED]');
  });
});

describe('BS-65 the same classes in scenario Evidence', () => {
  it('BS-65 credential members in captured bodies, headers by value, a token query, a start URL fragment and a status text are kept out', () => {
    const O = 'http://127.0.0.1:3000';
    const body = (text: string, mediaType = 'application/json') => {
      const b = Buffer.from(text);
      return { state: 'captured', base64: b.toString('base64'), bytes: b.length, media_type: mediaType };
    };
    const ev = (sequence: number, kind: string, tx: string, extra: Record<string, unknown>) => ({
      sequence,
      kind,
      step_id: 's1',
      transaction_id: tx,
      ...extra,
    });
    const doc = {
      schema_version: 1,
      scenario: {
        start_url: `${O}/#access_token=e-Start-1a2b3c`,
        network_content: { request_body: true, response_body: true, header_values: true },
      },
      initial_state: {},
      steps: [{ step_id: 's1', action: 'click', status: 'completed' }],
      events: [
        ev(1, 'request', 't1', { redirected_from_transaction_id: null, method: 'POST', url: `${O}/api/login`, resource_type: 'fetch' }),
        ev(2, 'network-content', 't1', {
          source_event_sequence: 1,
          headers: { values: [{ name: 'X-Custom', value: 'Bearer e-Header-4d5e6f' }] },
          body: body('{"username":"ann","password":"e-Pw-7a8b9c"}'),
        }),
        ev(3, 'response', 't1', { status: 200, status_text: 'OK' }),
        ev(4, 'network-content', 't1', {
          source_event_sequence: 3,
          body: body('{"access_token":"e-At-0d1e2f","refreshToken":"e-Rt-3a4b5c"}'),
        }),
        ev(5, 'request', 't2', {
          redirected_from_transaction_id: null,
          method: 'GET',
          url: `${O}/api/items?accessToken=e-Query-6d7e8f`,
          resource_type: 'fetch',
        }),
        ev(6, 'response', 't2', { status: 401, status_text: 'Bearer e-Status-9a0b1c rejected' }),
        ev(7, 'network-content', 't2', { source_event_sequence: 6, body: body('{"echo":"e-At-0d1e2f"}') }),
      ],
    };
    const file = join(dir, `k${n}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const db = join(dir, `k${n++}.sqlite`);
    const r = cli(['load', file, '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, [
      'e-Start-1a2b3c',
      'e-Header-4d5e6f',
      'e-Pw-7a8b9c',
      'e-At-0d1e2f',
      'e-Rt-3a4b5c',
      'e-Query-6d7e8f',
      'e-Status-9a0b1c',
    ]);
    const s = open(db);
    expect(s.prepare('select start_url from capture').pluck().get()).toBe(`${O}/#access_token=[REDACTED]`);
    expect(s.prepare("select name, value, is_redacted from header where name = 'X-Custom'").raw().get()).toEqual(['X-Custom', null, 1]);
    expect(memberValue(db, 1, 'request', '/password')).toBe('[REDACTED]');
    expect(memberValue(db, 2, 'response', '/echo')).toBe('[REDACTED]');
  });
});

describe('issue 42 the two credentials the Safe II audit found in the store', () => {
  it('BS-65 headers named X-Access, X-Pass, X-Ticket, *-Token, *-Key, *-Secret and Api-Key are stored NULL and their echoes replaced; CORS and Fetch Metadata headers are kept', () => {
    const planted = {
      'X-Access': 'xa-Plain-5e6f7a',
      'X-Pass': 'xp-Plain-8b9c0d',
      'X-Ticket': 'xt-Plain-1e2f3a',
      'My-App-Token': 'mt-Plain-4b5c6d',
      'Client-Key': 'ck-Plain-7e8f9a',
      'Shop-Secret': 'ss-Plain-0b1c2d',
      'Api-Key': 'ak-Plain-3e4f5a',
    };
    const { r, db } = load([
      {
        url: `${A}/api/a`,
        headers: [
          ...Object.entries(planted).map(([name, value]) => ({ name, value })),
          { name: 'Sec-Fetch-Storage-Access', value: 'active' },
        ],
        responseHeaders: [
          { name: 'Access-Control-Allow-Origin', value: A },
          { name: 'Access-Control-Allow-Headers', value: 'X-Access' },
        ],
        body: { seen: Object.values(planted) },
      },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, Object.values(planted));
    const s = open(db);
    expect(s.prepare("select name, value from header where side = 'request' order by position").raw().all()).toEqual([
      ...Object.keys(planted).map((name) => [name, null]),
      ['Sec-Fetch-Storage-Access', 'active'],
    ]);
    expect(s.prepare("select name, value from header where side = 'response' order by position").raw().all()).toEqual([
      ['Access-Control-Allow-Origin', A],
      ['Access-Control-Allow-Headers', 'X-Access'],
    ]);
  });

  it('BS-65 a 7-character session cookie value echoed in a body, a URL and another header is replaced; so is each cookie of a newline-joined Set-Cookie', () => {
    const { r, db } = load([
      {
        url: `${A}/api/a`,
        headers: [{ name: 'Cookie', value: 'sid=Ab3xY9z; theme=dark' }],
        responseHeaders: [{ name: 'Set-Cookie', value: 'theme=dark; Path=/\nlogin_tok=Qx7-p2k; Path=/; HttpOnly' }],
        body: { sid: 'Ab3xY9z', t: 'Qx7-p2k', theme: 'dark' },
      },
      { url: `${A}/api/debug/Ab3xY9z?t=Qx7-p2k`, headers: [{ name: 'X-Echo', value: 'seen Ab3xY9z' }], body: {} },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expectKeptOut(db, ['Ab3xY9z', 'Qx7-p2k']);
    expect(bodyText(db, 1, 'response')).toBe('{"sid":"[REDACTED]","t":"[REDACTED]","theme":"dark"}');
    expect(open(db).prepare('select url from record where ordinal = 2').pluck().get()).toBe(`${A}/api/debug/[REDACTED]?t=[REDACTED]`);
  });
});
