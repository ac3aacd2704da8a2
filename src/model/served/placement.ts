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
import type { StateEntity } from '../plan/types.js';
import { isInt } from './ids.js';
import type { ServedModel } from './model.js';

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

/**
 * The place of a created entity `id` of `collection` among `held` (its type's entities before
 * the create): `newestFirst`'s, else after all others; marked unplaced in the model where the
 * held order is neither by ascending id nor newest first.
 */
export function placeCreated(
  model: ServedModel,
  collection: string,
  held: StateEntity[],
  identity: string,
  id: JsonValue,
): { state_order?: number } {
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
