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
    `A capstate store is one SQLite file (schema version ${version}). Any SQLite client reads it:`,
    '`sqlite3 env.sqlite "select * from state_entities"`. Tables hold data (the facts a load',
    'wrote and the state it derived); views are the rules, rebuilt from `queries/` when the',
    'store is opened for writing. JSON columns hold exact JSON text.',
    '',
    'Text bodies of 1 KiB or more are kept deflated where that saves an eighth (`body.coding` is',
    "'deflate'): read bodies from the `body_content` view, which gives each as recorded. It uses",
    '`sqlar_uncompress`, which the sqlite3 shell has built in and capstate gives its own connections.',
    '',
    'The first `capstate search` adds two FTS5 tables that a freshly loaded store does not have:',
    '`search_body` (the words of each text body in `body_content`, rowid = `body.id`) and `search_url`',
    '(the words of each `record.url`, rowid = `record.id`), with their FTS5 shadow tables. They',
    'are external-content indexes (no second copy of the text); `meta` keys `search_body_max_id`',
    'and `search_record_max_id` say how far they reach.',
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
