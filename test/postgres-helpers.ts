/**
 * PostgreSQL test helpers (issue 20): the throwaway server (bench/postgres-server.ts, shared
 * with the benchmark), a database made a capstate store, COPY scripts and view snapshots.
 */
import type { Postgres } from '../bench/postgres-server.js';
import { listViews, orderViews, type ViewFile } from '../src/store/open.js';
import type { CopyTable } from '../src/store/postgres-copy.js';
import { postgresSchema, postgresSeed } from '../src/store/postgres-schema.js';
import { postgresView } from '../src/store/postgres-views.js';
import { explorationViewNames } from '../src/store/snapshot.js';

export { startPostgres, type Postgres } from '../bench/postgres-server.js';

/** Creates `name` as a capstate store: C collation (SQLite's text order), the tables and their seed rows. */
export function createStoreDatabase(pg: Postgres, name: string): void {
  pg.psql('postgres', `create database ${name} template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  pg.script(name, postgresSchema() + postgresSeed());
}

/** `COPY … FROM STDIN` statements with their data, for a script. */
export const copyStatements = (tables: CopyTable[]): string =>
  tables.map((t) => `COPY "${t.table}" (${t.columns.join(', ')}) FROM STDIN;\n${t.text}\\.\n`).join('');

/** Every rule view but the exploration ones (`member`, `response_members`), in dependency order. */
export const ruleViews = () => orderViews(listViews()).filter((v) => !explorationViewNames().has(v.name));

/**
 * Statements that evaluate `views` once each, in order, into temporary tables of their names,
 * as the state pass's snapshot does (a temporary table is found before a table of the same
 * name in public): read through the stored views instead, PostgreSQL plans the deepest ones
 * for ~25 s each.
 */
export const viewSnapshotStatements = (views: ViewFile[]): string =>
  views.map((v) => postgresView(v.sql).replace(/create\s+view\s+([a-z_][a-z0-9_]*)\s+as/i, 'create temp table $1 as') + ';').join('\n') +
  '\n';
