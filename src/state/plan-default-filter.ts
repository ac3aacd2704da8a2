/**
 * Issue 44, kind 4: a list whose plain line (no query) shows a proper subset of its collection,
 * explained by a predicate over one field. Redmine's `/issues.json` lists open issues only;
 * `?status_id=*` lists them all. Replayed as a snapshot, new or closed issues never move in or
 * out; read as a filter (`status.is_closed` in {false}), the list renders from state and every
 * recorded line without the lifting key (`?project_id=1`, `?sort=priority:desc`,
 * `?limit=2&offset=2`) is checked with it, as a nested list's lines are checked with their parent
 * (plan-list-lines.ts).
 *
 * The predicate is found, not guessed: a field (or a scalar member of an object field, one level
 * down: `status.is_closed`, `status.id`) whose values on the listed entities are a set V such that
 * every entity of the collection is listed exactly when its value is in V, V grouping entities
 * (fewer values than listed entities, or one). A boolean field is preferred, then the fewest
 * values, then the view's field order. A null value passes no filter (list-queries.ts), so
 * `closed_on` being null is not a predicate. The keys that lift it are those of recorded lines
 * that list an entity the predicate leaves out (`status_id`).
 */
import type { JsonValue } from '../json/exact.js';
import { isObject, keysOf, member } from '../model/plan/json.js';
import { applyListQuery, fieldOf, spelling } from '../model/plan/list-queries.js';
import type { DefaultFilter, StateEntity } from '../model/plan/types.js';
import type { ReadLine } from './facts.js';
import type { Ctx } from './plan-context.js';

/** A value as a filter compares it (list-queries.ts): a scalar's spelling; null, which passes no filter, and objects have none. */
const spell = (v: JsonValue | undefined): string | null => (v === null ? null : spelling(v));

const isScalar = (v: JsonValue | undefined) => spell(v) !== null;

/** The field paths a predicate may read: each scalar field, and each scalar member of an object field. */
function candidates(fields: readonly string[], all: readonly StateEntity[]): string[] {
  const out: string[] = [];
  for (const f of fields) {
    const values = all.map((e) => (isObject(e.value) ? member(e.value, f) : undefined));
    if (values.some(isScalar)) out.push(f);
    const subs = new Set(values.filter(isObject).flatMap((v) => keysOf(v)));
    for (const k of subs) if (values.some((v) => isObject(v) && isScalar(member(v, k)))) out.push(`${f}.${k}`);
  }
  return out;
}

/**
 * The list's default filter, or null. `plain`: the tool's line without a query and the ids it
 * listed, in order; `others`: every other recorded line with the ids it listed (to find the
 * keys that lift the filter). Only a line that is not nested (no parent) is read so.
 *
 * `paged`: where the plain line may also be cut to a default page (plan-default-window.ts:
 * WordPress lists 10 published posts of 11), its size and how many recorded lines a reading
 * reproduces. The plain line then shows the first page of what the filter passes, so an entity
 * the filter passes may be left out past the page, and many fields explain the page alone
 * (WordPress's `sticky`, false on the page, leaves out sticky post 1 too); the one kept is the
 * single predicate that reproduces more recorded lines than any other and than none.
 */
export function defaultFilterOf(
  ctx: Ctx,
  plain: { listed: string[] } | undefined,
  others: { line: ReadLine; listed: string[] }[],
  all: readonly StateEntity[],
  paged?: { size: number; reproduced: (filter: DefaultFilter | null) => number },
): DefaultFilter | null {
  if (!plain || plain.listed.length === 0) return null;
  const listed = new Set(plain.listed);
  if (listed.size >= all.length || plain.listed.some((id) => !all.some((e) => e.id === id))) return null;
  const fields = ctx.facts.viewFields.get(`${ctx.tool}\u0000list`)?.fields ?? [];
  const found: { field: string; values: string[]; boolean: boolean; rank: number }[] = [];
  for (const [rank, field] of candidates(fields, all).entries()) {
    const values = new Set<string>();
    let ok = true;
    for (const e of all) {
      if (!listed.has(e.id)) continue;
      const s = spell(fieldOf(e, ctx.tool, field));
      if (s === null) ok = false;
      else values.add(s);
    }
    if (!ok || (values.size >= listed.size && values.size > 1)) continue;
    const passed = (e: StateEntity) => values.has(spell(fieldOf(e, ctx.tool, field)) ?? '\u0000');
    if (paged ? all.every(passed) : all.some((e) => !listed.has(e.id) && passed(e))) continue;
    const boolean = all.every((e) => typeof fieldOf(e, ctx.tool, field) === 'boolean');
    found.push({ field, values: [...values].sort(), boolean, rank });
  }
  found.sort((a, b) => Number(b.boolean) - Number(a.boolean) || a.values.length - b.values.length || a.rank - b.rank);
  // The state's order must be the line's order: the filter alone renders it (its first page, where paged).
  const window = paged ? { window: { offset: 0, size: paged.size } } : {};
  const renders = (f: { field: string; values: string[] }) => {
    const picked = applyListQuery(all, { filter: [f], ...window }, ctx.tool).entities;
    return picked.length === plain.listed.length && picked.every((e, i) => e.id === plain.listed[i]);
  };
  const best = paged ? bestReproducing(found.filter(renders), ctx, all, others, paged) : found[0];
  if (!best || !renders(best)) return null;
  return { field: best.field, values: best.values, lifted_by: liftingKeys(ctx, all, best, others) };
}

/** The keys of recorded lines that list an entity the predicate leaves out (`status_id`): they lift it. */
function liftingKeys(
  ctx: Ctx,
  all: readonly StateEntity[],
  f: { field: string; values: string[] },
  others: { line: ReadLine; listed: string[] }[],
): string[] {
  const passes = new Set(applyListQuery(all, { filter: [f] }, ctx.tool).entities.map((e) => e.id));
  const lifted = new Set<string>();
  const v = ctx.facts.vocabulary;
  for (const o of others)
    if (o.listed.some((id) => !passes.has(id)))
      for (const q of o.line.query_pairs)
        if (!v.isPagination(q.name) && !v.isOrdering(q.name) && !v.isProjection(q.name)) lifted.add(q.name);
  return [...lifted].sort();
}

/**
 * Of the predicates that explain a paged plain line, the one that reproduces the most recorded
 * lines, where it reproduces more than no default filter and more than every other; null when
 * two tie (the capture does not tell them apart).
 */
function bestReproducing(
  found: { field: string; values: string[] }[],
  ctx: Ctx,
  all: readonly StateEntity[],
  others: { line: ReadLine; listed: string[] }[],
  paged: { size: number; reproduced: (filter: DefaultFilter | null) => number },
): { field: string; values: string[] } | null {
  const none = paged.reproduced(null);
  let best: { field: string; values: string[] } | null = null;
  let top = none;
  let tied = false;
  for (const f of found) {
    const lifted = liftingKeys(ctx, all, f, others);
    const n = paged.reproduced({ ...f, lifted_by: lifted });
    if (n > top) [best, top, tied] = [f, n, false];
    else if (n === top && best) tied = true;
  }
  return tied ? null : best;
}
