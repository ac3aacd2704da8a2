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
import { markWriteEffects } from '../src/model/plan/evidence.js';
import { storedWriteEffects } from '../src/model/plan/stored.js';
import { captureOf, cli, fixture, tempDir } from './helpers.js';

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

describe("store snapshot of the state pass's views", () => {
  it("holds, for every view the pass reads and every view under them, the stored view's rows and value types", async () => {
    await onStore(async (db, k) => {
      const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
      const names = await withSnapshot(k, STATE_VIEWS, async () => {
        const temp = db
          .prepare("select name from sqlite_temp_master where type = 'table' and name not like 'sqlite_%' order by name")
          .pluck()
          .all() as string[];
        for (const name of temp) {
          // Each row with its columns' storage classes. The stored view's own statement (from the
          // file's schema) is read over its inputs as the snapshot holds them: a name resolves
          // to temp before main. Every view in the snapshot is checked so, against fact tables
          // or views checked in turn, so each holds the stored view's rows (by induction over
          // the views' order). Reading main."VIEW" itself compiled the whole expanded chain
          // instead: ~30 s for each of the deepest views, 389 s for this test on a busy machine.
          const view = db.prepare("select sql from main.sqlite_master where type = 'view' and name = ?").pluck().get(name) as
            | string
            | undefined;
          expect(view, `${name} is a stored view`).toBeDefined();
          const select = view!.replace(new RegExp(`^\\s*create\\s+view\\s+"?${name}"?\\s+as\\s`, 'i'), '');
          expect(select, name).not.toBe(view);
          const columns = db
            .prepare(`select * from temp."${name}"`)
            .columns()
            .map((c) => `"${c.name}"`);
          const withTypes = (from: string) =>
            db
              .prepare(`select *, ${columns.map((c) => `typeof(${c})`).join(', ')} from ${from}`)
              .raw(true)
              .all();
          expect(sorted(withTypes(`temp."${name}"`)), name).toEqual(sorted(withTypes(`(${select})`)));
        }
        return temp;
      });
      // The deep views are there, not only the ones the pass names.
      expect(names).toEqual(expect.arrayContaining([...STATE_VIEWS, 'list_locations', 'read_shown_ids', 'post_created_ids']));
    });
  });

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
      await expect(
        withSnapshot(k, STATE_VIEWS, async () => {
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
    });
  });
});

describe("a capture's snapshot sees that capture's facts only", () => {
  const names = ['json-server', 'redmine-rest', 'grafana-mini'];
  const shared = join(dir, 'three.sqlite');
  const alone = (name: string) => join(dir, `${name}.sqlite`);
  const load = (capture: string, db: string) => {
    const r = cli(['load', capture, '--db', db, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
  };
  const stateOf = (db: string, capture: number) => {
    const r = cli(['state', '--db', db, '--capture', String(capture), '--json']);
    expect(r.status, r.stderr).toBe(0);
    // The document names its capture and its own digest; everything else must match.
    const { capture_id: _id, sha256: _sha, ...rest } = JSON.parse(r.stdout) as Record<string, unknown>;
    return rest;
  };

  it('each capture of a store holding three has the state it has alone in a store', () => {
    for (const name of names) load(captureOf(name), shared);
    names.forEach((name, i) => {
      load(captureOf(name), alone(name));
      expect(stateOf(shared, i + 1), name).toEqual(stateOf(alone(name), 1));
    });
  }, 120_000);

  it("inside the pass, the fact tables and every rule view hold the capture's rows only; after it, the file's again", async () => {
    const db = openStore(shared);
    try {
      const k = kyselyFor(db);
      const count = (sql: string) => db.prepare(sql).pluck().get() as number;
      const all = { records: count('select count(*) from record'), reads: count('select count(*) from main.read_records') };
      const mine = {
        records: count('select count(*) from record where capture_id = 2'),
        reads: count('select count(*) from main.read_records where capture_id = 2'),
      };
      expect(mine.records).toBeGreaterThan(0);
      expect(mine.records).toBeLessThan(all.records);
      await withSnapshot(
        k,
        STATE_VIEWS,
        async () => {
          expect(count('select count(*) from record')).toBe(mine.records);
          expect(count('select count(*) from read_records')).toBe(mine.reads);
          expect(count('select count(distinct capture_id) from read_records')).toBe(1);
          expect(count('select count(*) from tool where capture_id <> 2')).toBe(0);
          // A request body is in scope as much as a response body.
          expect(count('select count(*) from body')).toBe(
            count(
              'select count(*) from main.body where id in (select request_body_id from main.record where capture_id = 2 union select response_body_id from main.record where capture_id = 2)',
            ),
          );
        },
        {},
        { capture: 2 },
      );
      expect(count('select count(*) from record')).toBe(all.records);
      expect(db.prepare("select count(*) from sqlite_temp_master where name not like 'sqlite_%'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  }, 120_000);
});
