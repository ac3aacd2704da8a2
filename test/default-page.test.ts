/**
 * Issue 44 kind 1: a list the app cuts to a default page when the call names no size (Django
 * REST framework's PAGE_SIZE, WordPress's 10), learned where it reproduces recorded lines no
 * reading without it does (src/state/plan-default-window.ts); and the orders a list's unsorted
 * lines show, where a created entity goes when they agree (src/state/plan-default-order.ts,
 * src/model/served/placement.ts). The real apps' cases are in wordpress-standin.test.ts and
 * django-rest-standin.test.ts; these are the rules' edges, rows in and rows out.
 */
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../src/model/plan/list-queries.js';
import type { ListPlan, StateEntity } from '../src/model/plan/types.js';
import type { Vocabulary } from '../src/store/vocabulary.js';
import { placeByOrders } from '../src/model/served/placement.js';
import { sizeReproduces } from '../src/state/plan-default-window.js';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { serveHar, text } from './serve-helpers.js';

const vocabulary = {
  isProjection: () => false,
  isRandom: () => false,
  isOrdering: () => false,
  isPagination: (n: string) => ['page', 'per_page', 'offset', '_start', '_end'].includes(n),
  windowRole: (n: string) => ({ page: 'page', per_page: 'size', offset: 'offset', _start: 'offset', _end: 'end' })[n] ?? null,
} as unknown as Vocabulary;
const parse = (q: Record<string, string>, size?: number) => {
  const p = parseListQuery(
    Object.entries(q).map(([name, value]) => ({ name, value })),
    vocabulary,
    (f) => f === 'kind',
    undefined,
    undefined,
    size,
  );
  if (!p.ok) throw new Error(p.why);
  return p.query.window;
};

describe('default page size: how a call naming no size is read', () => {
  it('default size: no window key is the first page, a page number alone counts pages of it, an offset shows a page from there', () => {
    expect(parse({ kind: 'a' }, 5)).toEqual({ offset: 0, size: 5 });
    expect(parse({ page: '3' }, 5)).toEqual({ offset: 10, size: 5 });
    expect(parse({ offset: '4' }, 5)).toEqual({ offset: 4, size: 5 });
    // A size the call names wins; a start and end say their own window.
    expect(parse({ page: '2', per_page: '3' }, 5)).toEqual({ offset: 3, size: 3 });
    expect(parse({ _start: '2', _end: '4' }, 5)).toEqual({ offset: 2, size: 2 });
  });

  it('without a default size, a page number alone is not read, and no key is no window', () => {
    expect(() => parse({ page: '2' })).toThrow('a page number without one page size');
    expect(parse({ kind: 'a' })).toBeUndefined();
  });

  it('kept only where it reproduces a line no reading without it did, and loses none', () => {
    const lines = ['plain', 'page2', 'filtered'].map((k) => ({ query_pairs: [], k }) as never);
    const key = (l: unknown) => (l as { k: string }).k;
    // The plain line and its page 2 reproduce only when cut to the size; the filtered line either way.
    const cutOnly = (l: unknown, size: number | undefined) => key(l) === 'filtered' || size !== undefined;
    expect(sizeReproduces(lines, 3, cutOnly)).toBe(true);
    // A size that breaks a line which reproduced without it is not the app's.
    expect(sizeReproduces(lines, 3, (l, size) => (key(l) === 'filtered' ? size === undefined : size !== undefined))).toBe(false);
    // Nothing gained: every line reproduced already.
    expect(sizeReproduces(lines, 3, () => true)).toBe(false);
  });
});

const item = (id: number) => ({ id, kind: id % 2 ? 'a' : 'b', name: `item ${id}`, zone: 'x' });
const page = (ids: number[]) => ids.map(item);

describe('default page size: learned from a capture, answered over MCP', () => {
  const dir = tempDir();
  const exchanges: Exchange[] = [
    { url: 'http://api.test/items', body: page([1, 2, 3]) },
    { url: 'http://api.test/items?page=2', body: page([4, 5, 6]) },
    { url: 'http://api.test/items?page=3', body: page([7]) },
    { url: 'http://api.test/items?kind=a', body: page([1, 3, 5]) },
  ];

  it('default size: a plain line of 3 of 7 items, its pages and a filtered line of 3 teach pages of 3', () => {
    const r = cli(['state', writeHar(dir, 'paged.har', exchanges), '--json', '-q']);
    expect(r.status, r.stderr).toBe(0);
    const plan = (JSON.parse(r.stdout) as { plans: ListPlan[] }).plans.find((p) => p.tool === 'get_items');
    expect(plan?.default_size).toBe(3);
    expect(plan?.lines.map((l) => l.window)).toEqual([
      { offset: 0, size: 3 },
      { offset: 3, size: 3 },
      { offset: 6, size: 3 },
      { offset: 0, size: 3 },
    ]);
  });

  it('default size: a filter and page no record shows are cut to the learned page', async () => {
    const s = await serveHar(dir, exchanges);
    try {
      const a = await s.call('get_items', { query: { kind: 'a', page: '2' } });
      expect(a.isError, text(a)).toBeFalsy();
      expect((a.structuredContent as { body: { id: number }[] }).body.map((x) => x.id)).toEqual([7]);
      const b = await s.call('get_items', { query: { kind: 'b' } });
      expect((b.structuredContent as { body: { id: number }[] }).body.map((x) => x.id)).toEqual([2, 4, 6]);
    } finally {
      await s.close();
    }
  });

  it('no default size where the plain line lists the whole collection', () => {
    const whole: Exchange[] = [
      { url: 'http://api.test/items', body: page([1, 2, 3, 4]) },
      { url: 'http://api.test/items?kind=a', body: page([1, 3]) },
    ];
    const r = cli(['state', writeHar(dir, 'whole.har', whole), '--json', '-q']);
    const plan = (JSON.parse(r.stdout) as { plans: ListPlan[] }).plans.find((p) => p.tool === 'get_items');
    expect(plan?.kind).toBe('list');
    expect(plan?.default_size).toBeUndefined();
  });
});

