/**
 * The stored state's collections, decoded once and kept within a budget (issue 14: a write
 * check and a served session read a type's whole collection on every create). What is kept
 * is bounded by the characters of stored JSON it came from; the oldest go first; a
 * collection over the budget alone is read each time, never held.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BoundedCache, storedLookups } from '../src/model/plan/lookups.js';
import { loadCaptures } from '../src/ingest/load-captures.js';
import { kyselyFor, openStore } from '../src/store/open.js';
import { writeHar } from './har-builder.js';
import { tempDir } from './helpers.js';

const counted = () => {
  const loads: string[] = [];
  const load = (key: string, chars: number) => async () => {
    loads.push(key);
    return { value: `${key}:${loads.length}`, chars };
  };
  return { loads, load };
};

describe('collection cache: values kept within a budget of characters', () => {
  it('reads a key once while it fits', async () => {
    const c = new BoundedCache<string>(100);
    const { loads, load } = counted();
    expect(await c.read('a', load('a', 40))).toBe('a:1');
    expect(await c.read('a', load('a', 40))).toBe('a:1');
    expect(loads).toEqual(['a']);
    expect(c.size).toBe(40);
  });

  it('evicts the oldest when a new value would pass the budget', async () => {
    const c = new BoundedCache<string>(100);
    const { loads, load } = counted();
    await c.read('a', load('a', 40));
    await c.read('b', load('b', 40));
    await c.read('c', load('c', 40)); // 120 > 100: a goes
    expect(c.size).toBe(80);
    await c.read('b', load('b', 40));
    await c.read('c', load('c', 40));
    expect(loads).toEqual(['a', 'b', 'c']);
    await c.read('a', load('a', 40)); // read again; b (now the oldest) goes
    expect(loads).toEqual(['a', 'b', 'c', 'a']);
    expect(c.size).toBe(80);
  });

  it('never holds a value larger than the whole budget', async () => {
    const c = new BoundedCache<string>(100);
    const { loads, load } = counted();
    await c.read('small', load('small', 10));
    expect(await c.read('big', load('big', 101))).toBe('big:2');
    expect(await c.read('big', load('big', 101))).toBe('big:3');
    expect(loads).toEqual(['small', 'big', 'big']);
    expect(c.size).toBe(10); // the small one stays
  });

  it('forgets a read that failed, so the next one tries again', async () => {
    const c = new BoundedCache<string>(100);
    await expect(
      c.read('a', async () => {
        throw new Error('disk');
      }),
    ).rejects.toThrow('disk');
    expect(await c.read('a', async () => ({ value: 'ok', chars: 1 }))).toBe('ok');
  });

  it('shares one read between callers that ask at the same time', async () => {
    const c = new BoundedCache<string>(100);
    const { loads, load } = counted();
    const [x, y] = await Promise.all([c.read('a', load('a', 5)), c.read('a', load('a', 5))]);
    expect([x, y]).toEqual(['a:1', 'a:1']);
    expect(loads).toEqual(['a']);
  });
});

describe('collection cache: a stored collection is decoded once and cannot be changed by a caller', () => {
  it('returns the same frozen entities on each read', async () => {
    const dir = tempDir();
    const har = writeHar(dir, 'c.har', [
      {
        url: 'http://127.0.0.1:4000/api/items',
        body: [
          { id: 1, name: 'a' },
          { id: 2, name: 'b' },
        ],
      },
    ]);
    const db = join(dir, 'c.sqlite');
    await loadCaptures({ db, files: [har], loadedAt: '2026-01-01T00:00:00.000Z' });
    const store = openStore(db);
    const k = kyselyFor(store);
    try {
      const lookups = await storedLookups(k, 1, har);
      const types = await lookups.types();
      const collection = types[0]!.collection;
      const first = await lookups.collection(collection);
      expect(first.map((e) => e.id)).toEqual(['1', '2']);
      expect(await lookups.collection(collection)).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(Object.isFrozen(first[0])).toBe(true);
      expect(() => (first as unknown[]).push({})).toThrow(TypeError);
    } finally {
      await k.destroy();
    }
  });
});
