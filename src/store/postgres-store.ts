/**
 * A capstate store in a PostgreSQL schema (issue 20): `--db postgres://…` or `CAPSTATE_DB`.
 * Opening one for writing creates what is missing under one advisory lock — the schema named
 * first in the connection's search_path, the tables (postgres-schema.ts), their seed rows and
 * the rule views (postgres-views.ts) — so several loaders may start at once. A read-only open
 * creates nothing and says what to run when the store is missing or behind.
 *
 * How the rest of capstate uses it (docs/decisions.md, "PostgreSQL is where captures
 * are kept, not where one capture is worked out"): a load works a capture out in a private
 * SQLite file and publishes its rows here in one transaction (postgres-publish.ts); a command
 * that reads a capture copies its rows from here into a private SQLite file and reads that
 * (postgres-replica.ts); `info` and `sql` read here directly.
 */
import type pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { CapstateError, shellWord } from '../errors.js';
import { listViews, orderViews, queriesHash } from './open.js';
import {
  onlyVocabularyRowsSince,
  postgresSchema,
  postgresSchemaVersion,
  postgresSeed,
  postgresVocabularyTopUp,
} from './postgres-schema.js';
import { postgresView } from './postgres-views.js';
import type { DB } from './types.js';

/** node-pg, imported when a PostgreSQL store is first opened: a command on a SQLite file would pay ~0.1 s for it. */
let pgLoaded: Promise<typeof pg> | undefined;
const loadPg = (): Promise<typeof pg> => (pgLoaded ??= import('pg').then((m) => m.default));

/** Whether `--db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(db);
}

/** The URL as messages may show it: without its password. */
export function displayUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/**
 * 64-bit integers as numbers while exact (ids, counts, byte sizes), as BigInt beyond; node-pg
 * would give strings. A private set of parsers: other pg users in the process keep theirs.
 */
function typeParsers(driver: typeof pg): pg.CustomTypesConfig {
  const types = new driver.TypeOverrides();
  types.setTypeParser(20, (v: string) => {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : BigInt(v);
  });
  return types;
}

function clientConfig(driver: typeof pg, url: string): pg.ClientConfig {
  return { connectionString: url, types: typeParsers(driver), application_name: 'capstate' };
}

