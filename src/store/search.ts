/**
 * Full-text search over the store's bodies and URLs (SQLite FTS5, which better-sqlite3
 * ships). Two external-content FTS5 tables: `search_body` indexes the text of each body
 * (the `body_content` view; rowid = body id) and `search_url` indexes `record.url` (rowid = record id). External
 * content means the index keeps only its tokens, not a second copy of the text, and holds
 * nothing the store does not hold: credentials the loader redacted are not in the bodies or
 * URLs, so they are not in the index either. Plain FTS5 with its default tokenizer over plain
 * SQL (issue 46): any SQLite client with FTS5 (Python's sqlite3, sqlite-utils, Datasette, the
 * sqlite3 shell) counts and queries both tables.
 *
 * `capstate load` does not build the index (it would slow every load for a command some
 * users never run). The first search builds it in its own transaction, and each later
 * search adds the bodies and records loaded since (facts are append-only: a load adds rows
 * and never changes or deletes them), so a search after a load finds the new capture.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './types.js';
import { isPostgresUrl, openPostgresStore } from './postgres-store.js';
import { temporaryReplica } from './postgres-replica.js';
import { capturesThatMayMatch } from './postgres-search.js';
import { kyselyFor, openStore, type Sqlite } from './open.js';

/** The FTS5 tables' DDL (fixed text; the store's other tables come from migrations/). */
const CREATE = [
  "create virtual table if not exists search_body using fts5(content, content='body_content', content_rowid='id')",
  "create virtual table if not exists search_url using fts5(url, content='record', content_rowid='id')",
];
/** meta keys: the highest body id and record id the index holds. */
const BODY_MARK = 'search_body_max_id';
const RECORD_MARK = 'search_record_max_id';

export interface IndexGap {
  bodies: number;
  records: number;
  created: boolean;
}

/** What the index lacks: bodies and records loaded since it was last brought up to date. */
function indexGap(db: Sqlite): IndexGap {
  const exists = db.prepare("select count(*) from sqlite_master where name in ('search_body', 'search_url')").pluck().get() === 2;
  const mark = (key: string) => Number(db.prepare('select value from meta where key = ?').pluck().get(key) ?? 0);
  const bodyMark = exists ? mark(BODY_MARK) : 0;
  const recordMark = exists ? mark(RECORD_MARK) : 0;
  return {
    created: !exists,
    bodies: db.prepare("select count(*) from body where id > ? and typeof(content) = 'text'").pluck().get(bodyMark) as number,
    records: db.prepare('select count(*) from record where id > ?').pluck().get(recordMark) as number,
  };
}

const needsWork = (g: IndexGap) => g.created || g.bodies > 0 || g.records > 0;

/** Brings the index up to date in one transaction: text bodies and URLs added since the marks. */
function updateIndex(db: Sqlite): void {
  db.transaction(() => {
    for (const ddl of CREATE) db.exec(ddl);
    const mark = (key: string) => Number(db.prepare('select value from meta where key = ?').pluck().get(key) ?? 0);
    const setMark = (key: string, value: number) =>
      db
        .prepare('insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value')
        .run(key, String(value));
    // Only text: binary bodies (BLOB content) have no words, and FTS5 would read their bytes as text.
    db.prepare(
      "insert into search_body (rowid, content) select id, content from body_content where id > ? and typeof(content) = 'text'",
    ).run(mark(BODY_MARK));
    db.prepare('insert into search_url (rowid, url) select id, url from record where id > ?').run(mark(RECORD_MARK));
    setMark(BODY_MARK, Number(db.prepare('select ifnull(max(id), 0) from body').pluck().get()));
    setMark(RECORD_MARK, Number(db.prepare('select ifnull(max(id), 0) from record').pluck().get()));
  })();
}

/**
 * Search text as an FTS5 query: each whitespace-separated word a quoted phrase (so `.`, `-`,
 * `:` and FTS5's operators in the user's text are not syntax), all of them required, the
 * last token of each a prefix (`dashboard` finds `dashboards`, as a user who asks "which
 * responses mention dashboard" means). A word with punctuation becomes a phrase of its
 * tokens: `api.example.com` finds those three words in that order.
 */
export function ftsQuery(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(' ');
}

export type SearchField = 'url' | 'request' | 'response';

export interface SearchHit {
  capture_id: number;
  ordinal: number;
  method: string;
  url: string;
  status: number;
  /** Where the words were found, in this order: response body, request body, URL. */
  matched_in: SearchField[];
  /** A few words around the first match (response body first), the matched words between « and ». */
  snippet: string;
}

