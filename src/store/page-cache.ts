/**
 * SQLite's page caches during the state pass (issue 14: RSS ≤ 256 MB at any size). Each
 * schema of a connection has its own cache (better-sqlite3's default 16 MB), and the pass
 * fills two: the store's and the TEMP one holding its snapshot tables; sorts and window
 * functions take up to a cache's worth each too. The pass reads pages the operating
 * system already caches, so small caches cost it no measurable time (bench/README.md,
 * 2026-12-03), and they take 60 MB off its peak at 500 MB.
 */
import type { Kysely } from 'kysely';
import { rawConnection } from './open.js';
import type { DB } from './types.js';

/** KiB of page cache per schema while the state pass runs. */
export const STATE_PASS_CACHE_KIB = 2048;

/** Runs `fn` with the main and TEMP page caches of `k`'s connection at `kib` KiB, restored after (a TEMP schema `fn` made keeps `kib`). */
export async function withPageCache<T>(k: Kysely<DB>, kib: number, fn: () => Promise<T>): Promise<T> {
  const db = rawConnection(k);
  if (!db) return fn();
  const before = {
    main: db.pragma('main.cache_size', { simple: true }) as number,
    temp: db.pragma('temp.cache_size', { simple: true }) as number,
  };
  // kib is a constant of ours; a negative cache_size is in KiB.
  const size = -Math.trunc(kib);
  db.pragma(`main.cache_size = ${size}`);
  db.pragma(`temp.cache_size = ${size}`);
  try {
    return await fn();
  } finally {
    db.pragma(`main.cache_size = ${Math.trunc(before.main)}`);
    // 0: the TEMP schema did not exist yet (the pass made it); it keeps the small cache.
    if (before.temp !== 0) db.pragma(`temp.cache_size = ${Math.trunc(before.temp)}`);
  }
}
