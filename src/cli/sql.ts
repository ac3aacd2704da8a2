import { defineCommand } from 'citty';
import { CapstateError } from '../errors.js';
import { openStore } from '../store/open.js';
import { dbArg, jsonArg, out, printJson } from './common.js';

/** Rows printed at most, so a careless `select *` cannot flood a terminal or an agent. */
const DEFAULT_MAX_ROWS = 10_000;

export const args = {
  ...dbArg,
  ...jsonArg,
  csv: { type: 'boolean', description: 'Print CSV (RFC 4180: CRLF after every line; NULL is an empty field, BLOBs are base64)', default: false },
  'max-rows': { type: 'string', description: `Stop after this many rows (default ${DEFAULT_MAX_ROWS})`, valueHint: 'N' },
} as const;

export interface SqlResult { columns: string[]; rows: unknown[][]; truncated: boolean; unfit?: boolean }

/**
 * Runs one statement on a read-only connection (STYLE.md §14): the connection refuses
 * writes, and only statements that return rows are accepted. Integers come back exact.
 */
/** `fits` may stop the read at a row (a byte budget): the rows before it are returned, truncated, with `unfit`. */
export function runReadOnlySql(file: string, query: string, maxRows = DEFAULT_MAX_ROWS, fits: (row: unknown[]) => boolean = () => true): SqlResult {
  const db = openStore(file);
  try {
    let stmt;
    try {
      stmt = db.prepare(query);
    } catch (e) {
      throw new CapstateError('bad-sql', `the query does not compile: ${(e as Error).message}`, { query });
    }
    if (!stmt.reader) throw new CapstateError('not-a-query', 'only statements that return rows run here (the store is opened read-only)', { query });
    stmt.safeIntegers(true).raw(true);
    const columns = stmt.columns().map((c) => c.name);
    const rows: unknown[][] = [];
    let truncated = false;
    let unfit = false;
    try {
      for (const row of stmt.iterate() as Iterable<unknown[]>) {
        if (rows.length === maxRows) { truncated = true; break; }
        const r = row.map((v) => (typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v));
        if (!fits(r)) { truncated = unfit = true; break; }
        rows.push(r);
      }
    } catch (e) {
      throw new CapstateError('sql-failed', `the query failed: ${(e as Error).message}`, { query });
    }
    return { columns, rows, truncated, ...(unfit ? { unfit } : {}) };
  } finally {
    db.close();
  }
}

function cell(v: unknown): string {
  if (v === null) return 'NULL';
  if (Buffer.isBuffer(v)) return `<blob ${v.length} bytes>`;
  return String(v);
}

function csvCell(v: unknown): string {
  if (v === null) return '';
  const s = Buffer.isBuffer(v) ? v.toString('base64') : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export default defineCommand({
  meta: {
    name: 'sql',
    description: 'Run a read-only SQL query against the store (tables and rule views). ' +
      'Output: a table, --json (BLOBs as {"base64": …}) or --csv (RFC 4180, CRLF line ends; NULL prints as an empty field)',
  },
  args: { ...args, query: { type: 'positional', description: 'One SQL statement that returns rows', required: true, valueHint: 'QUERY' } },
  run({ args: a }) {
    const max = a['max-rows'] === undefined ? DEFAULT_MAX_ROWS : Number(a['max-rows']);
    if (!Number.isInteger(max) || max < 1) throw new CapstateError('usage', '--max-rows must be a positive integer', {}, 2);
    if (a.json && a.csv) throw new CapstateError('usage', '--json and --csv cannot be used together', {}, 2);
    const r = runReadOnlySql(a.db, a.query, max);
    if (r.truncated) process.stderr.write(`capstate: stopped after ${max} rows (--max-rows)\n`);
    if (a.json) return printJson({ ok: true, columns: r.columns, rows: r.rows, truncated: r.truncated });
    if (a.csv) {
      // RFC 4180: every record, the last one too, ends with CRLF.
      process.stdout.write([r.columns, ...r.rows].map((row) => row.map(csvCell).join(',') + '\r\n').join(''));
      return;
    }
    const text = r.rows.map((row) => row.map(cell).map((s) => s.replace(/\s+/g, ' ')));
    const width = r.columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((row) => row[i].length))));
    const fmt = (row: string[]) => row.map((s, i) => (s.length > width[i] ? s.slice(0, width[i] - 1) + '…' : s.padEnd(width[i]))).join('  ').trimEnd();
    out([fmt(r.columns), width.map((w) => '-'.repeat(w)).join('  '), ...text.map(fmt), `(${r.rows.length} row${r.rows.length === 1 ? '' : 's'})`].join('\n'));
  },
});
