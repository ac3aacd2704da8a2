/**
 * Whether a store's tables are those its schema version says (issue 42). The version
 * (PRAGMA user_version) is all the opening code trusted: a store whose version was edited,
 * or whose tables were dropped or altered by hand, failed later with an internal error and
 * a stack trace (`no such table: meta`, `table capture_normalisation already exists` from a
 * migration, `table record has no column named status_text` from a load). Here the tables
 * and columns a version must have come from replaying migrations/ on an empty in-memory
 * database, so nothing is stated twice; a store is compared with them once, at open.
 */
import Database from 'better-sqlite3';
import { CapstateError, shellWord } from '../errors.js';

type Sqlite = Database.Database;
/** Table name → its column names. */
type Shape = Map<string, Set<string>>;

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The shape after each migration, by version; replayed once per process (about 10 ms), only for a store at the latest version. */
let shapes: { key: string; byVersion: Map<number, Shape> } | null = null;

function shapeOf(db: Sqlite): Shape {
  const rows = db
    .prepare(`select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p
    where m.type = 'table' and m.name not like 'sqlite_%'`)
    .all() as { t: string; c: string }[];
  const shape: Shape = new Map();
  for (const r of rows) {
    const t = r.t.toLowerCase();
    if (!shape.has(t)) shape.set(t, new Set());
    shape.get(t)!.add(r.c.toLowerCase());
  }
  return shape;
}

function expectedShapes(migrations: Migration[]): Map<number, Shape> {
  const key = migrations.map((m) => m.name).join('\n');
  if (shapes?.key === key) return shapes.byVersion;
  const db = new Database(':memory:');
  const byVersion = new Map<number, Shape>();
  try {
    for (const m of migrations) {
      db.exec(m.sql);
      byVersion.set(m.version, shapeOf(db));
    }
  } finally {
    db.close();
  }
  shapes = { key, byVersion };
  return byVersion;
}

/** What the store lacks of the shape it must have, in words. */
function differences(actual: Shape, expected: Shape): string[] {
  const out: string[] = [];
  for (const [table, columns] of expected) {
    const have = actual.get(table);
    if (!have) {
      out.push(`no table ${table}`);
      continue;
    }
    const missing = [...columns].filter((c) => !have.has(c));
    if (missing.length) out.push(`table ${table} has no column ${missing.join(', ')}`);
  }
  return out;
}

/**
 * Throws `inconsistent-store` when the store at `file` says it is at the latest schema
 * version but lacks a table or column of that version (dropped by hand, or a version
 * edited up). Extra tables and columns are the user's and stay. A store below the latest
 * version is left to its migrations: they may repair what an old capstate wrote
 * differently, and one that cannot be applied is said as this error by openStore's
 * migrate. A negative version, which no capstate writes, is refused here too.
 */
export function checkStoreShape(db: Sqlite, file: string, migrations: Migration[]): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version < 0) {
    throw new CapstateError(
      'inconsistent-store',
      `${file} says schema version ${version}, which no capstate writes: it was changed outside capstate or is damaged, and no migration can repair it. ${fresh(file)}`,
      { file },
    );
  }
  const latest = Math.max(...migrations.map((m) => m.version));
  if (version !== latest) return;
  const found = differences(shapeOf(db), expectedShapes(migrations).get(latest)!);
  if (found.length === 0) return;
  const shown = found.slice(0, 3).join('; ') + (found.length > 3 ? `; … (${found.length} differences)` : '');
  throw new CapstateError(
    'inconsistent-store',
    `${file} says schema version ${version}, but its tables are not those of version ${version} (${shown}): it was changed outside capstate or is damaged, and no migration can repair it. ${fresh(file)}`,
    { file },
  );
}

/** What to do with a store no migration can repair. */
export function fresh(file: string): string {
  return `Load its captures into a new store: capstate load CAPTURE --db ${shellWord(newStoreName(file))}`;
}

/** A name for the new store the message suggests, beside the damaged one. */
function newStoreName(file: string): string {
  return file.replace(/(\.[A-Za-z0-9]+)?$/, (ext) => `.new${ext || '.sqlite'}`);
}
