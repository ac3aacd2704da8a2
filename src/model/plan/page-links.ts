/**
 * Issue 44: the value of an envelope member that links the next or previous page (Django REST
 * framework's `next`, `previous`), as src/state/plan-page-links.ts learned the app writes it.
 */
import type { PageLink, PlanLine } from './types.js';

type Pair = [string, string];

/** The page (1, 2, …) a window of `size` starting at `offset` is. */
export const pageOf = (offset: number, size: number): number => Math.floor(offset / size) + 1;

/** The last page of `matched` entities in pages of `size`: 1 where none matched (one empty page). */
export const lastPageOf = (matched: number, size: number): number => Math.max(1, Math.ceil(matched / size));

/** Query pairs sorted by key, as Django's `replace_query_param` writes them (a stable sort: one key's values keep their order). */
export const sortedPairs = (pairs: readonly Pair[]): Pair[] => [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** The request's pairs with its page key set to `page` where it names one, else added last; without it where `page` is null. */
export function withPage(pairs: readonly Pair[], pageKey: string, page: string | null): Pair[] {
  const has = pairs.some(([k]) => k === pageKey);
  const out = pairs.flatMap(([k, v]): Pair[] => (k !== pageKey ? [[k, v]] : page === null ? [] : [[k, page]]));
  return has || page === null ? out : [...out, [pageKey, page]];
}

/**
 * A page link's value for a line (src/state/plan-page-links.ts): null where no such page exists
 * (a window without a size is one page), else the line's URL with its page key moved; undefined
 * where the recorded links do not show how the app writes it (a link to page 1, the keys' order).
 */
export function pageLinkValue(l: PageLink, line: PlanLine, matched: number): string | null | undefined {
  const w = line.window;
  const size = w?.size ?? null;
  const page = w && size ? pageOf(w.offset, size) : 1;
  const last = size ? lastPageOf(matched, size) : 1;
  const target = l.rel === 'next' ? (page < last ? page + 1 : null) : page > 1 && page <= last ? page - 1 : null;
  if (target === null) return null;
  if (target === 1 && l.first === undefined) return undefined;
  const asked = [...new URLSearchParams(line.query ?? '')];
  const pairs = withPage(asked, l.key, target === 1 && l.first === 'omitted' ? null : String(target));
  const bySort = sortedPairs(pairs);
  const spell = (ps: [string, string][]) => new URLSearchParams(ps).toString();
  if (spell(bySort) !== spell(pairs) && l.order === undefined) return undefined;
  const query = spell(l.order === 'sorted' ? bySort : pairs);
  return `${l.origin}${line.path}${query ? `?${query}` : ''}`;
}
