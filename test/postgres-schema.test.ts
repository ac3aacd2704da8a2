/**
 * Issue 20, step 4 of docs/postgres-plan.md: the store's tables on a real PostgreSQL, written
 * from schema/*.sql (src/store/postgres-schema.ts). One describe per promise of the
 * dialect layer (docs/decisions.md, "The tables on PostgreSQL").
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, openStore } from '../src/store/open.js';
import { postgresSchemaVersion, schemaFiles, SQLITE_ONLY_MIGRATIONS } from '../src/store/postgres-schema.js';
import { cli, fixture, tempDir } from './helpers.js';
import { createStoreDatabase, startPostgres, type Postgres } from './postgres-helpers.js';

const dir = tempDir();
let pg: Postgres;
const DB = 'capstate_schema';

/** The extra PostgreSQL columns the dialect layer adds after a SQLite column (RETYPED in postgres-schema.ts). */
const ADDED: Record<string, Record<string, string>> = { member_node: { key: 'key_is_index' }, body: { content: 'content_bytes' } };
/** SQLite columns PostgreSQL has no use for: bodies are kept there as they are, so no `coding`. */
const LEFT_OUT: Record<string, string[]> = { body: ['coding'] };

beforeAll(() => {
  pg = startPostgres();
  createStoreDatabase(pg, DB);
}, 60_000);
afterAll(() => pg?.stop());

const sqliteStore = () => openStore(join(dir, 'fresh.sqlite'), { write: true });

describe('issue 20: every table of the store exists on PostgreSQL with the same columns in the same order', () => {
  it("each SQLite table's columns, with the added ones after the column they split", () => {
    const db = sqliteStore();
    try {
      const tables = db
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
        .pluck()
        .all() as string[];
      expect(tables.sort()).toEqual(
        schemaFiles()
          .map((t) => t.name)
          .sort(),
      );
      for (const t of tables) {
        const expected = (db.prepare('select name from pragma_table_xinfo(?) order by cid').pluck().all(t) as string[])
          .filter((c) => !LEFT_OUT[t]?.includes(c))
          .flatMap((c) => (ADDED[t]?.[c] ? [c, ADDED[t][c]] : [c]));
        const onPg = pg
          .psql(
            DB,
            `select column_name from information_schema.columns where table_schema = 'public' and table_name = '${t}' order by ordinal_position`,
          )
          .trim()
          .split('\n');
        expect(onPg, t).toEqual(expected);
      }
    } finally {
      db.close();
    }
  });

  it('integers are 64-bit and reals double precision, as in SQLite', () => {
    const types = pg.psql(
      DB,
      "select table_name || '.' || column_name, data_type from information_schema.columns where table_schema = 'public' and table_name in ('record', 'body') order by 1",
    );
    expect(types).toContain('record.started_ms\tdouble precision');
    expect(types).toContain('record.status\tbigint');
    expect(types).toContain('body.bytes\tbigint');
    expect(types).toContain('body.content_bytes\tbytea');
  });
});

