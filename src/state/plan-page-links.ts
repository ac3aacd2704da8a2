/**
 * Issue 44 (kinds 1 and 8): envelope members that link the list's next and previous pages.
 * Django REST framework answers `/api/posts/?page=2` with `{"count": 12, "next":
 * "http://host/api/posts/?page=3", "previous": "http://host/api/posts/", "results": […]}`: the
 * links are the request's own URL with its page key moved by one, not data, and two lines of
 * the list differ there only because they asked for different pages (ES-25 compared them as
 * data and replayed the whole list).
 *
 * A top-level member is such a link when on every recorded line it is null or an absolute URL
 * of the line's own path whose query is the line's with its page key (OQ-13's `page` role) one
 * more (`next`) or one less (`prev`) than the line's page (1 where it names none). How the app
 * writes the link is learned from the recorded links too: the origin; the first page with its
 * key left out (Django's `previous` of page 2) or named; the keys in the request's order or
 * sorted (Django sorts them). What the recorded links do not show (a link to page 1 where no
 * record linked one; a query whose two orders differ where no record showed which) is not
 * rendered: the line is declined (src/model/plan/render.ts). The state pass keeps the reading
 * only when every line then renders exactly as recorded (steps/plans.ts, checkLines).
 */
import { count } from '../model/plan/list-queries.js';
import { keysOf, member } from '../model/plan/json.js';
import type { PageLink } from '../model/plan/types.js';
import { sortedPairs, withPage } from '../model/plan/page-links.js';
import type { ReadLine } from './facts.js';
import type { Ctx } from './plan-context.js';
import { envelopeBodies } from './plan-window-echoes.js';

type Pair = [string, string];
const key = (pairs: readonly Pair[]) => pairs.map(([k, v]) => `${k}=${v}`).join('&');

/** The page links of a list whose list sits at the top-level member `listPointer`. */
export function pageLinksOf(ctx: Ctx, lines: readonly ReadLine[], listPointer: string): PageLink[] {
  const isPage = (k: string) => ctx.facts.vocabulary.windowRole(k) === 'page';
  const bodies = envelopeBodies(ctx, lines, listPointer);
  if (bodies.length === 0) return [];
  const out: PageLink[] = [];
  for (const name of keysOf(bodies[0].body)) {
    if (`/${name}` === listPointer) continue;
    let found: PageLink | null | undefined;
    for (const { r, body } of bodies) {
      const v = member(body, name);
      if (v === null) continue;
      const link = typeof v === 'string' ? readLink(v, r, isPage) : null;
      if (!link || (found && !sameHabit(found, link))) {
        found = null;
        break;
      }
      found = found ? merged(found, link) : link;
      found.member = `/${name}`;
    }
    if (found) out.push(found);
  }
  return out;
}

/** What one recorded link shows, or null when it is no page link of its line. */
function readLink(value: string, r: ReadLine, isPage: (k: string) => boolean): PageLink | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.pathname !== r.path) return null;
  const linked: Pair[] = [...url.searchParams];
  const asked: Pair[] = r.query_pairs.map((p) => [p.name, p.value]);
  const keys = [...new Set([...linked, ...asked].map(([k]) => k).filter(isPage))];
  if (keys.length !== 1) return null;
  const pageKey = keys[0];
  const askedPage = asked.filter(([k]) => k === pageKey);
  const linkedPage = linked.filter(([k]) => k === pageKey);
  if (askedPage.length > 1 || linkedPage.length > 1) return null;
  const p = askedPage.length ? count(askedPage[0][1]) : 1;
  const q = linkedPage.length ? count(linkedPage[0][1]) : 1;
  if (p === null || q === null) return null;
  const rel = q === p + 1 ? 'next' : q === p - 1 ? 'prev' : null;
  if (rel === null) return null;
  const rest = (pairs: Pair[]) => key(sortedPairs(pairs.filter(([k]) => k !== pageKey)));
  if (rest(linked) !== rest(asked)) return null;
  // The order the link's keys are in: the request's (its page key moved in place, or added last) or sorted.
  const inRequestOrder = key(withPage(asked, pageKey, linkedPage.length ? linkedPage[0][1] : null));
  const inSorted = key(sortedPairs(linked));
  const spelled = key(linked);
  const order =
    spelled === inRequestOrder && spelled === inSorted
      ? undefined
      : spelled === inSorted
        ? 'sorted'
        : spelled === inRequestOrder
          ? 'request'
          : null;
  if (order === null) return null;
  return {
    member: '',
    rel,
    key: pageKey,
    origin: url.origin,
    ...(q === 1 ? { first: linkedPage.length ? ('named' as const) : ('omitted' as const) } : {}),
    ...(order ? { order } : {}),
  };
}

const sameHabit = (a: PageLink, b: PageLink) =>
  a.rel === b.rel &&
  a.key === b.key &&
  a.origin === b.origin &&
  (a.first === undefined || b.first === undefined || a.first === b.first) &&
  (a.order === undefined || b.order === undefined || a.order === b.order);

const merged = (a: PageLink, b: PageLink): PageLink => ({
  ...a,
  ...((a.first ?? b.first) ? { first: a.first ?? b.first } : {}),
  ...((a.order ?? b.order) ? { order: a.order ?? b.order } : {}),
});
