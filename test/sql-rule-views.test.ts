/**
 * Ad hoc SQL over the rule views (`capstate sql`, MCP `query_store`): each rule view a
 * statement names is evaluated once into a TEMP table before the statement is compiled
 * (src/store/snapshot.ts `statementSnapshot`), and the statement is compiled in the child
 * process, under the deadline. Compiling a statement over the expanded view chain took
 * 33 s on a 2 MB capture (`select count(*) from collection_order`), longer than the 5 s
 * default deadline and, in the caller's own process, freezing a server's other calls.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHar } from '../bench/gen-har.js';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { statementSnapshot, withSnapshot } from '../src/store/snapshot.js';
import { runReadOnlySql } from '../src/store/read-only-sql.js';
import { kyselyFor, listViews, openStore, rawConnection } from '../src/store/open.js';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore } from './serve-helpers.js';

const dir = tempDir();
const small = join(dir, 'grafana.sqlite');
const generated = join(dir, 'generated.sqlite');
/** Rows as sorted JSON lines: SQL promises no row order without ORDER BY. */
const bag = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
const read = (sql: string) => runReadOnlySql(small, sql, { maxRows: 1_000_000, timeoutMs: 60_000 });

beforeAll(async () => {
  await loadCaptures({ db: small, files: [fixture('grafana-mini', 'capture.har')], loadedAt: '2026-01-01T00:00:00.000Z' });
  const har = join(dir, 'generated.har');
  generateHar(har, 2_000_000);
  await loadCaptures({ db: generated, files: [har], loadedAt: '2026-01-01T00:00:00.000Z' });
}, 120_000);

describe('sql over rule views: each view a statement names is evaluated once, and reads as the view itself', () => {
  it("every rule view: its rows and each column's storage class are what the state pass evaluates for it", async () => {
    // The state pass's snapshot (src/store/snapshot.ts withSnapshot) holds each stored view's
    // rows and storage classes (test/snapshot.test.ts, against the stored views themselves,
    // whose compiling costs minutes); `capstate sql` reads the same, one query per view.
    const views = listViews()
      .map((v) => v.name)
      .filter((n) => n !== 'member' && n !== 'response_members');
    const k = kyselyFor(openStore(small));
    try {
      const raw = rawConnection(k)!;
      const queries = new Map<string, string>();
      const pass = await withSnapshot(
        k,
        views,
        async () =>
          new Map(
            views.map((v) => {
              const columns = raw
                .prepare(`select * from temp."${v}"`)
                .columns()
                .map((c) => `typeof("${c.name}")`);
              queries.set(v, `select *, ${columns.join(', ')} from "${v}"`);
              return [v, bag(raw.prepare(queries.get(v)!).raw(true).all() as unknown[][])];
            }),
          ),
      );
      for (const v of views) expect(bag((await read(queries.get(v)!)).rows), v).toEqual(pass.get(v));
      expect(views.length).toBeGreaterThan(30);
    } finally {
      await k.destroy();
    }
  });

  it('a comparison with a text literal matches as it does on the view (each column keeps its affinity)', async () => {
    const raw = new Database(small, { readonly: true });
    try {
      const sql = "select count(*) from initial_reads where capture_id = '1'";
      expect(raw.prepare(sql).pluck().get() as number).toBeGreaterThan(0);
      expect((await read(sql)).rows).toEqual([[raw.prepare(sql).pluck().get()]]);
    } finally {
      raw.close();
    }
  });

  it('the views named and every view under them are evaluated, in dependency order; member and response_members stay views', () => {
    const names = statementSnapshot("select * from collection_order join response_members using (capture_id) where 'member' <> ''").map(
      (v) => v.name,
    );
    expect(names).toContain('collection_order');
    expect(names).toContain('kept_observations');
    expect(names.indexOf('kept_observations')).toBeLessThan(names.indexOf('collection_order'));
    expect(names.indexOf('records_timeline')).toBeLessThan(names.indexOf('read_records'));
    expect(names).not.toContain('member');
    expect(names).not.toContain('response_members');
    expect(statementSnapshot('select count(*) from record')).toEqual([]);
  });

  it('`capstate sql` answers `select count(*) from collection_order` on a 2 MB capture within the default deadline, as the state pass counts it', async () => {
    const r = cli(['sql', 'select count(*) as n from collection_order where capture_id = 1', '--db', generated, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const k = kyselyFor(openStore(generated));
    try {
      const counted = await withSnapshot(
        k,
        ['collection_order'],
        async () =>
          (
            await k
              .selectFrom('collection_order')
              .select((e) => e.fn.countAll<number>().as('n'))
              .where('capture_id', '=', 1)
              .executeTakeFirstOrThrow()
          ).n,
      );
      expect(counted).toBeGreaterThan(100);
      expect(JSON.parse(r.stdout).rows).toEqual([{ n: counted }]);
    } finally {
      await k.destroy();
    }
  });
});

describe('sql over rule views: a statement slow to compile is stopped at the deadline, and a server keeps answering meanwhile', () => {
  it('query_store on `main.collection_order` (the stored view, compiled over the whole chain) ends in sql-timeout within the deadline; another call is answered first', async () => {
    const served = await serveStore(generated);
    try {
      const t0 = Date.now();
      let slowAt = 0;
      const slow = served.call('query_store', { sql: 'select count(*) from main.collection_order' }).then((r) => {
        slowAt = Date.now() - t0;
        return r;
      });
      const other = await served.call('inspect_environment_manifest');
      const otherAt = Date.now() - t0;
      expect(other.isError).toBeFalsy();
      const r = await slow;
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ ok: false, code: 'sql-timeout' });
      // The default deadline is 5 s; compiling in the server's own process first took 33 s here.
      expect({ otherFirst: otherAt < slowAt, slowWithinDeadline: slowAt < 15_000 }).toEqual({ otherFirst: true, slowWithinDeadline: true });
    } finally {
      await served.close();
    }
  }, 60_000);
});
