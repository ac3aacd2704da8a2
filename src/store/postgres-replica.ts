/**
 * A private SQLite copy of some captures of a PostgreSQL store (issue 20): what `state`,
 * `manifest`, `report`, `serve`, `mcp`, `card`, `check-effects` and `search` read when `--db`
 * is a PostgreSQL URL. The capture's rows — its records and tools, the bodies they carry and
 * their members, its manifest and stored state — are copied with their ids, so every answer is
 * the one a SQLite store of the same captures gives, and a served tool call never waits on the
 * network (docs/decisions.md, "PostgreSQL is where captures are kept…").
 *
 * Rows come through `COPY (SELECT …) TO STDOUT` in text format and are turned back into
 * SQLite's values: member_node's key into an integer where `key_is_index` says so and its
 * value into the storage class `type` names; body content from text or bytes.
 */
import { to as copyTo } from 'pg-copy-streams';
import { openStore, storedColumns, type Sqlite } from './open.js';
import { tablesByReference } from './postgres-schema.js';
import { ident, postgresError, type PostgresStore } from './postgres-store.js';
import { temporaryStore, type TemporaryStore } from './temp-store.js';

/** COPY text's escapes undone (PostgreSQL writes \b \f \n \r \t \v and doubles backslashes). */
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const uncopy = (s: string): string | null =>
  s === '\\N' ? null : s.includes('\\') ? s.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c) : s;

type Convert = (v: string | null, row: (string | null)[]) => unknown;

const byType: Record<string, Convert> = {
  bigint: (v) => (v === null ? null : BigInt(v)),
  'double precision': (v) => (v === null ? null : Number(v)),
  text: (v) => v,
  bytea: (v) => (v === null ? null : Buffer.from(v.slice(2), 'hex')),
};

/**
 * Which rows of a PostgreSQL table the captures `ids` own (postgres-copy.ts's rule, in
 * PostgreSQL); every row of a capture's table when `ids` is null. The ids are integers checked
 * here, written as an array literal: `COPY (SELECT …)` takes no parameters.
 */
function filterOf(table: string, sql: string, ids: number[] | null): string | null {
  if (ids !== null && !ids.every(Number.isSafeInteger)) throw new Error('capstate: capture ids must be integers');
  const mine = (column: string) => (ids === null ? 'true' : `${column} = any('{${ids.join(',')}}'::bigint[])`);
  const bodies = `select request_body_id from record where ${mine('capture_id')} union select response_body_id from record where ${mine('capture_id')}`;
  if (table === 'capture') return mine('id');
  if (table === 'body') return `id in (${bodies})`;
  if (table === 'member_node') return `body_id in (${bodies})`;
  if (/^\s+capture_id\s/m.test(sql)) return mine('capture_id');
  if (/^\s+record_id\s/m.test(sql)) return `record_id in (select id from record where ${mine('capture_id')})`;
  return null;
}

/** The PostgreSQL columns read for SQLite's `columns` of `table`, and how each value is turned back. */
function readPlan(table: string, columns: string[], pgTypes: Map<string, string>): { select: string[]; convert: Convert[] } {
  if (table === 'member_node') {
    // key, key_is_index, value, type in fixed places after SQLite's columns.
    const select = [...columns.map((c) => (c === 'key' || c === 'value' ? 'null' : ident(c))), 'key', 'key_is_index', 'value', 'type'];
    const n = columns.length;
    const convert = columns.map((c): Convert => {
      if (c === 'key') return (_, row) => (row[n + 1] === '1' ? BigInt(row[n]!) : row[n]);
      if (c === 'value') {
        return (_, row) => {
          const value = row[n + 2];
          const type = row[n + 3];
          if (value === null) return null;
          if (type === 'integer' || type === 'true' || type === 'false') return BigInt(value);
          if (type === 'real') return Number(value);
          return value;
        };
      }
      return byType[pgTypes.get(c)!] ?? byType.text;
    });
    return { select, convert };
  }
  if (table === 'body') {
    // PostgreSQL keeps bodies as they are (no `coding`, postgres-schema.ts): the copy's are too.
    const select = columns.map((c) => (c === 'content' ? 'content, content_bytes' : c === 'coding' ? 'null' : ident(c)));
    const convert: Convert[] = [];
    for (const c of columns) {
      if (c === 'content') {
        const at = convert.length;
        convert.push((v, row) => (v !== null ? v : row[at + 1] === null ? null : Buffer.from(row[at + 1]!.slice(2), 'hex')));
        convert.push(() => undefined); // content_bytes: folded into content
      } else convert.push(byType[pgTypes.get(c)!] ?? byType.text);
    }
    return { select, convert };
  }
  return { select: columns.map(ident), convert: columns.map((c) => byType[pgTypes.get(c)!] ?? byType.text) };
}

async function copyTable(
  store: PostgresStore,
  db: Sqlite,
  table: string,
  columns: string[],
  select: string[],
  convert: Convert[],
  where: string | null,
): Promise<void> {
  const insert = db.prepare(
    `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
  const stream = store.client.query(
    copyTo(`copy (select ${select.join(', ')} from ${ident(table)}${where ? ` where ${where}` : ''}) to stdout`),
  );
  let rest = '';
  const row = (line: string) => {
    const raw = line.split('\t').map(uncopy);
    const values: unknown[] = [];
    convert.forEach((f, i) => {
      const x = f(raw[i], raw);
      if (x !== undefined) values.push(x);
    });
    insert.run(values);
  };
  for await (const chunk of stream) {
    const text = rest + (chunk as Buffer).toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop()!;
    for (const line of lines) row(line);
  }
  if (rest) row(rest);
}

/**
 * Copies captures `ids` (every capture when null) of `store` into the new SQLite store at
 * `file`, with the store's vocabulary. The file is written with journalling off: nobody else
 * sees it before this returns.
 */
export async function replicateCaptures(store: PostgresStore, file: string, ids: number[] | null): Promise<void> {
  const db = openStore(file, { write: true });
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    const q = (text: string, values?: unknown[]) => store.client.query(text, values);
    await q('begin isolation level repeatable read read only');
    try {
      const pgTypes = new Map<string, Map<string, string>>();
      for (const r of (
        await q('select table_name as t, column_name as c, data_type as d from information_schema.columns where table_schema = $1', [
          store.schema,
        ])
      ).rows as { t: string; c: string; d: string }[]) {
        (pgTypes.get(r.t) ?? pgTypes.set(r.t, new Map()).get(r.t)!).set(r.c, r.d);
      }
      db.exec('BEGIN');
      db.exec('delete from vocabulary');
      for (const t of tablesByReference()) {
        if (t.name === 'meta') continue;
        const columns = storedColumns(db, t.name);
        const { select, convert } = readPlan(t.name, columns, pgTypes.get(t.name) ?? new Map());
        await copyTable(store, db, t.name, columns, select, convert, t.name === 'vocabulary' ? null : filterOf(t.name, t.sql, ids));
      }
      db.exec('COMMIT');
      await q('commit');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      await q('rollback').catch(() => {});
      throw e;
    }
    db.pragma('journal_mode = DELETE');
  } catch (e) {
    throw postgresError(e, store.url);
  } finally {
    db.close();
  }
}

/** A replica in a temporary store of its own (temp-store.ts), removed by the caller or at exit. */
export function temporaryReplica(store: PostgresStore, ids: number[] | null): Promise<TemporaryStore> {
  return temporaryStore((file) => replicateCaptures(store, file, ids));
}
