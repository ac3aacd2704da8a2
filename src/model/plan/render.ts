/**
 * Rendering a read from state: the one place that turns a plan, the state's entities and an
 * envelope into a response body. ES-37 checks plans with it; serving answers with it.
 */
import type { JsonValue } from '../../json/exact.js';
import { at, codePointSorted, isObject, keysOf, member, objectFrom, replaceAt } from './json.js';
import type { ItemPlan, ListPlan, PlanLine, StateEntity, WindowEcho } from './types.js';
import { pageLinkValue, pageOf } from './page-links.js';
import { renderClock, type ClockFormat } from './clocks.js';
import { applyListQuery, count, isListQuery, type ListQuery } from './list-queries.js';

export interface Collections {
  /** The entity of a collection with this id, or undefined. */
  entity(collection: string, id: string): StateEntity | undefined;
  /** The collection's entities in state order (ES-34). */
  all(collection: string): StateEntity[];
}

export function collectionsOf(entities: StateEntity[]): Collections {
  const byCollection = new Map<string, StateEntity[]>();
  const byKey = new Map<string, StateEntity>();
  for (const e of entities) {
    const list = byCollection.get(e.collection) ?? [];
    list.push(e);
    byCollection.set(e.collection, list);
    byKey.set(`${e.collection}\u0000${e.id}`, e);
  }
  for (const list of byCollection.values()) list.sort((a, b) => a.state_order - b.state_order);
  return {
    entity: (c, id) => byKey.get(`${c}\u0000${id}`),
    all: (c) => byCollection.get(c) ?? [],
  };
}

/**
 * The entity as one view shows it: the view's members that the entity holds, each with the
 * view's own value where it differs (ES-26 "differing views keep their own values").
 */
export function renderEntity(
  e: StateEntity,
  view: { tool: string; fields: string[]; clock_formats?: Record<string, ClockFormat>; sorted_arrays?: string[] },
): JsonValue {
  const own = e.view_values[view.tool] ?? {};
  const entries: [string, JsonValue][] = [];
  for (const k of view.fields) {
    if (Object.hasOwn(own, k)) entries.push([k, own[k]]);
    else {
      const v = member(e.value, k);
      // ES-30: a stored instant this view never recorded renders in the view's spelling.
      const clock = view.clock_formats && Object.hasOwn(view.clock_formats, k) ? view.clock_formats[k] : undefined;
      // ES-32: a sorted-array field lists its stored strings in code-point order.
      const sortedArray =
        view.sorted_arrays?.includes(k) && Array.isArray(v) && v.every((x) => typeof x === 'string')
          ? codePointSorted(v as string[])
          : undefined;
      if (v !== undefined) entries.push([k, sortedArray ?? (clock ? renderClock(k, v, clock) : v)]);
    }
  }
  return objectFrom(entries);
}

/** `matched`: for a list query, how many entities it matched before its window (what total headers count). */
export type Rendered =
  | { status: 'entity-absent' }
  | { status: 'link-unknown'; detail: string }
  | { status: 'rendered'; body: JsonValue; matched?: number };

/** A scalar member's value as a path names it (OQ-9: `7` and `"7"` name one entity). */
export const asPathValue = (v: JsonValue | undefined) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined;

/** The entity a path value names: by identity, else (issue 18) by the plan's alternate key. */
export function entityByKey(state: Collections, plan: ItemPlan, value: string): StateEntity | undefined {
  return (
    state.entity(plan.collection, value) ??
    (plan.alternate_key === undefined
      ? undefined
      : state.all(plan.collection).find((e) => asPathValue(member(e.value, plan.alternate_key!)) === value))
  );
}

/**
 * Issue 18: the member that the item reads naming no entity id name instead, when each such
 * read's entity holds the path value there and the member tells every entity of the type
 * apart (its values distinct, none another entity's id); undefined when none is needed or found.
 */
export function alternateKeyOf(
  state: Collections,
  collection: string,
  reads: { path_value: string; entity_id: string }[],
): string | undefined {
  const needing = reads.filter((r) => state.entity(collection, r.path_value) === undefined);
  if (needing.length === 0) return undefined;
  const all = state.all(collection);
  const first = state.entity(collection, needing[0].entity_id);
  for (const key of keysOf(first?.value)) {
    if (!needing.every((r) => asPathValue(member(state.entity(collection, r.entity_id)?.value, key)) === r.path_value)) continue;
    const values = all.map((e) => asPathValue(member(e.value, key)));
    if (values.some((v) => v === undefined) || new Set(values).size !== values.length) continue;
    const ids = new Set(all.map((e) => e.id));
    if (all.some((e, i) => values[i] !== e.id && ids.has(values[i]!))) continue;
    return key;
  }
  return undefined;
}

/** An item line: the entity named by the path value, placed at the plan's pointer in the envelope. */
export function renderItem(plan: ItemPlan, line: PlanLine, envelope: JsonValue, state: Collections): Rendered {
  const e = entityByKey(state, plan, line.id!);
  if (!e) return { status: 'entity-absent' };
  let rendered = renderEntity(e, plan);
  if (plan.entity_pointer === '' && plan.per_response_members.length) {
    // ES-25: members generated per response keep the envelope's recorded values.
    const kept = plan.per_response_members
      .filter((k) => member(envelope, k) !== undefined)
      .map((k): [string, JsonValue] => [k, member(envelope, k)!]);
    rendered = objectFrom([...keysOf(rendered).map((k): [string, JsonValue] => [k, member(rendered, k)!]), ...kept]);
  }
  return { status: 'rendered', body: replaceAt(envelope, plan.entity_pointer, rendered) };
}

