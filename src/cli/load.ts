import { defineCommand } from 'citty';
import { loadCaptures, type LoadedCapture } from '../ingest/load-captures.js';
import { displayUrl } from '../store/postgres-store.js';
import { dbArg, explainArg, jsonArg, out, printJson, storeFromEnvironment } from './common.js';
import { isPostgresUrl } from '../store/postgres-store.js';
import { kyselyFor, openStore } from '../store/open.js';
import { loadSummary } from './load-summary.js';
import { graphqlSummary } from './graphql-summary.js';
import { loadInputArgs, loadInputs } from './load-inputs.js';
import { progressReporter } from './progress.js';

export const args = {
  ...dbArg,
  ...jsonArg,
  ...explainArg,
  ...loadInputArgs,
  quiet: {
    type: 'boolean',
    alias: 'q',
    description:
      'No progress on stderr (for files over 4 MB: on a terminal one updating line; otherwise a line per tenth read, then one per step of the manifest and state)',
    default: false,
  },
} as const;

export default defineCommand({
  meta: {
    name: 'load',
    description: 'Load HAR 1.2 or scenario Evidence captures into the store (their facts all or nothing, then each state)',
  },
  args: {
    ...args,
    captures: {
      type: 'positional',
      description: 'Capture files: HAR (also .har.gz or a Playwright .zip) or scenario Evidence JSON; - reads standard input',
      required: true,
      valueHint: 'CAPTURE',
    },
  },
  async run({ args: a, rawArgs }) {
    const files = (a._ as string[]).length ? (a._ as string[]) : [a.captures as string];
    const progress = progressReporter(process.stderr, { quiet: a.quiet });
    let results: LoadedCapture[];
    try {
      results = await loadCaptures({ db: a.db, files, log: progress.log, ...loadInputs(a, rawArgs), onProgress: progress.update });
    } finally {
      progress.end();
    }
    if (a.json) {
      printJson({ ok: true, db: displayUrl(a.db), captures: results });
      return;
    }
    if (isPostgresUrl(a.db)) {
      // The summary reads the stored rows; a PostgreSQL store keeps the load's facts line.
      for (const r of results) out(describe(r));
      out(`store: ${displayUrl(a.db)}`);
      return;
    }
    // Issue 46: one plain summary per capture and the next step; --explain the exact terms.
    // The next step names --db unless the commands would find the store without it.
    const isDefaultDb = a.db === (storeFromEnvironment() ?? 'capstate.sqlite');
    const sqlite = openStore(a.db);
    const k = kyselyFor(sqlite);
    try {
      const graphql = (captureId: number) => graphqlSummary(sqlite, k, a.db, captureId);
      out((await loadSummary(k, results, { db: a.db, shownDb: displayUrl(a.db), isDefaultDb, explain: a.explain, graphql })).join('\n'));
    } finally {
      await k.destroy();
    }
  },
});

function describe(r: LoadedCapture): string {
  if (r.already_loaded) return `${r.file}: already loaded as capture ${r.capture_id}; nothing added`;
  const kinds = Object.entries(r.response_bodies_by_kind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const mbps = r.bytes / 1e6 / (r.duration_ms / 1000);
  return (
    `${r.file}: capture ${r.capture_id} (${r.format}), ${r.records} records, response bodies ${kinds || 'none'}, ` +
    `${r.members.toLocaleString('en-US')} JSON members; ${(r.duration_ms / 1000).toFixed(2)} s (${mbps.toFixed(1)} MB/s)`
  );
}
