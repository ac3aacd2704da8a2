/**
 * Issue 14 (flat memory): the state pass reads with small SQLite page caches, the store's and
 * the TEMP one of its snapshots, and gives the connection its own back afterwards.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { storeState } from '../src/state/writer.js';
import { STATE_PASS_CACHE_KIB, withPageCache } from '../src/store/page-cache.js';
import { kyselyFor, openStore, rawConnection } from '../src/store/open.js';
import { cli, fixture, tempDir } from './helpers.js';

const dir = tempDir();
const caches = (k: ReturnType<typeof kyselyFor>) => {
  const db = rawConnection(k)!;
  return [db.pragma('main.cache_size', { simple: true }), db.pragma('temp.cache_size', { simple: true })];
};

describe("the state pass's page caches (issue 14: flat memory)", () => {
  it('withPageCache sets both caches for its work and restores them, also when the work throws', async () => {
    const db = openStore(join(dir, 'c.sqlite'), { write: true });
    db.pragma('cache_size = -16384');
    const k = kyselyFor(db);
    const before = caches(k);
    expect(before[0]).toBe(-16384);
    expect(await withPageCache(k, 1024, async () => caches(k))).toEqual([-1024, -1024]);
    expect(caches(k)).toEqual(before);
    await expect(
      withPageCache(k, 512, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(caches(k)).toEqual(before);
    db.close();
  });

  it("storeState computes and checks the state with the small caches, and the load's cache is back after", async () => {
    const file = join(dir, 's.sqlite');
    expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', file]).status).toBe(0);
    const db = openStore(file, { write: true });
    db.pragma('cache_size = -16384');
    const k = kyselyFor(db);
    const before = caches(k);
    let during: unknown[] = [];
    db.exec('BEGIN');
    const r = await storeState(k, 1, async () => {
      during = caches(k);
      return { verified: [], replayed: [] };
    });
    db.exec('ROLLBACK');
    expect(r.status).toBe('computed');
    expect(during).toEqual([-STATE_PASS_CACHE_KIB, -STATE_PASS_CACHE_KIB]);
    // The TEMP schema did not exist before the pass (0): it keeps the pass's small cache.
    expect(before[1]).toBe(0);
    expect(caches(k)).toEqual([-16384, -STATE_PASS_CACHE_KIB]);
    db.close();
  });
});
