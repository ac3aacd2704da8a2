/**
 * Issue 46: a store every SQLite client reads. Every fixture's store, loaded by the CLI, is
 * opened by Python's sqlite3 (Debian's /usr/bin/python3 and the python3 on PATH, when they
 * differ) and by sqlite-utils (Debian's package, scripts/setup.sh), before and after the first
 * `capstate search` adds its FTS5 tables: every table, the state tables among them, reads in
 * full; every body reads as recorded (the bytes its sha256 covers) from `body` and from
 * `body_content`; the views a user starts with read too. Neither client has a function of
 * capstate's or the sqlite3 shell's (`sqlar_uncompress` failed here before migration 0016).
 *
 * The deep rule views (collection_order, view_fields, …) take SQLite minutes to compile per
 * store whoever asks, so they are checked by what they call instead: only SQL functions and
 * syntax SQLite 3.37 has, nothing any one client adds.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fixtureStore } from './fixture-stores.js';
import { cli, fixtureCases, root, tempDir } from './helpers.js';

const dir = tempDir();

/** The views docs/schema.md's "start here" names, and the ones the README's SQL examples read. */
const USER_VIEWS = ['body_content', 'records_timeline', 'capture_timeline', 'member', 'response_members', 'writes', 'tool_statuses'];

/** Reads a store as any Python program would: read-only, each table and USER_VIEWS in full, bodies checked against their sha256. */
const SCRIPT = `
import hashlib, json, sqlite3, sys
db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
views = json.loads(sys.argv[2])
tables = [n for (n,) in db.execute("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")]
counts = {}
for name in tables + views:
    counts[name] = sum(1 for _ in db.execute('select * from "%s"' % name.replace('"', '""')))
def sha(v):
    return None if v is None else hashlib.sha256(v.encode('utf-8') if isinstance(v, str) else v).hexdigest()
wrong = []
for (i, digest, kind, stored, content) in db.execute(
        'select b.id, b.sha256, b.kind, b.content, c.content from body b join body_content c on c.id = b.id'):
    if kind != 'none' and (sha(stored) != digest or sha(content) != digest):
        wrong.append(i)
print(json.dumps({'sqlite': sqlite3.sqlite_version, 'counts': counts, 'wrong_bodies': wrong}))
`;
const scriptFile = join(dir, 'read_store.py');
writeFileSync(scriptFile, SCRIPT);

/**
 * Debian's python3 (the one sqlite-utils runs on), else the one on PATH: one Python's sqlite3
 * reads every store (a second one, such as a pyenv build beside Debian's, reads the same file
 * format through the same library and only doubles the time).
 */
const pythons = (() => {
  for (const p of ['/usr/bin/python3', 'python3'])
    if (spawnSync(p, ['-c', 'import sqlite3'], { encoding: 'utf8' }).status === 0) return [p];
  return [];
})();

interface PythonRead {
  sqlite: string;
  counts: Record<string, number>;
  wrong_bodies: number[];
}

