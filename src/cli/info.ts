import { defineCommand } from 'citty';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { kyselyFor, openStore, queriesHash } from '../store/open.js';
import { shellWord } from '../errors.js';
import { displayUrl, isPostgresUrl, openPostgresStore, postgresKysely } from '../store/postgres-store.js';
import type { DB } from '../store/types.js';
import { dbArg, explainArg, jsonArg, out, printJson } from './common.js';

export const args = { ...dbArg, ...jsonArg, ...explainArg } as const;

export interface StoreInfo {
  db: string;
  schema_version: number;
  captures: {
    id: number;
    path: string;
    format: string;
    creator: string | null;
    bytes: number;
    sha256: string;
    records: number;
    admitted_records: number;
    timeline_order: string | null;
    origins: { origin: string; records: number }[];
    response_bodies_by_kind: Record<string, number>;
    /**
     * The stored environment state (issue 13): `pending` when there is none yet (issue 49: its
     * load was interrupted or is still running; the next load or capstate migrate completes it),
     * `stale` when computed from other rule views (fix: capstate migrate).
     */
    state: { status: 'computed' | 'failed' | 'pending' | 'stale'; sha256: string | null; error_code: string | null };
    /** Producer quirks the loader normalised (issue 17): which, in which field, in how many records. */
    normalised: { quirk: string; field: string; records: number; first_record: number | null; note: string }[];
  }[];
  bodies: { kind: string; is_usable: number; unusable_reason: string | null; bodies: number; bytes: number }[];
  members: number;
  views: string[];
}

/** The store's schema version and view names: where each back end keeps them. */
interface Catalog {
  schemaVersion(): Promise<number>;
  views(): Promise<string[]>;
}

/**
 * Everything `capstate info` shows, read through typed queries: from the SQLite file, or from
 * the PostgreSQL store itself (issue 20; the same queries, no copy of the captures).
 */
export async function readInfo(file: string): Promise<StoreInfo> {
  if (isPostgresUrl(file)) {
    const store = await openPostgresStore(file);
    const schema = store.schema;
    await store.close();
    const k = postgresKysely(file);
    return readInfoFrom(k, file, {
      schemaVersion: async () =>
        Number((await k.selectFrom('meta').select('value').where('key', '=', 'schema_version').executeTakeFirstOrThrow()).value),
      views: async () =>
        (
          await k
            .selectFrom(sql<{ table_name: string; table_schema: string }>`information_schema.views`.as('v'))
            .select('v.table_name')
            .where('v.table_schema', '=', schema)
            .orderBy(sql`v.table_name collate "C"`)
            .execute()
        ).map((v) => v.table_name),
    });
  }
  const db = openStore(file);
  const k = kyselyFor(db);
  return readInfoFrom(k, file, {
    schemaVersion: async () => db.pragma('user_version', { simple: true }) as number,
    views: async () =>
      (
        await k
          .selectFrom(sql<{ name: string; type: string }>`sqlite_master`.as('m'))
          .select('m.name')
          .where('m.type', '=', 'view')
          .orderBy('m.name')
          .execute()
      ).map((v) => v.name),
  });
}

