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
export const SEEDED = new Set(['meta', 'vocabulary']);

/** One value in COPY text format. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? v.toFixed(0) : String(v);
  if (Buffer.isBuffer(v)) return `\\\\x${v.toString('hex')}`;
  const s = String(v);
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/**
 * Which rows of `table` belong to the captures in `?` (a JSON array of ids): a table keyed by
 * capture, by record, or a body (and its members) one of their records carries. Null for a
 * table of the whole store (meta, vocabulary).
 */
export function captureFilter(table: string, sql: string): string | null {
  const bodies = `select request_body_id from record where capture_id in (select value from json_each(@ids))
    union select response_body_id from record where capture_id in (select value from json_each(@ids))`;
  if (table === 'capture') return 'id in (select value from json_each(@ids))';
  if (table === 'body') return `id in (${bodies})`;
  if (table === 'member_node') return `body_id in (${bodies})`;
  if (/^\s+capture_id\s/m.test(sql)) return 'capture_id in (select value from json_each(@ids))';
  if (/^\s+record_id\s/m.test(sql)) return 'record_id in (select id from record where capture_id in (select value from json_each(@ids)))';
  if (SEEDED.has(table)) return null;
  throw new Error(
    `capstate: schema/${table}.sql: a table with no capture_id or record_id; say in postgres-copy.ts which capture its rows belong to`,
  );
}

/** The SELECT that reads `table` from SQLite in the PostgreSQL column order, of the rows `where` keeps. */
function selectFor(table: string, where = 'true'): string {
  if (table === 'member_node') {
    return `select body_id, parent, cast(key as text) as key, typeof(key) = 'integer' as key_is_index, node, depth, shape,
      cast(value as text) as value, pointer, position, type from member_node where ${where} order by body_id, parent, key`;
  }
  if (table === 'body') {
    return `select id, sha256, bytes, kind, is_usable, unusable_reason,
      case when typeof(content) = 'text' then content end as content,
      case when typeof(content) = 'blob' then content end as content_bytes from body where ${where} order by id`;
  }
  return `select * from "${table}" where ${where}`;
}

export interface CopyTable {
  table: string;
  columns: string[];
  rows: number;
  text: string;
}

/** A table's rows as COPY text, a chunk of lines at a time, for a stream into `COPY … FROM STDIN`. */
export interface CopySource {
  table: string;
  columns: string[];
  chunks(): Generator<string>;
}

/** Lines per chunk handed to the stream (a few hundred KB of COPY text). */
const CHUNK_ROWS = 2000;

/** Which rows a copy takes, and how each is changed on the way (ids given out by the server). */
export interface CopyOptions {
  /** Only the rows of these captures (captureFilter). */
  captureIds?: number[];
  /** member_node: only the members of these bodies. */
  bodyIds?: number[];
  /** The row in PostgreSQL's column order, changed in place (renumbered references). */
  transform?: (row: unknown[]) => void;
  /** member_node: each body id as the server numbers it (the members are written in SQL). */
  bodyIdMap?: Map<number, number>;
}

/**
 * A text column in COPY text, in SQLite: NULL as \N, the four characters COPY reads escaped
 * (the replacements only for a value holding one: most hold none, and the test is cheaper).
 */
const copyText = (x: string) =>
  `ifnull(iif(${x} glob '*[\\' || char(9, 10, 13) || ']*', ` +
  `replace(replace(replace(replace(${x}, '\\', '\\\\'), char(9), '\\t'), char(10), '\\n'), char(13), '\\r'), ${x}), '\\N')`;
const copyInteger = (x: string) => `ifnull(${x}, '\\N')`;

/**
 * member_node's rows as COPY lines built by SQLite itself: a large body has hundreds of
 * thousands of members, and a line made in C is several times cheaper than a row converted
 * in JavaScript. The values are the ones selectFor's columns give, cell by cell.
 */
