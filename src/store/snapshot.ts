/**
 * One evaluation of each rule view per pass. SQLite evaluates a view anew for every query
 * that reads it, and the state pass reads a dozen views that share deeper ones
 * (`list_locations` sits under six of them), so the same rows were computed again and
 * again. A snapshot evaluates each view a pass needs once, in dependency order, into a
 * TEMP table of the same name. SQLite searches the TEMP schema first, so the pass's own
 * queries — and each later snapshot view — read those rows. The definitions are the
 * queries/*.sql files themselves, nothing is restated; the tables live on this connection
 * only, the store file is not written, and they are dropped when the pass ends.
 *
 * A snapshot may also hold fact rows of its own: a table the pass computes (ES-27's
 * `state_change_bounds`) is shadowed by a TEMP table of the same name, so the views read the
 * pass's rows rather than what the file stores. When the pass learns those facts, `replace`
 * writes them and evaluates again every snapshot view that reads them (directly or through
 * another view), in dependency order: every view stays exactly its definition over the
 * facts as they now are, as the file's views will be once the pass's rows are stored.
 * While a pass runs, any other query on the same connection reads its snapshot too.
 *
 * A snapshot for one capture sees that capture's facts only: TEMP objects of the same names
 * stand for the fact tables keyed by capture or record, and for `body` (the bodies its records
 * name), so each rule view is evaluated over that capture, not over every capture in the file.
 * Every rule is decided within one capture, so its rows for that capture are the same; what
 * changes is the cost: a small capture loaded into a store that holds a 500 MB one took 13.7 s,
 * the 500 MB one's views evaluated again with it.
 */
import type { Kysely } from 'kysely';
import { listViews, orderViews, rawConnection, type Sqlite, type ViewFile } from './open.js';
import type { DB } from './types.js';

export interface Snapshot {
  /** Replaces the rows of shadowed table `table` and evaluates again each snapshot view that reads it. */
  replace(table: string, rows: readonly Record<string, unknown>[]): void;
}

/** The queries/*.sql definitions, read once per process (they ship with capstate). */
let viewFiles: Map<string, ViewFile> | undefined;
const shippedViews = () => (viewFiles ??= new Map(listViews().map((v) => [v.name, v])));
/** explorationViews of the shipped definitions, worked out once. */
let exploring: Set<string> | undefined;

/** Passes on one connection run one after another: each owns the TEMP names while it runs. */
const queues = new WeakMap<Sqlite, Promise<unknown>>();

/**
 * The fact tables a capture's snapshot scopes, each as the rows of capture `c` (a safe
 * integer, written into the statement: TEMP objects are made with DDL, which takes no
 * parameters). The small tables keyed by capture or record are copied into TEMP tables made
 * with the stored tables' own DDL and indexes, so the planner sees what it sees in the file
 * (a view over `record` made it scan the timeline once per record: 3 -> 185 ms at 50 MB);
 * `body` holds the bodies themselves, so it is a TEMP view naming the capture's bodies (by `BODY_IDS`).
 * `header` and `member_node` need no scope: every rule reaches them from a record or a body.
 */
const SCOPE_COPIES: Partial<Record<keyof DB, (c: number) => string>> = {
  record: (c) => `select * from main.record where capture_id = ${c}`,
  tool: (c) => `select * from main.tool where capture_id = ${c}`,
  path_param: (c) => `select * from main.path_param where record_id in (select id from main.record where capture_id = ${c})`,
  query_param: (c) => `select * from main.query_param where record_id in (select id from main.record where capture_id = ${c})`,
};
/**
 * The capture's body ids, once per snapshot (from its scoped `record`), which the TEMP view
 * `body` joins by key: as `id in (select … union select …)` the view made SQLite gather every
 * record's body ids again for each statement, so the state pass's body reads grew with the
 * capture times their number (a 60 MB single-app capture: 70 reads of 7 bodies, 2.9 s).
 */
const BODY_IDS = 'snapshot_body_ids';
const scopedBodies = `select b.* from main.body b join temp."${BODY_IDS}" s on s.id = b.id`;

/** The stored table's DDL and its indexes' DDL, made TEMP (references dropped: their parents are not in TEMP). */
function tempDdl(db: Sqlite, table: string): string[] {
  const rows = db
    .prepare(
      "select type, name, sql from main.sqlite_master where tbl_name = ? and type in ('table', 'index') and sql is not null order by type = 'index', name",
    )
    .all(table) as { type: string; name: string; sql: string }[];
  return rows.map((r) =>
    r.type === 'table'
      ? r.sql.replace(/^create\s+table\s+"?\w+"?/i, `create temp table "${table}"`).replace(/\s+references\s+"?\w+"?\s*\([^)]*\)/gi, '')
      : r.sql.replace(
          /^create\s+(unique\s+)?index\s+"?(\w+)"?\s+on/i,
          (_, u: string | undefined, name: string) => `create ${u ?? ''}index temp."${name}" on`,
        ),
  );
}

