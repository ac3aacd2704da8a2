/**
 * Issue 44: a filter by a reference's id that lists what sits under the entity named too.
 * Redmine's `/issues.json?project_id=1` lists the open issues of project 1 and of its
 * subproject 3 (`"parent": {"id": 1, "name": "Aurora"}` in `/projects.json`): plain equality on
 * `project.id` does not reproduce that line, so the state pass keeps it `membership-differs` and
 * learns no key from it (bench/fidelity/redmine).
 *
 * After the pass, with every type's entities at hand (the state pass works a type at a time),
 * such a line is read again with each reference value standing for the entity it names and the
 * entities under it in their own collection — those naming it by a reference, recursively. When
 * that reproduces the line's listed ids in order, and every other line of the list naming the
 * key too, the key is learned with `tree`: serving filters any value so (subtreeIds), and the
 * API's other reference keys borrow the habit (conventions.ts). Where the reading does not
 * reproduce a line, nothing is learned, and a value heading a tree stays declined
 * (reference-filters.ts).
 */
import { isObject, jsonEqual, keysOf, member } from '../plan/json.js';
import { applyListQuery, fieldOf, keyReaders, parseListQuery, spelling, withListQueries, type ListQuery } from '../plan/list-queries.js';
import { restorePlanFacts } from '../plan/stored.js';
import type { ListPlan, StateEntity } from '../plan/types.js';
import type { ServeContext } from './context.js';
import { servedLookups, servedTypes, ServedModel } from './model.js';

/** Where a reference is read: a list's entities (`all`, as `tool` shows them) and their reference member `field`. */
export interface ReferenceSite {
  ctx: ServeContext;
  model: ServedModel;
  all: readonly StateEntity[];
  tool: string;
  field: string;
}

/**
 * The collection the references of `field` (on `tool`'s view of `all`) that name `id` point
 * into: the type whose entity `id` agrees with a referencing value's members (`{"id": 1, "name":
 * "Aurora"}` is project 1); null when none does.
 */
export async function referencedCollection({ ctx, model, all, tool, field }: ReferenceSite, id: string): Promise<string | null> {
  const ref = all.map((e) => fieldOf(e, tool, field)).find((r) => isObject(r) && spelling(member(r, 'id')) === id);
  if (!isObject(ref)) return null;
  for (const type of await servedTypes(ctx)) {
    const target = await model.entity(type.collection, id);
    if (!target || !isObject(target.value)) continue;
    const value = target.value;
    if (keysOf(ref).every((k) => jsonEqual(member(ref, k), member(value, k)))) return type.collection;
  }
  return null;
}

/**
 * The entities of `collection` naming one of `ids` of the same collection by a reference member
 * (`"parent": {"id": 1, "name": "Aurora"}`, whose members agree with project 1), as `[id,
 * member]`. A member naming an entity of another collection by the same id (a tracker's
 * `"default_status": {"id": 1, "name": "New"}`) does not agree with tracker 1, and is no parent.
 */
export async function namingAny(model: ServedModel, collection: string, ids: ReadonlySet<string>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const e of await model.collection(collection)) {
    if (ids.has(e.id) || !isObject(e.value)) continue;
    for (const k of keysOf(e.value)) {
      const v = member(e.value, k);
      const id = isObject(v) ? spelling(member(v, 'id')) : null;
      if (id === null || !ids.has(id)) continue;
      const named = (await model.entity(collection, id))?.value;
      if (isObject(named) && keysOf(v).every((m) => jsonEqual(member(v, m), member(named, m)))) {
        out.push([e.id, k]);
        break;
      }
    }
  }
  return out;
}

/** `id` and every id under it in the collection `field`'s references point into (recursively); `[id]` when that collection is not known. */
export async function subtreeIds(site: ReferenceSite, id: string): Promise<string[]> {
  const collection = await referencedCollection(site, id);
  const found = new Set([id]);
  if (collection === null) return [...found];
  for (let frontier = new Set([id]); frontier.size > 0; ) {
    const next = new Set<string>();
    for (const [child] of await namingAny(site.model, collection, frontier)) if (!found.has(child)) next.add(child);
    for (const c of next) found.add(c);
    frontier = next;
  }
  return [...found];
}

