/**
 * One evaluation of each rule view per pass. SQLite evaluates a view anew for every query
 * that reads it, and the state pass reads a dozen views that share deeper ones
 * (`list_locations` sits under six of them), so the same rows were computed again and
 * again. A snapshot evaluates each view a pass needs once, in dependency order, into a
 * TEMP table of the same name. SQLite searches the TEMP schema first, so the pass's own
 * queries — and each later snapshot view — read those rows. The definitions are the
 * queries/*.sql files themselves, nothing is restated; the tables live on this connection
 * only, the store file is not written, and they are dropped when the last pass ends.
 */
import type { Kysely } from 'kysely';
import { listViews, orderViews, rawConnection, type Sqlite } from './open.js';
import type { DB } from './types.js';

interface Active { users: number; tables: string[] }
const active = new WeakMap<Sqlite, Active>();

/** Runs `fn` with the views it names (and every view they read) evaluated once. */
export async function withSnapshot<T>(k: Kysely<DB>, views: readonly string[], fn: () => Promise<T>): Promise<T> {
  const db = rawConnection(k);
  if (!db) return fn();
  let a = active.get(db);
  if (a) a.users++;
  else {
    a = { users: 1, tables: materialize(db, views) };
    active.set(db, a);
  }
  try {
    return await fn();
  } finally {
    if (--a.users === 0) {
      active.delete(db);
      for (const t of [...a.tables].reverse()) db.exec(`drop table temp."${t}"`);
    }
  }
}

function materialize(db: Sqlite, wanted: readonly string[]): string[] {
  const all = listViews();
  const byName = new Map(all.map((v) => [v.name, v]));
  const needed = new Set<string>();
  const add = (name: string) => {
    const v = byName.get(name);
    if (!v || needed.has(name)) return;
    needed.add(name);
    v.reads.forEach(add);
  };
  wanted.forEach(add);
  const made: string[] = [];
  try {
    for (const v of orderViews(all)) {
      if (!needed.has(v.name)) continue;
      // The file's own definition, as a TEMP view under a working name: the views it
      // reads resolve to the tables made before it.
      const def = `${v.name}__definition`;
      db.exec(v.sql.replace(/create\s+view\s+[a-z_][a-z0-9_]*/i, `create temp view "${def}"`));
      const columns = db.prepare(`select * from temp."${def}"`).columns().map((c) => `"${c.name.replace(/"/g, '""')}"`);
      // Columns without a declared type keep every value's storage class (no affinity).
      db.exec(`create temp table "${v.name}" (${columns.join(', ')})`);
      made.push(v.name);
      db.exec(`insert into temp."${v.name}" select * from temp."${def}"`);
      db.exec(`drop view temp."${def}"`);
      // Statistics for the planner: without them it may scan `member` once per row of a
      // small table (entity_observations: 30 s instead of 10 ms on the 50 MB bench store).
      db.exec(`analyze temp."${v.name}"`);
    }
  } catch (e) {
    for (const t of made.reverse()) db.exec(`drop table if exists temp."${t}"`);
    for (const v of all) db.exec(`drop view if exists temp."${v.name}__definition"`);
    throw e;
  }
  return made;
}
