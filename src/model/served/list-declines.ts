/**
 * Issue 44: the list answers the model refuses to guess (list-answer.ts): what no recorded line
 * shows the app doing, where a plausible answer would be wrong in another app — a page cut the
 * capture never saw, a page past the last, a filter value of another form than the field's, a
 * value the default filter hides that no line asked for. Each throws `no-convention` (a 501 no
 * client takes for the app's answer) naming what did not match.
 */
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import { at, isObject, keysOf } from '../plan/json.js';
import { applyListQuery, compare, fieldOf, type ListQuery } from '../plan/list-queries.js';
import type { ListPlan, PlanLine, StateEntity } from '../plan/types.js';
import type { QueryPair } from './cache-busters.js';
import { perContext, type ServeContext } from './context.js';
import type { CallRequest } from './input-schema.js';
import { servedListPlans, servedLookups } from './model.js';
import { collectionOrders, type Orders } from './placement.js';

/** A rendered list answer, as the checks below read it. */
export interface RenderedList {
  line: PlanLine;
  call: CallRequest;
  asked: string;
  body: JsonValue;
  matched: number | undefined;
  /** The answer's envelope: its record's body. */
  envelope: JsonValue;
  /** The call is a recorded line of the list. */
  recorded: boolean;
  /** The answer is cut to the API's default page (page-cut.ts): where the app cuts it is known. */
  cut: boolean;
}

/**
 * Declines a rendered list answer that would guess where the app cuts the list into pages:
 * longer than the API's default page where this list learned none, longer than its record in an
 * envelope with a next-page member, or a page past the last no record shows.
 */
export async function refusePageGuess(ctx: ServeContext, plan: ListPlan, v: RenderedList): Promise<void> {
  if (v.cut) return;
  // Issue 44 kind 1: another list of the API cuts to a default page (Django REST framework's
  // PAGE_SIZE is the API's), this one was never seen longer than it: a list longer than that
  // page may be cut here too, with page links the record does not show. Declined.
  const cut = plan.default_size === undefined && !v.call.query.some((p) => ctx.vocabulary.windowRole(p.name) === 'size');
  const listed = cut ? at(v.body, plan.list_pointer) : undefined;
  const apiSize = Array.isArray(listed) ? await apiDefaultSize(ctx) : undefined;
  if (apiSize && Array.isArray(listed) && listed.length > apiSize.size)
    throw new CapstateError(
      'no-convention',
      `${plan.tool}: ${v.asked} would list ${listed.length} ${plan.collection}, and ${apiSize.tool} cuts its lists to pages of ${apiSize.size}; the capture never showed this list longer than that, so where the app cuts it is not known`,
      { tool: plan.tool, request_line: v.asked, nearest_tool: plan.tool, did_not_match: "a list longer than the API's default page" },
    );
  // An envelope with a next-page member (`"next": null`) that never showed this list longer: it may be a page, cut where the capture does not show.
  const recordedList = Array.isArray(listed) ? at(v.envelope, plan.list_pointer) : undefined;
  const nextMember = isObject(v.envelope) ? keysOf(v.envelope).find((k) => ctx.vocabulary.isNextToken(k)) : undefined;
  if (Array.isArray(listed) && Array.isArray(recordedList) && nextMember && listed.length > recordedList.length)
    throw new CapstateError(
      'no-convention',
      `${plan.tool}: ${v.asked} would list ${listed.length} ${plan.collection}, more than record #${v.line.record_ordinal} listed (${recordedList.length}), in an envelope with a next-page member (${nextMember}); the capture does not show where the app cuts this list into pages`,
      { tool: plan.tool, request_line: v.asked, nearest_tool: plan.tool, did_not_match: 'a list longer than any the capture read' },
    );
  // Issue 44 (kind 8): a page past the last, no record of this list shows what the app answers
  // there: an empty page (json-server), the last page (json-server 1.0) or an error (WordPress's 400).
  const w = v.line.window;
  if (!v.recorded && w && w.offset > 0 && v.matched !== undefined && w.offset >= v.matched && !showsPastLast(plan))
    throw new CapstateError(
      'no-convention',
      `${plan.tool}: ${v.asked} asks for a page past the last; the capture does not show what the app answers there (an empty page, the last one, or an error)`,
      { tool: plan.tool, request_line: v.asked, nearest_tool: plan.tool, did_not_match: 'a page past the last page' },
    );
}

