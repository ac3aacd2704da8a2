/**
 * Issue 44 kind 1: the page the API cuts its lists to where the call names none, shown by lists
 * the state holds only in part. Django REST framework answers `/api/posts/` with 5 of 12 posts
 * (`{"count": 12, "next": "http://host/api/posts/?page=2", …}`) and `/api/comments/` with 5 of 8:
 * its `PAGE_SIZE` is the API's. A list read whole with 4 or 5 entities (`/api/authors/`, `"next":
 * null`) grows past that page by this session's creates; where no list of the capture taught a
 * default page (ListPlan.default_size, which needs a list held whole) the answer was declined,
 * since where the app cuts it was not known. These plain lines show it.
 *
 * The cut is read off the capture's plain lines (no query, 2xx) whose answer is an object with one
 * array, an item total (OQ-13's count words) larger than the array, and a next-page member (OQ-13's
 * next words) holding an absolute URL of the line's own path whose only query pair is a page key
 * (OQ-13's `page` role) naming page 2. Every such line must list the same number, and no plain
 * line of such an envelope may list more than that (a longer one shows the API cuts elsewhere):
 * else there is no habit. The link's origin and page key are how the app writes the next page.
 */
import type { JsonValue } from '../../json/exact.js';
import { isObject, keysOf, member } from '../plan/json.js';
import type { PageLink } from '../plan/types.js';
import { perContext, type ServeContext } from './context.js';
import { jsonValueOf, readBody, toolRecords } from './records.js';

/** The API's page cut: its size, the record that showed it, and how its envelope links the next page. */
export interface PageCut {
  size: number;
  tool: string;
  record_ordinal: number;
  /** The envelope members: the list, its item total and its next-page link. */
  list: string;
  count: string;
  next: PageLink;
}

/** A plain line's envelope as the cut reads it; undefined when it is none of that shape. */
interface PlainPage {
  list: string;
  count: string;
  next: string;
  listed: number;
  total: number;
  link: string | null;
}

function plainPage(ctx: ServeContext, body: JsonValue | undefined): PlainPage | undefined {
  if (!isObject(body)) return undefined;
  const keys = keysOf(body);
  const lists = keys.filter((k) => Array.isArray(member(body, k)));
  const count = keys.find((k) => ctx.vocabulary.isItemTotal(k) && typeof member(body, k) === 'number');
  const next = keys.find((k) => ctx.vocabulary.isNextToken(k));
  if (lists.length !== 1 || count === undefined || next === undefined) return undefined;
  const link = member(body, next);
  if (link !== null && typeof link !== 'string') return undefined;
  return {
    list: lists[0],
    count,
    next,
    listed: (member(body, lists[0]) as JsonValue[]).length,
    total: member(body, count) as number,
    link,
  };
}

/** The API's page cut, read once per served store; undefined where the capture shows none, or two. */
export const apiPageCut = perContext(async (ctx): Promise<PageCut | undefined> => {
  const cuts: PageCut[] = [];
  let longest = 0;
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET') continue;
    for (const r of await toolRecords(ctx, tool.name)) {
      if (r.status < 200 || r.status > 299 || r.query_pairs.length > 0) continue;
      const page = plainPage(ctx, jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type)));
      if (!page) continue;
      longest = Math.max(longest, page.listed);
      if (page.link === null || page.listed === 0 || page.total <= page.listed) continue;
      let url: URL;
      try {
        url = new URL(page.link);
      } catch {
        continue;
      }
      const pairs = [...url.searchParams];
      if (url.pathname !== r.path || pairs.length !== 1 || ctx.vocabulary.windowRole(pairs[0][0]) !== 'page' || pairs[0][1] !== '2')
        continue;
      cuts.push({
        size: page.listed,
        tool: tool.name,
        record_ordinal: r.ordinal,
        list: page.list,
        count: page.count,
        next: { member: `/${page.next}`, rel: 'next', key: pairs[0][0], origin: url.origin },
      });
    }
  }
  // Every cut lists as many as the longest plain page of such an envelope: a shorter cut, or a
  // longer page without a next one, shows the API cuts its lists in more than one place.
  if (cuts.length === 0 || cuts.some((c) => c.size !== longest || c.next.key !== cuts[0].next.key)) return undefined;
  return cuts[0];
});

/**
 * The API's page cut where a plain line of a list held whole renders in an envelope of the cut's
 * shape (the same list, count and next members): the answer is the cut's first page, its total
 * counting every entity and its next member linking page 2 where there is one.
 */
export async function pageCutFor(ctx: ServeContext, envelope: JsonValue): Promise<PageCut | undefined> {
  const cut = await apiPageCut(ctx);
  const page = cut && plainPage(ctx, envelope);
  return cut && page && page.list === cut.list && page.count === cut.count && `/${page.next}` === cut.next.member ? cut : undefined;
}
