/**
 * OQ-11 (5) and ES-35: a type whose initial reads show none of its entities. Many sessions
 * start on an empty app — `GET /todos` answers `[]`, then the session creates todos and reads
 * them. The empty array is the list when the tool's other records identify a list at the same
 * place (OQ-11 (5)); before this, such a tool had no list observation and its `[]` became a
 * document (DOC-2), answered after every create as if nothing had been created.
 *
 * An empty plain line shows its whole collection (ES-35) when the state holds no entity of
 * it and the body says nothing of more: no item-total member other than 0, no next-page
 * token set (OQ-24). Then the list is `all` and a create shows up in it. An item tool of such
 * a type, read only after the session's first write, is an item view of the (empty) state.
 * Both learn the members they show from their first later reads (the view's shape, which
 * writes do not change); check-effects still verifies every write against those reads.
 */
import type { JsonValue } from '../json/exact.js';
import { at, isObject, keysOf, member } from '../model/plan/json.js';
import { childPointer } from '../json/pointer.js';
import type { PlanLine } from '../model/plan/types.js';
import type { Vocabulary } from '../store/vocabulary.js';
import type { Ctx } from './plan-context.js';
import type { ReadLine } from './facts.js';

/**
 * The place the tool's later reads (after its type's first change) list entities at, when
 * its initial reads list none and each holds an empty array there; else undefined.
 */
export function emptyListPointer(ctx: Ctx): string | undefined {
  const initial = new Set(ctx.initialAll.map((r) => r.record_id));
  const later = ctx.facts.listReads.filter((l) => l.tool === ctx.tool && !initial.has(l.record_id));
  const pointers = new Set(later.map((l) => l.list_pointer));
  if (pointers.size !== 1 || ctx.lines.length === 0) return undefined;
  const [pointer] = pointers;
  const empty = ctx.lines.every((r) => {
    const body = ctx.facts.bodyValue(r.response_body_id);
    const list = body === undefined ? undefined : at(body, pointer);
    return r.status >= 200 && r.status < 300 && Array.isArray(list) && list.length === 0;
  });
  return empty ? pointer : undefined;
}

/**
 * ES-35 for a body whose list at `pointer` is empty: whether it shows the whole (empty)
 * collection — no item-total member (top level, or in a top-level object) other than 0, and
 * no next-page token or has-more flag set (OQ-24: set is present and not null, false or "").
 */
export function emptyListIsWhole(body: JsonValue, pointer: string, vocabulary: Vocabulary): boolean {
  if (!Array.isArray(at(body, pointer))) return false;
  if (!isObject(body)) return true;
  const says = (o: JsonValue, depth: number): boolean =>
    isObject(o) &&
    keysOf(o).some((k) => {
      const v = member(o, k)!;
      if ((typeof v === 'number' || typeof v === 'bigint') && vocabulary.isItemTotal(k) && Number(v) !== 0) return true;
      if (vocabulary.isNextToken(k) && v !== null && v !== false && v !== '') return true;
      return depth === 0 && says(v, 1);
    });
  return !says(body, 0);
}

/** ES-21 over the objects views showed: their members in first-seen order, required where every one shows it. */
function membersOf(objects: Iterable<JsonValue | undefined>): { fields: string[]; required_fields: string[]; shown: number } {
  const fields: string[] = [];
  const counts = new Map<string, number>();
  let shown = 0;
  for (const o of objects) {
    if (!isObject(o)) continue;
    shown++;
    for (const k of keysOf(o)) {
      if (!counts.has(k)) fields.push(k);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  return { fields, required_fields: fields.filter((k) => counts.get(k) === shown), shown };
}

/** A read as a plan line (its path value as `id`, for an item tool). */
function lineOf(ctx: Ctx, r: ReadLine): PlanLine {
  const id = ctx.facts.pathValue(r.record_id);
  return { path: r.path, query: r.query, record_ordinal: r.ordinal, status: r.status, ...(id !== undefined ? { id } : {}) };
}

/**
 * ES-21 for a list its initial reads showed empty: the members its later reads' entries show
 * (in first-seen order; required where every entry shows it). A view's members are its shape,
 * which the session's writes do not change; without them a created entity would render as `{}`.
 */
export function laterListFields(ctx: Ctx, pointer: string): { fields: string[]; required_fields: string[] } {
  const initial = new Set(ctx.initialAll.map((r) => r.record_id));
  // The first later reads, by ordinal: facts.ts loads their bodies (laterBodies); others read as undefined.
  const entries = [...ctx.facts.listReads]
    .sort((a, b) => a.ordinal - b.ordinal)
    .filter((l) => l.tool === ctx.tool && !initial.has(l.record_id))
    .flatMap((l) => {
      const body = ctx.facts.bodyValue(l.body_id);
      const list = body === undefined ? undefined : at(body, pointer);
      return Array.isArray(list) ? list : [];
    });
  const { fields, required_fields } = membersOf(entries);
  return { fields, required_fields };
}

/**
 * An item tool read only after its type's first change (before it, at most not found: a 404
 * before the create), of a type the state holds no entity of: the place its later reads hold the
 * entity at (one place) and the members they show, its initial absences as lines; else
 * undefined (its records replay, as before).
 */
export function laterItemView(
  ctx: Ctx,
): { entity_pointer: string; fields: string[]; required_fields: string[]; lines: PlanLine[] } | undefined {
  // Initial reads that found nothing (a 404 before the create) are lines of it, as absences.
  if (ctx.initialAll.some((r) => r.status >= 200 && r.status <= 299) || ctx.state.all(ctx.collection).length > 0) return undefined;
  const located = ctx.facts.itemLocations.filter((l) => l.tool === ctx.tool).sort((a, b) => a.ordinal - b.ordinal);
  const pointers = new Set(located.map((l) => l.entity_pointer));
  if (pointers.size !== 1) return undefined;
  const [pointer] = pointers;
  const readOf = new Map(ctx.facts.reads.map((r) => [r.record_id, r]));
  const { fields, required_fields, shown } = membersOf(
    located.map((l) => {
      const r = readOf.get(l.record_id);
      const body = r === undefined ? undefined : ctx.facts.bodyValue(r.response_body_id);
      return body === undefined ? undefined : at(body, pointer);
    }),
  );
  if (shown === 0) return undefined;
  // Its last line is its first later read: the envelope another id renders in (OQ-19). That
  // read shows the state after writes, so no load check compares it; check-effects does.
  const first = readOf.get(located[0].record_id)!;
  return { entity_pointer: pointer, fields, required_fields, lines: [...ctx.lines.map((r) => lineOf(ctx, r)), lineOf(ctx, first)] };
}

/**
 * ES-36 for an empty list whose envelope says nothing of more (emptyListIsWhole): its item-total
 * members (top level, or in a top-level object), each 0 as the count it lists, are counters —
 * recounted as the session's creates fill the list (`{"data": [], "total": 0}`).
 */
export function emptyListCounters(body: JsonValue, vocabulary: Vocabulary): string[] {
  const out: string[] = [];
  const walk = (o: JsonValue, pointer: string, depth: number) => {
    if (!isObject(o)) return;
    for (const k of keysOf(o)) {
      const v = member(o, k)!;
      if ((typeof v === 'number' || typeof v === 'bigint') && vocabulary.isItemTotal(k) && Number(v) === 0)
        out.push(childPointer(pointer, k));
      else if (depth === 0) walk(v, childPointer(pointer, k), 1);
    }
  };
  walk(body, '', 0);
  return out.sort();
}
