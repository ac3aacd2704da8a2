/**
 * `shown_object_ids` (@rule none: the ids an object set shows, compared by spelling, OQ-9; read
 * by ES-17's "shows an entity another row shows with other members") as a view: fact rows in,
 * rows out.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Each id a line's set shows, by the record showing it. */
const ids = (f: FactStore) =>
  f.rows(`select r.ordinal, i.set_pointer, i.identity_field, i.entity_id, i.members_signature
    from shown_object_ids i join record r on r.response_body_id = i.body_id
    order by r.ordinal, i.identity_field, i.entity_id`);

describe('shown_object_ids (OQ-9), rows in and out', () => {
  it('OQ-9 each id a set shows under every identity field some type uses, spelled as text, with its member names in pointer order', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    const folders = f.tool({ template: '/api/folders/{uid}' });
    // The folders' item read proves `uid`; the users' list is identified by `id`.
    f.record({ tool: folders, path: '/api/folders/f-1', pathParams: ['f-1'], body: { uid: 'f-1', title: 'Dept' } });
    f.record({
      tool: users,
      path: '/api/users',
      body: [
        { id: 1, uid: 'usr-a', 'a/b': true, a_c: 1 },
        { id: 2, name: 'Bo' },
      ],
    });
    // `a/b` is `/a~1b` in a pointer: after `a_c`, though `/` sorts before `_`.
    expect(ids(f)).toEqual([
      [1, '', 'uid', 'f-1', '5:title,3:uid'],
      [2, '', 'id', '1', '3:a_c,3:a/b,2:id,3:uid'],
      [2, '', 'id', '2', '2:id,4:name'],
      [2, '', 'uid', 'usr-a', '3:a_c,3:a/b,2:id,3:uid'],
    ]);
  });

  it('OQ-9 a set showing an id twice keeps the last object; an id that is no string or integer is no id', () => {
    const f = factStore(dir);
    const users = f.tool({ template: '/api/users' });
    const tags = f.tool({ template: '/api/tags' });
    f.record({ tool: users, path: '/api/users', body: [{ id: 'u-1' }, { id: 'u-2' }] });
    f.record({
      tool: tags,
      path: '/api/tags',
      body: [{ id: 't-1', a: 1 }, { id: 't-1', b: 2 }, { id: 1.5 }, { id: null }, { id: true }, { id: { v: 1 } }],
    });
    expect(ids(f)).toEqual([
      [1, '', 'id', 'u-1', '2:id'],
      [1, '', 'id', 'u-2', '2:id'],
      [2, '', 'id', 't-1', '1:b,2:id'],
    ]);
  });
});