/** Runs `fn` with the views it names (and every view they read) evaluated once, over capture `opts.capture` only when given. */
export function withSnapshot<T>(
  k: Kysely<DB>,
  wanted: readonly string[],
  fn: (snapshot: Snapshot) => Promise<T>,
  shadows: Partial<Record<keyof DB, readonly Record<string, unknown>[]>> = {},
  opts: { capture?: number } = {},
): Promise<T> {
  const db = rawConnection(k);
  if (!db) throw new Error('capstate: a snapshot needs a connection opened by kyselyFor');
  const capture = opts.capture;
  if (capture !== undefined && !Number.isSafeInteger(capture)) throw new Error(`capstate: capture id ${capture} is not an integer`);
  const run = async () => {
    const list = needed(shippedViews(), wanted);
    const shadowed: string[] = [];
    const fill = (table: string, rows: readonly Record<string, unknown>[]) => {
      db.exec(`delete from temp."${table}"`);
      if (rows.length === 0) return;
      const columns = Object.keys(rows[0]);
      const insert = db.prepare(
        `insert into temp."${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      );
      for (const r of rows) insert.run(...columns.map((c) => r[c]));
    };
    const snapshot: Snapshot = {
      replace(table, rows) {
        if (!shadowed.includes(table)) throw new Error(`capstate: ${table} is not shadowed in this snapshot`);
        fill(table, rows);
        const stale = new Set([table]);
        for (const v of list) {
          if (!v.reads.some((r) => stale.has(r))) continue;
          stale.add(v.name);
          db.exec(`drop table temp."${v.name}"`);
          materializeOne(db, v);
        }
      },
    };
    const scoped: string[] = [];
    const scopedViews: string[] = [];
    try {
      if (capture !== undefined) {
        for (const [table, rows] of Object.entries(SCOPE_COPIES)) {
          for (const ddl of tempDdl(db, table)) db.exec(ddl);
          scoped.push(table);
          db.exec(`insert into temp."${table}" ${rows!(capture)}`);
        }
        db.exec(`create temp table "${BODY_IDS}" (id integer primary key)`);
        scoped.push(BODY_IDS);
        db.exec(
          `insert or ignore into temp."${BODY_IDS}" select request_body_id from temp.record union select response_body_id from temp.record`,
        );
        db.exec(`create temp view body as ${scopedBodies}`);
        scopedViews.push('body');
      }
      for (const [table, rows] of Object.entries(shadows)) {
        // The stored table's own columns, empty, in TEMP: it shadows the stored rows for this pass.
        db.exec(`create temp table "${table}" as select * from main."${table}" where 0`);
        shadowed.push(table);
        fill(table, rows!);
      }
      for (const v of list) materializeOne(db, v);
      return await fn(snapshot);
    } finally {
      for (const v of [...list].reverse()) db.exec(`drop table if exists temp."${v.name}"`);
      for (const v of list) db.exec(`drop view if exists temp."${v.name}__definition"`);
      for (const t of shadowed) db.exec(`drop table if exists temp."${t}"`);
      for (const t of scopedViews) db.exec(`drop view if exists temp."${t}"`);
      for (const t of scoped) db.exec(`drop table if exists temp."${t}"`);
    }
  };
  const result = (queues.get(db) ?? Promise.resolve()).then(run, run);
  queues.set(
    db,
    result.catch(() => undefined),
  );
  return result;
}

/**
 * The views `capstate sql` and `query_store` evaluate once before an ad hoc statement runs:
 * each view the statement names and every view under them, in dependency order, as TEMP
 * tables of the same name (created as `create temp table … as select`, so each column keeps
 * the affinity the view's column has and a comparison with a literal reads as it did).
 * Compiling a statement over the expanded chain costs more than evaluating it: 33 s for
 * `select count(*) from collection_order` on a 2 MB capture, against a few milliseconds per
 * view over the views under it. A name inside a string literal only costs an evaluation.
 * `member` and `response_members` stay views: they only explore one body's members, where a
 * filter on the body reaches member_node's key, and no rule reads them.
 */
export function statementSnapshot(query: string): { name: string; statements: string[] }[] {
  return snapshotOf(statementViews(query));
}

/** The shipped views no rule reads (explorationViews): `member` and `response_members`. */
export function explorationViewNames(): ReadonlySet<string> {
  return (exploring ??= explorationViews([...shippedViews().values()]));
}

/**
 * The rule views a statement names, and every view under them, in dependency order: what
 * statementSnapshot evaluates (and the PostgreSQL road, postgres-sql.ts, in its dialect).
 */
export function statementViews(query: string): ViewFile[] {
  return neededViews(query.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
}

function neededViews(names: readonly string[]): ViewFile[] {
  const byName = shippedViews();
  const explore = explorationViewNames();
  return needed(
    byName,
    [...new Set(names)].filter((w) => byName.has(w) && !explore.has(w)),
  );
}

/** statementSnapshot for the views `names` holds (other words are left out). */
export function viewSnapshot(names: readonly string[]): { name: string; statements: string[] }[] {
  return snapshotOf(neededViews(names));
}

function snapshotOf(views: ViewFile[]): { name: string; statements: string[] }[] {
  return views.map((v) => ({
    name: v.name,
    statements: [
      definitionAsTempView(v),
      `create temp table "${v.name}" as select * from temp."${v.name}__definition"`,
      `drop view temp."${v.name}__definition"`,
      `analyze temp."${v.name}"`,
    ],
  }));
}

/**
 * Runs `fn` on `db` with the rule views `query` names evaluated once (statementSnapshot), then
 * drops them: for a connection that reads a store whose facts may change between queries.
 */
export function withStatementSnapshot<T>(db: Sqlite, query: string, fn: () => T): T {
  const snapshot = statementSnapshot(query);
  try {
    evaluateViews(db, snapshot);
    return fn();
  } finally {
    for (const v of [...snapshot].reverse()) db.exec(`drop table if exists temp."${v.name}"`);
    for (const v of snapshot) db.exec(`drop view if exists temp."${v.name}__definition"`);
  }
}

/** Runs a snapshot's statements on `db`: TEMP tables of the views' names, kept until dropped. */
export function evaluateViews(db: Sqlite, snapshot: { name: string; statements: string[] }[]): void {
  for (const v of snapshot) for (const s of v.statements) db.exec(s);
}

/** Views that hold no rule (`@rule none`) and that no rule view reads, directly or through another. */
function explorationViews(views: ViewFile[]): Set<string> {
  const set = new Set(views.filter((v) => v.rule === 'none').map((v) => v.name));
  for (let changed = true; changed; ) {
    changed = false;
    for (const v of views) {
      if (set.has(v.name)) continue;
      for (const r of v.reads) if (set.delete(r)) changed = true;
    }
  }
  return set;
}

/** The file's own definition as a TEMP view named `<view>__definition`: the views it reads resolve to TEMP tables made before it. */
function definitionAsTempView(v: ViewFile): string {
  return definitionAs(v.sql, `create temp view "${v.name}__definition"`);
}

/** A view file's statement with its `create view NAME` head replaced by `head` (`create temp table …`, say). */
export function definitionAs(sql: string, head: string): string {
  return sql.replace(/create\s+view\s+[a-z_][a-z0-9_]*/i, head);
}

/** The named views and every view under them, in dependency order. */
function needed(byName: Map<string, ViewFile>, wanted: readonly string[]): ViewFile[] {
  const names = new Set<string>();
  const add = (name: string) => {
    const v = byName.get(name);
    if (!v || names.has(name)) return;
    names.add(name);
    v.reads.forEach(add);
  };
  wanted.forEach(add);
  return orderViews([...byName.values()]).filter((v) => names.has(v.name));
}

/** CAPSTATE_TRACE_VIEWS=1: each view's evaluation time on stderr (for the bench and profiling). */
const TRACE = process.env.CAPSTATE_TRACE_VIEWS === '1';

function materializeOne(db: Sqlite, v: ViewFile): void {
  const t0 = TRACE ? performance.now() : 0;
  const def = `${v.name}__definition`;
  db.exec(definitionAsTempView(v));
  const columns = db
    .prepare(`select * from temp."${def}"`)
    .columns()
    .map((c) => `"${c.name.replace(/"/g, '""')}"`);
  // Columns without a declared type keep every value's storage class (no affinity).
  db.exec(`create temp table "${v.name}" (${columns.join(', ')})`);
  db.exec(`insert into temp."${v.name}" select * from temp."${def}"`);
  db.exec(`drop view temp."${def}"`);
  // Statistics for the planner: without them it may scan `member` once per row of a small
  // table (entity_observations: 30 s instead of 10 ms on the 50 MB bench store).
  db.exec(`analyze temp."${v.name}"`);
  if (TRACE) process.stderr.write(`capstate: view ${v.name}: ${(performance.now() - t0).toFixed(0)} ms\n`);
}
