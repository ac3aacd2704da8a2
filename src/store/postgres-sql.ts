/**
 * `capstate sql --db postgres://…` (issue 20): the user's statement runs on the server itself,
 * over every capture the store holds, in PostgreSQL's dialect. The same promises as on SQLite
 * (read-only-sql.ts): read-only, only statements that return rows, a deadline the server
 * enforces (`statement_timeout`), at most `maxRows` rows and `maxBytes` of them; 64-bit
 * integers exact.
 *
 * Read-only by construction (issue 42), not by a wrapper a statement can close: the text is
 * sent alone through the extended query protocol, whose Parse takes exactly one statement
 * (`select 1; commit; …` is refused by the server); the session is read-only by default and
 * the transaction is made read-only before the statement; the statement runs as the read-only
 * role where the store's role may create or use it (postgres-reader.ts); and statements that
 * are not queries, or that call the functions reaching the server's files, programs, settings
 * or other sessions, are refused before they are sent (readOnlyStatementProblem).
 */
import type pg from 'pg';
import { CapstateError } from '../errors.js';
import { asReader } from './postgres-reader.js';
import { ident, openPostgresStore } from './postgres-store.js';
import { postgresView } from './postgres-views.js';
import { definitionAs, statementViews } from './snapshot.js';
import type { ReadOnlySqlOptions, SqlResult } from './read-only-sql.js';

/** A row's size as the SQLite road measures it: its compact JSON, bytes as base64. */
const rowBytes = (row: unknown[]): number =>
  Buffer.byteLength(
    JSON.stringify(row, (_, v) =>
      typeof v === 'bigint'
        ? v.toString()
        : v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data)
          ? Buffer.from(v.data).toString('base64')
          : v,
    ),
  );

/**
 * Functions a read-only statement must not call: they read the server's files or directories,
 * run or reach programs and other servers, change settings (`set_config('role', …)`), or act
 * on other sessions and the server itself. The read-only role cannot call most of them anyway;
 * this list also holds where the store's own role is a superuser that no role could be made for.
 */
const REFUSED_FUNCTIONS =
  /^(pg_read_file|pg_read_binary_file|pg_ls_\w+|pg_stat_file|pg_file_\w+|pg_logdir_ls|lo_\w+|dblink\w*|set_config|pg_terminate_backend|pg_cancel_backend|pg_reload_conf|pg_rotate_logfile\w*|pg_promote|pg_switch_wal|pg_create_\w+|pg_drop_replication_slot|pg_replication_\w+|pg_advisory\w+|pg_try_advisory\w+|pg_notify|query_to_xml\w*|cursor_to_xml\w*|table_to_xml\w*|schema_to_xml\w*|database_to_xml\w*|pg_import_system_collations|txid_current|pg_current_xact_id)$/;

/** The first words a query may start with. */
const QUERY_HEADS = new Set(['select', 'with', 'values', 'table']);

/**
 * Why `statement` may not run on a read-only `sql` connection, or null when it may. Words are
 * read case-folded wherever they stand (quoted identifiers included); `U&"…"` escapes, which
 * could spell a refused name in other letters, are refused as such.
 */
