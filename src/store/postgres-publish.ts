/**
 * Publishing captures a load has worked out in its private SQLite file into a PostgreSQL store
 * (issue 20). Several loaders may publish at once, each capture whole or not at all.
 *
 * Bodies are content-addressed and shared between captures, so they go first, in short
 * transactions of their own, a body always with its member rows (`publishBodies`): two loaders
 * adding the same body (every capture has the empty one) then wait for each other only for one
 * such batch, not for each other's whole capture. What makes a capture, its row, records,
 * tools and every other table, goes in one transaction after that (`publishOnce`): all of the
 * command's captures or none. If that fails, the bodies this command added and nothing refers
 * to are taken out again (`dropUnused`); one another loader has come to share stays.
 *
 * Capture ids were taken from the store's sequence before the load (so the stored state
 * already names them); records, tools and bodies get their ids here. A capture whose bytes the
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
export interface ExistingCheck {
  (store: PostgresStore, existingId: number, sha256: string): Promise<void>;
}

async function copyInto(store: PostgresStore, target: string, columns: string[], chunks: Iterable<string>): Promise<void> {
  const stream = store.client.query(copyFrom(`copy ${target} (${columns.map(ident).join(', ')}) from stdin`));
  await pipeline(Readable.from(chunks), stream);
}

/**
 * Serialization and deadlock failures between concurrent loaders, and a shared body another
 * loader's failed load took out just before this one referred to it (23503): tried again, a
 * few times.
 */
const RETRY = new Set(['40001', '40P01', '23503']);

/** `fn` again, after a short random pause, when it fails for one of RETRY's reasons (at most five tries). */
async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!RETRY.has(String((e as { code?: unknown }).code ?? '')) || attempt >= 5) throw e;
      await new Promise((r) => setTimeout(r, 50 * attempt * Math.random()));
    }
  }
}

/** `fn` in one server transaction: committed when it returns, rolled back when it throws. */
async function inTransaction<T>(store: PostgresStore, fn: () => Promise<T>): Promise<T> {
  await store.client.query('begin');
  try {
    const result = await fn();
    await store.client.query('commit');
    return result;
  } catch (e) {
    await store.client.query('rollback').catch(() => {});
    throw e;
  }
}

/** A table's DDL as schema/*.sql holds it. */
const ddlOf = (name: string) => tablesByReference().find((t) => t.name === name)!.sql;

/**
 * Publishes the captures `ids` of the SQLite store `db` into `store`. `checkExisting` runs for
 * each capture the store already holds (a different --manifest override, a --sensitive value).
 */
export async function publishCaptures(db: Sqlite, store: PostgresStore, ids: number[], checkExisting: ExistingCheck): Promise<Published> {
  const inserted: number[] = [];
  try {
    // A try that fails leaves its bodies for the next (they are whole, each with its members).
    return await retrying(async () => {
      const bodies = await publishBodies(db, store, ids);
      inserted.push(...bodies.inserted);
      return inTransaction(store, () => publishOnce(db, store, ids, checkExisting, bodies.map));
    });
  } catch (e) {
    await dropUnused(store, inserted);
    throw e instanceof CapstateError && e.code === 'postgres-nul' ? nulRefused(db, e) : postgresError(e, store.url);
  }
}

/** A U+0000 PostgreSQL cannot hold, named by the capture file and record it came from. */
function nulRefused(db: Sqlite, e: CapstateError): CapstateError {
  const { record_id: recordId, body_id: bodyId, path } = e.context as { record_id?: number; body_id?: number; path?: string };
  const where = db
    .prepare(`select c.path, r.ordinal, r.request_body_id = ? as in_request from record r join capture c on c.id = r.capture_id
      where r.id = ? or r.request_body_id = ? or r.response_body_id = ? order by r.id limit 1`)
    .get(bodyId ?? null, recordId ?? null, bodyId ?? null, bodyId ?? null) as
    | { path: string; ordinal: number; in_request: number | null }
    | undefined;
  const part =
    bodyId === undefined
      ? path === 'header.value' || path === 'header.name'
        ? 'a header'
        : 'its URL or a recorded field'
      : `its ${where?.in_request ? 'request' : 'response'} body${path?.startsWith('member_node') ? ' (a JSON string or member name)' : ''}`;
  const fix = 'PostgreSQL text cannot hold it; remove it from the capture, or load this capture into a SQLite store (--db FILE.sqlite)';
  if (!where) return new CapstateError('postgres-nul', `a row of ${path} holds the character U+0000; ${fix}`, {});
  return new CapstateError('postgres-nul', `${part} holds the character U+0000; ${fix}`, { file: where.path, record: where.ordinal });
}

