/**
 * ES-37 (issue 18, issue 16): what a list request line's query asks of its collection, read
 * from the query's own keys — equality or membership filters on entity fields
 * (`?userId=1`, `?id=3&id=9`), a sort (`_sort=title&_order=desc`), a window (`_page=2&_limit=10`,
 * `_start=20&_end=30`, `offset/limit`) — and the one function that applies it to a
 * collection. The state pass keeps such a reading for a line only when applying it to the
 * state reproduces the line's recorded list (in its order); serving answers with the same
 * function, so a filtered list follows the session's writes.
 */
import type { JsonValue } from '../../json/exact.js';
import type { Vocabulary } from '../../store/vocabulary.js';
import { isObject, member } from './json.js';
import { isPattern, labelReader, matcherKey, matcherKeyParts, matcherOf, matchesLabel, type MatchOp } from './label-matchers.js';
import type { ListQueries, StateEntity } from './types.js';
import { keyedSort } from './keyed-sort.js';

/** A list query read from a request line's keys (decisions: "ES-37 / list queries"). */
export interface ListQuery {
  /**
   * Equality (one value) or membership (several) filters: the key is the entity's field. An
   * operator key (`views_gte`, `userId_ne`, `title_like`: the field and json-server's suffix)
   * carries its operator in `op`; without one the filter is equality (decisions: "ES-37 / list queries").
   */
  filter?: ListFilter[];
  /** One sort field and its direction (a stable sort: ties keep state order). */
  sort?: { field: string; direction: 'asc' | 'desc' };
  /** A multi-field sort's further fields (`_sort=userId,views&_order=asc,desc`), compared in turn where the ones before tie. */
  then_by?: { field: string; direction: 'asc' | 'desc' }[];
  /** A window of the (filtered, sorted) list: the first `offset` skipped, at most `size` shown (null: the rest). */
  window?: { offset: number; size: number | null };
}

/**
 * One filter: the field (a dotted path into nested objects), its values, and how they compare:
 * equality (any value) unless `op` (json-server's key suffixes) or `matcher` (a label matcher,
 * below) says otherwise.
 */
export interface ListFilter {
  field: string;
  values: string[];
  op?: FilterOp;
  nulls?: true;
  matcher?: MatchOp;
}

/** A filter operator other than equality: json-server's key suffixes (`_gte`, `_lte`, `_ne`, `_like`). */
export type FilterOp = 'gte' | 'lte' | 'ne' | 'like';
const OPS: readonly FilterOp[] = ['gte', 'lte', 'ne', 'like'];

/** What a query names, by kind: the keys a line's reading is learned for. */
export type QueryKind = 'filter' | 'sort' | 'window';
/** A unit's kind (`filter:gte` is a filter). */
export const kindOf = (u: QueryUnit): QueryKind => u.split(':')[0] as QueryKind;

/**
 * What a line's query is learned as (issue 16): each kind, and apart from it each filter
 * operator (`filter:gte`, …), a filter key given more than once (`filter:any`: json-server 0.17
 * lists what any of the values picks, 1.0 ignores the key) and the multi-field sort
 * (`sort:multi`); a unit is answered for any value only when every recorded line using it
 * reproduced.
 */
export type QueryUnit = QueryKind | `filter:${FilterOp}` | 'filter:any' | 'sort:multi';

export type ParsedQuery =
  /** `kinds`: the keys named, by kind; `units`: the keys each learning unit rests on. */
  | { ok: true; query: ListQuery; kinds: Map<QueryKind, string[]>; units: Map<QueryUnit, string[]> }
  /** A key the reading cannot follow: a projection, a random order, an opaque cursor, a key that is no entity field. */
  | { ok: false; key: string; why: string };

const DIRECTIONS: Record<string, 'asc' | 'desc'> = { asc: 'asc', desc: 'desc', ascending: 'asc', descending: 'desc' };
/** A query value as a window number: one whole number of at most 9 digits, else null. */
export const count = (v: string) => (/^[0-9]{1,9}$/.test(v) ? Number(v) : null);

