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
import { loadCaptures } from '../load/index.js';
import { listCaptureIds, pickCapture } from '../manifest/read.js';
import { openServeContext, type ServeContext } from '../serve/context.js';
import { kyselyFor, openStore } from '../store/open.js';
import type { DB } from '../store/types.js';
import { dbArg, log } from './common.js';
import { loadInputArgs, loadInputs } from './load-inputs.js';

const captureArg = {
  capture: { type: 'string', description: 'Capture id in the store (see capstate info)', valueHint: 'ID' },
} as const;

export const sourceArgs = {
  ...dbArg,
  ...loadInputArgs,
  ...captureArg,
  source: { type: 'positional', description: 'A capture file to load first (into a temporary store unless --db is given)', required: false, valueHint: 'CAPTURE' },
} as const;

type SourceArgValues = { db: string; capture?: string; source?: string } & Parameters<typeof loadInputs>[0];

interface Source { db: string; only: number | null; cleanup: () => void }

/** Loads the positional capture when given; says which store and capture to read. */
async function resolveSource(a: SourceArgValues, rawArgs: string[]): Promise<Source> {
  const explicitDb = rawArgs.some((r) => r === '--db' || r.startsWith('--db='));
  let only: number | null = a.capture === undefined ? null : Number(a.capture);
  if (only !== null && !Number.isInteger(only)) throw new CapstateError('usage', '--capture takes a capture id (see capstate info)', {}, 2);
  let temp: string | null = null;
  const cleanup = () => { if (temp) rmSync(temp, { recursive: true, force: true }); temp = null; };
  let db = a.db;
  try {
    if (a.source) {
      if (!explicitDb) {
        temp = mkdtempSync(join(tmpdir(), 'capstate-'));
        db = join(temp, 'capstate.sqlite');
      }
      const [loaded] = await loadCaptures({ db, files: [a.source], log, ...loadInputs(a, rawArgs) });
      only = loaded.capture_id;
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
export async function withCaptures<T>(a: SourceArgValues, rawArgs: string[], fn: (k: Kysely<DB>, ids: number[]) => Promise<T>): Promise<T> {
  const { db, only, cleanup } = await resolveSource(a, rawArgs);
  try {
    const k = kyselyFor(openStore(db));
    try {
      return await fn(k, only !== null ? [pickCapture(await listCaptureIds(k), db, only)] : await listCaptureIds(k));
    } finally {
      await k.destroy();
    }
  } finally {
    cleanup();
  }
}


export interface ServedSource { ctx: ServeContext; cleanup: () => void }

/** Opens the capture to serve (serve, card): loads CAPTURE first when given, then the store read-only. */
export async function openSource(a: SourceArgValues, rawArgs: string[]): Promise<ServedSource> {
  const { db, only, cleanup } = await resolveSource(a, rawArgs);
  try {
    return { ctx: await openServeContext(db, only ?? undefined), cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
