/**
 * What an item or a list plan states of its view beside its lines (steps/plans.ts): the
 * fields and required fields `view_fields` gives (ES-21), the projection shaping, the
 * per-response members, the clock spellings (ES-29) and the members its reads embed on
 * request (issue 16). Apart from steps/plans.ts (issue 43) because both plan kinds build on it
 * and it decides nothing about keeping a plan.
 */
import type { Observation } from './steps/merge-entities.js';
import { viewClockFormat, type ClockFormat } from '../model/plan/clocks.js';
import type { ReadLine } from './facts.js';
import { at, member } from '../model/plan/json.js';
import type { EmbeddedMembers } from '../model/plan/relations.js';
import { ok, type Ctx } from './plan-context.js';

/**
 * Issue 16: the members the tool's initial reads embed on request (`?_embed=comments`), from
 * every initial read (variants included), in first-seen order; undefined when none does.
 */
function embeddedMembersOf(ctx: Ctx, reads: ReadLine[], isItem: boolean): EmbeddedMembers | undefined {
  const out: EmbeddedMembers = [];
  const itemAt = new Map(ctx.facts.itemLocations.map((l) => [l.record_id, l.entity_pointer]));
  const listAt = new Map(ctx.facts.listReads.map((l) => [l.record_id, l.list_pointer]));
  for (const r of reads) {
    if (!ok(r.status) || r.query_pairs.length === 0) continue;
    const body = ctx.facts.bodyValue(r.response_body_id);
    const pointer = (isItem ? itemAt : listAt).get(r.record_id);
    const found = body === undefined || pointer === undefined ? undefined : at(body, pointer);
    const objects = isItem ? [found] : Array.isArray(found) ? found : [];
    for (const o of objects) {
      for (const e of ctx.facts.embeddedBy(r.record_id, o)) if (!out.some((x) => x.param === e.param && x.member === e.member)) out.push(e);
    }
  }
  return out.length ? out : undefined;
}

/** ES-29: the clock spellings this view always uses differently from the stored values. */
function clockFormatsOf(ctx: Ctx, obs: Observation[], fields: string[]): Record<string, ClockFormat> {
  const out: Record<string, ClockFormat> = {};
  for (const f of fields) {
    const pairs = obs.map((o) => ({ view: member(o.object, f), stored: member(ctx.state.entity(ctx.collection, o.entity_id)?.value, f) }));
    const format = viewClockFormat(f, pairs);
    if (format) out[f] = format;
  }
  return out;
}

/** ES-21: the view's fields and required fields, as `view_fields` states them (item views: all observations; list views: list ones). */
export function viewBase(ctx: Ctx, obs: Observation[], scope: 'all' | 'list') {
  const { fields, required } = ctx.facts.viewFields.get(`${ctx.tool}\u0000${scope}`) ?? { fields: [], required: [] };
  const embedded = embeddedMembersOf(ctx, ctx.initialAll, scope === 'all');
  return {
    collection: ctx.collection,
    fields,
    required_fields: required,
    projected_record_ordinals: ctx.shaping.projected_record_ordinals,
    projected_query_keys: ctx.shaping.projected_query_keys,
    projection_values: ctx.shaping.projection_values,
    per_response_members: ctx.facts.viewPerResponse.get(ctx.tool) ?? [],
    clock_formats: clockFormatsOf(ctx, obs, fields),
    sorted_arrays: [],
    shared_envelope: true,
    ...(embedded ? { embedded_members: embedded } : {}),
  };
}
