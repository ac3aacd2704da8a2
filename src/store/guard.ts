/**
 * What a store file is, before capstate writes to it, and store failures as one-line
 * errors that say what to do. A load used to migrate whatever file --db named: it added
 * capstate's tables to another application's database, rewrote the views of a store
 * from a newer capstate, and failed with a stack trace on a text file or a directory.
 */
import { accessSync, closeSync, constants, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CapstateError } from '../errors.js';
import type Database from 'better-sqlite3';

/** A better-sqlite3 connection (the type src/store/open.ts calls `Sqlite`). */
type Sqlite = Database.Database;

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Refuses a --db path capstate cannot create or open as a store: a directory, a missing
 * parent directory, a file that is not SQLite. An empty file is a store not yet made.
 */
export function checkStorePath(file: string): void {
  if (!existsSync(file)) {
    const dir = dirname(file);
    if (!existsSync(dir))
      throw new CapstateError(
        'no-directory',
        `the directory ${dir} does not exist; create it (mkdir -p ${dir}) or give another --db path`,
        { file },
      );
    if (!statSync(dir).isDirectory())
      throw new CapstateError('no-directory', `${dir} is not a directory; give another --db path`, { file });
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      throw new CapstateError(
        'not-writable',
        `cannot create ${file}: the directory ${dir} is not writable; check its permissions or give another --db path`,
        { file },
      );
    }
    return;
  }
  const st = statSync(file);
  if (st.isDirectory())
    throw new CapstateError('not-a-store', `${file} is a directory; give the path of a store file (--db FILE)`, { file });
  if (!st.isFile())
    throw new CapstateError('not-a-store', `${file} is not a regular file; give the path of a store file (--db FILE)`, { file });
  if (st.size === 0) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw storeError(e, file);
  }
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!head.equals(SQLITE_HEADER)) {
    throw new CapstateError(
      'not-a-store',
      `${file} is not a capstate store: it is not an SQLite file; give another --db path (capstate will not overwrite it)`,
      { file },
    );
  }
}

/** Names of the tables capstate's migrations create. */
export function capstateTables(migrationSql: string[]): Set<string> {
  const names = new Set<string>();
  for (const sql of migrationSql)
    for (const m of sql.matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?["`]?([A-Za-z_][A-Za-z0-9_]*)/gi))
      names.add(m[1].toLowerCase());
  return names;
}

/**
 * Refuses to write a SQLite file that is not a capstate store of this capstate's schema or
 * an older one: a newer store (its views would be replaced by older ones), another
 * application's database, or a half-made store (tables but no schema version).
 */
export function checkWritableStore(db: Sqlite, file: string, latest: number, ours: Set<string>): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > latest) {
    throw new CapstateError(
      'newer-store',
      `${file} was written by a newer capstate (schema version ${version}, this one knows ${latest}); upgrade capstate to write it, or load into another --db`,
      { file },
    );
  }
  const tables = db
    .prepare("select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%' order by name")
    .pluck()
    .all() as string[];
  if (version === 0 && tables.length === 0) return; // an empty database: a store not yet made
  const foreign = tables.filter((t) => !ours.has(t.toLowerCase()));
  const hasMeta = tables.some((t) => t.toLowerCase() === 'meta');
  const shown = (list: string[]) => list.slice(0, 5).join(', ') + (list.length > 5 ? `, … (${list.length} in all)` : '');
  if (version === 0) {
    if (foreign.length === 0) {
      throw new CapstateError(
        'half-made-store',
        `${file} is a half-made capstate store (tables ${shown(tables)} but no schema version); delete it and load again`,
        { file },
      );
    }
    throw new CapstateError(
      'not-a-store',
      `${file} is another application's SQLite database (tables ${shown(foreign)}), not a capstate store; capstate will not add its tables to it: give another --db path`,
      { file },
    );
  }
  // Capstate's tables without `meta` (dropped by hand): checkStoreShape names what is missing.
  if (!hasMeta && tables.every((t) => !ours.has(t.toLowerCase()))) {
    throw new CapstateError(
      'not-a-store',
      `${file} is an SQLite database with schema version ${version} but no capstate tables (${shown(tables) || 'none'}), not a capstate store; give another --db path`,
      { file },
    );
  }
}

/** A failure of SQLite or the file system on the store, as a one-line error saying what to do. */
export function storeError(e: unknown, file: string): unknown {
  if (e instanceof CapstateError) return e;
  const code = String((e as { code?: unknown })?.code ?? '');
  const detail = (e as Error)?.message ?? String(e);
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
    return new CapstateError('busy', `busy: a load is writing ${file}; try again when it has finished`, { file });
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new CapstateError(
      'not-writable',
      `${file} cannot be written (${detail}); check the permissions of the file and its directory, or give another --db path`,
      { file },
    );
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new CapstateError(
      'not-a-store',
      `${file} is not a usable SQLite file (${detail}); give another --db path, or delete it if it is a store you can load again`,
      { file },
    );
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return new CapstateError('disk-full', `the disk holding ${file} is full; free space or give another --db path`, { file });
  }
  if (
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_IOERR') ||
    code === 'ENOENT' ||
    code === 'EISDIR' ||
    code === 'ENOTDIR'
  ) {
    return new CapstateError(
      'cannot-open',
      `${file} cannot be opened as a store (${detail}); check that the path is a file in a directory you can write`,
      { file },
    );
  }
  return e;
}
