import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { listMigrations, listViews, openStore, orderViews, queriesHash } from '../src/store/open.js';
import { COLUMNS } from '../src/store/types.js';
import { evaluateViews, viewSnapshot } from '../src/store/snapshot.js';
import { registerBodyFunctions } from '../src/store/body-content.js';
import { cli, fixture, root, tempDir } from './helpers.js';

const dir = tempDir();
const normalise = (sql: string) =>
  sql.replace(/--.*$/gm, '').replace(/\s+/g, ' ').replace(/ ,/g, ',').replace(/\( /g, '(').replace(/ \)/g, ')').trim().toLowerCase();

describe('migrations', () => {
  it('are numbered, append-only files applied in order and tracked by PRAGMA user_version', () => {
    const ms = listMigrations();
    expect(ms.map((m) => m.version)).toEqual(ms.map((_, i) => i + 1));
    const db = openStore(join(dir, 'm.sqlite'), { write: true });
    expect(db.pragma('user_version', { simple: true })).toBe(ms.length);
    db.close();
  });

  it('a store made before a migration is upgraded by the next write open (0001 → 0002 adds the vocabulary)', () => {
    const file = join(dir, 'v1.sqlite');
    const old = new Database(file);
    old.exec(listMigrations()[0].sql);
    old.pragma('user_version = 1');
    old.close();
    expect(() => openStore(file)).toThrow(/schema version 1.*capstate migrate/);
    const db = openStore(file, { write: true });
    expect(db.pragma('user_version', { simple: true })).toBe(listMigrations().length);
    expect(db.prepare("select name from vocabulary where vocabulary = 'identity' order by rank").pluck().all()).toEqual([
      'id',
      'uuid',
      'uid',
      'guid',
      '_id',
    ]);
    db.close();
  });

  it('0004 (member type check as comparisons) and 0009 (member_node) upgrade a store at version 1: the member rows, their node order, the views over them and the state stay the same', () => {
    const file = join(dir, 'v1-members.sqlite');
    // A version-1 store as the previous capstate wrote it: only 0001 applied, views built, one capture loaded.
    const v1 = new Database(file);
    v1.exec(listMigrations()[0].sql);
    v1.pragma('user_version = 1');
    v1.close();
    const fresh = join(dir, 'v2.sqlite');
    expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', fresh]).status).toBe(0);
    const src = new Database(fresh, { readonly: true });
    const rows = (db: Database.Database) => db.prepare('select * from member order by body_id, pointer').raw().all();
    const want = rows(src);
    expect(want.length).toBeGreaterThan(10);
    const w = new Database(file);
    registerBodyFunctions(w);
    w.prepare('attach database ? as src').run(fresh);
    // Version 1 kept every body as it is: the bodies as recorded, without 0014's coding.
    w.exec(
      'insert into main.body select b.id, b.sha256, b.bytes, b.kind, b.is_usable, b.unusable_reason, c.content from src.body b join src.body_content c on c.id = b.id',
    );
    for (const t of ['capture', 'page', 'tool', 'record', 'query_param', 'header', 'member', 'manifest', 'admission_note', 'path_param']) {
      w.exec(`insert into main."${t}" select * from src."${t}"`);
    }
    w.exec('detach database src');
    w.close();
    src.close();
    const db = openStore(file, { write: true });
    expect(db.pragma('user_version', { simple: true })).toBe(listMigrations().length);
    expect(rows(db)).toEqual(want);
    // 0009 numbers the migrated nodes in document order, as a load does (json_tree's ids).
    const nodes = (d: Database.Database) =>
      d
        .prepare(`with ranked as (
        select n.*, row_number() over (partition by body_id order by node) as r,
               -- an object member's position is an order key (its node since a load of 0010's time, its rank when migrated): compared by rank
               iif(typeof(key) = 'text', row_number() over (partition by body_id, parent order by position) - 1, position) as position_rank
        from member_node n
      )
      select c.body_id, c.r, p.r as parent_r, c.key, typeof(c.key), c.position_rank, c.depth, c.type, c.value, c.pointer
      from ranked c left join ranked p on p.body_id = c.body_id and p.node = c.parent order by c.body_id, c.r`)
        .raw()
        .all();
    const fromLoad = new Database(fresh, { readonly: true });
    expect(nodes(db)).toEqual(nodes(fromLoad));
    fromLoad.close();
    expect(db.prepare('select count(*) from response_members').pluck().get()).toBeGreaterThan(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    // A version-1 store has no stored states either (0003): migrate computes them.
    expect(cli(['migrate', '--db', file]).status).toBe(0);
    expect(cli(['state', '--db', file, '--json']).stdout).toBe(cli(['state', '--db', fresh, '--json']).stdout);
  });

  it('0013 (member type and position worked out from the row) upgrades a store at version 12: every member row reads as the load of today writes it', () => {
    const fresh = join(dir, 'v13.sqlite');
    expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', fresh]).status).toBe(0);
    const file = join(dir, 'v12.sqlite');
    const v12 = new Database(file);
    for (const m of listMigrations().filter((x) => x.version <= 12)) v12.exec(m.sql);
    v12.pragma('user_version = 12');
    v12.prepare('attach database ? as src').run(fresh);
    // The vocabulary is the migrations' own rows: version 12 has its own, and a later migration adds rows its CHECK refuses (0015).
    const tables = v12
      .prepare(
        "select name from main.sqlite_master where type = 'table' and name not like 'sqlite_%' and name not in ('member_node', 'vocabulary') and name in (select name from src.sqlite_master)",
      )
      .pluck()
      .all() as string[];
    for (const t of tables) {
      const cols = (v12.prepare(`select name from pragma_table_info('${t}', 'main')`).pluck().all() as string[])
        .map((c) => `"${c}"`)
        .join(', ');
      v12.exec(`delete from main."${t}"; insert into main."${t}" (${cols}) select ${cols} from src."${t}"`);
    }
    // Version 12 stored type and position; the generated columns of today are read by name.
    v12.exec(
      'insert into main.member_node (body_id, parent, key, node, position, depth, type, value, pointer) select body_id, parent, key, node, position, depth, type, value, pointer from src.member_node',
    );
    v12.exec('detach database src');
    v12.close();
    const rows = (d: Database.Database) =>
      d
        .prepare('select body_id, parent, key, node, position, depth, type, value, pointer from member_node order by body_id, parent, key')
        .raw()
        .all() as unknown[][];
    const db = openStore(file, { write: true });
    expect(db.pragma('user_version', { simple: true })).toBe(listMigrations().length);
    const src = new Database(fresh, { readonly: true });
    const want = rows(src);
    src.close();
    const types = new Set(want.map((r) => r[6]));
    for (const t of ['object', 'array', 'string', 'integer', 'true', 'false', 'null']) expect(types, t).toContain(t);
    expect(rows(db)).toEqual(want);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('schema/ holds the reference DDL of every table, one file each, matching the migrated store', () => {
    const db = openStore(join(dir, 'schema.sqlite'), { write: true });
    const objects = db
      .prepare("select type, name, sql from sqlite_master where sql is not null and type in ('table', 'index') order by name")
      .all() as { type: string; name: string; sql: string }[];
    const tables = objects.filter((o) => o.type === 'table').map((o) => o.name);
    const files = readdirSync(join(root, 'schema'))
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.replace(/\.sql$/, ''));
    expect(files.sort()).toEqual([...tables].sort());
    for (const o of objects) {
      const owner =
        o.type === 'table' ? o.name : (db.prepare('select tbl_name from sqlite_master where name = ?').pluck().get(o.name) as string);
      const ddl = readFileSync(join(root, 'schema', `${owner}.sql`), 'utf8');
      const statements = ddl.replace(/--.*$/gm, '').split(';').map(normalise).filter(Boolean);
      expect(statements, `${o.name} in schema/${owner}.sql`).toContain(normalise(o.sql));
    }
    db.close();
  });

  it('every fact table is STRICT', () => {
    const db = openStore(join(dir, 'strict.sqlite'), { write: true });
    // From each table's DDL, its options after the column list: pragma table_list works out every
    // view's columns too, which compiles the deepest views over their whole expanded chain (minutes).
    const tables = db.prepare("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as {
      name: string;
      sql: string;
    }[];
    const rows = tables.map((t) => ({ name: t.name, strict: /\)[^)]*\bSTRICT\b[^)]*$/i.test(t.sql) ? 1 : 0 }));
    expect(rows.find((r) => r.name === 'member_node')).toEqual({ name: 'member_node', strict: 1 });
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect(r.strict, r.name).toBe(1);
    db.close();
  });

  it('the Kysely types name exactly the columns of every table and view', () => {
    const db = openStore(join(dir, 'types.sqlite'), { write: true });
    // A view's columns are those of its definition evaluated once (store/snapshot.ts), which
    // TEMP tables of the same name hold: asking the stored view compiles its whole chain.
    const views = viewSnapshot(listViews().map((v) => v.name));
    evaluateViews(db, views);
    for (const [name, cols] of Object.entries(COLUMNS)) {
      const schema = views.some((v) => v.name === name) ? 'temp' : 'main';
      const actual = db.prepare(`select name from pragma_table_xinfo(?, '${schema}')`).pluck().all(name) as string[];
      expect(actual, name).toEqual([...cols]);
    }
    for (const v of views) db.exec(`drop table temp."${v.name}"`);
    const all = db
      .prepare("select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'")
      .pluck()
      .all() as string[];
    expect(all.sort()).toEqual(Object.keys(COLUMNS).sort());
    db.close();
  });
});

