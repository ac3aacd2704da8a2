/**
 * Issue 46: every body is kept as it was recorded, so any SQLite client reads it (issue 14 had
 * kept text bodies of 1 KiB or more deflated, readable only where `sqlar_uncompress` exists).
 * What every reader gets is the body as recorded: the `body` table and the `body_content` view
 * in the sqlite3 shell and in capstate, the served answers, the search index, the check of a
 * `--sensitive` literal; and migration 0016 inflates what an earlier version kept deflated.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { listMigrations, openStore } from '../src/store/open.js';
import { writeHar, type Exchange } from './har-builder.js';
import { cli, tempDir, whileServedOverHttp } from './helpers.js';

const dir = tempDir();
const A = 'https://shop.example.com';

/** 120 products: a JSON body of ~9 KB, the size issue 14 kept deflated. */
const products = Array.from({ length: 120 }, (_, i) => ({
  id: i + 1,
  name: `Product ${i + 1}`,
  colour: ['walnut', 'oak', 'teak'][i % 3],
  price: 10 + i,
}));
products[77].name = 'Marquetry sideboard';
const big = JSON.stringify(products);
const small = JSON.stringify({ id: 1, name: 'Oak table' });
const exchanges: Exchange[] = [
  { url: `${A}/api/products`, body: products },
  { url: `${A}/api/products/1`, body: { id: 1, name: 'Oak table' } },
];

let n = 0;
function loaded(): string {
  const db = join(dir, `b${n}.sqlite`);
  const r = cli(['load', writeHar(dir, `b${n++}.har`, exchanges), '--db', db, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  return db;
}

type Row = { id: number; sha256: string; bytes: number; coding: string | null; stored: Buffer | string; content: Buffer | string };
/** The bodies as a plain connection reads them: no function registered, as in any other client. */
function bodies(db: string): Row[] {
  const d = new Database(db, { readonly: true });
  try {
    return d
      .prepare(
        'select b.id, b.sha256, b.bytes, b.coding, b.content as stored, c.content from body b join body_content c on c.id = b.id order by b.id',
      )
      .all() as Row[];
  } finally {
    d.close();
  }
}
const sha = (v: Buffer | string) =>
  createHash('sha256')
    .update(typeof v === 'string' ? Buffer.from(v, 'utf8') : v)
    .digest('hex');

describe('issue 46: a text body of any size is kept as recorded, and read as recorded', () => {
  it('the large body is stored as its text, like the small one; body_content gives every body the bytes its sha256 covers', () => {
    const rows = bodies(loaded());
    const large = rows.find((r) => r.content === big)!;
    expect(large.coding).toBeNull();
    expect(large.stored).toBe(big);
    const plain = rows.find((r) => r.content === small)!;
    expect(plain.coding).toBeNull();
    expect(plain.stored).toBe(small);
    for (const r of rows) {
      expect(r.coding, `body ${r.id}`).toBeNull();
      expect(sha(r.content), `body ${r.id}`).toBe(r.sha256);
      expect(Buffer.byteLength(r.content as string), `body ${r.id}`).toBe(r.bytes);
    }
  });

  it('the sqlite3 shell reads the large body from body and from body_content', () => {
    const db = loaded();
    const id = bodies(db).find((r) => r.content === big)!.id;
    for (const from of ['body', 'body_content']) {
      const r = spawnSync('sqlite3', ['-readonly', db, `select content from ${from} where id = ${id}`], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(big + '\n');
    }
  });

  it('capstate sql reads body_content too', () => {
    const db = loaded();
    const r = cli(['sql', "select content from body_content where content like '%Marquetry%'", '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Marquetry sideboard');
  });

  it('serving answers from the large body', async () => {
    const db = loaded();
    const status = await whileServedOverHttp(['--db', db], async (base) => {
      const r = await fetch(`${base}/api/products`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual(products);
    });
    expect(status).toBe(0);
  });

  it('search finds a word only the large body holds, with its snippet', () => {
    const db = loaded();
    const r = cli(['search', 'marquetry', '--db', db, '--json', '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { total: number; hits: { url: string; matched_in: string[]; snippet: string }[] };
    expect(doc.total).toBe(1);
    expect(doc.hits[0].url).toBe(`${A}/api/products`);
    expect(doc.hits[0].snippet).toMatch(/Marquetry/);
  });

  it('a --sensitive literal in the large body of a capture already in the store is found', () => {
    const db = join(dir, 'again.sqlite');
    const file = writeHar(dir, 'again.har', exchanges);
    expect(cli(['load', file, '--db', db, '--quiet']).status).toBe(0);
    const again = cli(['load', file, '--db', db, '--sensitive', 'Marquetry sideboard']);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/record #1 carries a value declared with --sensitive/);
  });
});

describe('issue 46: migration 0016 inflates the bodies an earlier version kept deflated', () => {
  it('a deflated body becomes its text (TEXT, coding NULL), a body kept as it was stays; a client without sqlar_uncompress reads both', () => {
    const file = join(dir, 'v15.sqlite');
    const v15 = new Database(file);
    for (const m of listMigrations().filter((m) => m.version <= 15)) v15.exec(m.sql);
    v15.pragma('user_version = 15');
    // As capstate 0014–0015 wrote them: the large body a zlib stream, the small one as it is.
    const insert = v15.prepare("insert into body (id, sha256, bytes, kind, is_usable, content, coding) values (?, ?, ?, 'json', 1, ?, ?)");
    insert.run(1, sha(big), Buffer.byteLength(big), deflateSync(big), 'deflate');
    insert.run(2, sha(small), Buffer.byteLength(small), small, null);
    v15.close();
    const db = openStore(file, { write: true });
    try {
      expect(db.prepare('select id, typeof(content), coding, content from body order by id').raw().all()).toEqual([
        [1, 'text', null, big],
        [2, 'text', null, small],
      ]);
    } finally {
      db.close();
    }
    expect(bodies(file).map((r) => sha(r.content))).toEqual([sha(big), sha(small)]);
  });
});

describe('issue 14: migration 0014 (body.coding)', () => {
  it('keeps the bodies a store already holds as they are, and drops the search index built over body', () => {
    const file = join(dir, 'v13.sqlite');
    const v13 = new Database(file);
    for (const m of listMigrations().filter((m) => m.version <= 13)) v13.exec(m.sql);
    v13.pragma('user_version = 13');
    v13
      .prepare("insert into body (id, sha256, bytes, kind, is_usable, content) values (1, ?, ?, 'json', 1, ?)")
      .run(sha(big), Buffer.byteLength(big), big);
    v13.exec("create virtual table search_body using fts5(content, content='body', content_rowid='id')");
    v13.exec('insert into search_body (rowid, content) select id, content from body');
    v13.exec("insert into meta (key, value) values ('search_body_max_id', '1')");
    v13.close();
    const db = openStore(file, { write: true });
    try {
      expect(db.prepare('select b.coding, b.content = c.content from body b join body_content c on c.id = b.id').raw().get()).toEqual([
        null,
        1,
      ]);
      expect(db.prepare("select count(*) from sqlite_master where name = 'search_body'").pluck().get()).toBe(0);
      expect(db.prepare("select count(*) from meta where key = 'search_body_max_id'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});
