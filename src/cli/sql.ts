import { defineCommand } from 'citty';
import { CapstateError } from '../errors.js';
import { DEFAULT_SQL_TIMEOUT_MS, rowsAsObjects, runReadOnlySql } from '../store/read-only-sql.js';
import { dbArg, jsonArg, out, parseTimeout, printJson } from './common.js';

/** Rows printed at most, so a careless `select *` cannot flood a terminal or an agent (not for --csv, an export). */
const DEFAULT_MAX_ROWS = 10_000;
/**
 * `sql --json`'s own shape version (issue 19): 2 since rows became objects keyed by column
 * (version 1 had positional arrays). Other commands' documents stay at JSON_FORMAT_VERSION.
 */
export const SQL_JSON_FORMAT_VERSION = 2;
/** Bytes of rows printed at most (as compact JSON): a huge cell stops the read, not the process (out of memory). */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export const args = {
  ...dbArg,
  ...jsonArg,
  csv: {
    type: 'boolean',
    description: 'Print CSV (RFC 4180: CRLF after every line; NULL is an empty field, BLOBs are base64)',
    default: false,
  },
  'max-rows': {
    type: 'string',
    description: `Stop after this many rows (default ${DEFAULT_MAX_ROWS}; with --csv, no limit)`,
    valueHint: 'N',
  },
  'max-bytes': {
    type: 'string',
    description: `Stop before the rows pass this many bytes as JSON (default ${DEFAULT_MAX_BYTES / 1024 / 1024} MiB)`,
    valueHint: 'N',
  },
  timeout: {
    type: 'string',
    description: `Stop the query after this many seconds (default ${DEFAULT_SQL_TIMEOUT_MS / 1000}; 0: no limit)`,
    valueHint: 'SECONDS',
  },
} as const;

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
    description:
      'Run a read-only SQL query against the store (tables and rule views). ' +
      'Output: a table, --json (rows as objects keyed by column; BLOBs as {"base64": …}) or --csv (RFC 4180, CRLF line ends; NULL prints as an empty field)',
  },
  args: { ...args, query: { type: 'positional', description: 'One SQL statement that returns rows', required: true, valueHint: 'QUERY' } },
  async run({ args: a }) {
    const max = a['max-rows'] === undefined ? (a.csv ? Number.MAX_SAFE_INTEGER : DEFAULT_MAX_ROWS) : Number(a['max-rows']);
    if (!Number.isInteger(max) || max < 1) throw new CapstateError('usage', '--max-rows must be a positive integer', {}, 2);
    const maxBytes = a['max-bytes'] === undefined ? DEFAULT_MAX_BYTES : Number(a['max-bytes']);
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new CapstateError('usage', '--max-bytes must be a positive integer', {}, 2);
    const timeoutMs = parseTimeout(a.timeout, '--timeout');
    if (a.json && a.csv) throw new CapstateError('usage', '--json and --csv cannot be used together', {}, 2);
    const r = await runReadOnlySql(a.db, a.query, { maxRows: max, maxBytes, timeoutMs, timeoutHint: '--timeout SECONDS' });
    if (r.unfit)
      process.stderr.write(
        `capstate: stopped after ${r.rows.length} row${r.rows.length === 1 ? '' : 's'}: the next row would pass ${maxBytes} bytes (--max-bytes); select fewer or smaller columns (length(x), substr(x, 1, 100))\n`,
      );
    else if (r.truncated) process.stderr.write(`capstate: stopped after ${max} rows (--max-rows)\n`);
    if (a.json)
      return printJson({
        format_version: SQL_JSON_FORMAT_VERSION,
        ok: true,
        columns: r.columns,
        rows: rowsAsObjects(r.columns, r.rows, 'sql --json'),
        truncated: r.truncated,
      });
    if (a.csv) {
      // RFC 4180: every record, the last one too, ends with CRLF.
      process.stdout.write([r.columns, ...r.rows].map((row) => row.map(csvCell).join(',') + '\r\n').join(''));
      return;
    }
    const text = r.rows.map((row) => row.map(cell).map((s) => s.replace(/\s+/g, ' ')));
    const width = r.columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((row) => row[i].length))));
    const fmt = (row: string[]) =>
      row
        .map((s, i) => (s.length > width[i] ? s.slice(0, width[i] - 1) + '…' : s.padEnd(width[i])))
        .join('  ')
        .trimEnd();
    out(
      [
        fmt(r.columns),
        width.map((w) => '-'.repeat(w)).join('  '),
        ...text.map(fmt),
        `(${r.rows.length} row${r.rows.length === 1 ? '' : 's'})`,
      ].join('\n'),
    );
  },
});
