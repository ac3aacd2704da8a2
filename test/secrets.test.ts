/**
 * Secrets never reach the store (issue 2, BS-65, OQ-2): credential header and cookie values
 * are dropped, and wherever else the capture echoes them they are replaced by [REDACTED].
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, tempDir } from './helpers.js';
import { writeHar } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
let n = 0;

function loadHar(exchanges: Parameters<typeof writeHar>[2], args: string[] = [], opts: { pageTitle?: string } = {}) {
  const file = writeHar(dir, `s${n}.har`, exchanges, opts);
  const db = join(dir, `s${n++}.sqlite`);
  const r = cli(['load', file, '--db', db, ...args]);
  return { r, db, file };
}

const bytesOf = (db: string) => readFileSync(db);

describe('BS-65 credential values never reach the store', () => {
  it('BS-65 a bearer token echoed in a login response body is replaced, and the body stays usable JSON', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.tok-4f1c9e';
    const { r, db } = loadHar([
      { method: 'POST', url: `${A}/api/login`, requestBody: { user: 'ann' }, body: { token, user: { id: 1 } } },
      { url: `${A}/api/user`, headers: [{ name: 'Authorization', value: `Bearer ${token}` }], body: { id: 1 } },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(bytesOf(db).includes(Buffer.from(token))).toBe(false);
    const s = new Database(db, { readonly: true });
    expect(
      s
        .prepare(
          "select b.kind, m.value from record r join body b on b.id = r.response_body_id join member m on m.body_id = b.id and m.pointer = '/token' where r.ordinal = 1",
        )
        .raw()
        .get(),
    ).toEqual(['json', '[REDACTED]']);
    expect(s.prepare("select value, is_redacted from header where name = 'Authorization'").raw().get()).toEqual([null, 1]);
  });

  it('BS-65 a session cookie value echoed in a URL or another header is replaced', () => {
    const sid = 'sess-0a1b2c3d4e5f';
    const { r, db } = loadHar([
      { url: `${A}/api/a`, headers: [{ name: 'Cookie', value: `sid=${sid}; theme=dark` }], body: {} },
      { url: `${A}/api/debug?echo=${sid}`, headers: [{ name: 'X-Echo', value: `seen ${sid}` }], body: {} },
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(bytesOf(db).includes(Buffer.from(sid))).toBe(false);
    const s = new Database(db, { readonly: true });
    expect(s.prepare('select url, is_url_redacted from record where ordinal = 2').raw().get()).toEqual([
      `${A}/api/debug?echo=[REDACTED]`,
      1,
    ]);
    expect(s.prepare("select value from header where name = 'X-Echo'").pluck().get()).toBe('seen [REDACTED]');
  });

  it('BS-65 access keys are credentials; HTTP/2 pseudo-headers are not', () => {
    const { r, db } = loadHar([
      {
        url: `${A}/api/a`,
        headers: [
          { name: 'X-Access-Key', value: 'AKIAKEY12345' },
          { name: ':authority', value: 'app.test' },
        ],
        body: {},
      },
    ]);
    expect(r.status, r.stderr).toBe(0);
    const s = new Database(db, { readonly: true });
    expect(s.prepare('select name, value, is_redacted from header order by position').raw().all()).toEqual([
      ['X-Access-Key', null, 1],
      [':authority', 'app.test', 0],
    ]);
  });

  it('OQ-2 a Referer whose query carries a token is dropped like a credential header', () => {
    const { r, db } = loadHar([{ url: `${A}/api/a`, headers: [{ name: 'Referer', value: `${A}/cb?access_token=TOPSECRET99` }], body: {} }]);
    expect(r.status, r.stderr).toBe(0);
    expect(bytesOf(db).includes(Buffer.from('TOPSECRET99'))).toBe(false);
  });

  it('OQ-2 --sensitive literals are refused in page titles and scenario start URLs too', () => {
    const { r } = loadHar([{ url: `${A}/api/a`, body: {} }], ['--sensitive', 'PAGESECRET'], {
      pageTitle: `${A}/login?password=PAGESECRET`,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/log\.pages\[0\]\.title.*--sensitive/);
    const ev = join(dir, 'start.json');
    writeFileSync(
      ev,
      JSON.stringify({
        schema_version: 1,
        scenario: { start_url: `${A}/?k=STARTSECRET`, network_content: { request_body: true, response_body: true, header_values: true } },
        steps: [],
        events: [],
      }),
    );
    const r2 = cli(['load', ev, '--db', join(dir, 'ev.sqlite'), '--sensitive', 'STARTSECRET']);
    expect(r2.status).toBe(1);
    expect(r2.stderr).toMatch(/scenario\.start_url/);
  });

  it('OQ-2 loading a capture already in the store with a --sensitive value it carries fails', () => {
    const { r, db, file } = loadHar([{ url: `${A}/api/a`, body: { note: 'hunter2-in-body' } }]);
    expect(r.status).toBe(0);
    const again = cli(['load', file, '--db', db, '--sensitive', 'hunter2-in-body']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/record #1 carries a value declared with --sensitive/);
  });
});

describe('BS-65 the redactor', () => {
  it('BS-65 replaces values with regex metacharacters literally, longest spelling first, in text and bytes', async () => {
    const { Redactor } = await import('../src/load/secrets.js');
    const token = 'a+b/c.d=e$f(g)';
    const r = new Redactor([token]);
    expect(r.text(`x ${token} y ${encodeURIComponent(token)} z`)).toBe('x [REDACTED] y [REDACTED] z');
    expect(r.text('a+b/c.d=e$f(h) stays')).toBe('a+b/c.d=e$f(h) stays');
    expect(r.bytes(Buffer.from(`{"t":"${token}"}`)).toString()).toBe('{"t":"[REDACTED]"}');
    expect(new Redactor(['short']).size).toBe(0); // under 8 characters: never searched
  });
});

describe('BS-65 echoed credentials in every spelling, and nothing else', () => {
  it('BS-65 echoes spelled with \\/, lower-case %xx, under an upper-case host, quoted or Basic-encoded are replaced', () => {
    const bearer = 'eyJhbGciOi/JIUzI1+NiJ9abc';
    const apiKey = 'tok en/ZZ+9xy';
    const quoted = 'Zm9vYmFyYmF6cXV4MTIz';
    const basicPassword = 'hunter2-passw0rd';
    const { r, db } = loadHar([
      { url: `${A}/api/a`, headers: [{ name: 'Authorization', value: `Bearer ${bearer}` }], body: '{"a":"eyJhbGciOi\\/JIUzI1+NiJ9abc"}' },
      {
        url: 'http://APP.test/api/sessions/sess-0123456789abcdef',
        headers: [{ name: 'Cookie', value: 'sid=sess-0123456789abcdef' }],
        body: {},
      },
      { url: `${A}/api/p/tok%20en%2fzz%2b9xy`.replace('%2fzz', '%2fZZ'), headers: [{ name: 'X-Api-Key', value: apiKey }], body: {} },
      { url: `${A}/api/q`, headers: [{ name: 'Set-Cookie', value: `qt="${quoted}"; Path=/` }], body: { b: quoted } },
      {
        url: `${A}/api/r`,
        headers: [{ name: 'Authorization', value: `Basic ${Buffer.from(`ann:${basicPassword}`).toString('base64')}` }],
        body: { echo: basicPassword },
      },
    ]);
    expect(r.status, r.stderr).toBe(0);
    const bytes = bytesOf(db);
    for (const secret of ['eyJhbGciOi\\/JIUzI1', 'sess-0123456789abcdef', 'tok%20en%2fZZ', quoted, basicPassword]) {
      expect(bytes.includes(Buffer.from(secret)), secret).toBe(false);
    }
    const s = new Database(db, { readonly: true });
    expect(
      s
        .prepare('select b.kind from record r join body b on b.id = r.response_body_id where r.ordinal in (1, 4, 5) order by r.ordinal')
        .pluck()
        .all(),
    ).toEqual(['json', 'json', 'json']);
  });

  it('BS-65 values of non-credential cookies, and parts of longer words or numbers, are left alone', () => {
    const { r, db } = loadHar([
      {
        url: `${A}/api/a`,
        headers: [{ name: 'Cookie', value: 'consent=accepted; ts=1700000000; sid=12345678' }],
        body: { n: 123456789, ts: 17000000001234, state: 'accepted' },
      },
      { url: `${A}/api/invites/accepted`, body: {} },
    ]);
    expect(r.status, r.stderr).toBe(0);
    const s = new Database(db, { readonly: true });
    expect(s.prepare('select content from record r join body b on b.id = r.response_body_id where r.ordinal = 1').pluck().get()).toBe(
      '{"n":123456789,"ts":17000000001234,"state":"accepted"}',
    );
    expect(s.prepare('select url, is_url_redacted from record where ordinal = 2').raw().get()).toEqual([`${A}/api/invites/accepted`, 0]);
  });
});

describe('issue 15 credential values under credential names (secret-text)', () => {
  it('BS-65 JSON: only string values of credential members change; escapes, cursors, numbers and other bytes stay', async () => {
    const { redactJsonText, redactBodyText } = await import('../src/load/secret-text.js');
    const text =
      '{ "pass\\u0077ord" : "a\\"b", "note": "\\"password\\": \\"x\\"", "pin": {"password": 1234}, "nextPageToken": "cur-123456", "token_type": "bearer", "list": [{"api-key": "k1"}, "password"] }';
    const out = redactJsonText(text);
    expect(JSON.parse(out)).toEqual({
      password: '[REDACTED]',
      note: '"password": "x"',
      pin: { password: 1234 },
      nextPageToken: 'cur-123456',
      token_type: 'bearer',
      list: [{ 'api-key': '[REDACTED]' }, 'password'],
    });
    expect(out.replace('"[REDACTED]"', '"a\\"b"').replace('"[REDACTED]"', '"k1"')).toBe(text);
    const plain = '{"id":1,"name":"x"}';
    expect(redactBodyText(plain, 'application/json')).toBe(plain);
  });

  it('BS-65 form, GraphQL and URL parameters: names compare across camel, snake and kebab; the value goes, the name stays', async () => {
    const { redactFormText, redactGraphqlArgs, redactFreeText, isCredentialParamName } = await import('../src/load/secret-text.js');
    expect(redactFormText('user=a+b&Pass-Word=x%26y&x=1')).toBe('user=a+b&Pass-Word=[REDACTED]&x=1');
    expect(redactGraphqlArgs('mutation { a(password: "p\\"q", name: "n") { b(apiKey:"k") } }')).toBe(
      'mutation { a(password: "[REDACTED]", name: "n") { b(apiKey:"[REDACTED]") } }',
    );
    expect(redactFreeText('see https://u:p4ss@h.test/x;jsessionid=ABC?code=1&q=2#id_token=t')).toBe(
      'see https://u:[REDACTED]@h.test/x;jsessionid=[REDACTED]?code=[REDACTED]&q=2#id_token=[REDACTED]',
    );
    for (const name of ['accessToken', 'ACCESS-TOKEN', 'refresh_token', 'X-Amz-Credential', 'key', 'jwt', 'sessionid', 'JSESSIONID'])
      expect(isCredentialParamName(name), name).toBe(true);
    for (const name of ['page', 'q', 'token_type', 'keyword', 'author']) expect(isCredentialParamName(name), name).toBe(false);
  });

  it("BS-65 authorization values by form: Bearer/Basic/Digest in any case, a JWT; a Digest header's parts are its secrets", async () => {
    const { isCredentialValue, schemeSecrets, redactSchemes } = await import('../src/load/secret-text.js');
    for (const v of [
      'Bearer x',
      'bearer x',
      `BASIC ${Buffer.from('u:p').toString('base64')}`,
      'Digest nonce="n"',
      'eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.',
    ])
      expect(isCredentialValue(v), v).toBe(true);
    for (const v of ['application/json', 'max-age=0', 'Basically fine', 'Basic tier', 'bearer of bad news'])
      expect(isCredentialValue(v), v).toBe(false);
    expect(schemeSecrets('Digest username="ann", realm="r", nonce="n-1", uri="/a", response="r-2", cnonce=c-3, opaque="o-4"')).toEqual([
      'n-1',
      'r-2',
      'c-3',
      'o-4',
    ]);
    expect(redactSchemes('Unauthorized (Bearer abc.def-12) and Digest nonce="n-1"')).toBe(
      'Unauthorized (Bearer [REDACTED]) and Digest nonce="[REDACTED]"',
    );
    expect(redactSchemes('the Bearer of bad news, on the basic plan')).toBe('the Bearer of bad news, on the basic plan');
  });
});

describe('issue 42 which credential values are searched for elsewhere', () => {
  it('BS-65 short values that look generated are searched; plain words, plain numbers and values under 4 characters are not', async () => {
    const { isSearchedCredential, credentialValues } = await import('../src/load/secrets.js');
    for (const v of ['Ab3xY9z', 'abc1234', 'k7-q2', 'QX7P2K9', 'dark-mode-on', '12345678']) expect(isSearchedCredential(v), v).toBe(true);
    for (const v of ['1', 'a1', 'true', 'Dark', 'enabled', '1234567', 'ABCDEFG', '']) expect(isSearchedCredential(v), v).toBe(false);
    expect(credentialValues('Cookie', 'sid=Ab3xY9z; remember=true; theme=dark; Nameless7')).toEqual(['Ab3xY9z', 'Nameless7']);
    expect(credentialValues('Set-Cookie', 'theme=dark; Path=/\nauth=Qx7-p2k; HttpOnly')).toEqual(['Qx7-p2k']);
  });
});
