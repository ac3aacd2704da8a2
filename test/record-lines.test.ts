/**
 * One reader of a tool's records (issue 13): the state pass and serving read a tool's
 * records — request line, path values, query pairs, timeline position, initial or not —
 * through src/store/record-lines.ts, and get the same lines from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyFor, openStore } from '../src/store/open.js';
import { readRecordLines } from '../src/store/record-lines.js';
import type { DB } from '../src/store/types.js';
import { cli, root, sourceFiles, tempDir } from './helpers.js';
import { loadHar, writeHar } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';

describe("one reader of a tool's records", () => {
  it("no other module reads the records' query pairs (query_param) or path values (path_param) per tool", () => {
    const offenders = sourceFiles()
      .filter((f) => !f.endsWith(join('store', 'record-lines.ts')) && !f.endsWith(join('store', 'types.ts')))
      .filter((f) => /selectFrom\('(query_param|path_param)/.test(readFileSync(f, 'utf8')));
    // The state pass keeps one capture-wide read of path values (the id a write names, ES-8 per entity).
    expect(offenders.map((f) => f.slice(root.length + 1))).toEqual(['src/state/facts.ts']);
  });

  it("a tool's reads alone (as the state pass asks) are its records less the writes, same fields and order", async () => {
    const db = loadHar(dir, [
      { url: `${A}/api/v1/items?b=2&a=1&a=3`, body: [{ id: 'it-1' }] },
      { method: 'POST', url: `${A}/api/v1/items`, status: 201, body: { id: 'it-2' } },
      { url: `${A}/api/v1/items`, body: [{ id: 'it-1' }, { id: 'it-2' }] },
    ]);
    const file = db.name;
    db.close();
    const store = openStore(file);
    const k = kyselyFor(store);
    const tools = await k.selectFrom('tool').select(['id', 'name', 'root_path']).orderBy('id').execute();
    const initial = new Map([[1, null]]);
    const every = await readRecordLines(k, { captureId: 1, tools, readsOnly: false, initial });
    const reads = await readRecordLines(k, { captureId: 1, tools, readsOnly: true, initial });
    expect(every.map((l) => [l.ordinal, l.method, l.tool, l.is_initial])).toEqual([
      [1, 'GET', 'get_api_v1_items', true],
      [2, 'POST', 'post_api_v1_items', false],
      [3, 'GET', 'get_api_v1_items', false],
    ]);
    expect(reads).toEqual(every.filter((l) => l.method === 'GET'));
    expect(every[0].query_pairs).toEqual([
      { name: 'b', value: '2' },
      { name: 'a', value: '1' },
      { name: 'a', value: '3' },
    ]);
    await k.destroy();
  });

  // Issue 14: serving reads its capture's lines at start-up; the timeline (ES-6) is a window
  // over records, and evaluated for every capture in the file it made start-up grow with the store.
  it("reads the timeline of the tools' capture only, not of every capture in the store", async () => {
    const file = join(dir, 'two-captures.sqlite');
    for (const [name, path] of [
      ['first', 'notes'],
      ['second', 'items'],
    ]) {
      const har = writeHar(dir, `${name}.har`, [
        { url: `${A}/api/${path}`, body: [{ id: 1 }] },
        { url: `${A}/api/${path}/1`, body: { id: 1 } },
      ]);
      const r = cli(['load', har, '--db', file]);
      expect(r.status, r.stderr).toBe(0);
    }
    const store = openStore(file);
    const queries: CompiledQuery[] = [];
    const k = new Kysely<DB>({
      dialect: new SqliteDialect({ database: store }),
      log: (e) => {
        queries.push(e.query);
      },
    });
    const tools = await k.selectFrom('tool').select(['id', 'name', 'root_path']).where('capture_id', '=', 2).orderBy('id').execute();
    for (const readsOnly of [false, true]) {
      queries.length = 0;
      const lines = await readRecordLines(k, { captureId: 2, tools, readsOnly, initial: new Map() });
      expect(lines.map((l) => l.path)).toEqual(['/api/items', '/api/items/1']);
      const timeline = queries.filter((q) => /"(records_timeline|read_records)"/.test(q.sql));
      expect(timeline).toHaveLength(1);
      const plan = store.prepare(`explain query plan ${timeline[0].sql}`).all(...(timeline[0].parameters as unknown[])) as {
        detail: string;
      }[];
      const details = plan.map((p) => p.detail);
      expect(
        details.filter((d) => /^SCAN record\b/.test(d)),
        details.join('\n'),
      ).toEqual([]);
      expect(
        details.some((d) => /^SEARCH record USING .*\(capture_id=\?\)/.test(d)),
        details.join('\n'),
      ).toBe(true);
    }
    await k.destroy();
  });
});