/** A failure of the server or the connection as a one-line error saying what to do. */
export function postgresError(e: unknown, url: string): unknown {
  if (e instanceof CapstateError) return e;
  const code = String((e as { code?: unknown })?.code ?? '');
  const detail = (e as Error)?.message ?? String(e);
  const where = displayUrl(url);
  if (
    ['ECONNREFUSED', 'ENOENT', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'].includes(code) ||
    code.startsWith('08') ||
    code === '57P03'
  ) {
    return new CapstateError(
      'cannot-open',
      `cannot reach PostgreSQL at ${where} (${detail}); check the URL and that the server is running`,
      { file: where },
    );
  }
  if (code === '28P01' || code === '28000' || code === '3D000' || code === '42501') {
    return new CapstateError(
      'cannot-open',
      `PostgreSQL at ${where} refused capstate (${detail}); check the user, the password and the database name in the URL, and that the user may create tables in its schema`,
      { file: where },
    );
  }
  if (code === '53100')
    return new CapstateError('disk-full', `the PostgreSQL server at ${where} is out of disk space (${detail})`, { file: where });
  if (code === '25006')
    return new CapstateError(
      'not-writable',
      `the PostgreSQL server at ${where} is read-only (${detail}); give a primary server's URL to load`,
      { file: where },
    );
  return e;
}

/** One connection to a store's schema. */
export interface PostgresStore {
  url: string;
  client: pg.Client;
  /** The schema that holds the store (the first one in the connection's search_path). */
  schema: string;
  close(): Promise<void>;
}

/** A quoted identifier (the schema name comes from the user's search_path). */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const LOCK_KEY = 'capstate-store';

/** The schema search_path names first, created when `create` is set and it is missing. */
async function storeSchema(client: pg.Client, create: boolean, url: string): Promise<string> {
  const current = (await client.query<{ s: string | null }>('select current_schema() as s')).rows[0].s;
  if (current) return current;
  const path = (await client.query<{ p: string }>("select current_setting('search_path') as p")).rows[0].p;
  const first =
    path
      .split(',')[0]
      ?.trim()
      .replace(/^"(.*)"$/, '$1') ?? '';
  if (!first || first === '$user')
    throw new CapstateError(
      'no-store',
      `no schema to hold the store at ${displayUrl(url)}: the search_path (${path}) names none that exists; create one or set it in the URL (options=-csearch_path=NAME)`,
      { file: displayUrl(url) },
    );
  if (!create)
    throw new CapstateError(
      'no-store',
      `no store at ${displayUrl(url)} (schema ${first} does not exist); load a capture first: capstate load CAPTURE --db URL`,
      { file: displayUrl(url) },
    );
  await client.query(`create schema if not exists ${ident(first)}`);
  return first;
}

/** The store's views, rebuilt from queries/ (PostgreSQL will not drop a view others read without CASCADE). */
async function rebuildViews(client: pg.Client, schema: string): Promise<void> {
  const existing = await client.query<{ name: string }>('select table_name as name from information_schema.views where table_schema = $1', [
    schema,
  ]);
  for (const { name } of existing.rows) await client.query(`drop view if exists ${ident(schema)}.${ident(name)} cascade`);
  for (const v of orderViews(listViews())) await client.query(postgresView(v.sql));
  await client.query("insert into meta (key, value) values ('queries_sha256', $1) on conflict (key) do update set value = excluded.value", [
    queriesHash(),
  ]);
}

/**
 * Opens the store at `url`. For writing, creates or completes it under an advisory lock held
 * for the set-up only; reading, refuses a store that is missing, of another schema version, or
 * whose views were built from other queries.
 */
export async function openPostgresStore(url: string, opts: { write?: boolean } = {}): Promise<PostgresStore> {
  const driver = await loadPg();
  const client = new driver.Client(clientConfig(driver, url));
  // A server that goes away mid-command surfaces on the query that fails; this keeps the
  // client's 'error' event from ending the process with a stack trace.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('begin');
    if (opts.write) await client.query('select pg_advisory_xact_lock(hashtext($1))', [LOCK_KEY]);
    const schema = await storeSchema(client, !!opts.write, url);
    const hasMeta = (await client.query<{ t: string | null }>("select to_regclass('meta')::text as t")).rows[0].t !== null;
    const fix = `run: capstate migrate --db ${shellWord(displayUrl(url))}`;
    if (!hasMeta) {
      if (!opts.write)
        throw new CapstateError(
          'no-store',
          `no store at ${displayUrl(url)} (schema ${schema} holds no capstate tables); load a capture first: capstate load CAPTURE --db URL`,
          { file: displayUrl(url) },
        );
      await client.query(postgresSchema() + postgresSeed());
      await rebuildViews(client, schema);
    } else {
      const meta = new Map(
        (await client.query<{ key: string; value: string }>('select key, value from meta')).rows.map((r) => [r.key, r.value]),
      );
      const version = Number(meta.get('schema_version'));
      const latest = postgresSchemaVersion();
      if (version > latest)
        throw new CapstateError(
          'newer-store',
          `${displayUrl(url)} was written by a newer capstate (schema version ${version}); upgrade capstate`,
          { file: displayUrl(url) },
        );
      if (version < latest && onlyVocabularyRowsSince(version)) {
        // Issue 44: the migrations since only add vocabulary rows; a write command adds them.
        if (!opts.write)
          throw new CapstateError(
            'stale-store',
            `${displayUrl(url)} is at schema version ${version}, this capstate needs ${latest}; ${fix}`,
            {
              file: displayUrl(url),
            },
          );
        await client.query(postgresVocabularyTopUp());
      } else if (version < latest)
        throw new CapstateError(
          'stale-store',
          `${displayUrl(url)} is at schema version ${version}, this capstate needs ${latest}; PostgreSQL stores cannot be migrated yet: load the captures into a new schema`,
          { file: displayUrl(url) },
        );
      if (meta.get('queries_sha256') !== queriesHash()) {
        if (!opts.write)
          throw new CapstateError('stale-store', `the views in ${displayUrl(url)} were built from other queries; ${fix}`, {
            file: displayUrl(url),
          });
        await rebuildViews(client, schema);
      }
    }
    await client.query('commit');
    return { url, client, schema, close: () => client.end() };
  } catch (e) {
    await client.query('rollback').catch(() => {});
    await client.end().catch(() => {});
    throw postgresError(e, url);
  }
}

/** A typed Kysely instance on the store (one connection; `info` reads through it). */
export function postgresKysely(url: string): Kysely<DB> {
  return new Kysely<DB>({
    dialect: new PostgresDialect({
      pool: async () => {
        const driver = await loadPg();
        const pool = new driver.Pool({ ...clientConfig(driver, url), max: 1 });
        pool.on('error', () => {});
        return pool;
      },
    }),
  });
}

/**
 * Capture ids taken from the store's sequence before a load works the captures out, so the
 * state it stores names the ids they will have here. Ids of captures that turn out to be
 * loaded already are left unused (a sequence never gives a number twice).
 */
export async function reserveCaptureIds(store: PostgresStore, n: number): Promise<number[]> {
  const r = await store.client.query<{ id: number }>(
    "select nextval(pg_get_serial_sequence('capture', 'id')) as id from generate_series(1, $1::int) order by 1",
    [n],
  );
  return r.rows.map((x) => x.id);
}