/**
 * Reads a request line's query pairs as a list query, or says which key it cannot follow.
 * `isField` says whether a name is a field of the listed entities that may be filtered (a
 * key) or sorted by (a sort parameter's value). `defaultSize`: the page size the app cuts the
 * list to when the call names none (issue 44: Django REST framework's `PAGE_SIZE`, WordPress's
 * 10; src/state/plan-default-window.ts learns it): a call naming no size key shows at most that
 * many, a page number alone counts pages of it.
 */
export function parseListQuery(
  pairs: readonly { name: string; value: string }[],
  vocabulary: Vocabulary,
  isField: (name: string, use: 'filter' | 'sort') => boolean,
  referenceOf: (name: string) => string | undefined = () => undefined,
  labelsOf: (label: string) => string | undefined = () => undefined,
  defaultSize?: number,
): ParsedQuery {
  const kinds = new Map<QueryKind, string[]>();
  const note = (k: QueryKind, name: string) => {
    const l = kinds.get(k) ?? [];
    if (!l.includes(name)) l.push(name);
    kinds.set(k, l);
  };
  const filters = new Map<string, string[]>();
  /** Keys read as a reference's id, with the field path they filter (`project_id` → `project.id`). */
  const references = new Map<string, string>();
  /** Label matchers, each its own filter (several are all asked for), by their spelled key (`matcherKey`). */
  const matchers = new Map<string, ListFilter>();
  let sortField: string | null = null;
  let direction: 'asc' | 'desc' | null = null;
  let multiFields: { field: string; desc: boolean }[] | null = null;
  let multiDirs: ('asc' | 'desc')[] | null = null;
  const win: Partial<Record<'page' | 'size' | 'offset' | 'end', number>> = {};
  /** Sorts spelled with the field in the key (`$sort[views]=-1`), in the order the call names them. */
  const keyed: { field: string; direction: 'asc' | 'desc' }[] = [];
  for (const { name, value } of pairs) {
    if (vocabulary.isProjection(name)) return { ok: false, key: name, why: 'a projection (ES-12..ES-19 decide it)' };
    if (vocabulary.isRandom(name)) return { ok: false, key: name, why: 'a random order' };
    if (vocabulary.isOrdering(name)) {
      note('sort', name);
      const inKey = keyedSort(name, value);
      if (inKey) {
        if (!isField(inKey.field, 'sort'))
          return { ok: false, key: name, why: `sorts by ${JSON.stringify(inKey.field)}, no field of the listed entities` };
        if (keyed.some((k) => k.field === inKey.field)) return { ok: false, key: name, why: 'one field sorted twice' };
        keyed.push(inKey);
        continue;
      }
      if (value.includes(',')) {
        // Issue 16: a multi-field sort, json-server's `_sort=userId,views&_order=asc,desc`.
        const parts = value.split(',');
        const dirs = parts.map((p) => DIRECTIONS[p.toLowerCase()]);
        if (dirs.every((d) => d !== undefined)) {
          if (direction !== null || multiDirs !== null) return { ok: false, key: name, why: 'two directions' };
          multiDirs = dirs;
          continue;
        }
        if (sortField !== null || multiFields !== null) return { ok: false, key: name, why: 'more than one sort parameter' };
        multiFields = [];
        for (const p of parts) {
          const { field, desc } = sortTerm(p);
          if (!isField(field, 'sort'))
            return { ok: false, key: name, why: `sorts by ${JSON.stringify(p)}, no field of the listed entities` };
          multiFields.push({ field, desc });
        }
        continue;
      }
      const dir = DIRECTIONS[value.toLowerCase()];
      if (dir) {
        if ((direction && direction !== dir) || multiDirs !== null) return { ok: false, key: name, why: 'two directions' };
        direction = dir;
        continue;
      }
      const { field, desc } = sortTerm(value);
      if (multiFields !== null) return { ok: false, key: name, why: 'more than one sort parameter' };
      if (sortField !== null || !isField(field, 'sort'))
        return {
          ok: false,
          key: name,
          why: sortField !== null ? 'more than one sort field' : `sorts by ${JSON.stringify(value)}, no field of the listed entities`,
        };
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
    // A field's own name first; else a reference's id (Redmine's `project_id`: `project.id`);
    // else json-server's operator suffix on a field (`views_gte`).
    const ref = isField(name, 'filter') ? undefined : referenceOf(name);
    if (ref !== undefined) {
      note('filter', name);
      references.set(name, ref);
      filters.set(name, [...(filters.get(name) ?? []), value]);
      continue;
    }
    const op = isField(name, 'filter')
      ? undefined
      : OPS.find((o) => name.endsWith(`_${o}`) && isField(name.slice(0, -o.length - 1), 'filter'));
    if (!isField(name, 'filter') && op === undefined) {
      // Issue 44: a key whose value is a label matcher (`filter=alertname="DiskFull"`) on a label
      // one object member of the entities holds (`labels`).
      const m = matcherOf(value);
      const container = m && labelsOf(m.label);
      if (!m || container === undefined) return { ok: false, key: name, why: 'no field of the listed entities' };
      const spelled = matcherKey(name, m.op, container);
      // Several matchers in one key: the app may ask for all of them or any; no line here says which.
      if ([...matchers.keys()].some((k) => matcherKeyParts(k)?.key === name))
        return { ok: false, key: name, why: 'a repeated matcher key' };
      note('filter', spelled);
      matchers.set(spelled, { field: `${container}.${m.label}`, values: [m.value], matcher: m.op });
      continue;
    }
    if (op === 'like' && !isPattern(value)) return { ok: false, key: name, why: `${JSON.stringify(value)} is no regular expression` };
    note('filter', name);
    filters.set(name, [...(filters.get(name) ?? []), value]);
  }
  if (keyed.length > 0) {
    if (sortField !== null || direction !== null || multiFields !== null || multiDirs !== null)
      return { ok: false, key: kinds.get('sort')![0], why: 'a sort spelled two ways' };
    [multiFields, multiDirs] = [keyed.map((k) => ({ field: k.field, desc: k.direction === 'desc' })), keyed.map((k) => k.direction)];
  }
  const query: ListQuery = {};
  if (filters.size || matchers.size) {
    query.filter = [
      ...[...filters].map(([key, values]): ListFilter => {
        const ref = references.get(key);
        if (ref !== undefined) return { field: ref, values };
        const op = isField(key, 'filter') ? undefined : OPS.find((o) => key.endsWith(`_${o}`));
        return op === undefined ? { field: key, values } : { field: key.slice(0, -op.length - 1), values, op };
      }),
      ...matchers.values(),
    ];
  }
  if (multiFields !== null) {
    const dirs = multiDirs ?? (direction !== null ? [direction] : []);
    const [first, ...rest] = multiFields.map((f, i) => ({
      field: f.field,
      direction: dirs[i] ?? (f.desc ? ('desc' as const) : ('asc' as const)),
    }));
    query.sort = first;
    // One keyed sort is a plain sort (the `sort` unit); several are the multi-field one.
    if (rest.length > 0 || keyed.length === 0) query.then_by = rest;
  } else if (multiDirs !== null) return { ok: false, key: kinds.get('sort')![0], why: 'several directions for one sort field' };
  else if (sortField !== null) query.sort = { field: sortField, direction: direction ?? 'asc' };
  else if (direction !== null) return { ok: false, key: kinds.get('sort')![0], why: 'a direction without a sort field' };
  if (kinds.has('window')) {
    const { page, offset, end } = win;
    const size = win.size ?? (end === undefined ? defaultSize : undefined);
    if (page !== undefined) {
      if (size === undefined || page < 1 || offset !== undefined || end !== undefined)
        return { ok: false, key: kinds.get('window')![0], why: 'a page number without one page size' };
      query.window = { offset: (page - 1) * size, size };
    } else if (offset !== undefined || end !== undefined || size !== undefined) {
      const from = offset ?? 0;
      if (end !== undefined && (win.size !== undefined || end < from))
        return { ok: false, key: kinds.get('window')![0], why: 'an end beside a size, or before the start' };
      query.window = { offset: from, size: end !== undefined ? end - from : (size ?? null) };
    }
  } else if (defaultSize !== undefined) query.window = { offset: 0, size: defaultSize };
  return { ok: true, query, kinds, units: unitsOf(query, kinds, filters) };
}

/** The learning units of a parsed query, each with the keys it rests on. */
function unitsOf(query: ListQuery, kinds: Map<QueryKind, string[]>, filters: Map<string, string[]>): Map<QueryUnit, string[]> {
  const units = new Map<QueryUnit, string[]>();
  for (const name of kinds.get('filter') ?? []) {
    const op = OPS.find((o) => query.filter?.some((f) => f.op === o && `${f.field}_${o}` === name));
    const u: QueryUnit = op === undefined ? 'filter' : `filter:${op}`;
    units.set(u, [...(units.get(u) ?? []), name]);
  }
  const repeated = [...filters].filter(([, values]) => values.length > 1).map(([key]) => key);
  if (repeated.length) units.set('filter:any', repeated);
  if (kinds.has('sort')) units.set(query.then_by ? 'sort:multi' : 'sort', kinds.get('sort')!);
  if (kinds.has('window')) units.set('window', kinds.get('window')!);
  return units;
}

/**
 * One sort term: a field with its direction spelled as a sign (`-views`, json-server 1.0) or a
 * suffix (`priority:desc`, Redmine); a bare field ascends.
 */
function sortTerm(term: string): { field: string; desc: boolean } {
  const colon = /^(.+):(asc|desc)$/i.exec(term);
  if (colon) return { field: colon[1], desc: colon[2].toLowerCase() === 'desc' };
  return { field: term.replace(/^[-+]/, ''), desc: term.startsWith('-') };
}

/**
 * Issue 44: the reference field a filter key names by its id — `project_id` and `postId` name
 * `project` and `post` — when that field is one of `isReference` (an object field whose values
 * carry an `id`, as Redmine's `"project": {"id": 1, "name": "Aurora"}`); else undefined. The key
 * filters on `field.id`. `suffix` is the spelling's ending (an underscore and id, or Id).
 */
export function referenceKey(name: string, isReference: (field: string) => boolean): { field: string; suffix: string } | undefined {
  const m = REFERENCE_KEY.exec(name);
  return m && isReference(m[1]) ? { field: m[1], suffix: m[2] } : undefined;
}
/** A field's name with its reference's id spelled after it, as delete-cascade.ts names references (`project_id`, `postId`). */
const REFERENCE_KEY = /^(.+?)(_id|Id)$/;

/** The field path a reference key filters (`project_id` → `project.id`; referenceKey), or undefined. */
export function referenceFilterField(name: string, isReference: (field: string) => boolean): string | undefined {
  const ref = referenceKey(name, isReference);
  return ref && `${ref.field}.id`;
}

/**
 * Whether `field` holds references on these entities: an object with an `id` wherever it is
 * present and not null, and present so on at least one.
 */
export function holdsReferences(entities: readonly StateEntity[], field: string): boolean {
  let seen = false;
  for (const e of entities) {
    const v = isObject(e.value) ? member(e.value, field) : undefined;
    if (v === undefined || v === null) continue;
    if (!isObject(v) || member(v, 'id') === undefined) return false;
    seen = true;
  }
  return seen;
}

/** A scalar's spelling as a query value compares it (OQ-9: `7` and `"7"` are one id). */
export function spelling(v: JsonValue | undefined): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  return null;
}