/** The smallest default page size a list of the API learned (ListPlan.default_size), with its tool; read once per served store. */
const apiDefaultSize = perContext(async (ctx): Promise<{ size: number; tool: string } | undefined> => {
  let out: { size: number; tool: string } | undefined;
  for (const plan of await servedListPlans(ctx))
    if (plan.default_size !== undefined && (out === undefined || plan.default_size < out.size))
      out = { size: plan.default_size, tool: plan.tool };
  return out;
});

/** Whether a recorded line of the list read a page past its last: a window past its start that listed nothing. */
const showsPastLast = (plan: ListPlan): boolean =>
  plan.lines.some(
    (l) => l.reason === undefined && l.status >= 200 && l.status <= 299 && (l.window?.offset ?? 0) > 0 && l.listed_ids?.length === 0,
  );

/**
 * Issue 44 kind 4: a key that lifts the default filter, given a value no recorded line lifted
 * or filtered it by (WordPress's `status=private`, where the capture read `status=draft`), asks
 * for entities the default filter hid from every plain read: the state holds them only where a
 * recorded line lifted it to the whole collection (Redmine's `status_id=*`). The first such pair
 * otherwise, to decline.
 */
export function unseenBehindDefault(plan: ListPlan, query: readonly QueryPair[], lifted: readonly QueryPair[]): QueryPair | undefined {
  const d = plan.default_filter;
  if (!d || plan.lines.some((l) => l.reason === undefined && l.membership === 'all' && l.query !== null)) return undefined;
  return query.find(
    (p) =>
      d.lifted_by.includes(p.name) &&
      !lifted.includes(p) &&
      !plan.lines.some((l) => l.reason === undefined && (l.filter ?? []).some((f) => f.field === d.field && f.values.includes(p.value))),
  );
}

/**
 * Issue 44: an equality filter's value that is no number, on a field every entity holding it
 * holds a number (or numbers) in: WordPress reads `author=2,3` as either author, json-server as
 * no match, another app answers 400. No recorded line read such a value, so the call is declined.
 */
export function oddValue(q: ListQuery, all: readonly StateEntity[], tool: string): { field: string; value: string } | undefined {
  const numeric = (v: JsonValue | undefined) =>
    typeof v === 'number' || typeof v === 'bigint' || (Array.isArray(v) && v.every((x) => typeof x === 'number' || typeof x === 'bigint'));
  for (const f of q.filter ?? []) {
    if (f.op || f.matcher) continue;
    const value = f.values.find((x) => !/^-?[0-9]+(\.[0-9]+)?$/.test(x));
    if (value === undefined) continue;
    const held = all.map((e) => fieldOf(e, tool, f.field)).filter((v) => v !== undefined && v !== null);
    if (held.length > 0 && held.every(numeric)) return { field: f.field, value };
  }
  return undefined;
}

/**
 * Issue 44: declines a list answer whose order the capture never showed. Entities a sort leaves
 * tied — every entity, without a sort — keep the state's order, which is the app's own only where
 * a complete unsorted list row of the collection showed it (ES-33 `row`); in order of first
 * appearance (a list read only sorted or paged, `appearance`) it is the capture's, and Feathers
 * lists `$sort[userId]=1` with message 1 before 5, 8 and 11 where the state, read newest first,
 * held them the other way round. Only ties that touch the answer's window count: a top three
 * with no tie among or after them is known whatever the rest. A tie is ordered too where the
 * list's learned default orders (plan-default-order.ts: WordPress's posts, newest first) order
 * the two as the state does (one of them does, none the other way: the capture does not tell
 * which is the app's rule, and none contradicts the answer), where recorded unsorted lines of one
 * filter showed the two in that order (pages of it: their offsets count), or one of them is this
 * session's (placement.ts places those, or the answer is declined before this).
 */
