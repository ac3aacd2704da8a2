/**
 * The store's one list per vocabulary (table `vocabulary`, seeded by
 * migrations/0002-vocabulary.sql): identity names and their OQ-9 ranks, query-parameter
 * roles (OQ-13), next-page tokens and item totals (OQ-24), safe methods, query-POST words (OQ-7),
 * cache-buster keys (issue 44, migrations/0015-cache-buster-keys.sql). The views join the table;
 * TypeScript asks this module, so no list is written twice (issue 13).
 */
import type { Kysely } from 'kysely';
import type { DB, VocabularyTable } from './types.js';

export type VocabularyKind = VocabularyTable['vocabulary'];

/** The vocabulary of one store, read once (the rows change only through migrations). */
export interface Vocabulary {
  /** ES-11, OQ-9: the identity names, highest priority first. */
  identityNames: readonly string[];
  isIdentityName(name: string): boolean;
  /** OQ-9 priority: an identity name's rank, or `identityNames.length` for any other name. */
  identityRank(name: string): number;
  /** OQ-13: a projection parameter (the `projection` rows). */
  isProjection(param: string): boolean;
  /** OQ-13: a pagination parameter (the `pagination` rows; `page[number]` is one by its base). */
  isPagination(param: string): boolean;
  /** OQ-13: a sort/direction or random parameter. */
  isOrdering(param: string): boolean;
  /** OQ-13: shaping = any parameter that is none of pagination, sort/direction or random. */
  isShaping(param: string): boolean;
  /** OQ-13: a random parameter (the `random` rows). */
  isRandom(param: string): boolean;
  /** Issue 16: what a pagination key's value means when a window is rendered from state (the `window_*` rows), or null (opaque: a cursor, a token). */
  windowRole(param: string): 'page' | 'size' | 'offset' | 'end' | null;
  /** OQ-24 (ES-35, ES-36): an item-total member's name — lower-cased without `_`/`-`, it holds an `item_total` word and no `page_total` word (`totalCount`, not `totalPages`). */
  isItemTotal(name: string): boolean;
  /** OQ-24: a next-page token's or has-more flag's member name (`next`, `has_more`, …), as spelled. */
  isNextToken(name: string): boolean;
  /** ES-35/36 in headers (issue 18): an item-total, next-link or range header, by its name (any case), or null. */
  headerKind(name: string): 'total' | 'next' | 'range' | null;
  /** The header names (lower-case) of one `headerKind`, for a query that reads only those. */
  headerNames(kind: 'total' | 'next' | 'range'): readonly string[];
  /**
   * Issue 44: a query key clients add only to defeat caches (`_` of jQuery's `cache: false`;
   * the `cache_buster` rows), compared exactly as spelled: the libraries send these spellings,
   * and a wider match could take an app's own key for one.
   */
  isCacheBuster(name: string): boolean;
  /** A safe method (RFC 9110 §9.2.1; glossary: read tool; MCP-1). */
  isSafeMethod(method: string): boolean;
  /** OQ-7 and issue 18: the words that make a POST a query, lower-case (the `query_*` rows). */
  queryWords: {
    segments: ReadonlySet<string>;
    suffixes: readonly string[];
    methodPrefixes: readonly string[];
    areas: ReadonlySet<string>;
  };
}

/**
 * OQ-13: the base a parameter name is compared by — the part before its first `[`, ASCII
 * lower-cased (`page[number]` → `page`, `sort[0][field]` → `sort`; docs/decisions.md, ES-33).
 * ASCII only, as SQLite's lower() in the views, so both sides agree on every name.
 */
export const paramBase = (name: string): string => {
  const i = name.indexOf('[');
  return (i === -1 ? name : name.slice(0, i)).replace(/[A-Z]+/g, (c) => c.toLowerCase());
};

const cache = new WeakMap<Kysely<DB>, Promise<Vocabulary>>();

/** Reads the store's vocabulary (once per Kysely instance). */
export function readVocabulary(k: Kysely<DB>): Promise<Vocabulary> {
  let v = cache.get(k);
  if (!v) {
    v = load(k);
    cache.set(k, v);
    v.catch(() => cache.delete(k));
  }
  return v;
}

async function load(k: Kysely<DB>): Promise<Vocabulary> {
  const rows = await k.selectFrom('vocabulary').select(['vocabulary', 'name', 'rank']).orderBy('vocabulary').orderBy('rank').execute();
  const of = (kind: VocabularyKind) => rows.filter((r) => r.vocabulary === kind).map((r) => r.name);
  const identityNames = of('identity');
  const identity = new Set(identityNames);
  const projection = new Set(of('projection'));
  const pagination = new Set(of('pagination'));
  const ordering = new Set([...of('ordering'), ...of('random')]);
  const safe = new Set(of('safe_method'));
  const random = new Set(of('random'));
  const cacheBusters = new Set(of('cache_buster'));
  const windowRoles = new Map<string, 'page' | 'size' | 'offset' | 'end'>([
    ...of('window_page').map((n) => [n, 'page'] as const),
    ...of('window_size').map((n) => [n, 'size'] as const),
    ...of('window_offset').map((n) => [n, 'offset'] as const),
    ...of('window_end').map((n) => [n, 'end'] as const),
  ]);
  const headerKinds = new Map<string, 'total' | 'next' | 'range'>([
    ...of('total_header').map((n) => [n, 'total'] as const),
    ...of('next_header').map((n) => [n, 'next'] as const),
    ...of('range_header').map((n) => [n, 'range'] as const),
  ]);
  const itemTotals = of('item_total');
  const pageTotals = of('page_total');
  const nextTokens = new Set(of('next_token'));
  const lower = (kind: VocabularyKind) => of(kind).map((n) => n.replace(/[A-Z]+/g, (c) => c.toLowerCase()));
  return {
    identityNames,
    isIdentityName: (name) => identity.has(name),
    identityRank: (name) => {
      const i = identityNames.indexOf(name);
      return i === -1 ? identityNames.length : i;
    },
    isProjection: (param) => projection.has(paramBase(param)),
    isPagination: (param) => pagination.has(paramBase(param)),
    isOrdering: (param) => ordering.has(paramBase(param)),
    isShaping: (param) => !pagination.has(paramBase(param)) && !ordering.has(paramBase(param)),
    isRandom: (param) => random.has(paramBase(param)),
    windowRole: (param) => windowRoles.get(paramBase(param)) ?? null,
    headerKind: (name) => headerKinds.get(name.toLowerCase()) ?? null,
    headerNames: (kind) => [...headerKinds].filter(([, k]) => k === kind).map(([n]) => n),
    isItemTotal: (name) => {
      // As list_counters.sql compares: SQLite's lower() is ASCII-only.
      const plain = name.replace(/[A-Z]+/g, (c) => c.toLowerCase()).replace(/[_-]/g, '');
      return itemTotals.some((w) => plain.includes(w)) && !pageTotals.some((w) => plain.includes(w));
    },
    isNextToken: (name) => nextTokens.has(name),
    isCacheBuster: (name) => cacheBusters.has(name),
    isSafeMethod: (method) => safe.has(method.replace(/[a-z]+/g, (c) => c.toUpperCase())),
    queryWords: {
      segments: new Set(lower('query_segment')),
      suffixes: lower('query_suffix'),
      methodPrefixes: lower('query_method_prefix'),
      areas: new Set(lower('query_area')),
    },
  };
}
