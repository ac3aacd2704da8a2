/**
 * Issue 44: whether the API lists an entity whose field is null under an equality filter on that
 * field, whatever the value asked (`api-null-filter`). json-server 1.0 does: its filter compares
 * only numbers, strings and booleans and lets every other value through, so after a delete
 * cleared `postId` (delete-cascade.ts) the comment shows under `?postId=2`, `?postId=7`, … The
 * capture shows it where a recorded filtered read lists such an entity (its field null, the value
 * asked not `null`); it shows the opposite where a filtered line the state pass checked (ES-37)
 * left out an entity whose field was null. Shown so, and never the opposite, it is the API's habit
 * and every equality filter of every list follows it; else a null value passes no filter.
 */
import { isObject, member, at } from '../plan/json.js';
import { applyListQuery, fieldOf, type ListQuery } from '../plan/list-queries.js';
import type { ListPlan, StateEntity } from '../plan/types.js';
import type { CallRequest } from './input-schema.js';
import { perContext, type ServeContext } from './context.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { CapstateError } from '../../errors.js';
import { deleteCascade, referenceFields } from './delete-cascade.js';
import { heldWhole } from './read-index.js';
import { jsonValueOf, readBody, toolRecords } from './records.js';

/** The records whose filtered lists showed null-valued entities; null when the capture shows no such habit. */
export interface NullFilterHabit {
  tools: string[];
  proof: number[];
}

/** The API's null-filter habit, learned once per served store. */
export const nullFilterHabit = perContext(learn);

async function learn(ctx: ServeContext): Promise<NullFilterHabit | null> {
  const state = await servedLookups(ctx);
  if (!state) return null;
  const tools = new Set<string>();
  const proof: number[] = [];
  const lists: ListPlan[] = [];
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET') continue;
    const plan = await state.plan(tool.name);
    if (plan?.kind !== 'list') continue;
    lists.push(plan);
    const isFilter = (name: string, value: string) =>
      plan.fields.includes(name) && value !== 'null' && ctx.vocabulary.windowRole(name) === null;
    for (const r of await toolRecords(ctx, tool.name)) {
      const keys = r.query_pairs.filter((q) => isFilter(q.name, q.value)).map((q) => q.name);
      if (r.status < 200 || r.status > 299 || keys.length === 0) continue;
      const listed = at(jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type)) ?? null, plan.list_pointer);
      if (!Array.isArray(listed)) continue;
      if (listed.some((o) => isObject(o) && keys.some((k) => member(o, k) === null))) {
        tools.add(tool.name);
        proof.push(r.ordinal);
      }
    }
  }
  if (proof.length === 0) return null;
  // The opposite shown: a checked equality filter that left out an entity holding null there
  // (each list's entities read once, and only where the habit was shown at all).
  for (const plan of lists) {
    const checked = plan.lines.flatMap((line) => {
      const named = new Set(new URLSearchParams(line.query ?? '').keys());
      return (line.filter ?? []).filter((f) => f.op === undefined && named.has(f.field) && line.listed_ids).map((f) => ({ f, line }));
    });
    if (checked.length === 0) continue;
    const all = await state.collection(plan.collection);
    for (const { f, line } of checked)
      if (all.some((e) => isObject(e.value) && member(e.value, f.field) === null && !line.listed_ids!.includes(e.id))) return null;
  }
  return { tools: [...tools], proof };
}

/**
 * `filter` with the API's null-filter habit applied to the equality filters the call names (not
 * a default filter or a nested list's parent): those list an entity holding null there. `habit`
 * is set when the habit applies, and `listsNull` says whether a query's answer lists such an
 * entity (the answer is then marked `api-null-filter`).
 */
export async function withNullFilters(
  ctx: ServeContext,
  filter: ListQuery['filter'],
  call: CallRequest,
): Promise<{
  filter: ListQuery['filter'];
  fields: string[];
  habit: NullFilterHabit | null;
  listsNull: (all: StateEntity[], q: ListQuery | undefined, tool: string) => boolean;
}> {
  const found = await nullFilterHabit(ctx);
  const named = new Set(call.query.map((p) => p.name));
  const nullable = (f: { field: string; op?: string }) => f.op === undefined && named.has(f.field);
  const fields = found ? (filter ?? []).filter(nullable).map((f) => f.field) : [];
  if (fields.length === 0) return { filter, fields, habit: null, listsNull: () => false };
  return {
    filter: filter!.map((f) => (nullable(f) ? { ...f, nulls: true as const } : f)),
    fields,
    habit: found,
    listsNull: (all, q, tool) =>
      q !== undefined &&
      applyListQuery(all, { ...q, window: undefined }, tool).entities.some((e) => fields.some((f) => fieldOf(e, tool, f) === null)),
  };
}

/**
 * Issue 45: where the API clears the references to what a delete removed (delete-cascade.ts,
 * `cleared`), or the capture does not show what it does, and this session deleted an entity such a field names, entities the model does not
 * hold may now hold null there, and the null-filter habit lists them under any value: json-server
 * 1.0's `/comments?postId=1` after `DELETE /posts/5` lists comments 5 and 6, which a capture that
 * never read every comment does not show. Such a read of a collection the model does not hold
 * whole is declined (`stale-record`).
 */
export async function refuseUnheldNulls(
  ctx: ServeContext,
  model: ServedModel,
  plan: ListPlan,
  filter: NonNullable<ListQuery['filter']>,
  asked: string,
): Promise<void> {
  // Every equality filter: where the habit is not shown, the app may still list null under any value.
  const fields = filter.filter((f) => f.op === undefined).map((f) => f.field);
  if (fields.length === 0) return;
  // A cascade that deletes or keeps leaves no null behind; one that clears, or one the capture does not show, may.
  const cascade = (await deleteCascade(ctx))?.cascade;
  if (cascade === 'deleted' || cascade === 'kept') return;
  if (await heldWhole(ctx, plan.collection)) return;
  const types = await servedTypes(ctx);
  const cleared = model.writes.find(
    (w) =>
      w.applied &&
      w.method === 'DELETE' &&
      fields.some((f) => referenceFields(types.find((t) => t.root_path === w.root)?.collection ?? '').includes(f)),
  );
  if (!cleared) return;
  throw new CapstateError(
    'stale-record',
    `${plan.tool}: ${asked}: this session's DELETE under ${cleared.root} cleared the references to it, where the API does so, on ${plan.collection} the model may not hold (no list of the capture shows them all), and this filter lists those holding null`,
    { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: `every ${plan.collection} entity held` },
  );
}
