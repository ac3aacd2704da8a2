/**
 * Issue 20, steps 3 and 7 of docs/postgres-plan.md: the rule views in PostgreSQL's dialect
 * (src/store/postgres-views.ts) — each rewrite rule on its examples, each GLOB pattern the
 * views use answering on PostgreSQL as on SQLite, and every queries/*.sql view created on a
 * real PostgreSQL over the store's tables there. (Rows on both back ends are compared once
 * the loader writes PostgreSQL stores; until then scripts/view-digests.mjs holds the SQLite
 * side of every edit made for PostgreSQL to the same rows.)
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listViews, orderViews } from '../src/store/open.js';
import { globToRegex, postgresView, POSTGRES_VIEW_RULES } from '../src/store/postgres-views.js';
import { createStoreDatabase, startPostgres, viewSnapshotStatements, type Postgres } from './postgres-helpers.js';

let pg: Postgres;
const DB = 'capstate_views';

beforeAll(() => {
  pg = startPostgres();
  createStoreDatabase(pg, DB);
}, 60_000);
afterAll(() => pg?.stop());

const rule = (name: string) => {
  const r = POSTGRES_VIEW_RULES.find((x) => x.name === name);
  if (!r) throw new Error(`no rule ${name}`);
  return r.apply;
};

describe('issue 20: the view rewrite rules, each on its examples', () => {
  it('no-index-hints drops `indexed by NAME` and nothing else', () => {
    expect(rule('no-index-hints')('join member_node e indexed by member_node_pointer on e.body_id = 1')).toBe(
      'join member_node e on e.body_id = 1',
    );
  });

  it('join-order turns `cross join T a on` into `join T a on`, and leaves a cross join without ON', () => {
    const r = rule('join-order');
    expect(r('cross join member_node f on f.body_id = e.body_id')).toBe('join member_node f on f.body_id = e.body_id');
    expect(r('cross join members on x = y')).toBe('join members on x = y');
    expect(r('cross join identity_fields t\n  cross join (select 1) k')).toBe('cross join identity_fields t\n  cross join (select 1) k');
  });

  it('instr is strpos', () => {
    expect(rule('instr')("instr(o.template, '{') = 0")).toBe("strpos(o.template, '{') = 0");
  });

  it('glob is an anchored regular expression, negated with not', () => {
    const r = rule('glob');
    expect(r("k.key glob '*_id'")).toBe("k.key ~ '^.*_id$'");
    expect(r("v not glob '*[^0-9]*'")).toBe("v !~ '^.*[^0-9].*$'");
    expect(r("t glob '*.json'")).toBe("t ~ '^.*\\.json$'");
    expect(globToRegex('a?c')).toBe('^a.c$');
    expect(globToRegex('[]x]')).toBe('^[]x]$');
  });

  it('key-kind asks key_is_index for typeof(key) and for a key asked by number', () => {
    const r = rule('key-kind');
    expect(r("case when typeof(f.key) = 'text' then f.key end")).toBe('case when f.key_is_index = 0 then f.key end');
    expect(r("typeof(c.key) = 'integer'")).toBe('c.key_is_index = 1');
    expect(r('and e.key = 1)')).toBe("and (e.key_is_index = 1 and e.key = '1'))");
    expect(r('f.key = t.identity_field')).toBe('f.key = t.identity_field');
  });

  it("group_concat is string_agg; over an ordered subquery it orders by the subquery's sort_key", () => {
    expect(rule('group-concat')("group_concat(x, ',') over w")).toBe("string_agg(x, ',') over w");
    expect(postgresView("(select group_concat(k.name, ',') from (select n as name, n as sort_key from t order by sort_key) k)")).toBe(
      "(select string_agg(k.name, ',' order by k.sort_key) from (select n as name, n as sort_key from t order by sort_key) k)",
    );
  });
});

describe('issue 20: each GLOB the views use matches on PostgreSQL what it matches on SQLite', () => {
  it('every pattern in queries/*.sql, on names, numbers, dates and file names', () => {
    const patterns = [
      ...new Set(listViews().flatMap((v) => [...v.sql.matchAll(/\bglob\s+'((?:[^']|'')*)'/gi)].map((m) => m[1].replace(/''/g, "'")))),
    ];
    expect(patterns.length).toBeGreaterThan(10);
    const samples = [
      '',
      'id',
      'user_id',
      'userId',
      'userid',
      'user-id',
      'createdAt',
      'created_at',
      'updateTime',
      'user_idx',
      'x2024-01-02',
      'runtime',
      'update',
      'ts',
      'hits',
      'status',
      'lastAt',
      'timestamp',
      'birthDate',
      '123',
      '12a3',
      '0',
      '2024-01-02',
      '2024-01-02T03:04:05Z',
      '2024-01-02T03:04:05+01:00',
      '2024-01-02 03:04',
      'x.json',
      'x.har',
      'a.webmanifest',
      'json',
      'a\nb_id',
      'αβ_id',
      '[x]',
      'a.b*c',
      '123e4567-e89b-12d3-a456-426614174000',
      'ABCDEF01-e89b-12d3-a456-426614174000',
    ];
    const db = new Database(':memory:');
    try {
      const quote = (x: string) => `'${x.replace(/'/g, "''")}'`;
      const values = samples.map((x, i) => `(${quote(x)}, ${i})`).join(', ');
      for (const p of patterns) {
        // One character per sample, in sample order: 1 where it matches.
        const onSqlite = samples
          .map((x) =>
            String(
              db
                .prepare(`select ? glob ${quote(p)}`)
                .pluck()
                .get(x),
            ),
          )
          .join('');
        const onPg = pg
          .psql(
            DB,
            `select string_agg(case when ${postgresView(`v glob ${quote(p)}`)} then '1' else '0' end, '' order by n) from (values ${values}) as t(v, n)`,
          )
          .trim();
        expect(onPg, p).toBe(onSqlite);
        expect(onSqlite, p).toMatch(/1/); // each pattern matches some sample, so the comparison says something
      }
    } finally {
      db.close();
    }
  });
});

describe('issue 20: every rule view is created on PostgreSQL', () => {
  it('each queries/*.sql view, in dependency order, over the PostgreSQL tables', () => {
    const failed: string[] = [];
    const views = orderViews(listViews());
    for (const v of views) {
      const r = pg.psqlStatus(DB, postgresView(v.sql));
      if (r.status !== 0) failed.push(`${v.name}: ${r.stderr.trim().split('\n')[0]}`);
    }
    expect(failed).toEqual([]);
    expect(pg.psql(DB, "select count(*) from information_schema.views where table_schema = 'public'").trim()).toBe(String(views.length));
  });

  it("each view answers, evaluated once in dependency order into a temporary table as the state pass's snapshot does", () => {
    const counts = pg.psql(
      DB,
      viewSnapshotStatements(orderViews(listViews())) +
        orderViews(listViews())
          .map((v) => `select '${v.name}', count(*) from pg_temp.${v.name}`)
          .join(' union all ') +
        ';',
    );
    expect(counts.trim().split('\n')).toEqual(orderViews(listViews()).map((v) => `${v.name}\t0`));
  });
});