export function readOnlyStatementProblem(statement: string): string | null {
  const text = statement.replace(/^(\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)+/, '');
  const head = /^[a-z]+/i.exec(text)?.[0]?.toLowerCase() ?? '';
  if (!QUERY_HEADS.has(head))
    return `only one query (SELECT, WITH, VALUES or TABLE) runs here, not ${head ? head.toUpperCase() : 'this statement'}`;
  if (/\bu&['"]/i.test(statement))
    return 'Unicode-escaped names and strings (U&"…") are not accepted here; write the characters themselves';
  for (const word of statement.toLowerCase().match(/[a-z_][a-z0-9_$]*/g) ?? []) {
    if (REFUSED_FUNCTIONS.test(word))
      return `${word} is not available here: it reaches the server's files, programs, settings or other sessions`;
  }
  return null;
}

/**
 * A query sent through the extended protocol that stops after `rows` rows: the portal is
 * executed for that many and then closed (a plain pg Query would fetch the rest).
 */
async function limitedQuery(text: string, rows: number): Promise<pg.Query> {
  // node-pg is loaded when a PostgreSQL store is opened, not at start-up (postgres-store.ts).
  const { Query } = (await import('pg')).default;
  const q = new Query({ text, rowMode: 'array', queryMode: 'extended', ...(rows > 0 ? { rows } : {}) } as pg.QueryConfig);
  type Connection = { sync(): void };
  const internal = q as unknown as { handlePortalSuspended(c: Connection): void; handleError(e: Error, c: Connection): void };
  internal.handlePortalSuspended = (connection) => connection.sync();
  // With a row count node-pg sends no Sync after Execute; after an error the server then
  // waits for one, and the connection would hang (pg-cursor does the same).
  const handleError = internal.handleError.bind(q);
  internal.handleError = (e, connection) => {
    if (rows > 0) connection.sync();
    handleError(e, connection);
  };
  return q;
}

function submit(client: pg.Client, q: pg.Query): Promise<{ fields: { name: string }[]; rows: unknown[][] }> {
  return new Promise((resolve, reject) => {
    q.on('error', reject);
    q.on('end', (result) => resolve(result as unknown as { fields: { name: string }[]; rows: unknown[][] }));
    client.query(q);
  });
}

export async function runPostgresSql(url: string, query: string, opts: ReadOnlySqlOptions): Promise<SqlResult> {
  const statement = query.trim().replace(/;\s*$/, '');
  const problem = readOnlyStatementProblem(statement);
  if (problem) throw new CapstateError('not-a-query', `${problem} (the store is opened read-only)`, { query });
  const store = await openPostgresStore(url);
  const timeoutMs = opts.timeoutMs ?? 0;
  try {
    const reader = await asReader(store);
    // Every transaction of this session starts read-only, whatever a statement manages to end.
    await store.client.query('set session characteristics as transaction read only');
    // One snapshot for the views and the statement. The views' temporary tables are created
    // first, which a read-only transaction refuses (CREATE of any kind); the transaction turns
    // read-only before the statement, and may never turn back.
    await store.client.query('begin isolation level repeatable read read write');
    const deadline = Date.now() + timeoutMs;
    const timeLeft = async () => {
      const left = timeoutMs > 0 ? Math.max(1, Math.floor(deadline - Date.now())) : 0;
      await store.client.query(`set local statement_timeout = ${left}`);
    };
    let r;
    try {
      // As on SQLite (snapshot.ts): each rule view the statement names, and every view under
      // them, evaluated once into a temporary table of its name, which the statement reads
      // instead of the view (pg_temp is searched first). Expanded in the statement, the deeper
      // views took PostgreSQL 20 s to plan and a minute to run on a few small captures.
      for (const v of statementViews(statement)) {
        await timeLeft();
        await store.client.query(definitionAs(postgresView(v.sql), `create temp table ${ident(v.name)} on commit drop`));
        await store.client.query(`analyze ${ident(v.name)}`);
      }
      // The views' rows are the session's own temporary tables: the reader is let read them.
      if (reader)
        for (const v of statementViews(statement)) await store.client.query(`grant select on ${ident(v.name)} to ${ident(reader)}`);
      await store.client.query('set transaction read only');
      if (reader) await store.client.query(`set local role ${ident(reader)}`);
      await timeLeft();
      r = await submit(store.client, await limitedQuery(statement, Number.isSafeInteger(opts.maxRows + 1) ? opts.maxRows + 1 : 0));
    } catch (e) {
      const code = String((e as { code?: unknown }).code ?? '');
      const message = (e as Error).message;
      if (code === '57014') {
        throw new CapstateError(
          'sql-timeout',
          `the query ran longer than ${timeoutMs / 1000} s and was stopped; make it cheaper (a LIMIT, a narrower WHERE, an end to a recursive CTE)` +
            `${opts.timeoutHint ? ` or allow more time (${opts.timeoutHint})` : ''}`,
          { query, timeout_ms: timeoutMs },
        );
      }
      if (code === '25006' || code === '42501')
        throw new CapstateError('not-a-query', `only statements that read run here (the store is opened read-only): ${message}`, { query });
      if (code === '42601' && /multiple commands/.test(message))
        throw new CapstateError('not-a-query', 'only one statement runs here (the store is opened read-only)', { query });
      if (code.startsWith('42')) throw new CapstateError('bad-sql', `the query does not compile (PostgreSQL): ${message}`, { query });
      throw new CapstateError('sql-failed', `the query failed: ${message}`, { query });
    }
    const columns = r.fields.map((f) => f.name);
    const rows: unknown[][] = [];
    let bytes = 0;
    const fits = opts.fits ?? (() => true);
    for (const row of r.rows as unknown[][]) {
      if (rows.length === opts.maxRows) return { columns, rows, truncated: true };
      bytes += rowBytes(row);
      if ((opts.maxBytes !== undefined && bytes > opts.maxBytes) || !fits(row)) return { columns, rows, truncated: true, unfit: true };
      rows.push(row);
    }
    return { columns, rows, truncated: false };
  } finally {
    await store.client.query('rollback').catch(() => {});
    await store.close();
  }
}
