/**
 * Ad hoc read-only SQL with a deadline (STYLE.md §14): a read-only connection, only
 * statements that return rows, integers exact, and a time and byte budget so a runaway
 * query (`WITH RECURSIVE` without an end) or a huge cell (`zeroblob(400000000)`) ends
 * with an error instead of freezing the caller or exhausting its memory.
 *
 * The statement runs in a child process, not a worker thread: this SQLite build omits the
 * progress callback and better-sqlite3 does not expose sqlite3_interrupt, so nothing can
 * stop a statement while it is inside sqlite3_step. Worker.terminate() only takes effect
 * when the thread returns to JavaScript: a runaway step kept its thread spinning, the
 * terminate promise never settled, and process.exit() then hung too (docs/decisions.md).
 * A child process can always be killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { CapstateError } from '../errors.js';
import { openStore } from './open.js';
import { isPostgresUrl } from './postgres-store.js';
import { runPostgresSql } from './postgres-sql.js';
import { statementSnapshot } from './snapshot.js';

/** The default deadline of one read-only statement. */
export const DEFAULT_SQL_TIMEOUT_MS = 5_000;

export interface ReadOnlySqlOptions {
  /** Rows returned at most; one more row marks the result truncated. */
  maxRows: number;
  /** Milliseconds before the statement is stopped with `sql-timeout` (0: no deadline). */
  timeoutMs?: number;
  /**
   * Bytes of rows returned at most, measured as their compact JSON (BLOBs as base64): the
   * read stops before the row that would pass it, truncated, with `unfit`.
   */
  maxBytes?: number;
  /** Extra stop condition per row (the caller's own budget); false stops the read there. */
  fits?: (row: unknown[]) => boolean;
  /** How the caller changes the deadline, for the timeout message (`--timeout SECONDS`). */
  timeoutHint?: string;
}

export interface SqlResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
  unfit?: boolean;
}

/** Rows per message from the child, and a soft byte size that also ends a message. */
const BATCH_ROWS = 500;
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * The child: opens its own read-only connection, reads the statement's rows in batches,
 * and sends each batch only when the parent asks for more, so at most one batch is in
 * flight. Rows are measured here so a row past the byte budget is never sent.
 */
const CHILD = `
const Database = require(process.argv[1]);
let it = null;
const size = (v) => v === null ? 4 : typeof v === 'string' ? Buffer.byteLength(JSON.stringify(v)) :
  (typeof v === 'object' && v instanceof Uint8Array) ? 13 + Math.ceil(v.length / 3) * 4 : String(v).length;
process.on('message', (m) => {
  try {
    if (m.start) {
      const db = new Database(m.file, { readonly: true, fileMustExist: true });
      for (const v of m.views) for (const s of v.statements) db.exec(s);
      let stmt;
      try {
        stmt = db.prepare(m.query);
      } catch (e) {
        return process.send({ error: String(e && e.message || e), code: 'bad-sql' });
      }
      if (!stmt.reader) return process.send({ error: 'not a query', code: 'not-a-query' });
      it = { iter: stmt.safeIntegers(true).raw(true).iterate(), left: m.maxBytes, rows: 0, maxRows: m.maxRows };
      process.send({ columns: stmt.columns().map((c) => c.name) });
    }
    const batch = [];
    let bytes = 0;
    while (batch.length < ${BATCH_ROWS} && bytes < ${BATCH_BYTES}) {
      if (it.rows === it.maxRows + 1) return process.send({ done: true, rows: batch });
      const n = it.iter.next();
      if (n.done) return process.send({ done: true, rows: batch });
      let b = 1;
      for (const v of n.value) b += size(v) + 1;
      if (it.left !== null && b > it.left) return process.send({ done: true, unfit: true, rows: batch });
      if (it.left !== null) it.left -= b;
      bytes += b;
      it.rows++;
      batch.push(n.value);
    }
    process.send({ rows: batch });
  } catch (e) {
    process.send({ error: String(e && e.message || e) });
  }
});
`;

const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** Running statements' processes: killed when this process exits, so none outlives it. */
const running = new Set<ChildProcess>();
let killOnExit = false;

const exact = (v: unknown): unknown => {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
};

