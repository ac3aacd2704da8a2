/**
 * Publishing captures a load has worked out in its private SQLite file into a PostgreSQL store
 * (issue 20), in one transaction: all of the command's captures or none. Several loaders may
 * publish at once: capture ids were taken from the store's sequence before the load (so the
 * stored state already names them); records, tools and bodies get their ids here, and a body
 * another capture already holds is shared, as in a SQLite store. A capture whose bytes the
 * store holds already is not published again (its id is reported), which keeps a re-load
 * idempotent even when two loaders race with the same file: the capture's unique SHA-256
 * makes the second wait for the first and then find it.
 *
 * The rows go through `COPY … FROM STDIN` into temporary tables shaped like the store's and
 * from there into the store with their references renumbered. The statements are written from
 * the store's own column lists (information_schema) and the reference rules of
 * postgres-copy.ts, not from user input.
 */
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import type { Sqlite } from './open.js';
import { copySource, SEEDED, type CopyOptions } from './postgres-copy.js';
import { tablesByReference } from './postgres-schema.js';
import { CapstateError } from '../errors.js';
import { ident, postgresError, type PostgresStore } from './postgres-store.js';

/** Which table each `…_id` column refers to, by the table's DDL. */
function referencesOf(sql: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const m of sql.matchAll(/^\s+([a-z_]+)\s+INTEGER\b[^\n]*REFERENCES\s+"?([a-z_]+)"?/gm)) refs.set(m[1], m[2]);
  return refs;
}

export interface Published {
  /** Captures the store now holds from this command, by id. */
  added: number[];
  /** Captures it held already (same SHA-256): this command's id for it, and the store's. */
  existing: { sha256: string; id: number }[];
}

/** What a capture already in the store must agree with before a re-load may be skipped. */
export interface ExistingCheck { (store: PostgresStore, existingId: number, sha256: string): Promise<void> }

async function copyInto(store: PostgresStore, target: string, columns: string[], chunks: Iterable<string>): Promise<void> {
  const stream = store.client.query(copyFrom(`copy ${target} (${columns.map(ident).join(', ')}) from stdin`));
  await pipeline(Readable.from(chunks), stream);
}

/** Serialization and deadlock failures between concurrent loaders: the transaction is tried again, a few times. */
const RETRY = new Set(['40001', '40P01']);

/**
 * Publishes the captures `ids` of the SQLite store `db` into `store`. `checkExisting` runs for
 * each capture the store already holds (a different --manifest override, a --sensitive value).
 */
export async function publishCaptures(db: Sqlite, store: PostgresStore, ids: number[], checkExisting: ExistingCheck): Promise<Published> {
  for (let attempt = 1; ; attempt++) {
    try {
      await store.client.query('begin');
      const published = await publishOnce(db, store, ids, checkExisting);
      await store.client.query('commit');
      return published;
    } catch (e) {
      await store.client.query('rollback').catch(() => {});
      const code = String((e as { code?: unknown }).code ?? '');
      if (RETRY.has(code) && attempt < 5) {
        await new Promise((r) => setTimeout(r, 50 * attempt * Math.random()));
        continue;
      }
      throw e instanceof CapstateError && e.code === 'postgres-nul' ? nulRefused(db, e) : postgresError(e, store.url);
    }
  }
}

/** A U+0000 PostgreSQL cannot hold, named by the capture file and record it came from. */
function nulRefused(db: Sqlite, e: CapstateError): CapstateError {
  const { record_id: recordId, body_id: bodyId, path } = e.context as { record_id?: number; body_id?: number; path?: string };
  const where = db.prepare(`select c.path, r.ordinal, r.request_body_id = ? as in_request from record r join capture c on c.id = r.capture_id
      where r.id = ? or r.request_body_id = ? or r.response_body_id = ? order by r.id limit 1`)
    .get(bodyId ?? null, recordId ?? null, bodyId ?? null, bodyId ?? null) as { path: string; ordinal: number; in_request: number | null } | undefined;
  const part = bodyId === undefined ? (path === 'header.value' || path === 'header.name' ? 'a header' : 'its URL or a recorded field')
    : `its ${where?.in_request ? 'request' : 'response'} body${path?.startsWith('member_node') ? ' (a JSON string or member name)' : ''}`;
  const fix = 'PostgreSQL text cannot hold it; remove it from the capture, or load this capture into a SQLite store (--db FILE.sqlite)';
  if (!where) return new CapstateError('postgres-nul', `a row of ${path} holds the character U+0000; ${fix}`, {});
  return new CapstateError('postgres-nul', `${part} holds the character U+0000; ${fix}`, { file: where.path, record: where.ordinal });
}

/** CAPSTATE_TRACE_PUBLISH=1: each table's copy time on stderr (for the bench and profiling). */
const TRACE = process.env.CAPSTATE_TRACE_PUBLISH === '1';

/** Ids given out by the server, by the SQLite file's own ids. */
type IdMap = Map<number, number>;

