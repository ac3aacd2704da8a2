/**
 * Kysely over a store keeps each SQL text's prepared statement (src/store/open.ts
 * `kyselyFor`): the same query answers the same rows every time, also after a stream of the
 * same SQL was left early, and a kept statement follows schema changes (a TEMP table
 * shadowing a view, as snapshots do).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kyselyFor, openStore } from '../src/store/open.js';
import { cli, fixture, tempDir } from './helpers.js';

const dir = tempDir();

function loaded(): string {
  const db = join(dir, 'json-server.sqlite');
  const r = cli(['load', fixture('json-server', 'capture.har'), '--db', db, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
  return db;
}

describe('prepared statements kept per connection', () => {
  it('a query run again after a stream of the same SQL ended early gets the same rows (the kept statement was reset)', async () => {
    const db = openStore(loaded());
    const k = kyselyFor(db);
    try {
      const query = () => k.selectFrom('record').select(['id', 'ordinal']).orderBy('id');
      const all = await query().execute();
      expect(all.length).toBeGreaterThan(2);
      for await (const row of query().stream()) {
        expect(row.id).toBe(all[0].id);
        break; // leaves the statement mid-iteration; the iterator's return resets it
      }
      expect(await query().execute()).toEqual(all);
      const streamed: number[] = [];
      for await (const row of query().stream()) streamed.push(row.id);
      expect(streamed).toEqual(all.map((r) => r.id));
    } finally {
      await k.destroy();
    }
  });

  it('a kept statement reads a TEMP table created after it was first prepared, as SQLite resolves names again', async () => {
    const db = openStore(loaded());
    const k = kyselyFor(db);
    try {
      const count = async () =>
        Number(
          (
            await k
              .selectFrom('records_timeline')
              .select((e) => e.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const stored = await count();
      expect(stored).toBeGreaterThan(0);
      db.exec('create temp table records_timeline as select * from main.records_timeline where 0');
      expect(await count()).toBe(0);
      db.exec('drop table temp.records_timeline');
      expect(await count()).toBe(stored);
    } finally {
      await k.destroy();
    }
  });
});