/** CAPSTATE_TRACE_PUBLISH=1: each table's copy time on stderr (for the bench and profiling). */
const TRACE = process.env.CAPSTATE_TRACE_PUBLISH === '1';

/** Ids given out by the server, by the SQLite file's own ids. */
type IdMap = Map<number, number>;

interface PublishedBodies {
  /** The store's id of every body of the captures published, by the SQLite file's id. */
  map: IdMap;
  /** The store ids of the bodies this command added (what a failed publish takes out again). */
  inserted: number[];
}

/** A batch of bodies in one transaction: about this many bytes of body text (and their members). */
const BODY_BATCH_BYTES = 2_000_000;

/**
 * The bodies of the captures the store does not hold yet, in batches, each batch in a
 * transaction of its own with the member rows of the bodies it adds, so that a body in the
 * store always has its members. The file's order is kept: a new store numbers bodies as SQLite
 * does. A batch that deadlocks with another loader's (two shared bodies met in other orders) is
 * tried again.
 */
async function publishBodies(db: Sqlite, store: PostgresStore, ids: number[]): Promise<PublishedBodies> {
  const q = (text: string, values?: unknown[]) => store.client.query(text, values);
  const result: PublishedBodies = { map: new Map(), inserted: [] };
  const shas = db.prepare('select id, sha256 from capture where id in (select value from json_each(?))').all(JSON.stringify(ids)) as {
    id: number;
    sha256: string;
  }[];
  const held = new Set(
    (await q('select sha256 from capture where sha256 = any($1)', [shas.map((c) => c.sha256)])).rows.map((r) => r.sha256 as string),
  );
  const fresh = shas.filter((c) => !held.has(c.sha256)).map((c) => c.id);
  if (fresh.length === 0) return result;

  const t0 = TRACE ? performance.now() : 0;
  const source = copySource(db, 'body', ddlOf('body'), { captureIds: fresh });
  await q('drop table if exists s_body');
  await q('create temp table s_body (like body)');
  try {
    await copyInto(store, 's_body', source.columns, source.chunks());
    await q('alter table s_body add primary key (id)'); // each batch picks its rows by id
    const into = source.columns.filter((c) => c !== 'id').map(ident);
    const sizes = (
      await q('select id, coalesce(octet_length(content), 0) + coalesce(octet_length(content_bytes), 0) as size from s_body order by id')
    ).rows as { id: number; size: string }[];
    const batches: number[][] = [[]];
    let bytes = 0;
    for (const b of sizes) {
      if (bytes >= BODY_BATCH_BYTES) {
        batches.push([]);
        bytes = 0;
      }
      batches[batches.length - 1].push(b.id);
      bytes += Number(b.size);
    }
    for (const batch of batches) {
      const { map, added } = await retrying(() =>
        inTransaction(store, async () => {
          const added = (
            await q(
              `insert into body (${into.join(', ')}) select ${into.map((c) => `s.${c}`).join(', ')} from s_body s where s.id = any($1) order by s.id
            on conflict (sha256, kind, coalesce(unusable_reason, '')) do nothing returning id`,
              [batch],
            )
          ).rows.map((r) => r.id as number);
          const rows = (
            await q(
              `select s.id as local, b.id from s_body s join body b
            on b.sha256 = s.sha256 and b.kind = s.kind and coalesce(b.unusable_reason, '') = coalesce(s.unusable_reason, '') where s.id = any($1)`,
              [batch],
            )
          ).rows as { local: number; id: number }[];
          const map: IdMap = new Map(rows.map((r) => [r.local, r.id]));
          const isNew = new Set(added);
          const newLocal = rows.filter((r) => isNew.has(r.id)).map((r) => r.local);
          if (newLocal.length > 0) {
            const m = copySource(db, 'member_node', ddlOf('member_node'), { bodyIds: newLocal, bodyIdMap: map });
            await copyInto(store, 'member_node', m.columns, m.chunks());
          }
          return { map, added };
        }),
      );
      for (const [local, id] of map) result.map.set(local, id);
      result.inserted.push(...added);
    }
  } catch (e) {
    await dropUnused(store, result.inserted);
    throw e;
  } finally {
    await q('drop table if exists s_body').catch(() => {});
  }
  if (TRACE) process.stderr.write(`[publish] body and member_node: ${(performance.now() - t0).toFixed(0)} ms\n`);
  return result;
}

