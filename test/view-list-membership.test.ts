/** ES-35 (OQ-24) as a view: a next-page token set in a list read's body makes its membership `recorded`; fact rows in, `list_membership` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore } from './view-facts.js';
import type { JsonValue } from '../src/json/exact.js';

const dir = tempDir();

/** The membership of one list read of `/api/items` whose body is `body`. */
function membershipOf(body: JsonValue): unknown[][] {
  const f = factStore(dir);
  const list = f.tool({ template: '/api/items' });
  f.record({ tool: list, path: '/api/items', body });
  return f.rows('select list_pointer, entries, membership from list_membership');
}

const items = [{ id: 'it-01' }, { id: 'it-02' }];

describe('ES-35 list_membership, rows in and out: next-page tokens', () => {
  it('ES-35 OQ-24 a token at the root or one container down (`cursor.next`) is set: recorded', () => {
    expect(membershipOf({ items, next: '/api/items?after=it-02' })).toEqual([['/items', 2, 'recorded']]);
    expect(membershipOf({ items, cursor: { next: 'it-02' } })).toEqual([['/items', 2, 'recorded']]);
  });

  it('ES-35 OQ-24 a token deeper down, unset (null, false, empty) or a container says nothing: all', () => {
    expect(membershipOf({ items, meta: { page: { next: 'it-02' } } })).toEqual([['/items', 2, 'all']]);
    expect(membershipOf({ items, next: null, has_more: false })).toEqual([['/items', 2, 'all']]);
    expect(membershipOf({ items, next: '' })).toEqual([['/items', 2, 'all']]);
    expect(membershipOf({ items, next: { href: null } })).toEqual([['/items', 2, 'all']]);
  });
});