function memberLines(
  db: Sqlite,
  where: string,
  ids: number[] | undefined,
  map: Map<number, number> | undefined,
): { columns: string[]; rows: () => Iterable<[string, number]> } {
  if (map) {
    db.exec(
      'create temp table if not exists capstate_body_map (local integer primary key, remote integer not null); delete from temp.capstate_body_map',
    );
    const put = db.prepare('insert into temp.capstate_body_map values (?, ?)');
    db.transaction(() => {
      for (const [local, remote] of map) put.run(local, remote);
    })();
  }
  const cells = [
    map ? 'm.remote' : 'n.body_id',
    'n.parent',
    copyText('cast(n.key as text)'),
    "(typeof(n.key) = 'integer')",
    'n.node',
    copyInteger('n.depth'),
    copyInteger('n.shape'),
    copyText('cast(n.value as text)'),
    copyText('n.pointer'),
    'n.position',
    copyText('n.type'),
  ];
  const stmt = db
    .prepare(`select ${cells.join(' || char(9) || ')} as line, n.body_id from member_node n
    ${map ? 'join temp.capstate_body_map m on m.local = n.body_id' : ''} where ${where} order by n.body_id, n.parent, n.key`)
    .raw(true);
  return {
    columns: ['body_id', 'parent', 'key', 'key_is_index', 'node', 'depth', 'shape', 'value', 'pointer', 'position', 'type'],
    rows: () => stmt.iterate(...(ids ? [{ ids: JSON.stringify(ids) }] : [])) as Iterable<[string, number]>,
  };
}

/**
 * `table`'s rows in `db` as COPY text, all of them or those `opts` keeps. The chunks throw a
 * CapstateError naming the table, row and column for text PostgreSQL cannot hold (U+0000).
 */
export function copySource(db: Sqlite, table: string, sql: string, opts: CopyOptions = {}): CopySource {
  const where = opts.bodyIds ? 'body_id in (select value from json_each(@ids))' : opts.captureIds ? captureFilter(table, sql) : null;
  if (table === 'member_node' && !opts.transform) {
    const members = memberLines(db, where ?? 'true', opts.bodyIds ?? opts.captureIds, opts.bodyIdMap);
    return {
      table,
      columns: members.columns,
      *chunks() {
        let lines: string[] = [];
        let n = 0;
        for (const [line, bodyId] of members.rows()) {
          n++;
          if (line.includes('\u0000')) {
            throw new CapstateError('postgres-nul', `member_node row ${n}: the text holds U+0000, which PostgreSQL text cannot hold`, {
              path: 'member_node.value',
              body_id: bodyId,
            });
          }
          lines.push(line);
          if (lines.length >= CHUNK_ROWS) {
            yield lines.join('\n') + '\n';
            lines = [];
          }
        }
        if (lines.length) yield lines.join('\n') + '\n';
      },
    };
  }
  const stmt = db
    .prepare(selectFor(table, where ?? 'true'))
    .safeIntegers(true)
    .raw(true);
  const columns = stmt.columns().map((c) => c.name);
  const ids = opts.bodyIds ?? opts.captureIds;
  return {
    table,
    columns,
    *chunks() {
      let n = 0;
      let lines: string[] = [];
      const rows = (where ? stmt.iterate({ ids: JSON.stringify(ids) }) : stmt.iterate()) as Iterable<unknown[]>;
      for (const row of rows) {
        n++;
        row.forEach((v, i) => {
          if (typeof v === 'string' && v.includes('\u0000')) {
            // Where the row came from, so a loader can name the record (postgres-publish.ts).
            const at = (name: string) => {
              const j = columns.indexOf(name);
              return j < 0 || row[j] === null ? undefined : Number(row[j]);
            };
            throw new CapstateError(
              'postgres-nul',
              `${table} row ${n}, column ${columns[i]}: the text holds U+0000, which PostgreSQL text cannot hold`,
              {
                path: `${table}.${columns[i]}`,
                record_id: table === 'record' ? at('id') : at('record_id'),
                body_id: table === 'body' ? at('id') : at('body_id'),
              },
            );
          }
        });
        opts.transform?.(row);
        lines.push(row.map(cell).join('\t'));
        if (lines.length >= CHUNK_ROWS) {
          yield lines.join('\n') + '\n';
          lines = [];
        }
      }
      if (lines.length) yield lines.join('\n') + '\n';
    },
  };
}

/**
 * Every table of `db` but the seeded ones, as COPY text, in the order their references allow.
 * Throws a CapstateError naming the table, row and column for text PostgreSQL cannot hold
 * (U+0000).
 */
export function postgresCopy(db: Sqlite): CopyTable[] {
  return tablesByReference()
    .filter((t) => !SEEDED.has(t.name))
    .map(({ name, sql }) => {
      const source = copySource(db, name, sql);
      const text = [...source.chunks()].join('');
      return { table: name, columns: source.columns, rows: text ? text.split('\n').length - 1 : 0, text };
    });
}
