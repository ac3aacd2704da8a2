/**
 * Embedded relations served from the model (issue 16; src/model/plan/relations.ts says what
 * they are). The state pass lists the members a view's reads embed on request; this module
 * learns, for each, how the model fills it — the children of another collection that carry
 * this entity's identity value in a field (`?_embed=comments`: the comments whose `postId`
 * is the post's `id`), or the entity of another collection that a field names
 * (`?_expand=post`: the post the comment's `postId` names) — and keeps a reading only when
 * it gives every object of every initial recorded read naming it exactly the recorded
 * member. Serving then answers such a call as the call without the key, each shown object
 * given the member from this session's model; a member with no reading replays.
 */
import type { JsonValue } from '../../json/exact.js';
import { isObject, jsonEqual, keysOf, member, objectFrom } from '../plan/json.js';
import { asPathValue, replaceShown, shownAt } from '../plan/render.js';
import {
  candidates,
  relatedValue,
  withRelations,
  type EmbeddedMember,
  type EmbeddedMembers,
  type Relation,
  type RelationSource,
} from '../plan/relations.js';
import { restorePlanFacts } from '../plan/stored.js';
import type { ItemPlan, ListPlan } from '../plan/types.js';
import type { ServeContext } from './context.js';
import type { CallRequest } from './input-schema.js';
import { servedLookups, servedTypes, ServedModel } from './model.js';
import { jsonValueOf, readBody, toolRecords } from './records.js';

/** The model as relations read it. */
const sourceOf = (model: ServedModel): RelationSource => ({ all: (c) => model.collection(c), entity: (c, id) => model.entity(c, id) });

/** The identity member of a served collection, or undefined. */
async function identityOf(ctx: ServeContext, collection: string): Promise<string | undefined> {
  return (await servedTypes(ctx)).find((t) => t.collection === collection)?.identity;
}

/**
 * Learns each plan's relations from the stored state of `ctx` and writes them into the
 * stored plans (before the state's SHA-256 is taken). Returns the tools that learned one.
 */
export async function learnRelations(ctx: ServeContext): Promise<string[]> {
  const state = await servedLookups(ctx);
  if (!state) return [];
  const plans: (ItemPlan | ListPlan)[] = [];
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET') continue;
    const plan = await state.plan(tool.name);
    if (plan && (plan.kind === 'item' || plan.kind === 'list') && plan.embedded_members) plans.push(plan);
  }
  if (plans.length === 0) return [];
  const types = await servedTypes(ctx);
  const collections = types.map((t) => t.collection);
  const model = new ServedModel(ctx);
  const source = sourceOf(model);
  // Each collection's members, as its initial entities carry them (the candidate fields).
  const fieldsOf = new Map<string, string[]>();
  for (const c of collections) {
    const seen = new Set<string>();
    for (const e of await model.collection(c)) for (const k of keysOf(e.value)) seen.add(k);
    fieldsOf.set(c, [...seen]);
  }
  // Each type's bound (ES-8/ES-9/ES-27) as a timeline position: the write's.
  const positions = new Map<number, number>();
  for (const t of ctx.manifest.tools) for (const r of await toolRecords(ctx, t.name)) positions.set(r.ordinal, r.timeline_position);
  const boundOf = new Map(
    (await state.types()).map((t) => [t.collection, t.bound ? (positions.get(t.bound.write_ordinal) ?? -1) : Infinity]),
  );
  const learned: string[] = [];
  for (const plan of plans) {
    const identity = types.find((t) => t.collection === plan.collection)?.identity;
    if (identity === undefined) continue;
    const records = (await toolRecords(ctx, plan.tool)).filter((r) => r.is_initial && r.status >= 200 && r.status <= 299);
    const members: EmbeddedMembers = [];
    for (const m of plan.embedded_members ?? []) {
      const naming = records.filter((r) => r.query_pairs.some((q) => q.name === m.param && q.value === m.member));
      const shown: { position: number; objects: JsonValue[] }[] = [];
      for (const r of naming) {
        const objects = (shownAt(plan, jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type))) ?? []).filter(isObject);
        shown.push({ position: r.timeline_position, objects });
      }
      let relation: Relation | undefined;
      for (const c of candidates(m, plan.collection, collections, (c) => fieldsOf.get(c) ?? [])) {
        // Only reads before the related collection's first write show its initial state.
        const proving = shown.filter((s) => s.position < (boundOf.get(c.collection) ?? Infinity)).flatMap((s) => s.objects);
        if (proving.length === 0) continue;
        let every = true;
        for (const o of proving) {
          if (!jsonEqual(await relatedValue(o, identity, c, source), member(o, m.member))) {
            every = false;
            break;
          }
        }
        if (every) {
          relation = c;
          break;
        }
      }
      members.push({ param: m.param, member: m.member, ...(relation ? { relation } : {}) });
    }
    if (members.some((m) => m.relation)) {
      await restorePlanFacts(ctx.k, ctx.captureId, { ...plan, embedded_members: members });
      learned.push(plan.tool);
    }
  }
  return learned;
}

