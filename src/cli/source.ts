/**
 * Where a reading command's captures come from: a capture file given as the positional
 * argument (loaded first, into a temporary store unless --db is given, as `load` does), or
 * the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { CapstateError } from '../errors.js';
import { loadCaptures } from '../ingest/load-captures.js';
import { removeAbandonedTemps } from '../store/abandoned-work.js';
import { listCaptureIds, pickCapture } from '../manifest/read.js';
import { openServeContext, type ServeContext } from '../model/served/context.js';
import { kyselyFor, openStore } from '../store/open.js';
import type { DB } from '../store/types.js';
import { displayUrl, isPostgresUrl, openPostgresStore, postgresKysely } from '../store/postgres-store.js';
import { freshStoredState } from '../model/plan/stored.js';
import { temporaryReplica } from '../store/postgres-replica.js';
import { dbArg, storeFromEnvironment } from './common.js';
import { loadInputArgs, loadInputs } from './load-inputs.js';
import { progressReporter } from './progress.js';
import { latestOfSeveral } from './latest-capture.js';

const captureArg = {
  capture: { type: 'string', description: 'Capture id in the store (see capstate info)', valueHint: 'ID' },
} as const;

export const sourceArgs = {
  ...dbArg,
  ...loadInputArgs,
  ...captureArg,
  source: {
    type: 'positional',
    description: 'A capture file to load first (into a temporary store unless --db is given)',
    required: false,
    valueHint: 'CAPTURE',
  },
  quiet: { type: 'boolean', alias: 'q', description: 'No progress on stderr while a capture file given here is loaded', default: false },
} as const;

type SourceArgValues = { db: string; capture?: string; source?: string; quiet?: boolean } & Parameters<typeof loadInputs>[0];

/** Temporary stores are `capstate-PID-XXXXXX` in $TMPDIR, so a later run can tell whose they are. */
const TEMP_PREFIX = 'capstate-';

interface Source {
  db: string;
  only: number | null;
  cleanup: () => void;
}

interface ReadOptions {
  /** A single capture is read (serve, card, check-effects). */
  one?: boolean;
  /** The stored state is read: a stale one is named on the PostgreSQL store, before any copy. */
  state?: boolean;
}

/**
 * Loads the positional capture when given; says which store and capture to read.
 */
async function resolveSource(a: SourceArgValues, rawArgs: string[], opts: ReadOptions = {}): Promise<Source> {
  const { one = false, state = false } = opts;
  const explicitDb = rawArgs.some((r) => r === '--db' || r.startsWith('--db=') || r === '-d') || storeFromEnvironment() !== undefined;
  let only: number | null = a.capture === undefined ? null : Number(a.capture);
  if (only !== null && !Number.isInteger(only)) throw new CapstateError('usage', '--capture takes a capture id (see capstate info)', {}, 2);
  let temp: string | null = null;
  // The temporary store goes on any exit, process.exit() from a signal handler included.
  const onExit = () => {
    if (temp) rmSync(temp, { recursive: true, force: true });
  };
  const cleanup = () => {
    onExit();
    temp = null;
    process.off('exit', onExit);
  };
  let db = a.db;
  try {
    if (a.source) {
      if (!explicitDb) {
        removeAbandonedTemps();
        temp = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
        process.on('exit', onExit);
        db = join(temp, 'capstate.sqlite');
      }
      // Loading a large capture before state or serve can start takes a while: show it.
      const progress = progressReporter(process.stderr, { quiet: a.quiet });
      let loaded;
      try {
        [loaded] = await loadCaptures({ db, files: [a.source], log: progress.log, onProgress: progress.update, ...loadInputs(a, rawArgs) });
      } finally {
        progress.end();
      }
      only = loaded.capture_id;
    }
    if (isPostgresUrl(db)) {
      // Issue 20: the capture (or every capture) is read from a private SQLite copy of its rows,
      // picked and checked on the server first, so messages name the store and not the copy.
      const store = await openPostgresStore(db);
      try {
        const name = displayUrl(db);
        const captures = (await store.client.query('select id, path from capture order by id')).rows.map((r) => ({
          id: Number(r.id),
          path: String(r.path),
        }));
        const ids = captures.map((c) => c.id);
        if (only === null && one) only = latestOfSeveral(captures, name);
        if (only !== null || one) only = pickCapture(ids, name, only ?? undefined);
        else if (ids.length === 0) pickCapture(ids, name);
        if (state) {
          const k = postgresKysely(db);
          try {
            for (const id of only === null ? ids : [only]) await freshStoredState(k, id, name);
          } finally {
            await k.destroy();
          }
        }
        const replica = await temporaryReplica(store, only === null ? null : [only]);
        const done = cleanup;
        return {
          db: replica.file,
          only,
          cleanup: () => {
            replica.cleanup();
            done();
          },
        };
      } finally {
        await store.close();
      }
    }
    if (only === null && one) {
      const k = kyselyFor(openStore(db));
      try {
        only = latestOfSeveral(await k.selectFrom('capture').select(['id', 'path']).orderBy('id').execute(), db);
      } finally {
        await k.destroy();
      }
    }
    return { db, only, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}

/**
 * Runs `fn` with a store connection and the capture ids to read: the loaded capture, the
 * `--capture` one, or every capture in the store.
 */
export async function withCaptures<T>(
  a: SourceArgValues,
  rawArgs: string[],
  fn: (k: Kysely<DB>, ids: number[], db: string) => Promise<T>,
  opts: ReadOptions = {},
): Promise<T> {
  const { db, only, cleanup } = await resolveSource(a, rawArgs, opts);
  try {
    const k = kyselyFor(openStore(db));
    try {
      return await fn(k, only !== null ? [pickCapture(await listCaptureIds(k), db, only)] : await listCaptureIds(k), db);
    } finally {
      await k.destroy();
    }
  } finally {
    cleanup();
  }
}

export interface ServedSource {
  ctx: ServeContext;
  cleanup: () => void;
}

/** Opens the capture to serve (serve, card): loads CAPTURE first when given, then the store read-only. */
export async function openSource(a: SourceArgValues, rawArgs: string[]): Promise<ServedSource> {
  const { db, only, cleanup } = await resolveSource(a, rawArgs, { one: true, state: true });
  try {
    return { ctx: await openServeContext(db, only ?? undefined), cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
