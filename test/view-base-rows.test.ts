/** ES-18 (with OQ-15) as a view: fact rows in, `base_rows` rows out. */
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { factStore, type FactStore } from './view-facts.js';

const dir = tempDir();

/** Users: a list tool under /api/v1/users. */
function users(): FactStore & { list: number } {
  const f = factStore(dir);
  return Object.assign(f, { list: f.tool({ template: '/api/v1/users' }) });
}

/** Per request line (named by its latest ordinal): whether it remains, which preference applied, whether it is a base row. */
const base = (f: FactStore) => f.rows('select latest_ordinal, is_rest, base_choice, is_base from base_rows order by latest_ordinal');

describe('ES-18 base_rows, rows in and out', () => {
  it('ES-18 (1) the lines naming no shaping parameter are the base; pagination and ordering are not shaping', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/v1/users', query: 'page=1', body: [{ id: 'u-1', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'sort=name', body: [{ id: 'u-1', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'include=roles', body: [{ id: 'u-1', name: 'Ann', roles: [] }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'include=roles', body: [{ id: 'u-1', name: 'Ann', roles: [] }] });
    expect(base(f)).toEqual([
      [1, 1, 'no-shaping', 1],
      [2, 1, 'no-shaping', 1],
      [4, 1, 'no-shaping', 0],
    ]);
  });

  it('ES-18 (2) without such lines, the lines requesting every field (`*`)', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/v1/users', query: 'include=roles', body: [{ id: 'u-1', name: 'Ann', roles: [] }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'fields=*', body: [{ id: 'u-1', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'fields=*&lang=en', body: [{ id: 'u-1', name: 'Ann' }] });
    expect(base(f)).toEqual([
      [1, 1, 'all-fields', 0],
      [2, 1, 'all-fields', 1],
      [3, 1, 'all-fields', 1],
    ]);
  });

  it('ES-18 (3) OQ-15 otherwise the lines whose member set the most lines share', () => {
    const f = users();
    f.record({ tool: f.list, path: '/api/v1/users', query: 'view=long', body: [{ id: 'u-1', name: 'Ann', bio: 'x' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'view=short', body: [{ id: 'u-1', name: 'Ann' }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'view=brief', body: [{ id: 'u-2', name: 'Bo' }] });
    expect(base(f)).toEqual([
      [1, 1, 'agree-most', 0],
      [2, 1, 'agree-most', 1],
      [3, 1, 'agree-most', 1],
    ]);
  });

  it('ES-18 OQ-15 a tie goes to the member set with the earliest line on the timeline; each tool chooses its own base', () => {
    const f = users();
    const tags = f.tool({ template: '/api/v1/tags' });
    f.record({ tool: tags, path: '/api/v1/tags', query: 'view=a', start: 2000, body: [{ id: 't-1', x: 1 }] });
    f.record({ tool: tags, path: '/api/v1/tags', query: 'view=b', start: 1000, body: [{ id: 't-1', y: 1 }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'view=a', start: 3000, body: [{ id: 'u-1', x: 1 }] });
    // #2 started first: its set {id, y} wins the tie among tags, though #1 is earlier in record order.
    expect(base(f)).toEqual([
      [1, 1, 'agree-most', 0],
      [2, 1, 'agree-most', 1],
      [3, 1, 'agree-most', 1],
    ]);
  });

  it('ES-18 lines outside the remaining ones (after the bound; projected, ES-13) are no base rows and have no base_choice', () => {
    const f = users();
    const patch = f.tool({ method: 'PATCH', template: '/api/v1/users/{id}' });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'include=roles', body: [{ id: 'u-1', name: 'Ann', roles: [] }] });
    f.record({ tool: f.list, path: '/api/v1/users', query: 'fields=id', body: [{ id: 'u-1' }] });
    f.record({ tool: patch, path: '/api/v1/users/u-1', body: { id: 'u-1' }, pathParams: ['u-1'] });
    f.record({ tool: f.list, path: '/api/v1/users', body: [{ id: 'u-1', name: 'Ann' }] });
    // The plain line #4 would be the base (1), but it was first read after the write (ES-8).
    expect(base(f)).toEqual([
      [1, 1, 'agree-most', 1],
      [2, 0, null, 0],
      [4, 0, null, 0],
    ]);
  });
});
