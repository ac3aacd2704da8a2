/**
 * Member rows of a loaded store's JSON bodies written again under candidate layouts, to
 * weigh the members' layout (issue 14: members set the load's pace and most of the
 * store's size; member_node since migration 0007). Each layout gets a fresh database file in bench/out, journal and sync
 * off as in a new store's load, one transaction, every body through that layout's one
 * `INSERT … SELECT … FROM json_tree(?)`; the table shows rows, wall and CPU seconds, rows/s,
 * file size and bytes per row.
 *
 * Every usable JSON body is replayed through json_tree (the few the load flattens in JS, ES-5,
 * too: the layouts are compared on the same rows, not the values checked).
 *
 * Usage: node dist/bench/member-layouts.js [STORE] [LAYOUT,…]
 *   STORE   a loaded store (default bench/out/h50.sqlite, from `BENCH_SIZES=50 node dist/bench/run.js`)
 *   LAYOUT  names from LAYOUTS below (default: all)
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import Database from 'better-sqlite3';
import { MEMBER_TREE_SQL } from '../src/load/member-tree.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'bench', 'out');
const log = (msg: string) => process.stderr.write(msg + '\n');

/** RFC 6901 pointer from json_tree's `$`-path, as member-tree.ts derives it (names free of `. ~ / " [ ]`). */
const POINTER = `replace(replace(replace(replace(substr(fullkey, 2), '.', '/'), '[', '/'), ']', ''), '"', '')`;

/** `after` runs once all bodies are in, inside the timed transaction (an index built at the end). */
interface Layout {
  says: string;
  ddl: string;
  insert: string;
  after?: string;
  pageSize?: number;
}

/** `text` with `pattern` replaced, refusing a pattern that no longer matches (the layout would silently be today's). */
function rewritten(text: string, pattern: RegExp, by: string): string {
  const out = text.replace(pattern, by);
  if (out === text) throw new Error(`member-layouts: ${pattern} no longer matches the load's statement; update the layout`);
  return out;
}

/** Today's member_node DDL (schema/member_node.sql) standing alone, without and with its pointer index. */
const TODAY = readFileSync(join(ROOT, 'schema', 'member_node.sql'), 'utf8').replace(/REFERENCES body \(id\)/, '');
const POINTER_INDEX = /CREATE INDEX[^;]*;/.exec(TODAY)![0];
const TODAY_NO_INDEX = rewritten(TODAY, /CREATE INDEX[^;]*;/, '');