/**
 * Runs one statement on a read-only connection: the connection refuses writes, only
 * statements that return rows are accepted, integers come back exact (beyond 2^53 as
 * bigint), and the deadline and budgets of `opts` hold.
 *
 * @example await runReadOnlySql('env.sqlite', 'select count(*) from record', { maxRows: 10, timeoutMs: 5000 })
 */
export async function runReadOnlySql(file: string, query: string, opts: ReadOnlySqlOptions): Promise<SqlResult> {
  if (isPostgresUrl(file)) return runPostgresSql(file, query, opts);
  // The store checks (stale views, newer schema) answer at once, on the caller's side. The
  // statement is compiled in the child, under the deadline: compiling one over the rule
  // views' expanded chain took 33 s on a 2 MB capture, and a server answering calls must
  // not stop for it. The child first evaluates each rule view the statement names into a
  // TEMP table (store/snapshot.ts), so the statement compiles over those rows.
  openStore(file).close();
  const views = statementSnapshot(query);

  const timeoutMs = opts.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS;
  const fits = opts.fits ?? (() => true);
  const child = spawn(process.execPath, ['-e', CHILD, betterSqlite3], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
    windowsHide: true,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!killOnExit) {
    killOnExit = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    if (stderr.length < 4096) stderr += d;
  });

  return new Promise<SqlResult>((resolve, reject) => {
    const rows: unknown[][] = [];
    let settled = false;
    const finish = (err: Error | null, result?: SqlResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // SIGKILL: the child may be inside a step that no signal handler would get to.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (err) reject(err);
      else resolve(result!);
    };
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () =>
              finish(
                new CapstateError(
                  'sql-timeout',
                  `the query ran longer than ${timeoutMs / 1000} s and was stopped; make it cheaper (a LIMIT, a narrower WHERE, an end to a recursive CTE)` +
                    `${opts.timeoutHint ? ` or allow more time (${opts.timeoutHint})` : ''}`,
                  { query, timeout_ms: timeoutMs },
                ),
              ),
            timeoutMs,
          )
        : undefined;
    timer?.unref?.();
    child.on('error', (e) => finish(new CapstateError('sql-failed', `the query could not be started: ${e.message}`, { query })));
    child.on('exit', (code, signal) =>
      finish(
        new CapstateError(
          'sql-failed',
          `the query stopped unexpectedly (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`,
          { query },
        ),
      ),
    );
    let columns: string[] = [];
    child.on('message', (m: { columns?: string[]; rows?: unknown[][]; done?: boolean; unfit?: boolean; error?: string; code?: string }) => {
      if (m.code === 'bad-sql') return finish(new CapstateError('bad-sql', `the query does not compile: ${m.error}`, { query }));
      if (m.code === 'not-a-query')
        return finish(
          new CapstateError('not-a-query', 'only statements that return rows run here (the store is opened read-only)', { query }),
        );
      if (m.error !== undefined) return finish(new CapstateError('sql-failed', `the query failed: ${m.error}`, { query }));
      if (m.columns) {
        columns = m.columns;
        return child.send({});
      }
      for (const raw of m.rows ?? []) {
        if (rows.length === opts.maxRows) return finish(null, { columns, rows, truncated: true });
        const r = raw.map(exact);
        if (!fits(r)) return finish(null, { columns, rows, truncated: true, unfit: true });
        rows.push(r);
      }
      if (m.unfit) return finish(null, { columns, rows, truncated: true, unfit: true });
      if (m.done) return finish(null, { columns, rows, truncated: false });
      child.send({});
    });
    child.send({ start: true, file, query, views, maxRows: opts.maxRows, maxBytes: opts.maxBytes ?? null });
  });
}

/**
 * Rows as objects keyed by column, as sqlite-utils and Datasette print them (`sql --json`, and
 * MCP's query_store since issue 46). Two columns of one name would lose a value, so that is an
 * error naming them; `who` says which output keys rows so (`sql --json`, `query_store`).
 */
export function rowsAsObjects(columns: string[], rows: unknown[][], who: string): Record<string, unknown>[] {
  const twice = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (twice.length) {
    throw new CapstateError(
      'duplicate-column',
      `the query returns more than one column named ${[...new Set(twice)].map((c) => JSON.stringify(c)).join(', ')}; ` +
        `${who} keys rows by column name: give each column its own name (select a.id as a_id, b.id as b_id …)`,
      { columns },
      1,
    );
  }
  return rows.map((row) => Object.fromEntries(columns.map((c, i) => [c, row[i]])));
}