/**
 * The field's value as the view shows it: the view's own value where it differs (ES-26), else
 * the entity's. A name with dots no member spells is a path into nested objects (issue 18: a
 * nested collection's parent in `project.id`).
 */
export function fieldOf(e: StateEntity, tool: string, field: string): JsonValue | undefined {
  const own = e.view_values[tool];
  if (own && Object.hasOwn(own, field)) return own[field];
  if (!isObject(e.value)) return undefined;
  const top = member(e.value, field);
  if (top !== undefined || !field.includes('.')) return top;
  const [head, ...rest] = field.split('.');
  return rest.reduce<JsonValue | undefined>((v, k) => member(v, k), own && Object.hasOwn(own, head) ? own[head] : member(e.value, head));
}

export function compare(a: JsonValue | undefined, b: JsonValue | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  // A reference (`"priority": {"id": 3, "name": "High"}`) sorts by its `id` (issue 44, Redmine's `sort=priority:desc`).
  if (isObject(a) && isObject(b) && member(a, 'id') !== undefined && member(b, 'id') !== undefined)
    return compare(member(a, 'id'), member(b, 'id'));
  const num = (v: JsonValue) => (typeof v === 'number' || typeof v === 'bigint' ? v : null);
  const [x, y] = [num(a), num(b)];
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
  const [s, t] = [spelling(a) ?? JSON.stringify(a), spelling(b) ?? JSON.stringify(b)];
  // Code-unit order, as JavaScript's `<` (json-server's lodash sort) compares strings.
  return s < t ? -1 : s > t ? 1 : 0;
}

