/**
 * The per-pass snapshot of rule views (src/store/snapshot.ts): inside it every view the
 * state pass reads holds exactly the rows of the stored view, values keep their storage
 * class, concurrent passes share one snapshot, and nothing is left on the connection.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kyselyFor, openStore } from '../src/store/open.js';
import { withSnapshot } from '../src/store/snapshot.js';
import { STATE_VIEWS } from '../src/state/facts.js';
import { environmentState, stateBytes } from '../src/state/index.js';
import { markWriteEffects } from '../src/state/evidence.js';
import { storedWriteEffects } from '../src/state/stored.js';
import { cli, fixture, tempDir } from './helpers.js';

const dir = tempDir();
const store = join(dir, 'grafana.sqlite');

function loaded(): string {
  const r = cli(['load', fixture('grafana', 'capture.har'), '--db', store]);
  expect(r.status, r.stderr).toBe(0);
  return store;
}

/** Runs `fn` on a fresh read-only connection to the loaded store, then checks nothing of the snapshot is left on it. */
async function onStore(fn: (db: ReturnType<typeof openStore>, k: ReturnType<typeof kyselyFor>) => Promise<void>): Promise<void> {
  const db = openStore(loaded());
  try {
    await fn(db, kyselyFor(db));
    expect(db.prepare("select count(*) from sqlite_temp_master where name not like 'sqlite_%'").pluck().get()).toBe(0);
  } finally {
    db.close();
  }
}

describe('store snapshot of the state pass\'s views', () => {
  it('holds, for every view the pass reads and every view under them, the stored view\'s rows and value types', async () => {
    await onStore(async (db, k) => {
      const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
      const names = await withSnapshot(k, STATE_VIEWS, async () => {
        const temp = db.prepare("select name from sqlite_temp_master where type = 'table' and name not like 'sqlite_%' order by name").pluck().all() as string[];
        for (const name of temp) {
          // Each row with its columns' storage classes, in one statement per side: compiling a
          // statement over a deep stored view is the cost here (~30 s each for the deepest).
          const columns = db.prepare(`select * from temp."${name}"`).columns().map((c) => `"${c.name}"`);
          const withTypes = (schema: string) => db.prepare(`select *, ${columns.map((c) => `typeof(${c})`).join(', ')} from ${schema}."${name}"`).raw(true).all();
          expect(sorted(withTypes('temp')), name).toEqual(sorted(withTypes('main')));
        }
        return temp;
      });
      // The deep views are there, not only the ones the pass names.
      expect(names).toEqual(expect.arrayContaining([...STATE_VIEWS, 'list_locations', 'read_shown_ids', 'post_created_ids']));
    });
  // Each stored view is compiled once over its whole expanded chain (the deepest ~30 s each on
  // this machine class; a few minutes in all, more under load).
  }, 900_000);

  it('concurrent passes on one connection run one after another and give the same bytes as the CLI', async () => {
    await onStore(async (_db, k) => {
      const [a, b] = await Promise.all([environmentState(k, 1), environmentState(k, 1)]);
      expect(stateBytes(a)).toEqual(stateBytes(b));
      const r = cli(['state', '--db', store, '--json']);
      // The CLI prints the stored view: the pass's, its evidence marked with the write check the load stored (issue 16).
      const marked = markWriteEffects(a.evidence, (await storedWriteEffects(k, 1)) ?? { verified: [], replayed: [] });
      expect(JSON.parse(r.stdout).sha256).toBe(stateBytes({ ...a, evidence: marked }).sha256);
    });
  });

  it('a failing pass drops the snapshot too', async () => {
    await onStore(async (_db, k) => {
      await expect(withSnapshot(k, STATE_VIEWS, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    });
  });
});