async function readInfoFrom(k: Kysely<DB>, file: string, catalog: Catalog): Promise<StoreInfo> {
  try {
    const captures = await k
      .selectFrom('capture')
      .leftJoin('capture_timeline', 'capture_timeline.capture_id', 'capture.id')
      .select([
        'capture.id',
        'capture.path',
        'capture.format',
        'capture.creator',
        'capture.bytes',
        'capture.sha256',
        'capture_timeline.timeline_order',
        (eb) => eb.fn.coalesce('capture_timeline.records', sql.lit(0)).as('admitted_records'),
      ])
      .orderBy('capture.id')
      .execute();
    const totals = await k
      .selectFrom('record')
      .select(['capture_id', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('capture_id')
      .execute();
    const origins = await k
      .selectFrom('record')
      .select(['capture_id', 'origin', (eb) => eb.fn.countAll<number>().as('records')])
      .groupBy(['capture_id', 'origin'])
      .orderBy('capture_id')
      .orderBy('records', 'desc')
      .orderBy('origin')
      .execute();
    const kinds = await k
      .selectFrom('record')
      .innerJoin('body', 'body.id', 'record.response_body_id')
      .select(['record.capture_id', 'body.kind', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy(['record.capture_id', 'body.kind'])
      .execute();
    const bodies = await k
      .selectFrom('body')
      .select([
        'kind',
        'is_usable',
        'unusable_reason',
        (eb) => eb.fn.countAll<number>().as('bodies'),
        (eb) => eb.fn.sum<number>('bytes').as('bytes'),
      ])
      .groupBy(['kind', 'is_usable', 'unusable_reason'])
      .orderBy('kind')
      .orderBy('unusable_reason')
      .execute();
    // member_node, not the `member` view over it: the same count without building each row's pointer.
    const members = await k
      .selectFrom('member_node')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const normalised = await k
      .selectFrom('capture_normalisation')
      .select(['capture_id', 'quirk', 'field', 'records', 'first_record', 'note'])
      .orderBy('capture_id')
      .orderBy('position')
      .execute();
    const states = await k.selectFrom('state_capture').select(['capture_id', 'status', 'sha256', 'error_code', 'queries_sha256']).execute();
    const hash = queriesHash();
    const views = await catalog.views();
    return {
      db: displayUrl(file),
      schema_version: await catalog.schemaVersion(),
      captures: captures.map((c) => ({
        ...c,
        records: Number(totals.find((t) => t.capture_id === c.id)?.n ?? 0),
        admitted_records: Number(c.admitted_records),
        origins: origins.filter((o) => o.capture_id === c.id).map((o) => ({ origin: o.origin, records: o.records })),
        response_bodies_by_kind: Object.fromEntries(kinds.filter((x) => x.capture_id === c.id).map((x) => [x.kind, x.n])),
        state: ((st) =>
          !st
            ? { status: 'pending' as const, sha256: null, error_code: null }
            : st.queries_sha256 === hash
              ? { status: st.status, sha256: st.sha256, error_code: st.error_code }
              : { status: 'stale' as const, sha256: null, error_code: null })(states.find((x) => x.capture_id === c.id)),
        normalised: normalised.filter((q) => q.capture_id === c.id).map(({ capture_id: _, ...q }) => q),
      })),
      bodies: bodies.map((b) => ({ ...b, bytes: Number(b.bytes) })),
      members: members.n,
      views,
    };
  } finally {
    await k.destroy();
  }
}

export default defineCommand({
  meta: { name: 'info', description: 'Summarise the store: captures, records, origins, bodies by kind, members, views' },
  args,
  async run({ args: a }) {
    const info = await readInfo(a.db);
    if (a.json) return printJson({ ok: true, ...info });
    const rule = (id: string) => (a.explain ? id : '');
    const lines: string[] = [`store ${info.db} (schema version ${info.schema_version})`];
    if (info.captures.length === 0) lines.push('no captures yet: capstate load CAPTURE');
    for (const c of info.captures) {
      lines.push(
        '',
        `capture ${c.id}: ${c.path}`,
        `  ${c.format}${c.creator ? ` by ${c.creator}` : ''}, ${(c.bytes / 1e6).toFixed(2)} MB, sha256 ${c.sha256.slice(0, 16)}…`,
        `  ${c.records} records, ${c.admitted_records} admitted${rule(' (OQ-2)')}, timeline by ${c.timeline_order ?? 'n/a'}${rule(' (ES-6)')}`,
        `  origins: ${c.origins.map((o) => `${o.origin} ${o.records}`).join(', ') || 'none'}`,
        `  response bodies: ${
          Object.entries(c.response_bodies_by_kind)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ') || 'none'
        }`,
        `  environment state: ${
          c.state.status === 'computed'
            ? `stored at load, sha256 ${c.state.sha256!.slice(0, 16)}…`
            : c.state.status === 'failed'
              ? `could not be computed (${c.state.error_code}; capstate state says why)`
              : c.state.status === 'pending'
                ? `pending (its load was interrupted or is still running); the next capstate load into this store completes it, or run: capstate migrate --db ${shellWord(info.db)}`
                : `out of date; run: capstate migrate --db ${shellWord(info.db)}`
        }`,
      );
      for (const q of c.normalised) {
        const where = q.records === 0 ? q.field : `${q.field}, ${q.records} record${q.records === 1 ? '' : 's'} from #${q.first_record}`;
        lines.push(`  normalised: ${q.note} (${where})`);
      }
    }
    lines.push('', 'distinct bodies (kind, usable or why not):');
    for (const b of info.bodies)
      lines.push(
        `  ${b.kind.padEnd(6)} ${(b.is_usable ? 'usable' : (b.unusable_reason ?? '')).padEnd(15)} ${String(b.bodies).padStart(6)} bodies ${String(b.bytes).padStart(10)} bytes`,
      );
    lines.push(
      '',
      `JSON members: ${info.members.toLocaleString('en-US')}`,
      `views: ${info.views.join(', ')}`,
      '',
      `explore: capstate sql "select * from records_timeline limit 10" --db ${shellWord(info.db)}`,
    );
    out(lines.join('\n'));
  },
});