/** A query with each value of its `tree` keys' reference filters standing for its subtree (ids in subtree order). */
export async function withSubtrees(
  ctx: ServeContext,
  model: ServedModel,
  all: readonly StateEntity[],
  tool: string,
  query: ListQuery,
  treeFields: ReadonlySet<string>,
): Promise<ListQuery> {
  if (!query.filter?.some((f) => treeFields.has(f.field))) return query;
  const filter = [];
  for (const f of query.filter) {
    if (!treeFields.has(f.field)) {
      filter.push(f);
      continue;
    }
    const values: string[] = [];
    const site = { ctx, model, all, tool, field: f.field.slice(0, -3) };
    for (const v of f.values) for (const id of await subtreeIds(site, v)) values.push(id);
    filter.push({ ...f, values: [...new Set(values)] });
  }
  return { ...query, filter };
}

/**
 * Learns the `tree` reference keys of every list plan from its lines (see above) and stores
 * them in the plans, on the caller's transaction, before the state's SHA-256 is taken.
 * Returns the tools that learned one.
 */
export async function learnTreeFilters(ctx: ServeContext): Promise<string[]> {
  const state = await servedLookups(ctx);
  if (!state) return [];
  const model = new ServedModel(ctx);
  const learned: string[] = [];
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET') continue;
    const plan = await state.plan(tool.name);
    if (plan?.kind !== 'list' || plan.parent || !plan.lines.some((l) => l.reason === 'membership-differs' && l.query)) continue;
    const keys = await treeKeysOf(ctx, model, plan);
    if (keys.length === 0) continue;
    const list_queries = withListQueries(plan.list_queries, { filter: keys, tree: keys });
    await restorePlanFacts(ctx.k, ctx.captureId, { ...plan, list_queries });
    learned.push(plan.tool);
  }
  return learned;
}

/** The reference keys whose subtree reading reproduces every line of `plan` naming them, where it explains one plain equality did not. */
async function treeKeysOf(ctx: ServeContext, model: ServedModel, plan: ListPlan): Promise<string[]> {
  const all = await model.collection(plan.collection);
  const { isField, referenceOf } = keyReaders(plan.fields, all);
  const explained = new Set<string>();
  const failed = new Set<string>();
  for (const line of plan.lines) {
    if (line.query === null || line.status < 200 || line.status > 299) continue;
    const pairs = [...new URLSearchParams(line.query)].map(([name, value]) => ({ name, value }));
    const refKeys = pairs.map((p) => p.name).filter((n) => referenceOf(n) !== undefined);
    if (refKeys.length === 0) continue;
    // The list's default filter holds unless the line lifts it (plan-default-filter.ts).
    const d = plan.default_filter;
    const lifted = d !== undefined && pairs.some((p) => d.lifted_by.includes(p.name));
    const parsed = parseListQuery(
      pairs.filter((p) => !d?.lifted_by.includes(p.name)),
      ctx.vocabulary,
      isField,
      referenceOf,
    );
    // A line whose ids are not known (an `all` line lists the collection) or that windows tells nothing here.
    const listed = line.listed_ids ?? (line.membership === 'all' ? all.map((e) => e.id) : undefined);
    if (!parsed.ok || parsed.query.window !== undefined || listed === undefined) {
      for (const k of refKeys) failed.add(k);
      continue;
    }
    const base = d && !lifted ? [{ field: d.field, values: d.values }] : [];
    const fields = new Set(refKeys.map((k) => referenceOf(k)!));
    const query = await withSubtrees(ctx, model, all, plan.tool, parsed.query, fields);
    const picked = applyListQuery(all, { ...query, filter: [...base, ...(query.filter ?? [])] }, plan.tool).entities.map((e) => e.id);
    const same = picked.length === listed.length && picked.every((id, i) => id === listed[i]);
    for (const k of refKeys) {
      if (!same) failed.add(k);
      else if (line.reason === 'membership-differs') explained.add(k);
    }
  }
  return [...explained].filter((k) => !failed.has(k)).sort();
}
