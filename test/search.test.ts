/**
 * `capstate search TEXT` (issue 19): full-text search over the store's URLs, request bodies
 * and response bodies with SQLite FTS5. The index is built by the first search, not by
 * `load`; it is external-content (no second copy of the text) and holds only what the store
 * holds, so redacted credentials cannot be found.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { ftsQuery } from '../src/store/search.js';

const dir = tempDir();
const A = 'http://app.test';
let n = 0;

function loadInto(db: string, exchanges: Exchange[], extra: string[] = []) {
  const file = writeHar(dir, `s${n++}.har`, exchanges);
  const r = cli(['load', file, '--db', db, '--quiet', ...extra]);
  expect(r.status, r.stderr).toBe(0);
}

function search(db: string, text: string, extra: string[] = []) {
  const r = cli(['search', text, '--db', db, '--json', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return {
    doc: JSON.parse(r.stdout) as {
      total: number;
      truncated: boolean;
      hits: { ordinal: number; method: string; url: string; matched_in: string[]; snippet: string }[];
    },
    stderr: r.stderr,
  };
}

const tables = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("select name from sqlite_master where name like 'search%'").pluck().all() as string[];
  } finally {
    d.close();
  }
};

const shop: Exchange[] = [
  {
    url: `${A}/api/products`,
    body: [
      { id: 1, name: 'Walnut bookshelf' },
      { id: 2, name: 'Oak table' },
    ],
  },
  { method: 'POST', url: `${A}/api/orders`, requestBody: { product: 2, note: 'gift wrapping please' }, body: { id: 77, status: 'placed' } },
  { url: `${A}/api/warehouses/north`, body: { id: 'north', city: 'Leeds' } },
];

describe('search: what it finds', () => {
  const db = join(dir, 'shop.sqlite');
  loadInto(db, shop);

  it('finds a word in a response body, with the record ordinal, method, URL and a snippet marking the word', () => {
    const { doc } = search(db, 'walnut');
    expect(doc.total).toBe(1);
    expect(doc.hits[0]).toMatchObject({ ordinal: 1, method: 'GET', url: `${A}/api/products`, matched_in: ['response'] });
    expect(doc.hits[0].snippet).toContain('«Walnut»');
  });

  it('finds a word in a request body and in a URL, and says where', () => {
    expect(search(db, 'wrapping').doc.hits.map((h) => [h.ordinal, h.matched_in])).toEqual([[2, ['request']]]);
    expect(search(db, 'warehouses').doc.hits.map((h) => [h.ordinal, h.matched_in])).toEqual([[3, ['url']]]);
    // "north" is in record 3's URL and its response body: one hit, both places.
    expect(search(db, 'north').doc.hits.map((h) => [h.ordinal, h.matched_in])).toEqual([[3, ['response', 'url']]]);
  });

  it('needs every word; a word also finds the words it begins; case does not matter', () => {
    expect(search(db, 'oak TABLE').doc.hits.map((h) => h.ordinal)).toEqual([1]);
    expect(search(db, 'oak leeds').doc.total).toBe(0);
    expect(search(db, 'wareh').doc.hits.map((h) => h.ordinal)).toEqual([3]);
  });

  it('takes punctuation and FTS5 operators in the text as words, not query syntax', () => {
    expect(ftsQuery('a"b OR c*')).toBe('"a""b"* "OR"* "c*"*');
    expect(search(db, 'api/orders').doc.hits.map((h) => h.ordinal)).toEqual([2]);
    const r = cli(['search', 'NEAR( "x', '--db', db]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^no records contain/);
  });

  it('--limit caps the records shown and says how many there were', () => {
    const { doc } = search(db, 'api', ['--limit', '2']);
    expect(doc.total).toBe(3);
    expect(doc.truncated).toBe(true);
    expect(doc.hits.map((h) => h.ordinal)).toEqual([1, 2]);
    expect(cli(['search', 'api', '--db', db, '--limit', '0']).status).toBe(2);
  });

  it('text output: one line per record (ordinal, method, URL) and its snippet; control characters in captured text print as spaces', () => {
    const hostile = join(dir, 'hostile.sqlite');
    loadInto(hostile, [{ url: `${A}/api/notes`, body: { text: 'alarm \u001b[31mred\u001b[0m bell' } }]);
    const r = cli(['search', 'alarm', '--db', hostile]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`#1  GET ${A}/api/notes`);
    expect(r.stdout).toContain('«alarm»');
    expect(r.stdout).not.toContain('\u001b');
  });
});

describe('search: the index', () => {
  it('is not built by load; the first search builds it in the store and says so on stderr, later searches do not', () => {
    const db = join(dir, 'lazy.sqlite');
    loadInto(db, shop);
    expect(tables(db)).toEqual([]);
    const first = search(db, 'oak');
    expect(first.stderr).toMatch(/building the search index .*first search/);
    expect(tables(db)).toContain('search_body');
    expect(search(db, 'oak').stderr).toBe('');
  });

  it('keeps no copy of the text (external content: no _content shadow tables)', () => {
    const db = join(dir, 'external.sqlite');
    loadInto(db, shop);
    search(db, 'oak');
    const names = tables(db);
    expect(names).toEqual(expect.arrayContaining(['search_body', 'search_url', 'search_body_data', 'search_url_data']));
    expect(names.filter((t) => t.endsWith('_content'))).toEqual([]);
  });

  it('a capture loaded after a search is found by the next search, which adds it to the index', () => {
    const db = join(dir, 'grow.sqlite');
    loadInto(db, shop);
    search(db, 'oak');
    loadInto(db, [{ url: `${A}/api/invoices/9`, body: { id: 9, memo: 'quarterly mahogany order' } }]);
    const next = search(db, 'mahogany');
    expect(next.stderr).toMatch(/adding 1 text bodies and 1 URLs/);
    expect(next.doc.hits.map((h) => [h.ordinal, h.url])).toEqual([[1, `${A}/api/invoices/9`]]);
  });
});

describe('search: secrets stay out (BS-65)', () => {
  it('a password in a request body and a token in a URL are not found, and are nowhere in the store after the index is built', () => {
    const db = join(dir, 'secret.sqlite');
    const password = 'Hunter2secretPw9';
    const token = 'tok9Zq7Secret55Xy';
    loadInto(
      db,
      [
        { method: 'POST', url: `${A}/api/login`, requestBody: { username: 'ann', password }, body: { ok: true } },
        { url: `${A}/api/feed?access_token=${token}`, body: [{ id: 1, title: 'hello' }] },
      ],
      ['--redact'],
    );
    expect(search(db, password).doc.total).toBe(0);
    expect(search(db, token).doc.total).toBe(0);
    expect(search(db, 'ann').doc.hits.map((h) => h.ordinal)).toEqual([1]);
    expect(search(db, 'access_token').doc.hits.map((h) => h.ordinal)).toEqual([2]);
    const bytes = readFileSync(db);
    expect(bytes.includes(Buffer.from(password))).toBe(false);
    expect(bytes.includes(Buffer.from(token))).toBe(false);
    expect(bytes.includes(Buffer.from(password.toLowerCase()))).toBe(false);
    expect(bytes.includes(Buffer.from(token.toLowerCase()))).toBe(false);
  });
});