/**
 * Whether an entity's value passes one filter, as json-server 0.17.4 tests it (decisions:
 * "ES-37 / list queries"): equality and `_ne` on the value's spelling (`_ne` with several
 * values excludes each), `_gte`/`_lte` as JavaScript's `<=` compares the query's text with the
 * value (a number as a number, a query value that is not one matching nothing; a string by
 * code units), `_like` a case-insensitive regular expression searched in the spelling. A
 * missing or null value, an object or an array passes no filter — except a null value where an
 * equality filter says `nulls`: the API lists such entities under any value (issue 44,
 * src/model/served/null-filters.ts; json-server 1.0 does).
 */
function matches(v: JsonValue | undefined, f: ListFilter): boolean {
  // A label matcher reads an absent label as the empty string (Prometheus's matchers).
  if (f.matcher) return matchesLabel(v === undefined || v === null ? '' : spelling(v), f.matcher, f.values[0]);
  if (v === null && f.nulls && f.op === undefined) return true;
  if (v === null || v === undefined) return false;
  // An array of ids or words (WordPress's `categories: [3, 4]`) is filtered by membership: `categories=3`.
  if (Array.isArray(v) && f.op === undefined) return v.some((x) => f.values.includes(spelling(x) ?? '\0'));
  const s = spelling(v);
  if (s === null) return false;
  switch (f.op) {
    case undefined:
      return f.values.includes(s);
    case 'ne':
      return f.values.every((x) => x !== s);
    case 'like':
      return f.values.some((x) => new RegExp(x, 'i').test(s));
    case 'gte':
      return f.values.some((x) => atMost(x, v));
    case 'lte':
      return f.values.some((x) => atMost(v, x));
  }
}

