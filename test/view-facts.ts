/**
 * Fact rows in, view rows out (STYLE: views tested as views, in the style of Soufflé and
 * dbt tests): a fresh migrated store (a copy of the run's template, helpers.ts `migratedStore`), fact rows inserted directly — no loader, no manifest
 * inference — and the view under test read back.
 */
import { join } from 'node:path';
import { flattenMembers, memberNodeParams } from '../src/load/bodies.js';
import { MEMBER_NODE_INSERT } from '../src/load/member-tree.js';
import { type JsonValue } from '../src/json/exact.js';
import { type Sqlite } from '../src/store/open.js';
import { withStatementSnapshot } from '../src/store/snapshot.js';
import { migratedStore } from './helpers.js';

export interface ToolFacts {
  method?: string;
  template: string;
  root?: string;
  isQueryPost?: boolean;
}

export interface RecordFacts {
  /** The record's tool; null for a record no tool groups (another origin, OQ-3). */
  tool: number | null;
  method?: string;
  path: string;
  query?: string;
  status?: number;
  /** Start in ms since the capture began; null for no start time (ES-6 record order). */
  start?: number | null;
  duration?: number;
  /** The response body as a JSON value; undefined for no body. */
  body?: JsonValue;
  /** Path parameter values, in template order. */
  pathParams?: string[];
  /** The URL is redacted (ES-8, OQ-8: such a write bounds every type). */
  redacted?: boolean;
}

export interface FactStore {
  db: Sqlite;
  tool(t: ToolFacts): number;
  /** Inserts the next record (ordinals count from 1); returns its record id. */
  record(r: RecordFacts): number;
  /**
   * Inserts a body row and returns its id: a JSON value (its members flattened, as the loader
   * does), or bytes as a binary body (kind `base64`, BLOB content, unusable).
   */
  body(value: JsonValue | Buffer): number;
  rows(sql: string, ...params: unknown[]): unknown[][];
}

let stores = 0;

/** A new store under `dir` with one capture, ready for fact rows. */
export function factStore(dir: string): FactStore {
  const db = migratedStore(join(dir, `facts-${process.pid}-${stores++}.sqlite`), { scratch: true });
  const capture = Number(
    db
      .prepare("insert into capture (path, sha256, bytes, format, loaded_at) values ('facts.har', ?, 0, 'har', '2026-01-01T00:00:00Z')")
      .run(`facts-${stores}`).lastInsertRowid,
  );
  const insertBody = db.prepare(
    'insert into body (sha256, bytes, kind, is_usable, unusable_reason, content, coding) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const insertMember = db.prepare(MEMBER_NODE_INSERT);
  const none = Number(insertBody.run('none', 0, 'none', 0, 'no-body', null, null).lastInsertRowid);
  let bodies = 0;
  const body = (value: JsonValue | Buffer | undefined): number => {
    if (value === undefined) return none;
    if (Buffer.isBuffer(value)) {
      return Number(insertBody.run(`binary-${bodies++}`, value.length, 'base64', 0, 'binary', value, null).lastInsertRowid);
    }
    const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
    const id = Number(insertBody.run(`json-${bodies++}`, Buffer.byteLength(text), 'json', 1, null, text, null).lastInsertRowid);
    flattenMembers(value, (m) => insertMember.run(memberNodeParams(id, m)));
    return id;
  };
  const insertTool =
    db.prepare(`insert into tool (capture_id, name, method, template, root_path, is_query_post, ends_in_param, template_source)
    values (?, ?, ?, ?, ?, ?, ?, 'inferred')`);
  const insertRecord = db.prepare(`insert into record (capture_id, ordinal, method, url, origin, path, query, is_url_redacted, status,
    started_ms, duration_ms, request_body_id, response_body_id, tool_id) values (?, ?, ?, ?, 'http://app.test', ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertPathParam = db.prepare('insert into path_param (record_id, position, name, value) values (?, ?, ?, ?)');
  const insertQueryParam = db.prepare('insert into query_param (record_id, position, name, value) values (?, ?, ?, ?)');
  const toolMethods = new Map<number, string>();
  let ordinal = 0;
  return {
    db,
    tool(t) {
      const method = t.method ?? 'GET';
      const root = t.root ?? t.template.split('/{')[0];
      const id = Number(
        insertTool.run(capture, `${method} ${t.template}`, method, t.template, root, t.isQueryPost ? 1 : 0, /\}$/.test(t.template) ? 1 : 0)
          .lastInsertRowid,
      );
      toolMethods.set(id, method);
      return id;
    },
    record(r) {
      const method = r.method ?? (r.tool === null ? undefined : toolMethods.get(r.tool)) ?? 'GET';
      ordinal++;
      const start = r.start === undefined ? ordinal * 1000 : r.start;
      const url = `http://app.test${r.path}${r.query ? `?${r.query}` : ''}`;
      const id = Number(
        insertRecord.run(
          capture,
          ordinal,
          method,
          url,
          r.path,
          r.query ?? null,
          r.redacted ? 1 : 0,
          r.status ?? 200,
          start === null ? null : Date.UTC(2026, 0, 1) + start,
          r.duration ?? 20,
          none,
          body(r.body),
          r.tool,
        ).lastInsertRowid,
      );
      (r.pathParams ?? []).forEach((v, i) => insertPathParam.run(id, i, `p${i}`, v));
      // The query's name/value pairs in request order, as the loader stores them.
      [...new URLSearchParams(r.query ?? '')].forEach(([n, v], i) => insertQueryParam.run(id, i, n, v));
      return id;
    },
    body,
    // Views read as `capstate sql` reads them, evaluated once over the facts as they are now.
    rows: (sql, ...params) =>
      withStatementSnapshot(
        db,
        sql,
        () =>
          db
            .prepare(sql)
            .raw()
            .all(...params) as unknown[][],
      ),
  };
}

/** Items (list, item and PATCH tools under /api/items): the store most view tests start from. */
export function itemsFacts(dir: string): FactStore & { list: number; item: number; patch: number } {
  const f = factStore(dir);
  return Object.assign(f, {
    list: f.tool({ template: '/api/items' }),
    item: f.tool({ template: '/api/items/{id}' }),
    patch: f.tool({ method: 'PATCH', template: '/api/items/{id}' }),
  });
}
