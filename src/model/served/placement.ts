/**
 * Where a created entity goes in its collection's lists (ES-34's state order). The capture shows
 * a list's order, not the rule behind it: json-server lists by id as created, Redmine newest
 * first, Django REST framework by the model's `ordering` (authors and tags by name). A create is
 * placed where the held order proves its place — after all others where the ids ascend, first
 * where they descend and the new id is the largest — and otherwise marked unplaced: a list that
 * would show it without a sort of the call's own is declined (list-answer.ts), since appending it
 * was a plausible wrong answer (Django's authors list put Nora Lind last, not before Tom Weber).
 */
import type { JsonValue } from '../../json/exact.js';
import { member } from '../plan/json.js';
import { compare, fieldOf } from '../plan/list-queries.js';
import type { ListPlan, StateEntity } from '../plan/types.js';
import { perContext } from './context.js';
import { isInt } from './ids.js';
import { servedListPlans, type ServedModel } from './model.js';

/**
 * Where a created entity goes among its type's: after all others, unless the state holds its
 * entities by integer id, largest first (Redmine lists issues newest first), and the new id is
 * the largest: then first.
 */
export function newestFirst(held: StateEntity[], identity: string, id: JsonValue): { state_order?: number } {
  if (held.length < 2 || !isInt(id)) return {};
  // One walk that stops at the first id out of descending order (most collections ascend):
  // `<` orders numbers and bigints alike, so no id is converted.
  let previous: number | bigint | undefined;
  let lowest = Infinity;
  for (const e of held) {
    const v = member(e.value, identity);
    if (!isInt(v) || (previous !== undefined && !(v < previous))) return {};
    previous = v;
    lowest = Math.min(lowest, e.state_order);
  }
  return (id as number | bigint) > (member(held[0].value, identity) as number | bigint) ? { state_order: lowest - 1 } : {};
}

/** An id as the order compares it: a number (or a string of digits) by value, else its text. */
type Key = { n: number } | { s: string };
function keyOf(v: JsonValue | undefined): Key | null {
  if (typeof v === 'number') return { n: v };
  if (typeof v === 'bigint') return { n: Number(v) };
  if (typeof v === 'string') return /^-?[0-9]{1,15}$/.test(v) ? { n: Number(v) } : { s: v };
  return null;
}
const atMost = (a: Key, b: Key) => ('n' in a && 'n' in b ? a.n <= b.n : 's' in a && 's' in b ? a.s <= b.s : false);

/** Per model and collection: whether its entities' ids ascend in state order, and the last id (kept as the session creates). */
const ascending = new WeakMap<ServedModel, Map<string, { ok: boolean; last: Key | null }>>();

function ascendingOf(model: ServedModel, collection: string, held: readonly StateEntity[], identity: string) {
  let byCollection = ascending.get(model);
  if (!byCollection) ascending.set(model, (byCollection = new Map()));
  let kept = byCollection.get(collection);
  if (!kept) {
    // Walked once per collection: a long session's creates keep the answer up to date below.
    kept = { ok: true, last: null };
    for (const e of held) {
      const k = keyOf(member(e.value, identity));
      if (k === null || (kept.last !== null && !atMost(kept.last, k))) {
        kept = { ok: false, last: null };
        break;
      }
      kept.last = k;
    }
    byCollection.set(collection, kept);
  }
  return kept;
}

/** A list's learned default orders (ListPlan.default_order) and the tool whose view reads them. */
export interface Orders {
  tool: string;
  orders: NonNullable<ListPlan['default_order']>;
}

/** The default orders a list plan of each collection learned (the first list that learned any), read once per served store. */
export const collectionOrders = perContext(async (ctx): Promise<Map<string, Orders>> => {
  const out = new Map<string, Orders>();
  for (const plan of await servedListPlans(ctx))
    if (plan.default_order && !out.has(plan.collection)) out.set(plan.collection, { tool: plan.tool, orders: plan.default_order });
  return out;
});

/**
 * Where the default orders (plan-default-order.ts) put an entity of value `value` among `held`
 * (in state order): before the first entity each order sorts after it. Null when the orders put
 * it in different places, or one cannot read it (the capture does not show which is the rule).
 */
export function placeByOrders(held: readonly StateEntity[], value: JsonValue, orders: Orders): { state_order?: number } | null {
  const created: StateEntity = { collection: '', id: '', value, view_values: {}, record_ordinals: [], state_order: 0 };
  let place: number | undefined;
  for (const o of orders.orders) {
    const mine = fieldOf(created, orders.tool, o.field);
    if (mine === undefined || mine === null) return null;
    const sign = o.direction === 'desc' ? -1 : 1;
    let i = held.findIndex((e) => sign * compare(mine, fieldOf(e, orders.tool, o.field)) < 0);
    if (i === -1) i = held.length;
    if (place !== undefined && place !== i) return null;
    place = i;
  }
  if (place === undefined || place === held.length) return {};
  return { state_order: place === 0 ? held[0].state_order - 1 : (held[place - 1].state_order + held[place].state_order) / 2 };
}

/**
 * The place of a created entity `id` of `collection` among `held` (its type's entities before
 * the create): where the list's learned default orders agree to put it (`placeByOrders`), else
 * `newestFirst`'s, else after all others; marked unplaced in the model where the orders
 * disagree, or the held order is neither by ascending id nor newest first.
 */
export function placeCreated(
  model: ServedModel,
  collection: string,
  held: StateEntity[],
  identity: string,
  id: JsonValue,
  ordered?: { value: JsonValue; orders: Orders | undefined },
): { state_order?: number } {
  if (ordered?.orders) {
    const placed = placeByOrders(held, ordered.value, ordered.orders);
    if (placed === null) model.unplaced.add(`${collection}\0${String(id)}`);
    return placed ?? {};
  }
  const first = newestFirst(held, identity, id);
  if (first.state_order !== undefined) return first;
  if (held.length < 2) return {};
  const kept = ascendingOf(model, collection, held, identity);
  const k = keyOf(id);
  if (kept.ok && k !== null && (kept.last === null || atMost(kept.last, k))) {
    kept.last = k;
    return {};
  }
  kept.ok = false;
  model.unplaced.add(`${collection}\0${String(id)}`);
  return {};
}

/** Whether `collection` holds an entity this session created whose place the capture does not show. */
export async function holdsUnplaced(model: ServedModel, collection: string): Promise<boolean> {
  if (model.unplaced.size === 0) return false;
  for (const key of model.unplaced) {
    const [c, id] = key.split('\0');
    if (c === collection && (await model.entity(c, id))) return true;
  }
  return false;
}