describe('views from queries/', () => {
  it('every queries/ file holds one view with a header naming its rule, what it says, its grain and what it reads', () => {
    const views = listViews();
    expect(views.length).toBeGreaterThan(0);
    for (const v of views) {
      expect((v.sql.match(/create\s+view/gi) ?? []).length, v.file).toBe(1);
      expect(v.rule, `${v.file} @rule`).toMatch(/^([A-Z]+-\d+|none)$/);
      expect(v.says.length, `${v.file} @says`).toBeGreaterThan(10);
      expect(v.grain, `${v.file} @grain`).toMatch(/^one row per /);
      expect(v.reads.length, `${v.file} @reads`).toBeGreaterThan(0);
      expect(v.sql, `${v.file}: rule views use no JSON functions`).not.toMatch(/\bjson_\w+\s*\(|->>?/i);
    }
  });

  it('every rule a view names has a test whose name carries the rule ID', () => {
    const tests = readdirSync(join(root, 'test'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(root, 'test', f), 'utf8'))
      .join('\n');
    for (const v of listViews().filter((x) => x.rule !== 'none')) {
      expect(
        new RegExp(`(it|describe|test)(\\.each\\([^)]*\\))?\\(\\s*['"\`][^'"\`]*${v.rule}\\b`).test(tests),
        `${v.file} names ${v.rule}`,
      ).toBe(true);
    }
  });

  it('views are created in dependency order', () => {
    const order = orderViews(listViews()).map((v) => v.name);
    expect(order.indexOf('records_timeline')).toBeLessThan(order.indexOf('capture_timeline'));
  });

  it('are stored inside the .sqlite file, so the sqlite3 command sees them without capstate', () => {
    const db = join(dir, 'cli.sqlite');
    expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', db]).status).toBe(0);
    const which = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' });
    expect(which.status, 'the sqlite3 command is installed (.ci/run installs it)').toBe(0);
    const out = execFileSync(
      'sqlite3',
      [db, "select count(*), min(timeline_order) from records_timeline; select count(*) from response_members where pointer = '';"],
      { encoding: 'utf8' },
    );
    // 11 of the 13 records are admitted (OQ-3; the favicon is a static asset, issue 17); 10 responses are JSON.
    expect(out.trim().split('\n')).toEqual(['11|start-time', '10']);
  });

  it('a read-only open detects stale views and names the command that fixes them', () => {
    const file = join(dir, 'stale.sqlite');
    openStore(file, { write: true }).close();
    const w = new Database(file);
    w.prepare("update meta set value = 'old' where key = 'queries_sha256'").run();
    w.close();
    expect(() => openStore(file)).toThrow(/capstate migrate --db/);
    const r = cli(['info', '--db', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/capstate migrate --db/);
    expect(cli(['migrate', '--db', file]).status).toBe(0);
    const db = openStore(file);
    expect(db.prepare("select value from meta where key = 'queries_sha256'").pluck().get()).toBe(queriesHash());
    db.close();
  });

  it('opening an up-to-date store for writing writes nothing', () => {
    const file = join(dir, 'same.sqlite');
    openStore(file, { write: true }).close();
    const before = readFileSync(file);
    openStore(file, { write: true }).close();
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-journal`)).toBe(false);
  });
});
