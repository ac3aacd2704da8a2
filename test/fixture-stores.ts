/**
 * Fixture captures loaded once per test run and shared by the files that only read them.
 * Loading every fixture again in each of five files cost about a minute of the suite's CPU,
 * and once per worker another half minute. The first worker to ask for a store takes its lock
 * and loads it; a worker asking meanwhile waits for it. A test that writes to a store copies
 * it first (`copyFileSync`): these are never written after their load.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { captureOf, fixtureCases } from './helpers.js';

/** The time every shared load records, as the tests that load by hand record it. */
export const FIXTURE_LOADED_AT = '2026-01-01T00:00:00.000Z';

/** How long a worker waits for another's load of a shared store before it fails. */
const WAIT_MS = 600_000;

/**
 * The store `file` of the run's shared directory (test/global-setup.ts removes it), made by
 * `make(work, file)` in one worker only: the others wait until it is renamed into place. A failed
 * make leaves its message beside the store, so the waiting workers fail with it.
 */
async function sharedOnce(file: string, make: (work: string, db: string) => Promise<void>): Promise<string> {
  const db = join(inject('sharedStoresDir'), file);
  const failed = `${db}.failed`;
  let mine = true;
  try {
    mkdirSync(`${db}.lock`);
  } catch {
    mine = false;
  }
  if (mine) {
    const work = `${db}.${process.pid}.work`;
    try {
      await make(work, db);
    } catch (e) {
      writeFileSync(failed, String(e));
      throw e;
    }
    renameSync(work, db);
    return db;
  }
  for (const until = Date.now() + WAIT_MS; !existsSync(db); await sleep(50)) {
    if (existsSync(failed)) throw new Error(`another worker's load of ${file} failed: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > until) throw new Error(`another worker's load of ${file} did not end in ${WAIT_MS / 1000} s`);
  }
  return db;
}

const single = new Map<string, Promise<string>>();
/** The store of fixture `name` alone (its capture is capture 1), loaded once per run. */
export function fixtureStore(name: string): Promise<string> {
  let p = single.get(name);
  if (!p) {
    p = sharedOnce(`${name}.sqlite`, async (work) => {
      await loadCaptures({ db: work, files: [captureOf(name)], loadedAt: FIXTURE_LOADED_AT });
    });
    single.set(name, p);
  }
  return p;
}

/** One store holding every fixture, loaded one after another in name order. */
export interface AllFixtures {
  file: string;
  /** Each fixture's capture id in `file`. */
  ids: Map<string, number>;
}

/**
 * Loads every fixture, in name order, into the store at `db` (of `loadCaptures`'s kind: a path
 * or a postgres:// URL). A fixture whose capture file has the bytes of an earlier one's (two
 * cases of one capture, e.g. with and without a manifest override) is not loaded again: a store
 * keeps those once, and PostgreSQL's sequence would leave the id it reserved for it unused, so
 * the two kinds of store would number the captures after it differently.
 */
export async function loadEveryFixture(db: string): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const bySha = new Map<string, number>();
  for (const name of fixtureCases()) {
    const sha = createHash('sha256')
      .update(readFileSync(captureOf(name)))
      .digest('hex');
    let id = bySha.get(sha);
    if (id === undefined) {
      [{ capture_id: id }] = await loadCaptures({ db, files: [captureOf(name)], loadedAt: FIXTURE_LOADED_AT });
      bySha.set(sha, id);
    }
    ids.set(name, id);
  }
  return ids;
}

let all: Promise<AllFixtures> | undefined;
/** Every fixture in one SQLite store, loaded once per run. */
export function allFixturesStore(): Promise<AllFixtures> {
  if (!all) {
    all = (async () => {
      const file = await sharedOnce('all-fixtures.sqlite', async (work, db) => {
        writeFileSync(`${db}.ids.json`, JSON.stringify([...(await loadEveryFixture(work))]));
      });
      // Each fixture's capture id, as the worker that loaded the store wrote them.
      return { file, ids: new Map<string, number>(JSON.parse(readFileSync(`${file}.ids.json`, 'utf8'))) };
    })();
  }
  return all;
}