/**
 * Takes out the bodies `ids` this command added, with their members, when no record refers to
 * them (a publish that failed after its bodies went in). Best effort: a body another loader has
 * just come to share stays, and so does everything when the server cannot be reached.
 */
async function dropUnused(store: PostgresStore, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const q = (text: string, values?: unknown[]) => store.client.query(text, values);
  await inTransaction(store, async () => {
    await q(
      `create temp table unused_body on commit drop as select b.id from body b where b.id = any($1)
        and not exists (select 1 from record r where r.request_body_id = b.id) and not exists (select 1 from record r where r.response_body_id = b.id)`,
      [ids],
    );
    await q('delete from member_node where body_id in (select id from unused_body)');
    await q('delete from body where id in (select id from unused_body)');
  }).catch(() => {});
}

async function publishOnce(
  db: Sqlite,
  store: PostgresStore,
  ids: number[],
  checkExisting: ExistingCheck,
  bodies: IdMap,
): Promise<Published> {
  const q = (text: string, values?: unknown[]) => store.client.query(text, values);
  const tables = tablesByReference().filter((t) => !SEEDED.has(t.name));

  // Captures: their ids are the store's already; one whose bytes it holds is left out.
  await q('create temp table s_capture (like capture) on commit drop');
  const captures = copySource(db, 'capture', ddlOf('capture'), { captureIds: ids });
  await copyInto(store, 's_capture', captures.columns, captures.chunks());
  const added = (await q('insert into capture select * from s_capture order by id on conflict (sha256) do nothing returning id')).rows.map(
    (r) => r.id as number,
  );
  const existing = (
    await q('select c.id, c.sha256 from s_capture s join capture c on c.sha256 = s.sha256 where c.id <> s.id order by s.id')
  ).rows as { id: number; sha256: string }[];
  for (const e of existing) await checkExisting(store, e.id, e.sha256);
  if (added.length === 0) return { added, existing };
  const maps: Record<string, IdMap> = { body: bodies };

  // Tools and records: ids taken from the store's sequences, given in the file's order.
  for (const table of ['tool', 'record']) {
    const local = db
      .prepare(`select id from "${table}" where capture_id in (select value from json_each(?)) order by id`)
      .pluck()
      .all(JSON.stringify(added)) as number[];
    const given = (
      await q(`select nextval(pg_get_serial_sequence($1, 'id')) as id from generate_series(1, $2::int) order by 1`, [table, local.length])
    ).rows.map((r) => r.id as number);
    maps[table] = new Map(local.map((id, i) => [id, given[i]]));
  }

  // Every other table straight into the store, its references renumbered on the way.
  for (const t of tables) {
    if (t.name === 'capture' || t.name === 'body' || t.name === 'member_node') continue;
    const refs = referencesOf(t.sql);
    if (maps[t.name]) refs.set('id', t.name);
    const t0 = TRACE ? performance.now() : 0;
    const rows: CopyOptions = { captureIds: added };
    const columns = copySource(db, t.name, t.sql, rows).columns;
    const renumber = columns.flatMap((c, i) => {
      const map = maps[refs.get(c) ?? ''];
      return map ? [{ i, map, column: c }] : [];
    });
    const transform =
      renumber.length === 0
        ? undefined
        : (row: unknown[]) => {
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
    await inTransaction(store, async () => {
      for (const t of [...tables].reverse()) await q(`delete from ${ident(t.name)} where capture_id = $1`, [captureId]);
      for (const t of tables) {
        const source = copySource(db, t.name, t.sql, { captureIds: [captureId] });
        await copyInto(store, ident(t.name), source.columns, source.chunks());
      }
    });
  } catch (e) {
    throw postgresError(e, store.url);
  }
}
