/**
 * Issue 42, finding 1: `capstate sql` on a PostgreSQL store is read-only by construction. The
 * audit closed capstate's wrapper around the statement (`select 1) as q; commit; …`) and
 * committed what followed: as the store's owner it created a table and deleted every header
 * row; as a superuser it ran a program through `COPY … TO PROGRAM`. Each statement the audit
 * used is tried here as both, against a real PostgreSQL started for this file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { readOnlyStatementProblem } from '../src/store/postgres-sql.js';
import { READER_ROLE } from '../src/store/postgres-reader.js';
import { runReadOnlySql } from '../src/store/read-only-sql.js';
import { captureOf, cli, tempDir } from './helpers.js';
import { startPostgres, type Postgres } from './postgres-helpers.js';

const dir = tempDir();
let pg: Postgres;
/** The store as the superuser that made the cluster, and as a plain role that owns its schema. */
const stores: { who: string; url: () => string; schema: string }[] = [
  { who: 'a superuser', url: () => pg.url('as_super'), schema: 'as_super' },
  { who: "the schema's owner", url: () => pg.url('as_owner').replace('user=capstate', 'user=store_owner'), schema: 'as_owner' },
];

beforeAll(async () => {
  pg = startPostgres();
  pg.psql('postgres', 'create role store_owner login; create schema as_owner authorization store_owner');
  for (const s of stores) await loadCaptures({ db: s.url(), files: [captureOf('json-server')], loadedAt: '2026-01-01T00:00:00.000Z' });
}, 120_000);
afterAll(() => pg?.stop());

const count = (schema: string, table: string) => Number(pg.psql('postgres', `select count(*) from ${schema}.${table}`).trim());
const run = (url: string, sql: string) => runReadOnlySql(url, sql, { maxRows: 100, timeoutMs: 30_000 });

describe.each(stores)('issue 42: sql on PostgreSQL as $who', ({ url, schema }) => {
  it('a statement that closes the wrapper and commits writes nothing', async () => {
    const headers = count(schema, 'header');
    expect(headers).toBeGreaterThan(0);
    for (const escape of [
      `select 1) as q; commit; create table ${schema}.escaped (x int); select (1`,
      `select 1) as q; commit; delete from ${schema}.header; select (1`,
      `select 1; commit; delete from ${schema}.header`,
      `commit; delete from ${schema}.header`,
      `delete from ${schema}.header`,
      `with gone as (delete from ${schema}.header returning 1) select count(*) from gone`,
    ]) {
      // Refused before it runs (not a query; more than one statement; not one statement's syntax).
      await expect(run(url(), escape), escape).rejects.toMatchObject({ code: expect.stringMatching(/^(not-a-query|bad-sql)$/) });
    }
    expect(pg.psql('postgres', `select to_regclass('${schema}.escaped') is null`).trim()).toBe('t');
    expect(count(schema, 'header')).toBe(headers);
  });

  it('COPY … TO PROGRAM runs no program, alone or after a closed wrapper', async () => {
    const mark = join(dir, `ran-${schema}`);
    for (const escape of [
      `copy (select 1) to program 'touch ${mark}'`,
      `select 1) as q; commit; copy (select 1) to program 'touch ${mark}'; select (1`,
    ]) {
      await expect(run(url(), escape), escape).rejects.toMatchObject({ code: expect.stringMatching(/^(not-a-query|bad-sql)$/) });
    }
    expect(existsSync(mark)).toBe(false);
  });

  it("functions that reach the server's files, settings or sessions are refused", async () => {
    for (const call of [
      "select pg_read_file('/etc/hostname')",
      "select pg_ls_dir('.')",
      'select "PG_READ_FILE"(\'x\')',
      "select set_config('role', 'capstate', true)",
      "select lo_import('/etc/hostname')",
      'select U&"pg\\005fread_file"(\'x\')',
      "select query_to_xml('select 1', true, false, '')",
      'select pg_terminate_backend(1)',
    ]) {
      await expect(run(url(), call), call).rejects.toMatchObject({ code: 'not-a-query' });
    }
  });

  it('queries still read the facts and the rule views', async () => {
    const r = await run(url(), 'select count(*) as n from record');
    expect(r.rows).toEqual([[16]]);
    const views = await run(url(), 'select count(*) > 0 as some from collection_order');
    expect(views.rows).toEqual([[true]]);
    const limited = await runReadOnlySql(url(), 'select id from record order by id', { maxRows: 3, timeoutMs: 30_000 });
    expect(limited).toMatchObject({ rows: [[1], [2], [3]], truncated: true });
  });
});

describe('issue 42: the read-only role', () => {
  it("a superuser's statement runs as the read-only role, which may not write or call server functions", async () => {
    expect((await run(stores[0].url(), 'select current_user')).rows).toEqual([[READER_ROLE]]);
    // The role itself: even a statement that passed the check could not write through it.
    const denied = pg.psqlStatus('postgres', `set role ${READER_ROLE}; select pg_read_file('/etc/hostname')`);
    expect(denied.stderr).toMatch(/permission denied/);
    const write = pg.psqlStatus('postgres', `set role ${READER_ROLE}; delete from as_super.header`);
    expect(write.stderr).toMatch(/permission denied/);
  });

  it('a role that may not make roles runs its statement as itself, still read-only', async () => {
    expect((await run(stores[1].url(), 'select current_user')).rows).toEqual([['store_owner']]);
    await expect(run(stores[1].url(), "select nextval('record_id_seq')")).rejects.toMatchObject({ code: 'not-a-query' });
  });
});

describe('issue 42: the statement check', () => {
  it('takes queries and names what it refuses', () => {
    for (const ok of ['select 1', '  -- why\n/* note */ WITH x as (select 1) select * from x', 'values (1)', 'table record']) {
      expect(readOnlyStatementProblem(ok), ok).toBeNull();
    }
    expect(readOnlyStatementProblem("COPY (select 1) to program 'id'")).toMatch(/not COPY/);
    expect(readOnlyStatementProblem("select pg_read_binary_file('/x')")).toMatch(/pg_read_binary_file is not available here/);
  });

  it('the CLI says it in one line, with exit 1', () => {
    const r = cli(['sql', '--db', stores[0].url(), 'commit; delete from header']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^capstate: error: only one query \(SELECT, WITH, VALUES or TABLE\) runs here/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