/** JavaScript's `a <= b` for a query value (text) against a scalar: numbers (and booleans) numerically, two strings by code units. */
function atMost(a: string | JsonValue, b: string | JsonValue): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a <= b;
  const x = numeric(a),
    y = numeric(b);
  if (x === null || y === null) return false;
  return x <= y;
}

/** A scalar as `<=` converts it to a number (a bigint stays exact when both sides are integers), or null (NaN: no match). */
function numeric(v: string | JsonValue): number | bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    if (/^\s*-?[0-9]+\s*$/.test(v) && !Number.isSafeInteger(Number(v))) return BigInt(v.trim());
    const n = Number(v);
    return Number.isNaN(n) ? null : n;
  }
  return null;
}

/** The collection (in state order) filtered, sorted and windowed as the query asks; `matched` counts before the window. */
export function applyListQuery(entities: readonly StateEntity[], q: ListQuery, tool: string): { entities: StateEntity[]; matched: number } {
  let out = entities.filter((e) => (q.filter ?? []).every((f) => matches(fieldOf(e, tool, f.field), f)));
  if (q.sort) {
    const keys = [q.sort, ...(q.then_by ?? [])].map((k) => ({ field: k.field, sign: k.direction === 'desc' ? -1 : 1 }));
    out = out
      .map((e, i) => ({ e, i, v: keys.map((k) => fieldOf(e, tool, k.field)) }))
      .sort((a, b) => keys.reduce((c, k, j) => c || k.sign * compare(a.v[j], b.v[j]), 0) || a.i - b.i)
      .map((x) => x.e);
  }
  const matched = out.length;
  if (q.window) out = out.slice(q.window.offset, q.window.size === null ? undefined : q.window.offset + q.window.size);
  return { entities: out, matched };
}

