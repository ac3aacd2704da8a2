/**
 * `capstate sql --db postgres://…` (issue 20): the user's statement runs on the server itself,
 * over every capture the store holds, in PostgreSQL's dialect. The same promises as on SQLite
 * (read-only-sql.ts): a read-only transaction, only statements that return rows (the statement
 * is read as a subquery), a deadline the server enforces (`statement_timeout`), at most
 * `maxRows` rows and `maxBytes` of them; 64-bit integers exact.
 */
import { CapstateError } from '../errors.js';
import { ident, openPostgresStore } from './postgres-store.js';
import { postgresView } from './postgres-views.js';
import { definitionAs, statementViews } from './snapshot.js';
import type { ReadOnlySqlOptions, SqlResult } from './read-only-sql.js';

/** A row's size as the SQLite road measures it: its compact JSON, bytes as base64. */
const rowBytes = (row: unknown[]): number => Buffer.byteLength(JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? v.toString()
  : v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('base64') : v)));

export async function runPostgresSql(url: string, query: string, opts: ReadOnlySqlOptions): Promise<SqlResult> {
  const store = await openPostgresStore(url);
  const timeoutMs = opts.timeoutMs ?? 0;
  const statement = query.trim().replace(/;\s*$/, '');
  try {
    // One snapshot for the views and the statement; read-only from the statement on (a
    // transaction may become read-only at any point, never the other way).
    await store.client.query('begin isolation level repeatable read');
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
      await store.client.query('set transaction read only');
      await timeLeft();
      r = await store.client.query({ text: `select * from (${statement}\n) as capstate_query limit ${opts.maxRows + 1}`, rowMode: 'array' });
    } catch (e) {
      const code = String((e as { code?: unknown }).code ?? '');
      const message = (e as Error).message;
      if (code === '57014') {
        throw new CapstateError('sql-timeout', `the query ran longer than ${timeoutMs / 1000} s and was stopped; make it cheaper (a LIMIT, a narrower WHERE, an end to a recursive CTE)` +
          `${opts.timeoutHint ? ` or allow more time (${opts.timeoutHint})` : ''}`, { query, timeout_ms: timeoutMs });
      }
      if (code === '25006') throw new CapstateError('not-a-query', 'only statements that return rows run here (the store is opened read-only)', { query });
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
