/**
 * Issue 42 (finding 6): a store whose schema version and tables disagree — the version
 * edited up, down or below zero, a table, a column, `meta` or a view dropped, a page
 * overwritten, the file truncated — gives every command one plain error naming the file
 * and what to do (migrate, or load into a new store), exit 1, never an internal error or a
 * stack trace.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, cliPath, fixture, tempDir } from './helpers.js';
import { listMigrations } from '../src/store/open.js';

const dir = tempDir();
const base = join(dir, 'base.sqlite');
const capture = fixture('grafana-mini', 'capture.har');
const other = fixture('json-server', 'capture.har');
let n = 0;
/** The schema version this capstate writes: its last migration's. */
const latest = Math.max(...listMigrations().map((m) => m.version));

beforeAll(() => {
  const r = cli(['load', capture, '--db', base]);
  expect(r.status, r.stderr).toBe(0);
});

/** A copy of the base store changed by `sql` (run with better-sqlite3, as a user's sqlite3 shell would). */
function damaged(sql: string): string {
  const file = join(dir, `d${n++}.sqlite`);
  copyFileSync(base, file);
  const db = new Database(file);
  db.exec(sql);
  db.close();
  return file;
}

/** Each reading and writing command on `file`: exit 1 and a one-line error matching `message`, no stack. */
function refusedByEveryCommand(file: string, message: RegExp): void {
  const runs: [string, string[]][] = [
    ['info', ['info', '--db', file]],
    ['state', ['state', '--db', file]],
    ['sql', ['sql', 'select count(*) from record', '--db', file]],
    ['load', ['load', other, '--db', file]],
  ];
  for (const [name, args] of runs) {
    const r = cli(args);
    expect(r.status, `${name}: ${r.stderr}`).toBe(1);
    expect(r.stderr, name).toMatch(message);
    expect(r.stderr, name).not.toMatch(/internal error|^\s{4}at /m);
    expect(r.stderr.trim().split('\n'), name).toHaveLength(1);
  }
  // serve --http fails at open, before it listens (a bound timeout: a server that started would not end).
  const s = spawnSync(process.execPath, [cliPath, 'serve', '--db', file, '--http', '127.0.0.1:0'], { encoding: 'utf8', timeout: 30_000 });
  expect(s.status, `serve: ${s.stderr}`).toBe(1);
  expect(s.stderr, 'serve').toMatch(message);
  expect(s.stderr, 'serve').not.toMatch(/internal error|^\s{4}at /m);
}

const inconsistent = (file: string, version: number, what: string) =>
  new RegExp(
    `${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} says schema version ${version}, but its tables are not those of version ${version} \\(.*${what}.*\\).*Load its captures into a new store: capstate load CAPTURE --db .*\\.new\\.sqlite`,
  );

describe('issue 42 a store whose schema version and tables disagree', () => {
  it('issue 42 a schema version edited down (tables of a later version): readers name migrate, and migrate and load say that no migration applies to it', () => {
    const file = damaged('pragma user_version = 5');
    const r = cli(['info', '--db', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`is at schema version 5, this capstate needs ${latest}; run: capstate migrate --db `));
    for (const args of [
      ['migrate', '--db', file],
      ['load', other, '--db', file],
    ]) {
      const m = cli(args);
      expect(m.status, m.stderr).toBe(1);
      expect(m.stderr).toMatch(
        /says schema version 5, but migration 0006-[a-z-]+\.sql cannot be applied to it \(table capture_normalisation already exists\).*Load its captures into a new store: capstate load CAPTURE --db .*\.new\.sqlite/,
      );
      expect(m.stderr).not.toMatch(/internal error|^\s{4}at /m);
    }
  });

  it('issue 42 a schema version below zero is refused by every command', () => {
    const file = damaged('pragma user_version = -3');
    refusedByEveryCommand(file, /says schema version -3, which no capstate writes.*Load its captures into a new store/);
  });

  it('issue 42 a dropped table, a dropped column or a dropped meta table is named, with the version it contradicts', () => {
    const header = damaged('drop table header');
    refusedByEveryCommand(header, inconsistent(header, latest, 'no table header'));
    const state = damaged('drop table state_entities');
    refusedByEveryCommand(state, inconsistent(state, latest, 'no table state_entities'));
    // Views first: SQLite re-checks every view on ALTER TABLE, which takes a minute here.
    const column = damaged(`${new Database(base, { readonly: true })
      .prepare("select name from sqlite_master where type = 'view'")
      .pluck()
      .all()
      .map((v) => `drop view "${v}";`)
      .join('\n')}
      alter table record drop column status_text`);
    refusedByEveryCommand(column, inconsistent(column, latest, 'table record has no column status_text'));
    const meta = damaged('drop table meta');
    refusedByEveryCommand(meta, inconsistent(meta, latest, 'no table meta'));
  });

  it('issue 42 a dropped view is stale: readers name migrate, and migrate rebuilds it', () => {
    const file = damaged('drop view capture_timeline');
    for (const args of [
      ['info', '--db', file],
      ['state', '--db', file],
      ['sql', 'select 1', '--db', file],
    ]) {
      const r = cli(args);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/the views in .* are incomplete \(no view capture_timeline\); run: capstate migrate --db /);
      expect(r.stderr).not.toMatch(/internal error/);
    }
    expect(cli(['migrate', '--db', file]).status).toBe(0);
    const info = cli(['info', '--db', file]);
    expect(info.status, info.stderr).toBe(0);
  });

  it('issue 42 an overwritten data page met mid-command is "damaged", naming the store, not an internal error', () => {
    const file = damaged('select 1');
    const db = new Database(file, { readonly: true });
    const page = db.pragma('page_size', { simple: true }) as number;
    const root = db.prepare("select rootpage from sqlite_master where name = 'state_documents'").pluck().get() as number;
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(page, 0xde), 0, page, (root - 1) * page);
    closeSync(fd);
    const r = cli(['state', '--db', file, '--json']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `${file.replace(/[.\\/]/g, '\\$&')} is damaged \\(database disk image is malformed\\).*load its captures into a new store`,
      ),
    );
    expect(r.stderr).not.toMatch(/internal error|^\s{4}at /m);
    expect(JSON.parse(r.stdout).code).toBe('damaged-store');
  });

  it('issue 42 a truncated store is not a usable SQLite file, for readers and writers alike', () => {
    const file = join(dir, 'truncated.sqlite');
    writeFileSync(file, readFileSync(base).subarray(0, 20_000));
    refusedByEveryCommand(
      file,
      /truncated\.sqlite is not a usable SQLite file \(database disk image is malformed\); give another --db path/,
    );
  });
});
