/**
 * docs/schema.md, the column-level reference of the store, written from a migrated store:
 * every table and view with its columns and types, and what it holds in the words of its
 * own file (the header comment of schema/TABLE.sql, the @says and @grain of queries/VIEW.sql).
 * `npm run docs:schema` writes it; test/schema-doc.test.ts fails when the committed file
 * differs from what the store says, so the reference cannot go stale.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listViews, packageRoot, type Sqlite } from './open.js';

// Every table is STRICT, where primary-key columns are NOT NULL whether or not they say so.
interface Column {
  name: string;
  type: string;
  notnull: number;
  pk: number;
  hidden: number;
}

/** The header comment of schema/NAME.sql (its leading `--` lines) as one paragraph. */
function tableSentence(name: string): string {
  const file = join(packageRoot, 'schema', `${name}.sql`);
  if (!existsSync(file)) return '';
  const lines: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = line.match(/^--\s?(.*)$/);
    if (!m) break;
    lines.push(m[1].trim());
  }
  return lines.join(' ').trim();
}

/**
 * Issue 46: "start here", the handful of tables and views a user wants first, out of the 65
 * (75 after a search) that `.tables` lists. Each name must be in the store (schemaReference
 * throws otherwise), so the list cannot go stale.
 */
const START_HERE: readonly (readonly [name: string, holds: string])[] = [
  ['records_timeline', 'the API calls the model was learned from (admitted records only), in timeline order: method, path, status, times'],
  ['record', 'every recorded exchange, admitted or not (other origins, static files): `tool_id` is NULL for those not admitted'],
  ['body_content', 'each body as recorded (TEXT, or BLOB for binary): join on `record.response_body_id` or `request_body_id`'],
  ['tool', "the API's operations the manifest learned: method and path template"],
  ['state_entities', "the app's data as the model serves it: one row per entity, its collection and exact JSON `value`"],
  ['state_documents', 'the single-object reads (settings, profile, …) with their JSON `value`'],
  ['state_write_effects', 'what each write tool does (create, merge, replace, remove, …) or why it is replayed'],
];

function startHere(db: Sqlite): string[] {
  const have = new Set(db.prepare("select name from sqlite_master where type in ('table', 'view')").pluck().all() as string[]);
  const missing = START_HERE.map(([n]) => n).filter((n) => !have.has(n));
  if (missing.length) throw new Error(`docs/schema.md: "start here" names ${missing.join(', ')}, which the store does not have`);
  return [
    '## Start here',
    '',
    'Most questions are answered by these; the rest are the facts and rule views behind them.',
    '',
    '| table or view | holds |',
    '|---|---|',
    ...START_HERE.map(([n, holds]) => `| [\`${n}\`](#${n}) | ${holds} |`),
    '',
    '```sh',
    'sqlite3 env.sqlite "select ordinal, method, path, status from records_timeline"',
    'sqlite3 env.sqlite "select collection, entity_key, value from state_entities"',
    "python3 -c \"import sqlite3; print(sqlite3.connect('env.sqlite').execute('select count(*) from body_content').fetchone())\"",
    'sqlite-utils tables env.sqlite --counts',
    '```',
    '',
    "Every table and view is plain SQL that any SQLite 3.37 or later reads (Python's `sqlite3`,",
    "sqlite-utils, Datasette, the sqlite3 shell): no function of capstate's or the shell's is needed.",
    'The state tables hold one environment state per capture (`capture_id`).',
    '',
  ];
}

/** Markdown cell text: pipes escaped, no line breaks. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function columnTable(db: Sqlite, name: string, isView: boolean): string[] {
  // xinfo: generated columns too (hidden 2 virtual, 3 stored), which table_info leaves out.
  const cols = db.prepare('select name, type, "notnull", pk, hidden from pragma_table_xinfo(?) order by cid').all(name) as Column[];
  const out = isView ? ['| column | type |', '|---|---|'] : ['| column | type | null | key |', '|---|---|---|---|'];
  for (const c of cols) {
    const type = c.type || 'any';
    out.push(
      isView
        ? `| \`${c.name}\` | ${cell(type)} |`
        : `| \`${c.name}\` | ${cell(type)} | ${c.notnull || c.pk ? 'not null' : 'null'} | ${c.pk ? `primary (${c.pk})` : c.hidden >= 2 ? 'worked out from the row' : ''} |`,
    );
  }
  return out;
}

/** The text of docs/schema.md for the migrated store `db` (fresh or loaded: only the schema is read). */
export function schemaReference(db: Sqlite): string {
  const objects = db
    .prepare("select type, name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%' order by type, name")
    .all() as { type: string; name: string }[];
  const views = new Map(listViews().map((v) => [v.name, v]));
  const tables = objects.filter((o) => o.type === 'table').map((o) => o.name);
  const viewNames = objects.filter((o) => o.type === 'view').map((o) => o.name);
  const version = db.pragma('user_version', { simple: true }) as number;
  const out: string[] = [
    '# The store: tables and views',
    '',
    '<!-- Written by `npm run docs:schema` from a freshly migrated store; test/schema-doc.test.ts fails when it is stale. Do not edit by hand: edit the header of schema/TABLE.sql or queries/VIEW.sql and regenerate. -->',
    '',
    `A capstate store is one SQLite file (schema version ${version}). Tables hold data (the facts`,
    'a load wrote and the state it derived); views are the rules, rebuilt from `queries/` when the',
    'store is opened for writing. JSON columns hold exact JSON text; bodies are kept as recorded.',
    '',
    ...startHere(db),
    '## The search index',
    '',
    'The first `capstate search` adds two FTS5 tables that a freshly loaded store does not have:',
    '`search_body` (the words of each text body in `body_content`, rowid = `body.id`) and `search_url`',
    '(the words of each `record.url`, rowid = `record.id`), with their FTS5 shadow tables. They',
    'are external-content indexes (no second copy of the text) with the default tokenizer, which',
    'every SQLite built with FTS5 has; `meta` keys `search_body_max_id` and `search_record_max_id`',
    'say how far they reach.',
    '',
    `## Tables (${tables.length})`,
    '',
    ...tables.map((t) => `- [\`${t}\`](#${t})`),
    '',
    `## Views (${viewNames.length})`,
    '',
    ...viewNames.map((v) => `- [\`${v}\`](#${v})`),
    '',
  ];
  for (const t of tables) {
    out.push(`### ${t}`, '', `Table. ${tableSentence(t)}`.trim(), '', ...columnTable(db, t, false), '');
  }
  for (const name of viewNames) {
    const v = views.get(name);
    const about = v
      ? `${v.says} ${v.grain[0].toUpperCase()}${v.grain.slice(1)}${v.grain.endsWith('.') ? '' : '.'} Defined in \`${v.file}\`${v.rule && v.rule !== 'none' ? ` (rule ${v.rule})` : ''}; reads ${v.reads.map((r) => `\`${r}\``).join(', ')}.`
      : '';
    out.push(`### ${name}`, '', `View. ${about}`.trim(), '', ...columnTable(db, name, true), '');
  }
  return out.join('\n').replace(/\n+$/, '\n');
}
