/** ES-11 (identity), ES-38 and IDN-5 (where an item view holds its entity). */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { tempDir } from './helpers.js';
import { loadHar, type Exchange } from './har-builder.js';

const dir = tempDir();
const A = 'http://app.test';
const load = (exchanges: Exchange[]) => loadHar(dir, exchanges);
const identities = (db: Database.Database) =>
  db.prepare('select root_path, identity_field, identity_source from type_identities order by root_path').raw().all();
const locations = (db: Database.Database) =>
  db.prepare('select ordinal, entity_pointer, identity_key from item_locations order by ordinal').raw().all();

describe('ES-11 identity from path values, otherwise from identity names', () => {
  it("ES-11 the spec example: the item read repeats the path value in uid, which proves uid over the list's id", () => {
    const db = load([
      { url: `${A}/api/folders`, body: [{ id: 1, uid: 'nErXDvCkzz', title: 'Dept' }] },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { id: 1, uid: 'nErXDvCkzz', title: 'Dept', version: 1 } },
    ]);
    expect(identities(db)).toEqual([['/api/folders', 'uid', 'path']]);
  });

  it('ES-11 without an item read the identity comes from the identity names of the listed entries', () => {
    const db = load([{ url: `${A}/api/folders`, body: [{ id: 1, uid: 'nErXDvCkzz', title: 'Dept' }] }]);
    expect(identities(db)).toEqual([['/api/folders', 'id', 'name']]);
  });

  it('IDN-1 with no identity name, a suffix-named field distinct over 2+ entries identifies the list', () => {
    const db = load([
      {
        url: `${A}/api/v1/orders`,
        body: [
          { orderId: 'o-1', customerId: 'c-9' },
          { orderId: 'o-2', customerId: 'c-9' },
        ],
      },
    ]);
    expect(identities(db)).toEqual([['/api/v1/orders', 'orderId', 'suffix']]);
  });

  it('ES-11 an error answer or a body that does not repeat the path value proves nothing', () => {
    const db = load([
      { url: `${A}/api/folders/abc1`, status: 404, body: { uid: 'abc1', message: 'not found' } },
      { url: `${A}/api/folders/abc2`, body: { title: 'no id here' } },
    ]);
    expect(identities(db)).toEqual([]);
  });
});

describe('ES-38 an item view locates its entity at the root or inside a single member', () => {
  it('ES-38 Grafana-shaped dashboards are read from their /dashboard wrapper', () => {
    const db = load([
      {
        url: `${A}/api/dashboards/uid/abc123XYZ`,
        body: { dashboard: { id: 9, uid: 'abc123XYZ', title: 'Svc' }, meta: { slug: 'svc', folderUid: 'nErXDvCkzz' } },
      },
    ]);
    expect(locations(db)).toEqual([[1, '/dashboard', 'uid']]);
  });

  it('ES-38 the root keeps priority over a member that also repeats the value', () => {
    const db = load([{ url: `${A}/api/items/it-01`, body: { id: 'it-01', parent: { id: 'it-01' } } }]);
    expect(locations(db)).toEqual([[1, '', 'id']]);
  });
});

describe('IDN-5 entities inside single-element arrays', () => {
  it('IDN-5 Ghost-like {"posts":[…]} under a trailing-slash path locates the entity at /posts/0', () => {
    const db = load([
      {
        url: `${A}/ghost/api/admin/posts/`,
        body: {
          posts: [
            { id: '64a1', title: 'Hi' },
            { id: '64a2', title: 'Yo' },
          ],
        },
      },
      { url: `${A}/ghost/api/admin/posts/64a1/`, body: { posts: [{ id: '64a1', title: 'Hi' }] } },
    ]);
    expect(locations(db)).toEqual([[2, '/posts/0', 'id']]);
    expect(identities(db)).toEqual([['/ghost/api/admin/posts', 'id', 'path']]);
  });

  it('IDN-5 a root single-element array locates the entity at /0; a name that is not an identity name does not', () => {
    const db = load([
      { url: `${A}/api/widgets/w-001`, body: [{ id: 'w-001' }] },
      { url: `${A}/api/widgets/w-002`, body: [{ ref: 'w-002' }] },
      { url: `${A}/api/widgets/w-003`, body: [{ id: 'w-003' }, { id: 'w-004' }] },
    ]);
    expect(locations(db)).toEqual([[1, '/0', 'id']]);
  });
});