function readWithPython(python: string, db: string): PythonRead {
  // -I: the script's directory and the user's site are not on sys.path (a stray types.py in /tmp cannot shadow the stdlib).
  const r = spawnSync(python, ['-I', scriptFile, db, JSON.stringify(USER_VIEWS)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  expect(r.status, `${python}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as PythonRead;
}

/** What capstate's own connection counts: the same rows another client must see. */
function countsHere(db: string): Record<string, number> {
  const d = new Database(db, { readonly: true });
  try {
    const tables = d.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").pluck().all() as string[];
    return Object.fromEntries([...tables, ...USER_VIEWS].map((t) => [t, Number(d.prepare(`select count(*) from "${t}"`).pluck().get())]));
  } finally {
    d.close();
  }
}

function sqliteUtilsCounts(db: string): Record<string, number> {
  const r = spawnSync('sqlite-utils', ['tables', db, '--counts'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  expect(r.status, `sqlite-utils tables --counts: ${r.stderr}`).toBe(0);
  return Object.fromEntries((JSON.parse(r.stdout) as { table: string; count: number }[]).map((t) => [t.table, t.count]));
}

const cases = fixtureCases();
const stores = new Map<string, string | null>();
/**
 * A copy of the fixture's store (the tests search it, which adds tables), made once; null for
 * a capture the load refuses (it stores nothing).
 */
async function store(name: string): Promise<string | null> {
  if (!stores.has(name)) {
    const db = join(dir, `${name}.sqlite`);
    const loaded = await fixtureStore(name).then(
      (f) => f,
      () => null,
    );
    if (loaded) copyFileSync(loaded, db);
    stores.set(name, loaded && db);
  }
  return stores.get(name)!;
}

describe('issue 46: the clients are here', () => {
  it('python3 (Debian’s, else the one on PATH) and sqlite-utils run; setup installs sqlite-utils', () => {
    expect(pythons.length, 'no python3 found').toBeGreaterThan(0);
    expect(spawnSync('sqlite-utils', ['--version'], { encoding: 'utf8' }).status, 'sqlite-utils missing: run scripts/setup.sh').toBe(0);
    expect(readFileSync(join(root, 'scripts', 'setup.sh'), 'utf8')).toMatch(/need\+=\(sqlite-utils\)/);
  });
});

describe.each(cases)('issue 46: fixture %s read by Python and sqlite-utils', (name) => {
  it('python3 reads every table, every body as recorded and the views a user starts with, as capstate counts them, again after capstate search; sqlite-utils counts every table of the searched store', async () => {
    const db = await store(name);
    if (db === null) return; // refused at load: no store to read (fixtures.test.ts says which)
    for (const searched of [false, true]) {
      if (searched) {
        const r = cli(['search', 'id', '--db', db, '--quiet']);
        expect(r.stderr).not.toMatch(/error|failed/i);
        const d = new Database(db, { readonly: true });
        expect(d.prepare("select count(*) from sqlite_master where name in ('search_body', 'search_url')").pluck().get()).toBe(2);
        d.close();
      }
      const here = countsHere(db);
      for (const python of pythons) {
        const read = readWithPython(python, db);
        expect(read.wrong_bodies, `${python}: bodies not as recorded`).toEqual([]);
        expect(read.counts, python).toEqual(here);
      }
      const tables = Object.fromEntries(Object.entries(here).filter(([t]) => !USER_VIEWS.includes(t)));
      // Once, on the searched store: every table of the plain one and the search tables besides.
      if (searched) {
        expect(Object.keys(tables)).toContain('search_body');
        expect(sqliteUtilsCounts(db)).toEqual(tables);
      }
    }
  });
});

describe('issue 46: at least most fixtures load, so the reads above cover real stores', () => {
  it('more than 25 fixture stores were read', async () => {
    for (const c of cases) await store(c);
    expect([...stores.values()].filter(Boolean).length).toBeGreaterThan(25);
  });
});

/** SQLite 3.37's own functions (core, aggregate, window, date): what every client of it has. */
const SQLITE_337_FUNCTIONS = new Set(
  `abs changes char coalesce glob hex ifnull iif instr last_insert_rowid length like likelihood likely load_extension lower
  ltrim max min nullif printf format quote random randomblob replace round rtrim sign soundex sqlite_compileoption_get
  sqlite_compileoption_used sqlite_offset sqlite_source_id sqlite_version substr substring total_changes trim typeof unicode
  unlikely upper zeroblob avg count group_concat sum total row_number rank dense_rank percent_rank cume_dist ntile lag lead
  first_value last_value nth_value date time datetime julianday strftime`.split(/\s+/),
);
/** Words before `(` that are SQL syntax, not function calls. */
const SYNTAX = new Set(
  `cast exists in values as over filter check key unique using and or not from where materialized select when then else join
  on by is between like glob case end all`.split(/\s+/),
);

function sqlFiles(): string[] {
  const under = (d: string) =>
    (readdirSync(join(root, d), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((f) => f.endsWith('.sql'))
      .map((f) => join(root, d, f));
  return [...under('queries'), ...under('schema'), ...under('migrations')];
}

describe('issue 46: the views and tables ask nothing SQLite 3.37 lacks', () => {
  it('every function the SQL calls is one of SQLite 3.37 (no sqlar_uncompress, no json ->, no later syntax)', () => {
    const found: string[] = [];
    for (const file of sqlFiles()) {
      const text = readFileSync(file, 'utf8')
        .replace(/--.*$/gm, '')
        .replace(/'(?:[^']|'')*'/g, "''");
      // A name before `(` is a call unless it names a table, index or column list (`insert into t (`, `on t (`).
      for (const m of text.matchAll(/(?:\b([a-z_]+)\s+)?\b([a-z_][a-z0-9_]*)\s*\(/gi)) {
        const before = (m[1] ?? '').toLowerCase();
        const fn = m[2].toLowerCase();
        if (['table', 'into', 'on', 'exists', 'view', 'index', 'references', 'recursive'].includes(before) || SYNTAX.has(fn)) continue;
        if (!SQLITE_337_FUNCTIONS.has(fn)) found.push(`${fn} in ${file.slice(root.length + 1)}`);
      }
      // 3.38: -> and ->>, unixepoch; 3.39: RIGHT and FULL JOIN, IS [NOT] DISTINCT FROM.
      for (const later of [/->/, /\bunixepoch\b/i, /\b(right|full)\s+(outer\s+)?join\b/i, /\bis\s+(not\s+)?distinct\s+from\b/i]) {
        if (later.test(text)) found.push(`${later} in ${file}`);
      }
    }
    expect(found).toEqual([]);
  });
});