/**
 * A list line: `all` membership lists the collection in state order, `recorded` the ids the
 * record listed (OQ-25); counters (ES-36) count what is listed; everything else in the
 * envelope keeps its recorded value. A line with a list query (a filter, sort or window,
 * issue 18) lists what the query picks from the collection, and its totals count what the
 * query matches.
 */
export function renderList(plan: ListPlan, line: PlanLine, envelope: JsonValue, state: Collections): Rendered {
  const query = lineQuery(line);
  const picked = query ? applyListQuery(state.all(plan.collection), query, plan.tool) : null;
  const entities = picked
    ? picked.entities
    : line.membership === 'all'
      ? state.all(plan.collection)
      : (line.listed_ids ?? []).map((id) => state.entity(plan.collection, id)).filter((e): e is StateEntity => e !== undefined);
  const items = entities.map((e) => renderEntity(e, plan));
  let body = replaceAt(envelope, plan.list_pointer, items);
  // What the query matched, with the entities its record counted and the capture never showed.
  const counted = picked ? picked.matched + (line.unseen ?? 0) : undefined;
  if (counted !== undefined) {
    for (const c of line.total_members ?? []) if (at(body, c) !== undefined) body = replaceAt(body, c, counted);
  } else if (line.membership === 'all') {
    // A counter counts what an `all` line lists; a `recorded` line keeps its recorded total.
    for (const c of plan.counters) if (at(body, c) !== undefined) body = replaceAt(body, c, items.length);
  }
  // Issue 44: members echoing the request's window show the line's window.
  // A line that names no key of the echo's role, of a list whose lines never showed its default,
  // would keep the template's echo of another request's window (Feathers' `"limit": 20` for a
  // call that gets 5): not known.
  for (const e of plan.window_echoes ?? []) {
    if (at(body, e.member) === undefined) continue;
    const v = echoValue(e, line);
    if (v === undefined) return { status: 'link-unknown', detail: `what the app echoes in ${e.member.slice(1)} for ${lineName(line)}` };
    body = replaceAt(body, e.member, v);
  }
  // Issue 44: members linking the next and previous page show the line's (a `recorded` line without a query keeps its own).
  if (picked || line.membership === 'all')
    for (const l of plan.page_links ?? []) {
      if (at(body, l.member) === undefined) continue;
      const v = pageLinkValue(l, line, counted ?? items.length);
      if (v === undefined) return { status: 'link-unknown', detail: `how the app writes ${l.member.slice(1)} for ${lineName(line)}` };
      body = replaceAt(body, l.member, v);
    }
  return { status: 'rendered', body, ...(counted !== undefined ? { matched: counted } : {}) };
}

/** A request line's path and query as written (`/posts?_page=2`): how checks and declines name a line. */
export const lineName = (r: { path: string; query: string | null }) => (r.query ? `${r.path}?${r.query}` : r.path);

/** What a window echo shows for a line: its window's value, else the value its query names, else the default. */
function echoValue(e: WindowEcho, line: PlanLine): number | undefined {
  const w = line.window;
  if (w) {
    if (e.role === 'offset') return w.offset;
    if (e.role === 'size') return w.size ?? e.default;
    return w.size ? pageOf(w.offset, w.size) : e.default;
  }
  const named = [...new URLSearchParams(line.query ?? '')].find(([k]) => e.keys.includes(k));
  return (named && count(named[1])) ?? e.default;
}

/** A list line's query (issue 18), or undefined when it has none. */
export function lineQuery(line: PlanLine): ListQuery | undefined {
  const q: ListQuery = {
    ...(line.filter ? { filter: line.filter } : {}),
    ...(line.sort ? { sort: line.sort } : {}),
    ...(line.then_by ? { then_by: line.then_by } : {}),
    ...(line.window ? { window: line.window } : {}),
  };
  return isListQuery(q) ? q : undefined;
}

/** The envelope with the view's entity or list taken out: what ES-25 compares across lines. */
export function envelopeTemplate(plan: ItemPlan | ListPlan, envelope: JsonValue, line?: PlanLine): JsonValue | undefined {
  const pointer = plan.kind === 'item' ? plan.entity_pointer : plan.list_pointer;
  if (pointer === '') return null;
  if (at(envelope, pointer) === undefined) return undefined;
  let t = replaceAt(envelope, pointer, null);
  if (plan.kind === 'list')
    for (const c of [
      ...plan.counters,
      ...(line?.total_members ?? []),
      ...(plan.window_echoes ?? []).map((e) => e.member),
      ...(plan.page_links ?? []).map((l) => l.member),
    ])
      if (at(t, c) !== undefined) t = replaceAt(t, c, null);
  // ES-25: shared envelopes are compared without the members generated per response.
  if (isObject(t) && plan.per_response_members.length)
    t = objectFrom(
      keysOf(t)
        .filter((k) => !plan.per_response_members.includes(k))
        .map((k) => [k, member(t, k)!]),
    );
  return isObject(t) || Array.isArray(t) ? t : null;
}

/**
 * What a body shows where the plan renders: the item's entity (one object) or the list's
 * elements; undefined when nothing of that shape is there. `replaceShown` puts them back.
 */
export function shownAt(plan: ItemPlan | ListPlan, body: JsonValue | undefined): JsonValue[] | undefined {
  if (body === undefined) return undefined;
  const found = at(body, plan.kind === 'item' ? plan.entity_pointer : plan.list_pointer);
  if (plan.kind === 'item') return isObject(found) ? [found] : undefined;
  return Array.isArray(found) ? found : undefined;
}

/** The body with what `shownAt` found replaced by `shown` (the item's entity: its one element). */
export function replaceShown(plan: ItemPlan | ListPlan, body: JsonValue, shown: JsonValue[]): JsonValue {
  return plan.kind === 'item' ? replaceAt(body, plan.entity_pointer, shown[0]) : replaceAt(body, plan.list_pointer, shown);
}
