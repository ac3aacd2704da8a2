/**
 * A SQLite store's rows as PostgreSQL `COPY … FROM STDIN` text (issue 20), in the layout of
 * src/store/postgres-schema.ts: what a PostgreSQL store holds for the same captures. It lets
 * the rule views be compared on both back ends over the same facts before the loader writes
 * PostgreSQL itself, and is the road for moving an existing store to a server.
 *
 * Values are read exactly (64-bit integers as BigInt) and written in COPY's text format:
 * tab between columns, `\N` for NULL, backslash, tab, newline and carriage return escaped,
 * bytes as `\x…` hex. Retyped columns follow postgres-schema.ts: member_node's key as text
 * with `key_is_index`, its value as SQLite prints it (`cast(value as text)`), its worked-out
 * `type` and `position` stored; body content as text or bytes.
 */
import { CapstateError } from '../errors.js';
import type { Sqlite } from './open.js';
import { tablesByReference } from './postgres-schema.js';

/** Tables a new PostgreSQL store is seeded with (postgresSeed), not copied. */
const SEEDED = new Set(['meta', 'vocabulary']);

/** One value in COPY text format. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? v.toFixed(0) : String(v);
  if (Buffer.isBuffer(v)) return `\\\\x${v.toString('hex')}`;
  const s = String(v);
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** The SELECT that reads `table` from SQLite in the PostgreSQL column order. */
function selectFor(table: string): string {
  if (table === 'member_node') {
    return `select body_id, parent, cast(key as text) as key, typeof(key) = 'integer' as key_is_index, node, depth, shape,
      cast(value as text) as value, pointer, position, type from member_node order by body_id, parent, key`;
  }
  if (table === 'body') {
    return `select id, sha256, bytes, kind, is_usable, unusable_reason,
      case when typeof(content) = 'text' then content end as content,
      case when typeof(content) = 'blob' then content end as content_bytes from body order by id`;
  }
  return `select * from "${table}"`;
}

export interface CopyTable { table: string; columns: string[]; rows: number; text: string }

/**
 * Every table of `db` but the seeded ones, as COPY text, in the order their references allow.
 * Throws a CapstateError naming the table, row and column for text PostgreSQL cannot hold
 * (U+0000).
 */
export function postgresCopy(db: Sqlite): CopyTable[] {
  return tablesByReference().map((t) => t.name).filter((t) => !SEEDED.has(t)).map((table) => {
    const stmt = db.prepare(selectFor(table)).safeIntegers(true).raw(true);
    const columns = stmt.columns().map((c) => c.name);
    const lines: string[] = [];
    let n = 0;
    for (const row of stmt.iterate() as Iterable<unknown[]>) {
      n++;
      row.forEach((v, i) => {
        if (typeof v === 'string' && v.includes('\u0000')) {
          throw new CapstateError('postgres-nul', `${table} row ${n}, column ${columns[i]}: the text holds U+0000, which PostgreSQL text cannot hold`, { path: `${table}.${columns[i]}` });
        }
      });
      lines.push(row.map(cell).join('\t'));
    }
    return { table, columns, rows: n, text: lines.length ? lines.join('\n') + '\n' : '' };
  });
}
