/**
 * Fixture captures loaded once per test worker and shared by the files that only read them
 * (the suite's files of a worker share one module graph, vitest.config.ts `isolate: false`).
 * Loading every fixture again in each of five files cost about a minute of the suite's CPU.
 * A test that writes to a store copies it first (`copyFileSync`): these are never written
 * after their load.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { captureOf, fixtureCases } from './helpers.js';

/** The time every shared load records, as the tests that load by hand record it. */
export const FIXTURE_LOADED_AT = '2026-01-01T00:00:00.000Z';

let dir: string | undefined;
/** This worker's directory of shared stores, inside the run's (test/global-setup.ts removes it). */
function storesDir(): string {
  dir ??= mkdtempSync(join(inject('sharedStoresDir'), 'worker-'));
  return dir;
}

const single = new Map<string, Promise<string>>();
/** The store of fixture `name` alone (its capture is capture 1), loaded in process once per worker. */
export function fixtureStore(name: string): Promise<string> {
  let p = single.get(name);
  if (!p) {
    const db = join(storesDir(), `${name}.sqlite`);
    p = loadCaptures({ db, files: [captureOf(name)], loadedAt: FIXTURE_LOADED_AT }).then(() => db);
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
/** Every fixture in one SQLite store, loaded once per worker. */
export function allFixturesStore(): Promise<AllFixtures> {
  if (!all) {
    const file = join(storesDir(), 'all-fixtures.sqlite');
    all = loadEveryFixture(file).then((ids) => ({ file, ids }));
  }
  return all;
}