async function publishOnce(db: Sqlite, store: PostgresStore, ids: number[], checkExisting: ExistingCheck): Promise<Published> {
  const q = (text: string, values?: unknown[]) => store.client.query(text, values);
  const tables = tablesByReference().filter((t) => !SEEDED.has(t.name));
  const ddl = (name: string) => tables.find((t) => t.name === name)!.sql;
  const stage = async (table: string, opts: CopyOptions) => {
    await q(`create temp table ${ident(`s_${table}`)} (like ${ident(table)}) on commit drop`);
    const source = copySource(db, table, ddl(table), opts);
    await copyInto(store, ident(`s_${table}`), source.columns, source.chunks());
    return source.columns;
  };

  // Captures: their ids are the store's already; one whose bytes it holds is left out.
  await stage('capture', { captureIds: ids });
  const added = (await q('insert into capture select * from s_capture order by id on conflict (sha256) do nothing returning id')).rows.map((r) => r.id as number);
  const existing = (await q('select c.id, c.sha256 from s_capture s join capture c on c.sha256 = s.sha256 where c.id <> s.id order by s.id')).rows as { id: number; sha256: string }[];
  for (const e of existing) await checkExisting(store, e.id, e.sha256);
  if (added.length === 0) return { added, existing };

  // Bodies: the ones the store lacks are added, in the file's order (a new store numbers them as
  // SQLite does); two loaders adding shared bodies in other orders may deadlock, and the server
  // then fails one of them, which is tried again (publishCaptures). Every body gets its store id.
  const bodyColumns = await stage('body', { captureIds: added });
  const into = bodyColumns.filter((c) => c !== 'id');
  await q('create temp table new_body (id bigint primary key) on commit drop');
  await q(`with ins as (insert into body (${into.map(ident).join(', ')}) select ${into.map((c) => `s.${ident(c)}`).join(', ')} from s_body s order by s.id
      on conflict (sha256, kind, coalesce(unusable_reason, '')) do nothing returning id) insert into new_body select id from ins`);
  const bodyRows = (await q(`select s.id as local, b.id, exists (select 1 from new_body n where n.id = b.id) as new from s_body s
      join body b on b.sha256 = s.sha256 and b.kind = s.kind and coalesce(b.unusable_reason, '') = coalesce(s.unusable_reason, '')`)).rows as { local: number; id: number; new: boolean }[];
  const maps: Record<string, IdMap> = { body: new Map(bodyRows.map((r) => [r.local, r.id])) };
  const newBodies = bodyRows.filter((r) => r.new).map((r) => r.local);

  // Tools and records: ids taken from the store's sequences, given in the file's order.
  for (const table of ['tool', 'record']) {
    const local = db.prepare(`select id from "${table}" where capture_id in (select value from json_each(?)) order by id`).pluck().all(JSON.stringify(added)) as number[];
    const given = (await q(`select nextval(pg_get_serial_sequence($1, 'id')) as id from generate_series(1, $2::int) order by 1`, [table, local.length])).rows.map((r) => r.id as number);
    maps[table] = new Map(local.map((id, i) => [id, given[i]]));
  }

  // Every other table straight into the store, its references renumbered on the way.
  for (const t of tables) {
    if (t.name === 'capture' || t.name === 'body') continue;
    const refs = referencesOf(t.sql);
    if (maps[t.name]) refs.set('id', t.name);
    const t0 = TRACE ? performance.now() : 0;
    if (t.name === 'member_node') {
      const source = copySource(db, t.name, t.sql, { bodyIds: newBodies, bodyIdMap: maps.body });
      await copyInto(store, ident(t.name), source.columns, source.chunks());
      if (TRACE) process.stderr.write(`[publish] ${t.name}: ${(performance.now() - t0).toFixed(0)} ms\n`);
      continue;
    }
    const rows: CopyOptions = { captureIds: added };
    const columns = copySource(db, t.name, t.sql, rows).columns;
    const renumber = columns.flatMap((c, i) => {
      const map = maps[refs.get(c) ?? ''];
      return map ? [{ i, map, column: c }] : [];
    });
    const transform = renumber.length === 0 ? undefined : (row: unknown[]) => {
      for (const { i, map, column } of renumber) {
        if (row[i] === null) continue;
        const id = map.get(Number(row[i]));
        if (id === undefined) throw new Error(`capstate: ${t.name}.${column} ${row[i]} refers to a row this load did not publish`);
        row[i] = id;
      }
    };
    await copyInto(store, ident(t.name), columns, copySource(db, t.name, t.sql, { ...rows, transform }).chunks());
    if (TRACE) process.stderr.write(`[publish] ${t.name}: ${(performance.now() - t0).toFixed(0)} ms\n`);
  }
  return { added, existing };
}

/**
 * Replaces capture `captureId`'s stored state in `store` with the one `db` (a replica of the
 * capture whose state was computed again) holds, in one transaction: `capstate migrate` on a
 * PostgreSQL store. The replica keeps the store's ids, so the rows go in as they are.
 */
export async function replaceCaptureState(db: Sqlite, store: PostgresStore, captureId: number): Promise<void> {
  const tables = tablesByReference().filter((t) => t.name.startsWith('state_'));
  const q = (text: string, values?: unknown[]) => store.client.query(text, values);
  try {
    await q('begin');
    for (const t of [...tables].reverse()) await q(`delete from ${ident(t.name)} where capture_id = $1`, [captureId]);
    for (const t of tables) {
      const source = copySource(db, t.name, t.sql, { captureIds: [captureId] });
      await copyInto(store, ident(t.name), source.columns, source.chunks());
    }
    await q('commit');
  } catch (e) {
    await q('rollback').catch(() => {});
    throw postgresError(e, store.url);
  }
}
