/**
 * Issue 42, finding 3: one capture per caller on a SQLite store. The audit served capture 1 of
 * a store holding two and read capture 2's URLs, bodies, headers, state and manifest through
 * `query_store` and `inspect_analysis_view {parent: 2}`. A server for one capture now reads a
 * private copy of that capture alone: every tool is tried here for a way to the other.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const shared = join(dir, 'shared.sqlite');
const alone = join(dir, 'alone.sqlite');
/** A word only capture 2 (Grafana) holds: its dashboard's uid, in URLs and bodies. */
const OTHERS = 'abc123XYZ';

type Session = Served;
const session = (db: string, capture?: number): Promise<Session> => serveStore(db, { capture });

const rows = async (s: Session, sql: string) => {
  const r = await s.call('query_store', { sql });
  expect(r.isError, text(r)).toBeFalsy();
  // Rows come keyed by column (issue 46); these tests compare them as value lists.
  return (r.structuredContent as { rows: Record<string, unknown>[] }).rows.map((row) => Object.values(row));
};

let one: Session;
beforeAll(async () => {
  for (const [db, captures] of [
    [shared, ['json-server', 'grafana']],
    [alone, ['json-server']],
  ] as const) {
    for (const c of captures) {
      const r = cli(['load', fixture(c, 'capture.har'), '--db', db]);
      expect(r.status, r.stderr).toBe(0);
    }
  }
  one = await session(shared, 1);
});
afterAll(() => one?.close());

describe('issue 42: a server for one capture of a SQLite store shows that capture only', () => {
  it("query_store reads capture 1's rows and no other capture's, whatever the statement names", async () => {
    expect(await rows(one, 'select id from capture')).toEqual([[1]]);
    expect(await rows(one, 'select distinct capture_id from record')).toEqual([[1]]);
    expect(await rows(one, 'select distinct capture_id from main.tool')).toEqual([[1]]);
    expect(await rows(one, 'select distinct capture_id from records_timeline')).toEqual([[1]]);
    expect(await rows(one, 'select distinct capture_id from state_entities')).toEqual([[1]]);
    expect(await rows(one, `select count(*) from record where url like '%${OTHERS}%'`)).toEqual([[0]]);
    expect(await rows(one, `select count(*) from body_content where content like '%${OTHERS}%'`)).toEqual([[0]]);
    expect(
      await rows(one, "select count(*) from header h join record r on r.id = h.record_id where r.url like '%/api/dashboards%'"),
    ).toEqual([[0]]);
    // The same rows as the store that holds capture 1 alone.
    const single = await session(alone);
    try {
      for (const sql of [
        'select count(*) from record',
        'select count(*) from body',
        'select count(*) from member_node',
        'select count(*) from header',
        'select count(*) from state_entities',
      ]) {
        expect(await rows(one, sql), sql).toEqual(await rows(single, sql));
      }
      expect(text(await one.call('get_state'))).toBe(text(await single.call('get_state')));
    } finally {
      await single.close();
    }
  });

  it("inspect_analysis_view refuses another capture's id, for the manifest and the state", async () => {
    for (const kind of ['environment-manifest', 'environment-state']) {
      const r = await one.call('inspect_analysis_view', { parent: 2, view: { kind } });
      expect(r.isError, kind).toBe(true);
      expect(text(r)).toMatch(/serves capture 1 only/);
      expect(text(r)).not.toContain(OTHERS);
      const own = await one.call('inspect_analysis_view', { parent: 1, view: { kind } });
      expect(own.isError, kind).toBeFalsy();
      expect(text(own)).not.toContain(OTHERS);
    }
  });

  it('the manifest, the state and the environment tools hold nothing of capture 2', async () => {
    expect(text(await one.call('inspect_environment_manifest'))).not.toContain(OTHERS);
    expect(text(await one.call('get_state'))).not.toContain(OTHERS);
    expect(text(await one.call('get_posts'))).not.toContain(OTHERS);
  });

  it("messages name the user's store, and the private copy is gone when the server closes", async () => {
    const s = await session(shared, 2);
    const copy = s.ctx.file;
    expect(copy).not.toBe(shared);
    expect(s.ctx.storeName).toBe(shared);
    expect(existsSync(copy)).toBe(true);
    expect(await rows(s, 'select id from capture')).toEqual([[2]]);
    await s.close();
    expect(existsSync(copy)).toBe(false);
  });

  it('a store holding one capture is served as it is, without a copy', async () => {
    const s = await session(alone);
    try {
      expect(s.ctx.file).toBe(alone);
    } finally {
      await s.close();
    }
  });
});
