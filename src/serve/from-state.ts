/**
 * Answering a read from the environment state: an item, list or document plan renders the
 * call with the one renderer ES-37 checked the plan with (src/state/render.ts). A call the
 * state cannot answer — a record view, an entity the state does not hold, a request line
 * no plan line or shared envelope covers — returns null and replays instead.
 */
import type { JsonValue } from '../json/exact.js';
import type { ManifestTool } from '../manifest/read.js';
import { storedLookups, type StoredLookups } from '../state/stored.js';
import { collectionsOf, renderItem, renderList, type Collections } from '../state/render.js';
import type { ItemPlan, ListPlan, StateEntity } from '../state/types.js';
import { namesVariantKey } from '../state/variants.js';
import type { ServeContext } from './context.js';
import { templateParams, type CallRequest } from './input-schema.js';
import { callLine, jsonValueOf, lineRecords, readBody, toolRecords } from './records.js';

const cache = new WeakMap<ServeContext, Promise<StoredLookups>>();

/**
 * The served capture's stored state (the view `capstate state` prints; nothing is
 * recomputed), looked up by index per call: a tool's plan, the entities it renders.
 */
export function servedState(ctx: ServeContext): Promise<StoredLookups> {
  let hit = cache.get(ctx);
  if (!hit) cache.set(ctx, (hit = storedLookups(ctx.k, ctx.captureId, ctx.file)));
  return hit;
}

/** Just the entities one rendering needs, as the renderer's Collections. */
async function entitiesFor(state: StoredLookups, collection: string, ids: readonly string[] | 'all'): Promise<Collections> {
  if (ids === 'all') return collectionsOf(await state.collection(collection));
  const found = await Promise.all(ids.map((id) => state.entity(collection, id)));
  return collectionsOf(found.filter((e): e is StateEntity => e !== undefined));
}

export interface StateAnswer { status: number; value: JsonValue; record_ordinal: number; request_line: string; why: string }

const envelopes = new WeakMap<ServeContext, Map<number, Promise<JsonValue | undefined>>>();

/** A plan line's recorded response, parsed once per context: the envelope item and list answers are rendered into. */
function envelopeOf(ctx: ServeContext, ordinal: number): Promise<JsonValue | undefined> {
  let perCtx = envelopes.get(ctx);
  if (!perCtx) envelopes.set(ctx, (perCtx = new Map()));
  let hit = perCtx.get(ordinal);
  if (!hit) {
    hit = ctx.k.selectFrom('record').select(['response_body_id', 'response_media_type'])
      .where('capture_id', '=', ctx.captureId).where('ordinal', '=', ordinal).executeTakeFirst()
      .then(async (r) => (r ? jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type)) : undefined));
    perCtx.set(ordinal, hit);
  }
  return hit;
}

/** The call answered from state, or null when the state has no answer for it. */
export async function answerFromState(ctx: ServeContext, tool: ManifestTool, call: CallRequest): Promise<StateAnswer | null> {
  if (tool.method.toUpperCase() !== 'GET') return null;
  const state = await servedState(ctx);
  const plan = await state.plan(tool.name);
  if (!plan || plan.kind === 'record') return null;
  // The call's request line is matched to its records as replay matches them (path values,
  // query pairs from the loader's facts); a plan line or document answers through its record.
  const recorded = new Set(lineRecords(await toolRecords(ctx, tool.name), call).map((r) => r.ordinal));
  const asked = callLine(tool, call);

  if (plan.kind === 'document') {
    const doc = (await state.document(tool.name))!;
    if (!recorded.has(doc.record_ordinal)) return null;
    return { status: doc.status, value: doc.value, record_ordinal: doc.record_ordinal, request_line: asked, why: `document of ${doc.path} (DOC-1, DOC-2): its latest initial value, #${doc.record_ordinal}` };
  }

  const line = plan.lines.find((l) => recorded.has(l.record_ordinal));
  if (plan.kind === 'item') {
    const id = call.params.get(templateParams(tool.template).at(-1) ?? '');
    if (id === undefined) return null;
    // A line the plan checked keeps its own envelope; another id renders in the shared one (OQ-19).
    const template = line ?? (plan.shared_envelope && call.query.length === 0 ? plan.lines.find((l) => l.status >= 200 && l.status <= 299 && l.query === null) : undefined);
    if (!template || template.status < 200 || template.status > 299) return null;
    const envelope = await envelopeOf(ctx, template.record_ordinal);
    if (envelope === undefined) return null;
    const rendered = renderItem(plan as ItemPlan, { ...template, id }, envelope, await entitiesFor(state, plan.collection, [id]));
    if (rendered.status !== 'rendered') return null;
    return {
      status: template.status, value: rendered.body, record_ordinal: template.record_ordinal, request_line: asked,
      why: `rendered from state: ${plan.collection} entity ${id} (item plan, ES-37)` +
        (line ? `, in the envelope of #${template.record_ordinal}` : `, in the envelope the item view shares (#${template.record_ordinal}, OQ-19)`),
    };
  }

  if (!line || line.status < 200 || line.status > 299) return null;
  const envelope = await envelopeOf(ctx, line.record_ordinal);
  if (envelope === undefined) return null;
  const rendered = renderList(plan as ListPlan, line, envelope, await entitiesFor(state, plan.collection, line.membership === 'all' ? 'all' : line.listed_ids ?? []));
  if (rendered.status !== 'rendered') return null;
  return {
    status: line.status, value: rendered.body, record_ordinal: line.record_ordinal, request_line: asked,
    why: `rendered from state: ${plan.collection} list (${line.membership === 'all' ? 'the whole collection in state order' : 'the entities #' + line.record_ordinal + ' listed'}; list plan, ES-37)`,
  };
}

/**
 * ES-15 / ES-20: why a read that the state does not answer replays — `variant` when the call
 * names a key that tells a variant apart, `projection` when it names a projection parameter
 * with a value no checked row gave (or one a replayed row gave) — or null.
 */
export async function replayReason(ctx: ServeContext, tool: ManifestTool, call: CallRequest): Promise<'variant' | 'projection' | null> {
  if (tool.method.toUpperCase() !== 'GET') return null;
  const plan = await (await servedState(ctx)).plan(tool.name);
  if (!plan || (plan.kind !== 'item' && plan.kind !== 'list')) return null;
  const projection = call.query.filter((p) => ctx.vocabulary.isProjection(p.name)).map((p) => p.value);
  if (projection.length && projection.some((v) => v !== '*' && (!plan.projection_values.checked.includes(v) || plan.projection_values.replayed.includes(v)))) return 'projection';
  return namesVariantKey(plan.projected_query_keys, call.query) ? 'variant' : null;
}
