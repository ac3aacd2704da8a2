/**
 * What `capstate load` says when it is done (issue 46): one plain line per capture — what the
 * model learned, how many recorded writes take effect, which records it ignored — and the
 * next step. `--explain` gives the exact terms and the rules behind them, and the load's
 * facts (records, bodies, members, time). Read from the stored rows the load just wrote.
 */
import type { Kysely } from 'kysely';
import { shellWord } from '../errors.js';
import type { LoadedCapture } from '../ingest/load-captures.js';
import type { DB } from '../store/types.js';
import { assetKind, type AssetKind } from '../manifest/subject.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What an ignored record is, for the summary: its asset kind (the manifest's, issue 17), a failure, or another site. */
type Ignored = AssetKind | 'failed request' | 'from another site' | 'other';
const IGNORED_PLURAL: Record<Ignored, string> = {
  font: 'fonts',
  image: 'images',
  script: 'scripts',
  stylesheet: 'stylesheets',
  'source map': 'source maps',
  'media file': 'media files',
  'failed request': 'failed requests',
  'from another site': 'from other sites',
  other: 'others',
};

/** A record no tool reads or writes, by what it is. */
function ignoredKind(r: { path: string; resource_type: string | null; status: number | null }, onAppOrigin: boolean): Ignored {
  if (!onAppOrigin) return 'from another site';
  if (r.status === null || r.status === 0) return 'failed request';
  return assetKind({ path: r.path, resourceType: r.resource_type }) ?? 'other';
}

/** What a capture's GraphQL endpoints hold (src/model/graphql): entities, types, records, and mutations that take effect. */
export interface GraphqlSummary {
  entities: number;
  types: number;
  records: number;
  mutations: { verified: number; all: number };
}

interface Learned {
  status: 'computed' | 'failed' | 'missing';
  types: number;
  documents: number;
  writeTools: { verified: number; replayed: number };
  writeRecords: { verified: number; all: number };
  ignored: Map<Ignored, number>;
}