export async function refuseUnknownOrder(
  ctx: ServeContext,
  plan: ListPlan,
  query: ListQuery,
  all: readonly StateEntity[],
  asked: string,
): Promise<void> {
  const state = await servedLookups(ctx);
  const types = (await state?.types()) ?? [];
  if (types.find((t) => t.collection === plan.collection)?.order_source !== 'appearance') return;
  const orders = (await collectionOrders(ctx)).get(plan.collection);
  const initial = new Set((await state?.collection(plan.collection))?.map((e) => e.id) ?? []);
  const shown = shownPositions(plan);
  const known = (a: StateEntity, b: StateEntity) => {
    if (!initial.has(a.id) || !initial.has(b.id)) return true;
    // The orders the unsorted lines taught decide where they tell the two apart; where they
    // disagree (a write changed one of the fields) nothing does; where none is learned or they
    // tie, the order the recorded lines showed the two in.
    const taught = orders === undefined ? 'tie' : byOrders(orders, a, b);
    return taught === 'before' || (taught === 'tie' && shownBefore(shown, a.id, b.id));
  };
  const sorted = applyListQuery(all, { ...query, window: undefined }, plan.tool).entities;
  const from = query.window?.offset ?? 0;
  const to = query.window?.size == null ? sorted.length : Math.min(sorted.length, from + query.window.size);
  const keys = query.sort ? [query.sort, ...(query.then_by ?? [])] : [];
  // Each neighbouring pair with one of the two in the window (the pair across each edge included).
  for (let i = Math.max(0, from - 1); i < Math.min(to, sorted.length - 1); i++) {
    const [a, b] = [sorted[i], sorted[i + 1]];
    if (!keys.every((k) => compare(fieldOf(a, plan.tool, k.field), fieldOf(b, plan.tool, k.field)) === 0) || known(a, b)) continue;
    const what = keys.length
      ? `${plan.collection} ${a.id} and ${b.id} tie on ${keys.map((k) => k.field).join(', ')}`
      : `it names no sort for ${plan.collection} ${a.id} and ${b.id}`;
    const learned = orders?.orders.length
      ? `its unsorted lines were ordered by each of ${orders.orders.map((o) => o.field).join(', ')}, which do not agree on these two now`
      : `the capture never read ${plan.collection} whole without a sort`;
    throw new CapstateError(
      'no-convention',
      `${plan.tool}: ${asked}: ${what}, and ${learned}, so the order the app lists them in is not known`,
      { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: 'the order of entities no sort orders' },
    );
  }
}

/** Where a list's learned default orders put `a` against `b`: before (one of them does, none the other way), after, in disagreement, or tied by all. */
function byOrders(orders: Orders, a: StateEntity, b: StateEntity): 'before' | 'after' | 'disagree' | 'tie' {
  const signs = orders.orders.map(
    (o) => (o.direction === 'desc' ? -1 : 1) * compare(fieldOf(a, orders.tool, o.field), fieldOf(b, orders.tool, o.field)),
  );
  const [before, after] = [signs.some((c) => c < 0), signs.some((c) => c > 0)];
  return before && after ? 'disagree' : before ? 'before' : after ? 'after' : 'tie';
}

/** Per filter of the list's recorded unsorted lines, where they showed each entity: its page's offset plus its place. */
function shownPositions(plan: ListPlan): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const l of plan.lines) {
    if (l.reason !== undefined || l.sort !== undefined || l.listed_ids === undefined) continue;
    const key = JSON.stringify(l.filter ?? []);
    const at = out.get(key) ?? out.set(key, new Map()).get(key)!;
    l.listed_ids.forEach((id, i) => at.set(id, (l.window?.offset ?? 0) + i));
  }
  return out;
}

/** Whether one filter's recorded unsorted lines showed `a` before `b`. */
function shownBefore(shown: Map<string, Map<string, number>>, a: string, b: string): boolean {
  for (const at of shown.values()) {
    const [x, y] = [at.get(a), at.get(b)];
    if (x !== undefined && y !== undefined && x < y) return true;
  }
  return false;
}

/**
 * Issue 44: declines a page larger than any the API's recorded lines asked for, where the answer
 * echoes its size: an app may cap a page (Feathers' `paginate.max`: `$limit=100` echoes
 * `"limit": 20` and lists 20), refuse it (WordPress answers 400 past `per_page=100`), or honour it,
 * and the capture shows none of these.
 */
export async function refuseLargerPage(ctx: ServeContext, plan: ListPlan, query: ListQuery, asked: string): Promise<void> {
  const size = query.window?.size;
  if (size == null || !plan.window_echoes?.some((e) => e.role === 'size')) return;
  // The largest page the app was seen to list: a size a recorded line asked for, or one an echo
  // showed for calls naming none (Redmine's `"limit": 25`).
  let largest = 0;
  for (const p of await servedListPlans(ctx)) {
    for (const l of p.lines) largest = Math.max(largest, l.window?.size ?? 0);
    for (const e of p.window_echoes ?? []) if (e.role === 'size') largest = Math.max(largest, e.default ?? 0);
  }
  if (size <= largest) return;
  throw new CapstateError(
    'no-convention',
    `${plan.tool}: ${asked} asks for pages of ${size}, more than any request of the capture asked for (${largest}); the capture does not show whether the app caps a page, refuses it or lists them all`,
    { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: `a page of ${size}` },
  );
}
