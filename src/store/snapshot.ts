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
 * A pass may also narrow a snapshot table (the state pass removes the records the ES-27
 * re-extraction takes out of `kept_observations`) and rebuild a view over it, so a SQL rule
 * that reads those rows (ES-33's order) sees exactly the pass's input. While a pass runs, any
 * other query on the same connection reads its snapshot too: read those narrowed views
 * only inside a pass (query_store and `capstate sql` use connections of their own).
 */
import type { Kysely } from 'kysely';
import { listViews, orderViews, rawConnection, type Sqlite, type ViewFile } from './open.js';
import type { DB } from './types.js';

export interface Snapshot {
  /** Deletes the rows of snapshot table `table` whose integer `column` is one of `values`. */
  deleteRows(table: string, column: string, values: Iterable<number>): void;
  /** Evaluates `view` again from its definition, over the snapshot tables as they are now. */
  rebuild(view: string): void;
}

/** The queries/*.sql definitions, read once per process (they ship with capstate). */
let viewFiles: Map<string, ViewFile> | undefined;

/** Passes on one connection run one after another: each owns the TEMP names while it runs. */
const queues = new WeakMap<Sqlite, Promise<unknown>>();

/** Runs `fn` with the views it names (and every view they read) evaluated once. */
export function withSnapshot<T>(k: Kysely<DB>, views: readonly string[], fn: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  const db = rawConnection(k);
  if (!db) throw new Error('capstate: a snapshot needs a connection opened by kyselyFor');
  const run = async () => {
    const byName = (viewFiles ??= new Map(listViews().map((v) => [v.name, v])));
    const list = needed(byName, views);
    const made: string[] = [];
    const snapshot: Snapshot = {
      deleteRows(table, column, values) {
        if (!made.includes(table)) throw new Error(`capstate: ${table} is not in this snapshot`);
        const ids = [...values];
        const del = (n: number) => db.prepare(`delete from temp."${table}" where "${column}" in (${Array(n).fill('?').join(', ')})`);
        // Bound parameters, in chunks under SQLite's variable limit.
        for (let i = 0; i < ids.length; i += 500) del(Math.min(500, ids.length - i)).run(...ids.slice(i, i + 500));
      },
      rebuild(view) {
        if (!list.some((v) => v.name === view)) throw new Error(`capstate: ${view} is not in this snapshot`);
        if (made.includes(view)) db.exec(`drop table temp."${view}"`);
        else made.push(view);
        materializeOne(db, byName.get(view)!);
      },
    };
    try {
      for (const v of list) {
        made.push(v.name);
        materializeOne(db, v);
      }
      return await fn(snapshot);
    } finally {
      for (const v of [...list].reverse()) db.exec(`drop table if exists temp."${v.name}"`);
      for (const v of list) db.exec(`drop view if exists temp."${v.name}__definition"`);
    }
  };
  const result = (queues.get(db) ?? Promise.resolve()).then(run, run);
  queues.set(db, result.catch(() => undefined));
  return result;
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

function materializeOne(db: Sqlite, v: ViewFile): void {
  // The file's own definition, as a TEMP view under a working name: the views it reads
  // resolve to the tables made before it.
  const def = `${v.name}__definition`;
  db.exec(v.sql.replace(/create\s+view\s+[a-z_][a-z0-9_]*/i, `create temp view "${def}"`));
  const columns = db.prepare(`select * from temp."${def}"`).columns().map((c) => `"${c.name.replace(/"/g, '""')}"`);
  // Columns without a declared type keep every value's storage class (no affinity).
  db.exec(`create temp table "${v.name}" (${columns.join(', ')})`);
  db.exec(`insert into temp."${v.name}" select * from temp."${def}"`);
  db.exec(`drop view temp."${def}"`);
  // Statistics for the planner: without them it may scan `member` once per row of a small
  // table (entity_observations: 30 s instead of 10 ms on the 50 MB bench store).
  db.exec(`analyze temp."${v.name}"`);
}
