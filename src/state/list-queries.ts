/**
 * ES-37 (issue 18, issue 16): what a list request line's query asks of its collection, read
 * from the query's own keys — equality or membership filters on entity fields
 * (`?userId=1`, `?id=3&id=9`), a sort (`_sort=title&_order=desc`), a window (`_page=2&_limit=10`,
 * `_start=20&_end=30`, `offset/limit`) — and the one function that applies it to a
 * collection. The state pass keeps such a reading for a line only when applying it to the
 * state reproduces the line's recorded list (in its order); serving answers with the same
 * function, so a filtered list follows the session's writes.
 */
import type { JsonValue } from '../json/exact.js';
import type { Vocabulary } from '../store/vocabulary.js';
import { isObject, member } from './json.js';
import type { StateEntity } from './types.js';

/** A list query read from a request line's keys (decisions: "Issue 18/16: filtered and paged lists"). */
export interface ListQuery {
  /** Equality (one value) or membership (several) filters: the key is the entity's field. */
  filter?: { field: string; values: string[] }[];
  /** One sort field and its direction (a stable sort: ties keep state order). */
  sort?: { field: string; direction: 'asc' | 'desc' };
  /** A window of the (filtered, sorted) list: the first `offset` skipped, at most `size` shown (null: the rest). */
  window?: { offset: number; size: number | null };
}

/** What a query names, by kind: the keys a line's reading is learned for. */
export type QueryKind = 'filter' | 'sort' | 'window';

export type ParsedQuery =
  | { ok: true; query: ListQuery; kinds: Map<QueryKind, string[]> }
  /** A key the reading cannot follow: a projection, a random order, an opaque cursor, a key that is no entity field. */
  | { ok: false; key: string; why: string };

const DIRECTIONS: Record<string, 'asc' | 'desc'> = { asc: 'asc', desc: 'desc', ascending: 'asc', descending: 'desc' };
const count = (v: string) => (/^[0-9]{1,9}$/.test(v) ? Number(v) : null);

/**
 * Reads a request line's query pairs as a list query, or says which key it cannot follow.
 * `isField` says whether a name is a field of the listed entities that may be filtered (a
 * key) or sorted by (a sort parameter's value).
 */
export function parseListQuery(pairs: readonly { name: string; value: string }[], vocabulary: Vocabulary, isField: (name: string, use: 'filter' | 'sort') => boolean): ParsedQuery {
  const kinds = new Map<QueryKind, string[]>();
  const note = (k: QueryKind, name: string) => { const l = kinds.get(k) ?? []; if (!l.includes(name)) l.push(name); kinds.set(k, l); };
  const filters = new Map<string, string[]>();
  let sortField: string | null = null;
  let direction: 'asc' | 'desc' | null = null;
  const win: Partial<Record<'page' | 'size' | 'offset' | 'end', number>> = {};
  for (const { name, value } of pairs) {
    if (vocabulary.isProjection(name)) return { ok: false, key: name, why: 'a projection (ES-12..ES-19 decide it)' };
    if (vocabulary.isRandom(name)) return { ok: false, key: name, why: 'a random order' };
    if (vocabulary.isOrdering(name)) {
      note('sort', name);
      const dir = DIRECTIONS[value.toLowerCase()];
      if (dir) { if (direction && direction !== dir) return { ok: false, key: name, why: 'two directions' }; direction = dir; continue; }
      const desc = value.startsWith('-');
      const field = value.replace(/^[-+]/, '');
      if (sortField !== null || !isField(field, 'sort')) return { ok: false, key: name, why: sortField !== null ? 'more than one sort field' : `sorts by ${JSON.stringify(value)}, no field of the listed entities` };
      sortField = field;
      if (desc) direction = 'desc';
      continue;
    }
    if (vocabulary.isPagination(name)) {
      note('window', name);
      const role = vocabulary.windowRole(name);
      const n = count(value);
      if (role === null) return { ok: false, key: name, why: 'an opaque page token or cursor' };
      if (n === null || win[role] !== undefined) return { ok: false, key: name, why: `${JSON.stringify(value)} is not one whole number` };
      win[role] = n;
      continue;
    }
    if (!isField(name, 'filter')) return { ok: false, key: name, why: 'no field of the listed entities' };
    note('filter', name);
    filters.set(name, [...(filters.get(name) ?? []), value]);
  }
  const query: ListQuery = {};
  if (filters.size) query.filter = [...filters].map(([field, values]) => ({ field, values }));
  if (sortField !== null) query.sort = { field: sortField, direction: direction ?? 'asc' };
  else if (direction !== null) return { ok: false, key: kinds.get('sort')![0], why: 'a direction without a sort field' };
  if (kinds.has('window')) {
    const { page, size, offset, end } = win;
    if (page !== undefined) {
      if (size === undefined || page < 1 || offset !== undefined || end !== undefined) return { ok: false, key: kinds.get('window')![0], why: 'a page number without one page size' };
      query.window = { offset: (page - 1) * size, size };
    } else if (offset !== undefined || end !== undefined || size !== undefined) {
      const from = offset ?? 0;
      if (end !== undefined && (size !== undefined || end < from)) return { ok: false, key: kinds.get('window')![0], why: 'an end beside a size, or before the start' };
      query.window = { offset: from, size: end !== undefined ? end - from : size ?? null };
    }
  }
  return { ok: true, query, kinds };
}

/** A scalar's spelling as a query value compares it (OQ-9: `7` and `"7"` are one id). */
function spelling(v: JsonValue | undefined): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  return null;
}

/** The field's value as the view shows it: the view's own value where it differs (ES-26), else the entity's. */
function fieldOf(e: StateEntity, tool: string, field: string): JsonValue | undefined {
  const own = e.view_values[tool];
  if (own && Object.hasOwn(own, field)) return own[field];
  return isObject(e.value) ? member(e.value, field) : undefined;
}

function compare(a: JsonValue | undefined, b: JsonValue | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const num = (v: JsonValue) => (typeof v === 'number' || typeof v === 'bigint' ? v : null);
  const [x, y] = [num(a), num(b)];
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  const [s, t] = [spelling(a) ?? JSON.stringify(a), spelling(b) ?? JSON.stringify(b)];
  // Code-unit order, as JavaScript's `<` (json-server's lodash sort) compares strings.
  return s < t ? -1 : s > t ? 1 : 0;
}

/** The collection (in state order) filtered, sorted and windowed as the query asks; `matched` counts before the window. */
export function applyListQuery(entities: readonly StateEntity[], q: ListQuery, tool: string): { entities: StateEntity[]; matched: number } {
  let out = entities.filter((e) => (q.filter ?? []).every((f) => {
    const s = spelling(fieldOf(e, tool, f.field));
    return s !== null && f.values.includes(s);
  }));
  if (q.sort) {
    const { field, direction } = q.sort;
    const sign = direction === 'desc' ? -1 : 1;
    out = out.map((e, i) => ({ e, i, v: fieldOf(e, tool, field) }))
      .sort((a, b) => sign * compare(a.v, b.v) || a.i - b.i).map((x) => x.e);
  }
  const matched = out.length;
  if (q.window) out = out.slice(q.window.offset, q.window.size === null ? undefined : q.window.offset + q.window.size);
  return { entities: out, matched };
}

/** Whether a query reads anything (a line without one lists the collection as ES-35 says). */
export const isListQuery = (q: ListQuery | undefined): q is ListQuery => q !== undefined && (q.filter !== undefined || q.sort !== undefined || q.window !== undefined);