describe('default order: where a created entity goes', () => {
  const held = ['Ada', 'Bea', 'Dan'].map(
    (name, i) =>
      ({
        collection: 'authors',
        id: String(i + 1),
        value: { id: i + 1, name, email: `${name.toLowerCase()}@x.test` },
        view_values: {},
        record_ordinals: [],
        state_order: i,
      }) as StateEntity,
  );
  it('default order: a new author goes between the names that sort around hers', () => {
    const placed = placeByOrders(
      held,
      { id: 9, name: 'Carl', email: 'carl@x.test' },
      {
        tool: 't',
        orders: [
          { field: 'name', direction: 'asc' },
          { field: 'email', direction: 'asc' },
        ],
      },
    );
    expect(placed).toEqual({ state_order: 1.5 });
    expect(placeByOrders(held, { id: 9, name: 'Aaron' }, { tool: 't', orders: [{ field: 'name', direction: 'asc' }] })).toEqual({
      state_order: -1,
    });
    expect(placeByOrders(held, { id: 9, name: 'Zoe' }, { tool: 't', orders: [{ field: 'name', direction: 'asc' }] })).toEqual({});
  });

  it('default order: orders that place her differently, or one she holds no value for, place her nowhere', () => {
    const both = {
      tool: 't',
      orders: [
        { field: 'name', direction: 'asc' as const },
        { field: 'email', direction: 'asc' as const },
      ],
    };
    expect(placeByOrders(held, { id: 9, name: 'Carl', email: 'zed@x.test' }, both)).toBeNull();
    expect(placeByOrders(held, { id: 9, name: 'Carl' }, both)).toBeNull();
  });
});

describe("page links: an envelope's next and previous URLs rendered from the window (Django REST framework's shape)", () => {
  const dir = tempDir();
  const U = 'http://api.test/api/items/';
  const env = (count: number, next: string | null, previous: string | null, ids: number[]) => ({
    count,
    next,
    previous,
    results: page(ids),
  });
  const exchanges: Exchange[] = [
    { url: U, body: env(7, `${U}?page=2`, null, [1, 2, 3]) },
    { url: `${U}?page=2`, body: env(7, `${U}?page=3`, U, [4, 5, 6]) },
    { url: `${U}?page=3`, body: env(7, null, `${U}?page=2`, [7]) },
    { url: `${U}?kind=a`, body: env(4, `${U}?kind=a&page=2`, null, [1, 3, 5]) },
  ];

  it('page links: next and previous are learned as links of the line, the first page written without its key', () => {
    const r = cli(['state', writeHar(dir, 'links.har', exchanges), '--json', '-q']);
    expect(r.status, r.stderr).toBe(0);
    const plan = (JSON.parse(r.stdout) as { plans: ListPlan[] }).plans.find((p) => p.tool === 'get_api_items');
    expect(plan?.kind).toBe('list');
    expect(plan?.page_links).toEqual([
      { member: '/next', rel: 'next', key: 'page', origin: 'http://api.test' },
      { member: '/previous', rel: 'prev', key: 'page', origin: 'http://api.test', first: 'omitted' },
    ]);
  });

  it('page links: a page no record shows links its neighbours, the first without its page key; a page alone links none', async () => {
    const s = await serveHar(dir, exchanges);
    try {
      const body = async (query: Record<string, string>) => {
        const a = await s.call('get_api_items', { query });
        expect(a.isError, text(a)).toBeFalsy();
        return (a.structuredContent as { body: unknown }).body;
      };
      expect(await body({ kind: 'a', page: '2' })).toEqual(env(4, null, `${U}?kind=a`, [7]));
      expect(await body({ kind: 'b' })).toEqual(env(3, null, null, [2, 4, 6]));
      // Keys that sort otherwise than asked: the recorded links never showed which order the app writes.
      const z = await s.call('get_api_items', { query: { zone: 'x', kind: 'a' } });
      expect(z.isError).toBe(true);
      expect(text(z)).toContain('no retained record');
    } finally {
      await s.close();
    }
  });
});