async function learned(k: Kysely<DB>, captureId: number): Promise<Learned> {
  const state = await k.selectFrom('state_capture').select('status').where('capture_id', '=', captureId).executeTakeFirst();
  const count = async (table: 'state_types' | 'state_documents') =>
    Number(
      (
        await k
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('capture_id', '=', captureId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const effects = await k.selectFrom('state_write_effects').select(['tool', 'verified']).where('capture_id', '=', captureId).execute();
  const records = await k
    .selectFrom('record')
    .leftJoin('tool', 'tool.id', 'record.tool_id')
    .select(['record.origin', 'record.path', 'record.resource_type', 'record.status', 'tool.name as tool'])
    .where('record.capture_id', '=', captureId)
    .execute();
  const subject = await k.selectFrom('manifest').select('subject_origin').where('capture_id', '=', captureId).executeTakeFirst();
  const appOrigins = new Set([subject?.subject_origin, ...records.filter((r) => r.tool !== null).map((r) => r.origin)]);
  const verifiedTools = new Set(effects.filter((e) => e.verified === 1).map((e) => e.tool));
  const writeTools = new Set(effects.map((e) => e.tool));
  const ignored = new Map<Ignored, number>();
  for (const r of records.filter((r) => r.tool === null)) {
    const kind = ignoredKind(r, appOrigins.has(r.origin));
    ignored.set(kind, (ignored.get(kind) ?? 0) + 1);
  }
  return {
    status: state?.status ?? 'missing',
    types: await count('state_types'),
    documents: await count('state_documents'),
    writeTools: { verified: verifiedTools.size, replayed: writeTools.size - verifiedTools.size },
    writeRecords: {
      verified: records.filter((r) => r.tool !== null && verifiedTools.has(r.tool)).length,
      all: records.filter((r) => r.tool !== null && writeTools.has(r.tool)).length,
    },
    ignored,
  };
}

/** The plain line: `FILE: learned 3 collections and 2 documents; 4 of 4 recorded writes take effect; ignored 3 records: 1 font, 2 scripts`. */
function plainLine(r: LoadedCapture, l: Learned, db: string, graphql: GraphqlSummary | null): string {
  if (l.status !== 'computed')
    return `${r.file}: loaded as capture ${r.capture_id}, but its state could not be computed; capstate state${db} says why`;
  const what = [l.types ? plural(l.types, 'collection') : '', l.documents ? plural(l.documents, 'document') : ''].filter(Boolean);
  if (graphql?.entities) what.push(`${plural(graphql.entities, 'GraphQL entity', 'GraphQL entities')} of ${plural(graphql.types, 'type')}`);
  const parts = [what.length ? `learned ${what.join(' and ')}` : 'learned nothing it answers from state (every read replays its records)'];
  // A GraphQL endpoint's records are writes to the manifest; its mutations are counted as such.
  const w = graphql
    ? { verified: l.writeRecords.verified + graphql.mutations.verified, all: l.writeRecords.all - graphql.records + graphql.mutations.all }
    : l.writeRecords;
  if (w.all === 0) parts.push('no recorded writes');
  else if (w.verified === 0)
    parts.push(
      `none of its ${plural(w.all, 'recorded write')} take${w.all === 1 ? 's effect (it replays its recorded answer)' : ' effect (they replay their recorded answers)'}`,
    );
  else parts.push(`${w.verified} of ${plural(w.all, 'recorded write')} take${w.verified === 1 ? 's' : ''} effect`);
  const n = [...l.ignored.values()].reduce((a, b) => a + b, 0);
  if (n > 0)
    parts.push(
      `ignored ${plural(n, 'record')}: ${[...l.ignored]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([kind, c]) => (c === 1 ? `1 ${kind}` : `${c} ${IGNORED_PLURAL[kind]}`))
        .join(', ')}`,
    );
  return `${r.file}: ${parts.join('; ')}`;
}

/** The exact terms, with the rules that decide them (docs/rules.md), and the load's facts. */
function explainLines(r: LoadedCapture, l: Learned): string[] {
  const kinds = Object.entries(r.response_bodies_by_kind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const mbps = r.bytes / 1e6 / (r.duration_ms / 1000);
  const lines = [
    `${r.file}: capture ${r.capture_id} (${r.format}), ${r.records} records, response bodies ${kinds || 'none'}, ` +
      `${r.members.toLocaleString('en-US')} JSON members; ${(r.duration_ms / 1000).toFixed(2)} s (${mbps.toFixed(1)} MB/s)`,
  ];
  if (l.status !== 'computed') return [...lines, `  state: ${l.status} (ES-39; capstate state says why)`];
  const notInCatalog = [...l.ignored].map(([kind, c]) => `${c} ${kind}`).join(', ') || 'none';
  lines.push(
    `  state (ES-1): ${plural(l.types, 'type')} (ES-7, ES-11), ${plural(l.documents, 'document')} (DOC-1..DOC-5)`,
    `  write effects (ES-41): ${l.writeTools.verified} write tool(s) verified, ${l.writeTools.replayed} replayed; ` +
      `${l.writeRecords.verified} of ${l.writeRecords.all} write records under verified tools`,
    `  records in no tool (OQ-2 admission, static assets kept as facts): ${notInCatalog}`,
  );
  return lines;
}

/**
 * The summary of a load into store `db` (as the user named it): a line per capture, the
 * store, and the next step. `--db` is named in the commands unless it is the default store.
 */
export async function loadSummary(
  k: Kysely<DB>,
  results: LoadedCapture[],
  opts: {
    db: string;
    shownDb: string;
    isDefaultDb: boolean;
    explain: boolean;
    graphql?: (captureId: number) => Promise<GraphqlSummary | null>;
  },
): Promise<string[]> {
  const dbFlag = opts.isDefaultDb ? '' : ` --db ${shellWord(opts.db)}`;
  const lines: string[] = [];
  const captures = Number(
    (
      await k
        .selectFrom('capture')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  for (const r of results) {
    if (r.already_loaded) {
      lines.push(`${r.file}: already loaded as capture ${r.capture_id}; nothing added`);
      continue;
    }
    const l = await learned(k, r.capture_id);
    const graphql = opts.graphql ? await opts.graphql(r.capture_id) : null;
    lines.push(...(opts.explain ? explainLines(r, l) : [plainLine(r, l, dbFlag, graphql)]));
  }
  lines.push(`store: ${opts.shownDb}`);
  // Several captures in the store: the one-capture commands need --capture.
  const last = results.at(-1)?.capture_id;
  const which = captures > 1 && last !== undefined ? ` --capture ${last}` : '';
  const serve = `capstate serve --http 3000${dbFlag}${which}`;
  const state = `capstate state${dbFlag}${which}`;
  const w = Math.max(serve.length, state.length);
  lines.push(`next: ${serve.padEnd(w)}  (the app's API at http://127.0.0.1:3000/)`, `  or: ${state.padEnd(w)}  (what it learned)`);
  return lines;
}
