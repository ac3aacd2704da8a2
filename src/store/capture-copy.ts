/**
 * A private SQLite copy of one capture of a SQLite store (issue 42): what a server started for
 * one capture reads when the store holds others. `query_store` runs any read-only statement on
 * its store, and `inspect_analysis_view` takes any capture id: on the shared file a caller
 * given capture 1's tools read capture 2's URLs, bodies, headers and state. On the copy there
 * is nothing else to read, whatever the statement (`main.record`, a view, a join) — the same
 * promise a PostgreSQL store keeps by serving from its replica (postgres-replica.ts).
 *
 * The capture's rows are copied with their ids (records, tools, the bodies they carry and their
 * members, its manifest and stored state), so every answer is byte for byte the one the shared
 * store gives for that capture. postgres-copy.ts's captureFilter says which rows are whose.
 */
import { openStore, storedColumns } from './open.js';
import { captureFilter, SEEDED } from './postgres-copy.js';
import { tablesByReference } from './postgres-schema.js';
import { temporaryStore, type TemporaryStore } from './temp-store.js';

/** Copies capture `id` of the store `source` into a new store at `file` (journalling off: nobody sees it before this returns). */
export function copyCapture(source: string, file: string, id: number): void {
  const db = openStore(file, { write: true });
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    db.prepare('attach database ? as src').run(source);
    db.exec('BEGIN');
    try {
      const ids = JSON.stringify([id]);
      // `capture` and `record` first: the other tables' row filters read `record`, which
      // names the copy's own (the same rows by then); references are not checked meanwhile.
      const rank = (name: string) => (name === 'capture' ? 0 : name === 'record' ? 1 : 2);
      const tables = tablesByReference()
        .filter((t) => t.name !== 'meta')
        .sort((a, b) => rank(a.name) - rank(b.name));
      for (const t of tables) {
        const columns = storedColumns(db, t.name)
          .map((c) => `"${c}"`)
          .join(', ');
        const where = SEEDED.has(t.name) ? null : captureFilter(t.name, t.sql);
        if (SEEDED.has(t.name)) db.exec(`delete from main."${t.name}"`);
        const stmt = db.prepare(
          `insert into main."${t.name}" (${columns}) select ${columns} from src."${t.name}"${where ? ` where ${where}` : ''}`,
        );
        if (where?.includes('@ids')) stmt.run({ ids });
        else stmt.run();
      }
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
    db.exec('detach database src');
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** The copy in a temporary store of its own (temp-store.ts), removed by `cleanup` or at exit. */
export function temporaryCaptureCopy(source: string, id: number): Promise<TemporaryStore> {
  return temporaryStore((file) => copyCapture(source, file, id));
}
