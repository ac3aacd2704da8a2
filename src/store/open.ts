/**
 * Opening the store: migrations (append-only, tracked by PRAGMA user_version) and the rule
 * views from queries/ (rebuilt when their hash changes, so `sqlite3 capstate.sqlite` sees
 * them without capstate). Read-only opens never write; they detect stale views instead.
 */
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, SqliteDialect, type LogEvent, type SqliteDatabase } from 'kysely';
import { CapstateError, shellWord } from '../errors.js';
import { sha256Hex } from '../json/sha256.js';
import type { DB } from './types.js';
import { capstateTables, checkStorePath, checkWritableStore, storeError } from './guard.js';
import { inflateKeptBodies } from './body-content.js';
import { removeAbandonedWork } from './abandoned-work.js';
import { checkStoreShape, fresh } from './schema-check.js';

export type Sqlite = Database.Database;

/** The package root (holds migrations/ and queries/), from src/ or dist/src/. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('capstate: package root not found');
    dir = up;
  }
  return dir;
})();

/** capstate's own version, from its package.json. */
export const capstateVersion: string = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(): Migration[] {
  const dir = join(packageRoot, 'migrations');
  return readdirSync(dir)
    .filter((f) => /^\d{4}-.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

export interface ViewFile {
  name: string;
  file: string;
  sql: string;
  rule: string;
  says: string;
  grain: string;
  reads: string[];
}

/** Parses the header every queries/*.sql file carries (STYLE.md §1). */
export function listViews(): ViewFile[] {
  const dir = join(packageRoot, 'queries');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return files.map((f) => {
    const sql = readFileSync(join(dir, f), 'utf8');
    const tag = (name: string) => sql.match(new RegExp(`^--\\s*@${name}\\s+(.+)$`, 'm'))?.[1].trim() ?? '';
    const name = sql.match(/create\s+view\s+([a-z_][a-z0-9_]*)/i)?.[1];
    if (!name) throw new Error(`queries/${f}: no "create view"`);
    return {
      name,
      file: `queries/${f}`,
      sql,
      rule: tag('rule'),
      says: tag('says'),
      grain: tag('grain'),
      reads: tag('reads')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    };
  });
}

/** Views in dependency order (a view after every view it reads). */
export function orderViews(views: ViewFile[]): ViewFile[] {
  const byName = new Map(views.map((v) => [v.name, v]));
  const done = new Set<string>();
  const out: ViewFile[] = [];
  const visit = (v: ViewFile, path: string[]) => {
    if (done.has(v.name)) return;
    if (path.includes(v.name)) throw new Error(`queries: views read each other in a cycle: ${[...path, v.name].join(' -> ')}`);
    for (const r of v.reads) {
      const dep = byName.get(r);
      if (dep) visit(dep, [...path, v.name]);
    }
    done.add(v.name);
    out.push(v);
  };
  for (const v of views) visit(v, []);
  return out;
}

export function queriesHash(views = listViews()): string {
  return sha256Hex(views.map((v) => `${v.file}\n${v.sql}`).join('\n\0'));
}

/**
 * What a migration does beyond its SQL, in the same transaction: work plain SQL cannot do
 * without a function other SQLite clients lack (0016 inflates bodies with node:zlib).
 */
const MIGRATION_STEPS: ReadonlyMap<number, (db: Sqlite) => void> = new Map([[16, (db: Sqlite) => void inflateKeptBodies(db)]]);

function migrate(db: Sqlite, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of listMigrations()) {
    if (m.version <= current) continue;
    try {
      db.transaction(() => {
        db.exec(m.sql);
        MIGRATION_STEPS.get(m.version)?.(db);
        db.pragma(`user_version = ${m.version}`); // version is an integer parsed from the file name
      })();
    } catch (e) {
      // checkStoreShape refuses the inconsistencies it can see; anything else a migration trips on
      // (an index, a trigger added by hand) is still the store's, not capstate's, and said so.
      if (!(e as { code?: string }).code?.startsWith('SQLITE_ERROR') && (e as { code?: string }).code !== 'SQLITE_CONSTRAINT') throw e;
      throw new CapstateError(
        'inconsistent-store',
        `${file} says schema version ${db.pragma('user_version', { simple: true })}, but migration ${m.name} cannot be applied to it (${(e as Error).message}): it was changed outside capstate or is damaged. ${fresh(file)}`,
        { file },
      );
    }
  }
}

/** The views of queries/ the store lacks (dropped by hand): their hash alone would not show it. */
function missingViews(db: Sqlite, views: ViewFile[]): string[] {
  const have = new Set(
    (db.prepare("select name from sqlite_master where type = 'view'").pluck().all() as string[]).map((n) => n.toLowerCase()),
  );
  return views.map((v) => v.name).filter((n) => !have.has(n.toLowerCase()));
}

function rebuildViews(db: Sqlite): void {
  const views = listViews();
  const hash = queriesHash(views);
  const stored = db.prepare('select value from meta where key = ?').pluck().get('queries_sha256');
  if (stored === hash && missingViews(db, views).length === 0) return;
  db.transaction(() => {
    const existing = db.prepare("select name from sqlite_master where type = 'view'").pluck().all() as string[];
    // Drop order does not matter to SQLite; views are checked when used, not when dropped.
    for (const name of existing) db.exec(`drop view "${name.replace(/"/g, '""')}"`);
    for (const v of orderViews(views)) db.exec(v.sql);
    db.prepare('insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value').run(
      'queries_sha256',
      hash,
    );
  })();
}

export interface OpenOptions {
  /** Open for writing: create the file if needed, migrate, rebuild stale views. */
  write?: boolean;
}

/**
 * A read-only connection. A load killed mid-transaction leaves a hot journal that only a
 * writer can roll back (SQLITE_READONLY_ROLLBACK): roll it back, which restores the store
 * exactly as it was before that load, then reopen read-only.
 */
function openReadOnly(file: string): Sqlite {
  const probe = (db: Sqlite) => db.prepare('select count(*) from sqlite_master').get();
  let db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    probe(db);
    return db;
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code !== 'SQLITE_READONLY_ROLLBACK') throw e;
  }
  const writer = new Database(file, { fileMustExist: true });
  probe(writer);
  writer.close();
  db = new Database(file, { readonly: true, fileMustExist: true });
  probe(db);
  return db;
}

