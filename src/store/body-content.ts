/**
 * Bodies as they were recorded (issue 46). From issue 14 until migration 0016, text bodies of
 * 1 KiB or more were kept deflated (`body.coding = 'deflate'`) and `body_content` inflated them
 * with `sqlar_uncompress`, which only the sqlite3 shell and capstate's own connections have:
 * Python's sqlite3, sqlite-utils and Datasette failed on the view and on the search index that
 * reads it. Readable by every SQLite client wins over the store's size (h50: 1.24× larger;
 * bench/README.md), so loads keep every body as it is and 0016 inflates the deflated ones.
 * `body.coding` stays, NULL on every row from 0016 on: dropping it would mean dropping every view
 * first (DROP COLUMN compiles them all again) and changing each reader that selects it.
 */
import { inflateSync } from 'node:zlib';
import type Database from 'better-sqlite3';

/** What a body row's content holds: TEXT for UTF-8 bodies, BLOB for binary (a row deflated before 0016 inflated). */
export function storedContent(content: string | Buffer | null, coding: string | null): string | Buffer | null {
  if (coding !== 'deflate' || content === null) return content;
  return inflateSync(content).toString('utf8');
}

/**
 * SQLite shell's `sqlar_uncompress(DATA, SZ)`: DATA itself when it is SZ bytes long (stored as
 * it is), else DATA inflated. No view or query of the store needs it, and capstate's own
 * connections do not have it (so they read the store as every other client does); it is here
 * for code that builds or reads a store as an earlier version wrote it.
 */
export function sqlarUncompress(data: unknown, size: unknown): unknown {
  if (data === null || data === undefined) return null;
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'utf8');
  if (Number(size) <= 0 || bytes.length === Number(size)) return data;
  return inflateSync(bytes);
}

/** Gives a connection the shell's `sqlar_uncompress`, for stores as versions 0014–0015 wrote them. */
export function registerBodyFunctions(db: Database.Database): void {
  db.function('sqlar_uncompress', { deterministic: true }, sqlarUncompress);
}

/**
 * Migration 0016's work: every body an earlier version kept deflated is written back as its
 * text, one row at a time (a whole store's bodies never sit in memory at once), inside the
 * migration's transaction.
 */
export function inflateKeptBodies(db: Database.Database): number {
  const ids = db.prepare("select id from body where coding = 'deflate' order by id").pluck().all() as number[];
  const read = db.prepare('select content from body where id = ?').pluck();
  const write = db.prepare('update body set content = ?, coding = null where id = ?');
  for (const id of ids) write.run(storedContent(read.get(id) as Buffer, 'deflate'), id);
  return ids.length;
}
