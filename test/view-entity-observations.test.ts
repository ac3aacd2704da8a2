/** ES-26 as a view: fact rows in, `entity_observations` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, itemsFacts, type FactStore } from './view-facts.js';

const dir = tempDir();

const items = () => itemsFacts(dir);

const observations = (f: FactStore) =>
  f.rows(
    'select ordinal, root_path, view_kind, entity_pointer, list_index, entity_id from entity_observations order by ordinal, list_index',
  );

describe('ES-26 entity_observations, rows in and out', () => {
  it("ES-26 each listed object and each item read's entity, keyed by type root and identity value (spelled as text)", () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-01', name: 'A' }, { id: 'it-02' }] });
    f.record({ tool: f.item, path: '/api/items/it-01', body: { id: 'it-01', name: 'A', notes: 'x' }, pathParams: ['it-01'] });
    f.record({ tool: f.item, path: '/api/items/it-03', body: { data: { id: 'it-03', name: 'C' } }, pathParams: ['it-03'] });
    expect(observations(f)).toEqual([
      [1, '/api/items', 'list', '/0', 0, 'it-01'],
      [1, '/api/items', 'list', '/1', 1, 'it-02'],
      [2, '/api/items', 'item', '', null, 'it-01'],
      [3, '/api/items', 'item', '/data', null, 'it-03'],
    ]);
    const numbers = factStore(dir);
    const tags = numbers.tool({ template: '/api/tags' });
    numbers.record({ tool: tags, path: '/api/tags', body: { tags: [{ id: 7 }, { id: 12 }] } });
    expect(observations(numbers)).toEqual([
      [1, '/api/tags', 'list', '/tags/0', 0, '7'],
      [1, '/api/tags', 'list', '/tags/1', 1, '12'],
    ]);
  });

  it('ES-26 (ES-8) only initial reads observe: not a read after the first write, nor one overlapping it, nor a failed one', () => {
    const f = items();
    f.record({ tool: f.list, path: '/api/items', start: 0, body: [{ id: 'it-01' }] });
    f.record({ tool: f.item, path: '/api/items/it-02', start: 500, status: 404, body: { id: 'it-02' }, pathParams: ['it-02'] });
    f.record({ tool: f.patch, path: '/api/items/it-01', start: 1000, duration: 100, body: { id: 'it-01' }, pathParams: ['it-01'] });
    f.record({ tool: f.item, path: '/api/items/it-01', start: 1050, body: { id: 'it-01' }, pathParams: ['it-01'] });
    f.record({ tool: f.list, path: '/api/items', start: 2000, body: [{ id: 'it-01' }] });
    expect(observations(f)).toEqual([[1, '/api/items', 'list', '/0', 0, 'it-01']]);
  });

  it("ES-26 (ES-11) a listed object without a scalar under the type's identity field is no observation", () => {
    const f = factStore(dir);
    const list = f.tool({ template: '/api/folders' });
    const item = f.tool({ template: '/api/folders/{uid}' });
    // The item read proves `uid` (ES-11); the list's entries do not all carry it.
    f.record({ tool: item, path: '/api/folders/f-aa', body: { id: 1, uid: 'f-aa' }, pathParams: ['f-aa'] });
    f.record({
      tool: list,
      path: '/api/folders',
      body: [{ id: 1, uid: 'f-aa' }, { id: 2 }, { id: 3, uid: null }, { id: 4, uid: { v: 'f-dd' } }, { id: 5, uid: 'f-ee' }],
    });
    expect(f.rows('select identity_field from type_identities')).toEqual([['uid']]);
    expect(observations(f)).toEqual([
      [1, '/api/folders', 'item', '', null, 'f-aa'],
      [2, '/api/folders', 'list', '/0', 0, 'f-aa'],
      [2, '/api/folders', 'list', '/4', 4, 'f-ee'],
    ]);
  });

  it("ES-26 no observation without a type identity, nor from a list that is not the type's own collection", () => {
    const f = items();
    const stats = f.tool({ template: '/api/stats' });
    const itemTags = f.tool({ template: '/api/items/{id}/tags', root: '/api/items' });
    f.record({
      tool: stats,
      path: '/api/stats',
      body: [
        { label: 'a b', n: 1 },
        { label: 'a b', n: 1 },
      ],
    });
    f.record({ tool: f.list, path: '/api/items', body: [{ id: 'it-01' }] });
    f.record({ tool: itemTags, path: '/api/items/it-01/tags', body: [{ id: 'tg-1' }, { id: 'tg-2' }], pathParams: ['it-01'] });
    expect(observations(f)).toEqual([[2, '/api/items', 'list', '/0', 0, 'it-01']]);
  });
});
