/**
 * Issue 44 (kinds 1 and 8): a page envelope the window explains. json-server 1.0 answers
 * `?_page=1&_per_page=3` with `{"first":1,"prev":null,"next":2,"last":3,"pages":3,"items":8,
 * "data":[…]}`: the list sits at another place than the plain `/posts` list's (ES-20 sets the
 * line apart as a variant), and every other member is a number the page, the page size and the
 * count matched give. A member is read as one of the quantities below when its recorded value is
 * that quantity's on the recorded page (a page link's name, RFC 8288's `first`, `prev`, `next`,
 * `last`, settles two that tie there; the page count is the last page's number); a member no
 * quantity explains, or two, leaves the envelope unexplained. The state pass keeps a reading
 * (`ListPlan.page_envelope`) only when it renders the recorded page from the state exactly as
 * recorded; serving renders any page in it (src/model/served/page-envelope.ts). A page past the
 * last is not rendered: the capture does not show whether the app answers it empty or as the
 * last page (json-server 1.0 clamps it).
 */
import type { JsonValue } from '../../json/exact.js';
import { childPointer } from '../../json/pointer.js';
import { isObject, keysOf, member, replaceAt } from './json.js';
import { applyListQuery, type ListQuery } from './list-queries.js';
import { pageOf } from './page-links.js';
import { renderEntity } from './render.js';
import type { ListPlan, PageEnvelope, PageQuantity, StateEntity } from './types.js';

/** The quantities a page envelope's member may show, in the order a tie is settled. */
const QUANTITIES: readonly PageQuantity[] = ['first', 'prev', 'next', 'last', 'pages', 'matched'];

function quantities(page: number, pages: number, matched: number): Record<PageQuantity, number | null> {
  return { first: 1, prev: page > 1 ? page - 1 : null, next: page < pages ? page + 1 : null, last: pages, pages, matched };
}

/**
 * The page `query` (its window a page number and size) picks from `all`, in `envelope` (the
 * recorded page's answer) read as `reading` says, for `plan`'s entities; null past the last page.
 */
export function renderPage(
  reading: PageEnvelope,
  envelope: JsonValue,
  plan: ListPlan,
  query: ListQuery,
  all: readonly StateEntity[],
): JsonValue | null {
  const w = query.window;
  if (!w?.size) return null;
  const picked = applyListQuery(all, query, plan.tool);
  const page = pageOf(w.offset, w.size);
  const pages = Math.ceil(picked.matched / w.size);
  if (page > pages) return null;
  const q = quantities(page, pages, picked.matched);
  let body = replaceAt(
    envelope,
    reading.list_pointer,
    picked.entities.map((e) => renderEntity(e, plan)),
  );
  for (const m of reading.members) body = replaceAt(body, m.pointer, q[m.quantity]);
  return body;
}

/**
 * A recorded page's answer read as a page envelope: one member an array of the collection's
 * entities (each holding `identity`), every other a whole number or null that one quantity of
 * the recorded window explains. Null when the answer is not so; the caller checks the reading
 * renders the page as recorded.
 */
export function explainPage(
  body: JsonValue,
  identity: string,
  query: ListQuery,
  all: readonly StateEntity[],
  plan: ListPlan,
  ordinal: number,
  keys: string[],
): PageEnvelope | null {
  const w = query.window;
  if (!isObject(body) || !w?.size) return null;
  const names = keysOf(body);
  const lists = names.filter((k) => {
    const v = member(body, k);
    return Array.isArray(v) && v.every((o) => isObject(o) && member(o, identity) !== undefined);
  });
  if (lists.length !== 1) return null;
  const matched = applyListQuery(all, { ...query, window: undefined }, plan.tool).entities.length;
  const q = quantities(pageOf(w.offset, w.size), Math.ceil(matched / w.size), matched);
  const members: PageEnvelope['members'] = [];
  for (const k of names) {
    if (k === lists[0]) continue;
    const v = member(body, k);
    if (v !== null && (typeof v !== 'number' || !Number.isInteger(v))) return null;
    let fits = QUANTITIES.filter((x) => q[x] === v);
    // The page count is always the last page's number: one reading, not two.
    if (fits.includes('last') && fits.includes('pages')) fits = fits.filter((x) => x !== (k.toLowerCase() === 'last' ? 'pages' : 'last'));
    if (fits.length > 1) fits = fits.filter((x) => x === k.toLowerCase());
    if (fits.length !== 1) return null;
    members.push({ pointer: childPointer('', k), quantity: fits[0] });
  }
  return { record_ordinal: ordinal, list_pointer: childPointer('', lists[0]), members, keys };
}

/** A page envelope's members in words, for `why` and `capstate state`. */
export const pageWords = (reading: PageEnvelope): string => reading.members.map((m) => `${m.pointer.slice(1)} = ${m.quantity}`).join(', ');