export interface SearchResult {
  hits: SearchHit[];
  total: number;
  truncated: boolean;
}

export const SNIPPET_OPEN = '«';
export const SNIPPET_CLOSE = '»';
const FIELD_ORDER: SearchField[] = ['response', 'request', 'url'];

/** Runs a search on a connection whose index is up to date. */
export async function searchRecords(k: Kysely<DB>, text: string, limit: number): Promise<SearchResult> {
  const q = ftsQuery(text);
  if (!q) return { hits: [], total: 0, truncated: false };
  // snippet(table, column, open, close, ellipsis, tokens): FTS5's own excerpt of the match.
  const hits = sql`
    with body_hits as (
      select rowid as body_id, snippet(search_body, 0, ${SNIPPET_OPEN}, ${SNIPPET_CLOSE}, '…', 16) as snippet
      from search_body where search_body match ${q}
    ),
    url_hits as (
      select rowid as record_id, snippet(search_url, 0, ${SNIPPET_OPEN}, ${SNIPPET_CLOSE}, '…', 16) as snippet
      from search_url where search_url match ${q}
    ),
    hits as (
      select r.id as record_id, 'response' as field, h.snippet from body_hits h join record r on r.response_body_id = h.body_id
      union all
      select r.id, 'request', h.snippet from body_hits h join record r on r.request_body_id = h.body_id
      union all
      select record_id, 'url', snippet from url_hits
    )`;
  const total = Number((await sql<{ n: number }>`${hits} select count(distinct record_id) as n from hits`.execute(k)).rows[0].n);
  if (total === 0) return { hits: [], total: 0, truncated: false };
  const rows = await sql<{
    id: number;
    capture_id: number;
    ordinal: number;
    method: string;
    url: string;
    status: number;
    field: SearchField;
    snippet: string;
  }>`
    ${hits},
    picked as (
      select id, capture_id, ordinal, method, url, status from record
      where id in (select record_id from hits) order by capture_id, ordinal limit ${limit}
    )
    select p.*, h.field, h.snippet from picked p join hits h on h.record_id = p.id order by p.capture_id, p.ordinal
  `.execute(k);
  const byRecord = new Map<number, { row: (typeof rows.rows)[number]; fields: Map<SearchField, string> }>();
  for (const r of rows.rows) {
    const entry = byRecord.get(r.id) ?? { row: r, fields: new Map<SearchField, string>() };
    entry.fields.set(r.field, r.snippet);
    byRecord.set(r.id, entry);
  }
  const out = [...byRecord.values()].map(({ row: r, fields }): SearchHit => {
    const matched = FIELD_ORDER.filter((f) => fields.has(f));
    return {
      capture_id: r.capture_id,
      ordinal: r.ordinal,
      method: r.method,
      url: r.url,
      status: r.status,
      matched_in: matched,
      snippet: fields.get(matched[0])!,
    };
  });
  return { hits: out, total, truncated: total > out.length };
}

export interface SearchOptions {
  limit: number;
  /** Told before the index is built or brought up to date (a one-off cost), and when it is done. */
  onIndex?: (gap: IndexGap, doneMs?: number) => void;
}

/**
 * Searches the store `file`, building or updating its index first when loads added facts
 * since (which needs the store writable; otherwise the search opens it read-only).
 */
export async function searchStore(file: string, text: string, opts: SearchOptions): Promise<SearchResult> {
  if (isPostgresUrl(file)) {
    // Issue 20: the captures that may hold the words are searched in a private SQLite copy,
    // indexed there for this search (postgres-search.ts).
    const store = await openPostgresStore(file);
    let replica;
    try {
      const ids = await capturesThatMayMatch(store, text);
      if (ids !== null && ids.length === 0) return { hits: [], total: 0, truncated: false };
      replica = await temporaryReplica(store, ids);
    } finally {
      await store.close();
    }
    try {
      return await searchStore(replica.file, text, opts);
    } finally {
      replica.cleanup();
    }
  }
  let db = openStore(file);
  try {
    const gap = indexGap(db);
    if (needsWork(gap)) {
      db.close();
      opts.onIndex?.(gap);
      const started = Date.now();
      db = openStore(file, { write: true });
      updateIndex(db);
      opts.onIndex?.(gap, Date.now() - started);
    }
    return await searchRecords(kyselyFor(db), text, opts.limit);
  } finally {
    db.close();
  }
}
