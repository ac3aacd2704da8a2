/**
 * Issue 44: query keys learned from a filtered read beside the whole list the capture read just
 * before it, with no write of any kind between (src/model/served/paired-queries.ts), and a
 * filtered read after the capture's own writes answered from the whole list it read after them
 * (paired-answer.ts). Synthetic captures of an app whose create the model cannot apply (an empty
 * 204, and the app draws the ids); Alertmanager's real one is in label-matchers.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeHar, type Exchange } from './har-builder.js';
import { cli, tempDir } from './helpers.js';
import { serveStore } from './serve-helpers.js';

const A = 'http://localhost:3000/api';
// The app names its items by ids of its own drawing, and its create answers nothing: the model cannot tell what it made.
const ITEMS = [
  { id: 'q7f2', kind: 'a', name: 'one' },
  { id: 'c81x', kind: 'b', name: 'two' },
  { id: 'm4k9', kind: 'a', name: 'three' },
];
const create: Exchange = { method: 'POST', url: `${A}/items`, requestBody: { kind: 'a', name: 'three' }, status: 204, body: '' };

/** Loads `exchanges`; returns the store and the list plan's learned keys. */
function load(exchanges: Exchange[]): { db: string; keys: string[] | undefined } {
  const dir = tempDir();
  const db = join(dir, 'c.sqlite');
  expect(cli(['load', writeHar(dir, 'c.har', exchanges), '--db', db]).status).toBe(0);
  const state = JSON.parse(cli(['state', '--db', db, '--json']).stdout) as {
    plans: { tool: string; list_queries?: { filter: string[] } }[];
  };
  return { db, keys: state.plans.find((p) => p.tool === 'get_api_items')?.list_queries?.filter };
}

describe('keys learned from a filtered read beside the whole list before it', () => {
  it('paired-queries: after a create the model cannot apply, the whole list and then a filtered one teach the filter key', () => {
    const { keys } = load([
      { url: `${A}/items`, body: ITEMS.slice(0, 2) },
      create,
      { url: `${A}/items`, body: ITEMS },
      { url: `${A}/items?kind=a`, body: [ITEMS[0], ITEMS[2]] },
    ]);
    expect(keys).toEqual(['kind']);
  });

  it('paired-queries: a write of any kind between the two reads, or a filtered read the whole list does not explain, teaches nothing', () => {
    const between = load([
      { url: `${A}/items`, body: ITEMS.slice(0, 2) },
      create,
      { url: `${A}/items`, body: ITEMS },
      { method: 'POST', url: `${A}/other`, requestBody: { x: 1 }, status: 204, body: '' },
      { url: `${A}/items?kind=a`, body: [ITEMS[0], ITEMS[2]] },
    ]);
    expect(between.keys).toBeUndefined();
    const unexplained = load([
      { url: `${A}/items`, body: ITEMS.slice(0, 2) },
      create,
      { url: `${A}/items`, body: ITEMS },
      { url: `${A}/items?kind=a`, body: [ITEMS[2], ITEMS[0]] },
    ]);
    expect(unexplained.keys).toBeUndefined();
  });

  it('paired-queries: a list the state pass does not know whole (read only through a filter before the writes) teaches nothing, nor answers from a whole read', async () => {
    const { keys, db } = load([
      { url: `${A}/items?kind=a`, body: [ITEMS[0]] },
      create,
      { url: `${A}/items`, body: ITEMS },
      { url: `${A}/items?name=two`, body: [ITEMS[1]] },
    ]);
    expect(keys).toEqual(['kind']);
    // `kind`, learned from the filtered read, filters what the model holds; the whole read after the create is not taken for the collection.
    const s = await serveStore(db);
    try {
      await s.call('post_api_items', { body: { kind: 'a', name: 'three' } });
      expect((await s.call('get_api_items', { query: { kind: 'b' } })).isError).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("paired-answer: after the capture's own writes, another value filters the whole list the capture read after them; after other writes it is declined", async () => {
    const { db } = load([
      { url: `${A}/items`, body: ITEMS.slice(0, 2) },
      create,
      { url: `${A}/items`, body: ITEMS },
      { url: `${A}/items?kind=a`, body: [ITEMS[0], ITEMS[2]] },
    ]);
    const s = await serveStore(db);
    try {
      await s.call('post_api_items', { body: { kind: 'a', name: 'three' } });
      const b = (await s.call('get_api_items', { query: { kind: 'b' } })).structuredContent as { source: string; body: unknown };
      expect(b).toMatchObject({ source: 'state', body: [ITEMS[1]] });
      await s.call('post_api_items', { body: { kind: 'b', name: 'four' } });
      const after = await s.call('get_api_items', { query: { kind: 'b' } });
      expect(after.isError).toBe(true);
    } finally {
      await s.close();
    }
  });
});