/**
 * What a call asks of a plan's embedded members: the call without the keys naming them
 * (`base`), the learned relations it names, and the members it names that have no reading
 * (`unlearned`: only a recorded line can answer those, with their recorded values).
 */
export function relationCall(
  plan: ItemPlan | ListPlan,
  call: CallRequest,
): { base: CallRequest; relations: Relation[]; unlearned: EmbeddedMember[] } {
  const embedded = plan.embedded_members ?? [];
  const relations: Relation[] = [];
  const unlearned: EmbeddedMember[] = [];
  const rest = call.query.filter((q) => {
    const m = embedded.find((e) => e.param === q.name && e.member === q.value);
    if (!m) return true;
    if (m.relation) {
      if (!relations.includes(m.relation)) relations.push(m.relation);
    } else if (!unlearned.includes(m)) unlearned.push(m);
    return false;
  });
  return { base: { ...call, query: rest }, relations, unlearned };
}

/**
 * An answered entity with members no reading fills taken as a recorded read of the same line
 * shows them, the members in that read's order (the entity's others after them).
 */
export function withRecordedMembers(answered: JsonValue, recorded: JsonValue | undefined, members: readonly EmbeddedMember[]): JsonValue {
  if (!isObject(answered) || !isObject(recorded)) return answered;
  const names = new Set(members.map((m) => m.member));
  const entries: [string, JsonValue][] = [];
  for (const k of keysOf(recorded)) {
    const v = names.has(k) ? member(recorded, k) : member(answered, k);
    if (v !== undefined) entries.push([k, v]);
  }
  for (const k of keysOf(answered)) if (!entries.some(([x]) => x === k)) entries.push([k, member(answered, k)!]);
  return objectFrom(entries);
}

/** Whether a plan line's query names only embedded members (the line shows the view's own shape beside them). */
export function onlyEmbedded(plan: ItemPlan | ListPlan, query: string | null): boolean {
  if (query === null) return true;
  const embedded = plan.embedded_members ?? [];
  return [...new URLSearchParams(query)].every(([name, value]) => embedded.some((e) => e.param === name && e.member === value));
}

/**
 * An answer whose shown objects get the members no reading fills from the recorded body of
 * the same line: the item's entity from the recorded entity, each listed object from the
 * recorded object with the same identity value.
 */
export async function withRecordedMembersAt(
  ctx: ServeContext,
  plan: ItemPlan | ListPlan,
  body: JsonValue,
  recorded: JsonValue | undefined,
  members: readonly EmbeddedMember[],
): Promise<JsonValue> {
  const answered = shownAt(plan, body);
  const shown = shownAt(plan, recorded);
  if (!answered || !shown) return body;
  if (plan.kind === 'item') return replaceShown(plan, body, [withRecordedMembers(answered[0], shown[0], members)]);
  const identity = await identityOf(ctx, plan.collection);
  if (identity === undefined) return body;
  const byId = new Map(shown.filter(isObject).map((o) => [asPathValue(member(o, identity)), o]));
  return replaceShown(
    plan,
    body,
    answered.map((o) => {
      const id = asPathValue(member(o, identity));
      return id === undefined ? o : withRecordedMembers(o, byId.get(id), members);
    }),
  );
}

/** A rendered answer with each shown object given the relations' members from the model. */
export async function withRelatedMembers(
  ctx: ServeContext,
  plan: ItemPlan | ListPlan,
  body: JsonValue,
  relations: Relation[],
  model: ServedModel,
): Promise<JsonValue> {
  const identity = await identityOf(ctx, plan.collection);
  const answered = shownAt(plan, body);
  if (identity === undefined || relations.length === 0 || !answered) return body;
  const source = sourceOf(model);
  const out: JsonValue[] = [];
  for (const o of answered) out.push(await withRelations(o, identity, relations, source));
  return replaceShown(plan, body, out);
}