/** Whether a query reads anything (a line without one lists the collection as ES-35 says). */
export const isListQuery = (q: ListQuery | undefined): q is ListQuery =>
  q !== undefined && (q.filter !== undefined || q.sort !== undefined || q.window !== undefined);

/** `had` with the keys and habits of `more` added (each key list sorted): keys learned after the state pass join a plan's. */
export function withListQueries(had: ListQueries | undefined, more: Partial<ListQueries>): ListQueries {
  const base = had ?? { filter: [], sort: [], window: [] };
  const union = (a: readonly string[] = [], b: readonly string[] = []) => [...new Set([...a, ...b])].sort();
  return {
    ...base,
    filter: union(base.filter, more.filter),
    sort: union(base.sort, more.sort),
    window: union(base.window, more.window),
    ...(base.multi_sort || more.multi_sort ? { multi_sort: true as const } : {}),
    ...(base.any_of || more.any_of ? { any_of: true as const } : {}),
    ...(base.tree || more.tree ? { tree: union(base.tree, more.tree) } : {}),
  };
}

/**
 * How a list's query keys are read against its entities (`all`) and view members (`fields`):
 * a key that is a field (the view's, or a member any entity holds), and the field path a
 * reference's id key filters (`project_id` → `project.id`, where `project` holds references).
 * Each name is decided once.
 */
export function keyReaders(
  fields: Iterable<string>,
  all: readonly StateEntity[],
): {
  isField: (name: string) => boolean;
  referenceOf: (name: string) => string | undefined;
  labelsOf: (label: string) => string | undefined;
} {
  const named = new Set(fields);
  const fieldCache = new Map<string, boolean>();
  const refCache = new Map<string, string | undefined>();
  return {
    labelsOf: labelReader(named, all),
    isField: (name) => {
      let hit = fieldCache.get(name);
      if (hit === undefined) fieldCache.set(name, (hit = named.has(name) || all.some((e) => member(e.value, name) !== undefined)));
      return hit;
    },
    // Issue 44: a key naming a reference's id (Redmine's `project_id`) filters on `project.id`.
    referenceOf: (name) => {
      if (!refCache.has(name))
        refCache.set(
          name,
          referenceFilterField(name, (f) => named.has(f) && holdsReferences(all, f)),
        );
      return refCache.get(name);
    },
  };
}

type ParsedOk = Extract<ParsedQuery, { ok: true }>;

/** A request line's query read against a list's fields and entities (`keyReaders`: fields, references, labels). */
export function readListQuery(
  pairs: readonly { name: string; value: string }[],
  vocabulary: Vocabulary,
  fields: Iterable<string>,
  all: readonly StateEntity[],
  defaultSize?: number,
): ParsedQuery {
  const { isField, referenceOf, labelsOf } = keyReaders(fields, all);
  return parseListQuery(pairs, vocabulary, isField, referenceOf, labelsOf, defaultSize);
}

/** The kinds of a query naming a key `learned` does not hold, each with its names. */
export const unlearnedKeys = (parsed: ParsedOk, learned: ListQueries): [QueryKind, string[]][] =>
  [...parsed.kinds].filter(([kind, names]) => names.some((n) => !learned[kind].includes(n)));

/**
 * Whether the habits a query rests on are learned: several sort fields, and a key given more
 * than once (OR in one API, ignored in another; only a recorded line tells).
 */
export const habitsLearned = (parsed: ParsedOk, learned: ListQueries): boolean =>
  (!parsed.units.has('sort:multi') || learned.multi_sort === true) && (!parsed.units.has('filter:any') || learned.any_of === true);