/** Opens a store. Read-only opens fail with `stale-store` when migrations or views are behind. */
export function openStore(file: string, opts: OpenOptions = {}): Sqlite {
  // Issue 42: the work file of a load into this path killed before it could put the store in
  // place goes at the next open, whatever the command (before, only the next load swept it).
  removeAbandonedWork(file);
  if (opts.write) {
    // Issue 15 (faults): refuse what is not a store of this schema or an older one, and
    // say so in one line, before anything is written (src/store/guard.ts).
    checkStorePath(file);
    let db: Sqlite | null = null;
    try {
      db = new Database(file);
      checkWritableStore(db, file, Math.max(...listMigrations().map((m) => m.version)), capstateTables(listMigrations().map((m) => m.sql)));
      checkStoreShape(db, file, listMigrations());
      db.pragma('foreign_keys = ON');
      migrate(db, file);
      rebuildViews(db);
      return db;
    } catch (e) {
      db?.close();
      throw storeError(e, file);
    }
  }
  if (!existsSync(file)) {
    throw new CapstateError('no-store', `no store at ${file}; load a capture first: capstate load CAPTURE --db ${shellWord(file)}`, {
      file,
    });
  }
  checkStorePath(file);
  let db: Sqlite;
  try {
    db = openReadOnly(file);
  } catch (e) {
    // A load holding the lock past the busy timeout is not a damaged store (issue 15).
    const mapped = storeError(e, file);
    // A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) gets the message that says what to do with it.
    if (mapped instanceof CapstateError && (mapped.code === 'busy' || mapped.code === 'not-a-store')) throw mapped;
    throw new CapstateError('not-a-store', `${file} is not a capstate store (${(e as Error).message})`, { file });
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  const latest = Math.max(...listMigrations().map((m) => m.version));
  const fix = `run: capstate migrate --db ${shellWord(file)}`;
  if (version === 0) {
    db.close();
    throw new CapstateError('not-a-store', `${file} is not a capstate store (no migrations applied)`, { file });
  }
  if (version > latest) {
    db.close();
    throw new CapstateError('newer-store', `${file} was written by a newer capstate (schema version ${version}); upgrade capstate`, {
      file,
    });
  }
  // Issue 42: tables dropped or altered by hand, or a version edited up or below zero, are
  // said here, not as a failed query later; `migrate` would not repair them, so not offered.
  try {
    checkStoreShape(db, file, listMigrations());
  } catch (e) {
    db.close();
    throw e;
  }
  if (version < latest) {
    db.close();
    throw new CapstateError('stale-store', `${file} is at schema version ${version}, this capstate needs ${latest}; ${fix}`, { file });
  }
  const views = listViews();
  const stored = db.prepare('select value from meta where key = ?').pluck().get('queries_sha256');
  if (stored !== queriesHash(views)) {
    db.close();
    throw new CapstateError('stale-store', `the views in ${file} were built from other queries; ${fix}`, { file });
  }
  const missing = missingViews(db, views);
  if (missing.length) {
    db.close();
    throw new CapstateError(
      'stale-store',
      `the views in ${file} are incomplete (no view ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}); ${fix}`,
      { file },
    );
  }
  return db;
}

const connections = new WeakMap<Kysely<DB>, Sqlite>();

const TRACE_QUERIES_MS = process.env.CAPSTATE_TRACE_QUERIES ? Number(process.env.CAPSTATE_TRACE_QUERIES) : null;

function traceSlowQueries(e: LogEvent): void {
  if (e.queryDurationMillis < TRACE_QUERIES_MS!) return;
  process.stderr.write(`capstate: query ${e.queryDurationMillis.toFixed(0)} ms: ${e.query.sql.replace(/\s+/g, ' ').slice(0, 300)}\n`);
}

/** Prepared statements kept per connection (Kysely's SQLite driver prepares each query anew). */
const STATEMENT_CACHE = 256;

/**
 * The connection as Kysely's SqliteDialect sees it, with each SQL text's statement prepared
 * once: serving and checking effects run the same few queries thousands of times, and
 * preparing them again was a tenth of a check-effects run. A statement still iterating (a
 * streamed query) is not handed out twice: a busy one gets a fresh, uncached statement.
 * SQLite prepares a kept statement again by itself when the schema changes (snapshots).
 */
function cachingConnection(db: Sqlite): SqliteDatabase {
  const kept = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      const hit = kept.get(sql);
      if (hit && !hit.busy) return hit;
      const stmt = db.prepare(sql);
      if (!hit) {
        if (kept.size >= STATEMENT_CACHE) kept.delete(kept.keys().next().value!);
        kept.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      db.close();
    },
  } as unknown as SqliteDatabase;
}

/** A typed Kysely instance over an open connection (reads in the CLI, views for the renderer). */
export function kyselyFor(db: Sqlite): Kysely<DB> {
  const k = new Kysely<DB>({
    dialect: new SqliteDialect({ database: cachingConnection(db) }),
    // CAPSTATE_TRACE_QUERIES=MS: each query slower than MS milliseconds on stderr (profiling).
    ...(TRACE_QUERIES_MS !== null ? { log: traceSlowQueries } : {}),
  });
  connections.set(k, db);
  return k;
}

/** The connection under a Kysely instance made by `kyselyFor` (for per-connection TEMP work). */
export function rawConnection(k: Kysely<DB>): Sqlite | undefined {
  return connections.get(k);
}

/** A table's stored columns in order: not the VIRTUAL ones SQLite works out itself (what a copy of its rows writes). */
export function storedColumns(db: Sqlite, table: string): string[] {
  return db.prepare('select name from pragma_table_xinfo(?) where hidden = 0 order by cid').pluck().all(table) as string[];
}