const LAYOUTS: Record<string, Layout> = {
  current: {
    says: "member_node as stored today (schema/member_node.sql, its pointer index included) and the load's json_tree statement",
    ddl: TODAY,
    insert: MEMBER_TREE_SQL,
  },
  'no-depth': {
    says: 'the same table and statement without the depth arithmetic (depth 0): what that column costs',
    ddl: TODAY,
    insert: rewritten(MEMBER_TREE_SQL, /iif\(type = 'object' or type = 'array', iif\(parent is null[^\n]*\n/, '0,\n'),
  },
  'no-pointer-index': {
    says: "today's table and statement without the partial index on (body_id, pointer)",
    ddl: TODAY_NO_INDEX,
    insert: MEMBER_TREE_SQL,
  },
  'index-after': {
    says: "today's table and statement, the pointer index built once after every body is in (what a fresh store's load could do)",
    ddl: TODAY_NO_INDEX,
    insert: MEMBER_TREE_SQL,
    after: POINTER_INDEX,
  },
  'every-depth': {
    says: "today's table and statement, the depth worked out for scalars too (the layout before migration 0012)",
    ddl: TODAY,
    insert: rewritten(
      MEMBER_TREE_SQL,
      /iif\(type = 'object' or type = 'array', (iif\(parent is null, 0, length\(path\)[^\n]*?\)), null\),\n/,
      '$1,\n',
    ),
  },
  'type-stored': {
    says: 'type and position stored in each row (the layout before migration 0013) rather than worked out from it',
    ddl: rewritten(
      rewritten(TODAY, /  shape INTEGER[^\n]*\n/, ''),
      /  position INTEGER GENERATED[\s\S]*?VIRTUAL,\n  type TEXT GENERATED[\s\S]*?VIRTUAL,\n/,
      "  position INTEGER NOT NULL,\n  type TEXT NOT NULL CHECK (type = 'object' OR type = 'array' OR type = 'string' OR type = 'integer'\n    OR type = 'real' OR type = 'true' OR type = 'false' OR type = 'null'),\n",
    ),
    insert: rewritten(
      rewritten(
        rewritten(
          MEMBER_TREE_SQL,
          /\(body_id, parent, key, node, depth, shape, value, pointer\)/,
          '(body_id, parent, key, node, position, depth, type, value, pointer)',
        ),
        /id,\n/,
        "id,\n  iif(parent is null, 0, iif(typeof(key) = 'integer', key, id)),\n",
      ),
      /case type when 'object' then 0[^\n]*end, atom,/,
      "iif(type = 'text', 'string', type), atom,",
    ),
  },
  sorted: {
    says: "today's table and statement, each body's rows written in key order (parent, key): appended pages, packed full",
    ddl: TODAY,
    insert: MEMBER_TREE_SQL + '\norder by 2, 3',
  },
  'page-16k': {
    says: "today's table and statement in 16 KiB pages (SQLite's default is 4 KiB): fewer, fuller pages?",
    ddl: TODAY,
    insert: MEMBER_TREE_SQL,
    pageSize: 16384,
  },
  'page-64k': {
    says: "today's table and statement in 64 KiB pages, the largest SQLite allows",
    ddl: TODAY,
    insert: MEMBER_TREE_SQL,
    pageSize: 65536,
  },
  'node-ids': {
    says: "json_tree's own integer ids: key (body_id, node), parent node, key (name or array index), type, value",
    ddl: `create table member (body_id integer not null, node integer not null, parent integer, key any, type text not null, value any,
      primary key (body_id, node)) strict, without rowid`,
    insert: 'insert into member select @body, id, parent, key, type, atom from json_tree(@text)',
  },
  'node-ids+container-pointers': {
    says: 'node-ids, and the RFC 6901 pointer of each object and array (what views look up by pointer)',
    ddl: `create table member (body_id integer not null, node integer not null, parent integer, key any, type text not null, value any, pointer text,
      primary key (body_id, node)) strict, without rowid`,
    insert: `insert into member select @body, id, parent, key, type, atom, iif(type = 'object' or type = 'array', ${POINTER}, null) from json_tree(@text)`,
  },
  'node-ids+parent-index': {
    says: 'node-ids+container-pointers, and an index on (body_id, parent) for the children of a node',
    ddl: `create table member (body_id integer not null, node integer not null, parent integer, key any, type text not null, value any, pointer text,
      primary key (body_id, node)) strict, without rowid;
      create index member_children on member (body_id, parent)`,
    insert: `insert into member select @body, id, parent, key, type, atom, iif(type = 'object' or type = 'array', ${POINTER}, null) from json_tree(@text)`,
  },
  'parent-key': {
    says: 'keyed (body_id, parent, key): the children of a node are a range of the key; the node id kept as a column (the root: parent -1, key 0)',
    ddl: `create table member (body_id integer not null, parent integer, key any, node integer not null, type text not null, value any, pointer text,
      primary key (body_id, parent, key)) strict, without rowid`,
    insert: `insert into member select @body, ifnull(parent, -1), ifnull(key, 0), id, type, atom, iif(type = 'object' or type = 'array', ${POINTER}, null) from json_tree(@text)`,
  },
};

function main(): number {
  const store = resolve(process.argv[2] ?? join(OUT, 'h50.sqlite'));
  const names = process.argv[3] ? process.argv[3].split(',') : Object.keys(LAYOUTS);
  const unknown = names.filter((n) => !(n in LAYOUTS));
  if (unknown.length) {
    log(`member-layouts: unknown layout ${unknown.join(', ')}; layouts: ${Object.keys(LAYOUTS).join(', ')}`);
    return 2;
  }
  if (!existsSync(store)) {
    log(`member-layouts: ${store} does not exist; load a capture first (BENCH_SIZES=50 node dist/bench/run.js)`);
    return 2;
  }
  const src = new Database(store, { readonly: true, fileMustExist: true });
  const bodies = src.prepare("select id, content from body where kind = 'json'").all() as { id: number; content: string }[];
  src.close();
  log(`member-layouts: ${bodies.length} JSON bodies of ${basename(store)}`);
  const rows: string[][] = [];
  for (const name of names) {
    const layout = LAYOUTS[name];
    const file = join(OUT, `member-layout-${name}.sqlite`);
    rmSync(file, { force: true });
    const db = new Database(file);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    if (layout.pageSize) db.pragma(`page_size = ${layout.pageSize}`);
    db.pragma('cache_size = -16384'); // as the load sets it
    db.exec(layout.ddl);
    const insert = db.prepare(layout.insert);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    db.exec('BEGIN');
    for (const b of bodies) n += insert.run({ body: b.id, text: b.content }).changes;
    if (layout.after) db.exec(layout.after);
    db.exec('COMMIT');
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    db.close();
    const bytes = statSync(file).size;
    rmSync(file, { force: true });
    rows.push([
      name,
      n.toLocaleString('en'),
      (wallMs / 1000).toFixed(2),
      ((cpu.user + cpu.system) / 1e6).toFixed(2),
      (n / (wallMs / 1000) / 1e6).toFixed(2),
      (bytes / 1e6).toFixed(1),
      (bytes / n).toFixed(1),
      loadavg()[0].toFixed(1),
    ]);
    log(`member-layouts: ${name}: ${layout.says}`);
  }
  const head = ['layout', 'rows', 'wall s', 'CPU s', 'M rows/s', 'MB', 'bytes/row', 'load avg'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') + ' |';
  process.stdout.write(
    [
      line(head),
      '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|',
      ...rows.map(line),
    ].join('\n') + '\n',
  );
  return 0;
}

process.exit(main());