describe('issue 20: what the tables refuse on SQLite they refuse on PostgreSQL', () => {
  it('a CHECK (an unknown body kind) and a NOT NULL fail; a valid row goes in', () => {
    pg.psql(DB, "insert into body (sha256, bytes, kind, is_usable, content) values ('a', 1, 'text', 1, 'x')");
    expect(pg.psqlStatus(DB, "insert into body (sha256, bytes, kind, is_usable) values ('b', 1, 'bogus', 1)").stderr).toMatch(
      /check constraint/,
    );
    expect(pg.psqlStatus(DB, "insert into body (sha256, bytes, kind) values ('c', 1, 'text')").stderr).toMatch(/null value/);
  });

  it('a body is text or bytes, never both', () => {
    expect(
      pg.psqlStatus(
        DB,
        "insert into body (sha256, bytes, kind, is_usable, content, content_bytes) values ('d', 1, 'text', 1, 'x', '\\x00')",
      ).stderr,
    ).toMatch(/check constraint/);
  });

  it('the identity of a body (sha256, kind, reason) is unique with a NULL reason read as empty, as body_identity has it', () => {
    pg.psql(DB, "insert into body (sha256, bytes, kind, is_usable) values ('e', 1, 'none', 0)");
    expect(pg.psqlStatus(DB, "insert into body (sha256, bytes, kind, is_usable) values ('e', 1, 'none', 0)").stderr).toMatch(
      /duplicate key/,
    );
  });

  it("ids are assigned on insert (SQLite's rowid), and an explicit id is kept", () => {
    const id = pg
      .psql(DB, "insert into capture (path, sha256, bytes, format, loaded_at) values ('p', 's1', 1, 'har', 't') returning id")
      .trim();
    expect(Number(id)).toBeGreaterThan(0);
    expect(
      pg
        .psql(DB, "insert into capture (id, path, sha256, bytes, format, loaded_at) values (100, 'p', 's2', 1, 'har', 't') returning id")
        .trim(),
    ).toBe('100');
  });

  it('member_node is keyed by (body_id, parent, key), an array index as its decimal text with key_is_index 1', () => {
    const body = pg
      .psql(DB, "insert into body (sha256, bytes, kind, is_usable, content) values ('m', 2, 'json', 1, '[7]') returning id")
      .trim();
    pg.psql(
      DB,
      `insert into member_node (body_id, parent, key, key_is_index, node, depth, shape, value, pointer, position, type) values
      (${body}, -1, '0', 1, 0, 0, 1, null, '', 0, 'array'), (${body}, 0, '0', 1, 1, null, null, '7', null, 0, 'integer')`,
    );
    expect(
      pg.psqlStatus(
        DB,
        `insert into member_node (body_id, parent, key, key_is_index, node, position, type) values (${body}, 0, '0', 1, 2, 0, 'integer')`,
      ).stderr,
    ).toMatch(/duplicate key/);
    expect(
      pg.psqlStatus(
        DB,
        `insert into member_node (body_id, parent, key, key_is_index, node, position, type) values (${body}, 0, '1', 1, 2, 1, 'number')`,
      ).stderr,
    ).toMatch(/check constraint/);
  });
});

describe('issue 20: a PostgreSQL store starts at the schema version schema/*.sql describes, with the vocabulary', () => {
  it("meta holds the version; the vocabulary rows are SQLite's", () => {
    expect(pg.psql(DB, "select value from meta where key = 'schema_version'").trim()).toBe(String(postgresSchemaVersion()));
    const db = sqliteStore();
    try {
      // SQLite's version, less the migrations only SQLite has (0014: body.coding).
      const versions = listMigrations().map((m) => m.version);
      expect(Math.max(...versions)).toBe(db.pragma('user_version', { simple: true }));
      expect(postgresSchemaVersion()).toBe(Math.max(...versions.filter((v) => !SQLITE_ONLY_MIGRATIONS.has(v))));
      const rows = (
        db.prepare('select vocabulary, name, rank from vocabulary order by vocabulary, name').raw(true).all() as unknown[][]
      ).map((r) => r.join('\t'));
      // C collation: PostgreSQL orders text as SQLite does (byte order).
      expect(pg.psql(DB, 'select vocabulary, name, rank from vocabulary order by vocabulary, name').trim().split('\n')).toEqual(rows);
    } finally {
      db.close();
    }
  });
});

describe('issue 44: a store before migrations that only add vocabulary rows (0017) is brought up to date by a write command', () => {
  it('read-only, it is refused with the fix; capstate migrate adds the rows it lacks and the version, and reading works again', () => {
    const store = pg.url('vocabulary_topup');
    const load = cli(['load', fixture('json-server', 'capture.har'), '--db', store]);
    expect(load.status, load.stderr).toBe(0);
    // The store as a capstate before 0017 left it: schema version 16, no `$limit` or `$sort` rows.
    pg.psql(
      'postgres',
      "delete from vocabulary_topup.vocabulary where name in ('$limit', '$sort'); update vocabulary_topup.meta set value = '16' where key = 'schema_version'",
    );
    const read = cli(['state', '--db', store]);
    expect(read.status).not.toBe(0);
    expect(read.stderr).toMatch(/is at schema version 16, this capstate needs 17; run: capstate migrate --db /);
    const migrate = cli(['migrate', '--db', store]);
    expect(migrate.status, migrate.stderr).toBe(0);
    expect(pg.psql('postgres', "select value from vocabulary_topup.meta where key = 'schema_version'").trim()).toBe('17');
    expect(
      pg
        .psql('postgres', "select vocabulary || ' ' || name from vocabulary_topup.vocabulary where name in ('$limit', '$sort') order by 1")
        .trim()
        .split('\n'),
    ).toEqual(['ordering $sort', 'pagination $limit', 'window_size $limit']);
    expect(cli(['state', '--db', store]).status).toBe(0);
  });
});
