import { defineCommand } from 'citty';
import { refreshStoredStates } from '../ingest/store-state.js';
import { openStore } from '../store/open.js';
import { replaceCaptureState } from '../store/postgres-publish.js';
import { temporaryReplica } from '../store/postgres-replica.js';
import { displayUrl, isPostgresUrl, openPostgresStore } from '../store/postgres-store.js';
import { viewsHash } from '../model/plan/stored.js';
import { dbArg, log, out } from './common.js';

export const args = {
  ...dbArg,
  recompute: {
    type: 'boolean',
    description: "Compute every capture's stored environment state again, even where it is up to date",
    default: false,
  },
} as const;

export default defineCommand({
  meta: {
    name: 'migrate',
    description:
      'Bring a store up to date: apply new migrations, rebuild the views from queries/, and recompute each stored environment state the views changed',
  },
  args,
  async run({ args: a }) {
    if (isPostgresUrl(a.db)) return migratePostgres(a.db, a.recompute);
    const db = openStore(a.db, { write: true });
    try {
      const version = db.pragma('user_version', { simple: true });
      // Issue 13: a state computed from other rule views (or none, in a store from before
      // migration 0003) is recomputed, one transaction per capture.
      const { computed, failed } = await refreshStoredStates(db, a.db, { all: a.recompute, log });
      out(summary(a.db, Number(version), computed, failed));
    } finally {
      db.close();
    }
  },
});

const summary = (db: string, version: number, computed: number[], failed: number[]): string => {
  const n = computed.length + failed.length;
  return (
    `${displayUrl(db)}: schema version ${version}, views up to date, ` +
    (n === 0
      ? 'stored states up to date'
      : `${n} stored state${n === 1 ? '' : 's'} recomputed${failed.length ? ` (${failed.length} could not be computed; see capstate state)` : ''}`)
  );
};

/**
 * Issue 20: a PostgreSQL store's views are rebuilt when it is opened for writing; each stale
 * state is computed again in a private copy of its capture and put back in one transaction.
 */
async function migratePostgres(url: string, all: boolean): Promise<void> {
  const store = await openPostgresStore(url, { write: true });
  try {
    const rows = (
      await store.client.query<{ id: number; q: string | null }>(
        'select c.id, s.queries_sha256 as q from capture c left join state_capture s on s.capture_id = c.id order by c.id',
      )
    ).rows;
    const stale = rows.filter((r) => all || r.q !== viewsHash()).map((r) => r.id);
    const done = { computed: [] as number[], failed: [] as number[] };
    for (const id of stale) {
      const replica = await temporaryReplica(store, [id]);
      try {
        const db = openStore(replica.file, { write: true });
        try {
          const r = await refreshStoredStates(db, replica.file, { all: true });
          await replaceCaptureState(db, store, id);
          done.computed.push(...r.computed);
          done.failed.push(...r.failed);
          log(`capture ${id}: environment state ${r.computed.length ? 'recomputed' : 'could not be computed (see capstate state)'}`);
        } finally {
          db.close();
        }
      } finally {
        replica.cleanup();
      }
    }
    const version = (await store.client.query<{ v: string }>("select value as v from meta where key = 'schema_version'")).rows[0].v;
    out(summary(url, Number(version), done.computed, done.failed));
  } finally {
    await store.close();
  }
}
