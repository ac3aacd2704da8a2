/**
 * What serving asks of the served capture's read plans, gathered once per served store
 * (issue 44 split it from from-state.ts): the stored state's look-ups, the collections whose
 * whole membership is known, the API's read conventions (src/model/plan/conventions.ts), the
 * envelopes answers are rendered into, and the shape of an answer from state.
 */
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { isObject, keysOf, member } from '../plan/json.js';
import type { StoredLookups } from '../plan/lookups.js';
import { collectionsOf, entityByKey, type Collections } from '../plan/render.js';
import { learnReadConventions, type ReadConventions } from '../plan/conventions.js';
import { holdsReferences, referenceKey } from '../plan/list-queries.js';
import { learnEmbedConventions, widenEmbedded, type EmbedConventions, type WidenedEmbedded } from '../plan/embed-conventions.js';
import type { ItemPlan, ListParent, ListPlan, StateEntity } from '../plan/types.js';
import { perContextKey, type ServeContext } from './context.js';
import { servedLookups, type ServedModel } from './model.js';
import { jsonValueOf, readBody, toolRecords, type ToolRecord } from './records.js';

/**
 * The served capture's stored state (the view `capstate state` prints; nothing is
 * recomputed), looked up by index per call: a tool's plan, the entities it renders; null
 * when the load stored a failure instead of a state (every read then replays).
 */
export function servedState(ctx: ServeContext): Promise<StoredLookups | null> {
  return servedLookups(ctx);
}

/** Just the entities one rendering needs, as the renderer's Collections. */
export async function entitiesFor(model: ServedModel, collection: string, ids: readonly string[] | 'all'): Promise<Collections> {
  if (ids === 'all') return collectionsOf(await model.collection(collection));
  const found = await Promise.all(ids.map((id) => model.entity(collection, id)));
  return collectionsOf(found.filter((e): e is StateEntity => e !== undefined));
}

/**
 * Issue 18: the parent a nested call's path value names — the value itself, or where the
 * parent's item plan learned an alternate key (`garden` for project 1), the entity it finds;
 * undefined for a parent of a known type that the model does not hold (no answer from state:
 * Redmine answers 404 there, json-server an empty list).
 */
export async function parentId(ctx: ServeContext, parent: ListParent, value: string, model: ServedModel): Promise<string | undefined> {
  if (parent.collection === undefined || (await model.entity(parent.collection, value))) return value;
  const plan = (await planIndex(ctx)).alternateKeys.get(parent.collection);
  return plan === undefined ? undefined : entityByKey(collectionsOf(await model.collection(parent.collection)), plan, value)?.id;
}

export interface StateAnswer {
  status: number;
  value: JsonValue;
  record_ordinal: number;
  request_line: string;
  /** Why the state answered so, in plain words (issue 19: no rule IDs). */
  why: string;
  /** The rules behind `why` (`ES-37`, `DOC-1`, …), for a reader checking against docs/rules.md. */
  rules?: string[];
  /** A body that is not JSON (a recorded 404's empty or text body), answered as recorded. */
  record?: ToolRecord;
  /** Response headers the answer recomputes (a list's X-Total-Count), by lower-cased name. */
  headers?: Record<string, string>;
  /** The documented default or convention that decided the answer (provenance.ts), if any. */
  convention?: string;
  /** The media type of a body no record shaped (the default not-found's problem document). */
  media_type?: string;
}

/** What serving asks of the read plans across tools, gathered once per served store. */
interface PlanIndex {
  /** Collections with a list plan line of membership `all`. */
  whole: Set<string>;
  /** Issue 45: collections a list plan without a default filter counted whole (countedWhole). */
  counted: Set<string>;
  /** Issue 45: per collection, the ids a recorded item read answered not found (an item plan's 404 or 410 line). */
  absent: Map<string, Set<string>>;
  /** Issue 18: per collection, an item plan that learned an alternate key. */
  alternateKeys: Map<string, ItemPlan>;
  /** Issue 44: the API's read conventions, learned from every list plan. */
  conventions: ReadConventions;
  /** Issue 44: the API's embed conventions, learned from every item and list plan's relations. */
  embeds: EmbedConventions;
  /** Each collection's members, as its item and list plans show them (what a relation's field can be). */
  fields: Map<string, string[]>;
}
const planIndexes = new WeakMap<ServeContext, Promise<PlanIndex>>();

export function planIndex(ctx: ServeContext): Promise<PlanIndex> {
  let hit = planIndexes.get(ctx);
  if (!hit) {
    hit = (async () => {
      const state = await servedState(ctx);
      const lists: ListPlan[] = [];
      const reads: (ItemPlan | ListPlan)[] = [];
      const keys = new Set<string>();
      const out: PlanIndex = {
        whole: new Set(),
        counted: new Set(),
        absent: new Map(),
        alternateKeys: new Map(),
        conventions: learnReadConventions([]),
        embeds: learnEmbedConventions([]),
        fields: new Map(),
      };
      if (!state) return out;
      for (const tool of ctx.manifest.tools) {
        if (tool.method.toUpperCase() !== 'GET') continue;
        const plan = await state.plan(tool.name);
        if (plan?.kind === 'list') lists.push(plan);
        if (plan?.kind === 'list' || plan?.kind === 'item') reads.push(plan);
        for (const r of await toolRecords(ctx, tool.name)) for (const q of r.query_pairs) keys.add(q.name);
        if (plan?.kind === 'list' && plan.lines.some((l) => l.membership === 'all')) out.whole.add(plan.collection);
        if (plan?.kind === 'list' && !plan.default_filter && countedWhole(plan)) out.counted.add(plan.collection);
        if (plan?.kind === 'item')
          for (const l of plan.lines)
            if ((l.status === 404 || l.status === 410) && l.id !== undefined)
              out.absent.set(plan.collection, (out.absent.get(plan.collection) ?? new Set()).add(l.id));
        if (plan?.kind === 'item' && plan.alternate_key !== undefined && !out.alternateKeys.has(plan.collection))
          out.alternateKeys.set(plan.collection, plan);
      }
      out.conventions = learnReadConventions(lists, keys, ctx.vocabulary);
      out.embeds = learnEmbedConventions(reads);
      // A collection's members as its read plans show them (not its entities: serving reads those by index).
      for (const t of await state.types()) out.fields.set(t.collection, []);
      for (const plan of reads) {
        const seen = out.fields.get(plan.collection);
        if (seen) for (const f of plan.fields) if (!seen.includes(f)) seen.push(f);
      }
      return out;
    })();
    planIndexes.set(ctx, hit);
  }
  return hit;
}

/**
 * Collections whose whole membership the state knows: a list plan of the collection has a
 * line of membership `all` (OQ-25). Only there does an id the state lacks mean "no such entity".
 */
export async function knownCollections(ctx: ServeContext): Promise<Set<string>> {
  return (await planIndex(ctx)).whole;
}

/**
 * Issue 45: whether the model holds every entity of `collection` the capture started from: a list
 * read it whole (knownCollections), or counted it whole with no default filter hiding some.
 */
export async function heldWhole(ctx: ServeContext, collection: string): Promise<boolean> {
  const index = await planIndex(ctx);
  return index.whole.has(collection) || index.counted.has(collection);
}

/** Issue 45: whether a recorded item read of `collection` answered `id` not found (404 or 410). */
export async function recordedAbsent(ctx: ServeContext, collection: string, id: string): Promise<boolean> {
  return (await planIndex(ctx)).absent.get(collection)?.has(id) === true;
}

/**
 * Whether a recorded line of `plan` showed the whole collection, as its default filter (if any)
 * leaves it, and the state held every entity of it: a total (ES-36 member or header) equal to the
 * state's matches, or a last page — shorter than its size, reproduced from state at its offset, so
 * the state holds every entity before it too — on a line filtered by nothing but that default.
 */
export function countedWhole(plan: ListPlan): boolean {
  return plan.lines.some(
    (l) =>
      l.reason === undefined &&
      l.unseen === undefined &&
      (l.filter ?? []).every((f) => f.field === plan.default_filter?.field) &&
      (!!l.total_members?.length ||
        !!l.total_headers?.length ||
        (l.window?.size != null && l.listed_ids !== undefined && l.listed_ids.length < l.window.size)),
  );
}

/**
 * The GET tool at `template` when its plan is a list of a collection whose whole membership is
 * known (knownCollections): what the API's item route (item-route.ts) and write conventions
 * (write-route.ts) read a path below or at it by. Null otherwise.
 */
export async function wholeListAt(ctx: ServeContext, template: string): Promise<{ tool: ManifestTool; plan: ListPlan } | null> {
  const tool = ctx.manifest.tools.find((t) => t.method.toUpperCase() === 'GET' && t.template === template);
  const plan = tool && (await (await servedState(ctx))?.plan(tool.name));
  if (!tool || plan?.kind !== 'list' || !(await knownCollections(ctx)).has(plan.collection)) return null;
  return { tool, plan };
}

/**
 * Issue 44: per collection, the fields its entities hold references in (`"project": {"id": 1,
 * …}`), as the stored state shows them: where the API filters by a reference's id
 * (conventions.ts `reference`), `project_id` filters `project.id`. Each collection is read when
 * a list of it is first asked for, once per served store.
 */
const referenceIndex = perContextKey(async (ctx, collection): Promise<string[]> => {
  const state = await servedState(ctx);
  const fields = (await planIndex(ctx)).fields.get(collection) ?? [];
  if (!state || fields.length === 0) return [];
  const all = await state.collection(collection);
  return fields.filter((f) => holdsReferences(all, f));
});

/** The fields of `collection` that hold references (empty where the API shows no filter by a reference's id). */
export async function referenceMembers(ctx: ServeContext, collection: string): Promise<string[]> {
  if ((await readConventions(ctx)).reference.size === 0) return [];
  return referenceIndex(ctx, collection);
}

/** Issue 44: the API's read conventions (conventions.ts), learned once per served store. */
export async function readConventions(ctx: ServeContext): Promise<ReadConventions> {
  return (await planIndex(ctx)).conventions;
}

/**
 * Issue 44: the members `plan` embeds — its own, and those the API's embed conventions give it
 * (embed-conventions.ts), keyed `param=member` where borrowed.
 */
export async function embeddedOf(ctx: ServeContext, plan: ItemPlan | ListPlan): Promise<WidenedEmbedded> {
  const index = await planIndex(ctx);
  return widenEmbedded(plan, index.embeds, [...index.fields.keys()], (c) => index.fields.get(c) ?? []);
}

/** The members `collection`'s item and list plans show (empty for a collection no read plan shows). */
export async function collectionFields(ctx: ServeContext, collection: string): Promise<readonly string[]> {
  return (await planIndex(ctx)).fields.get(collection) ?? [];
}

const envelopes = new WeakMap<ServeContext, Map<number, Promise<JsonValue | undefined>>>();

/** A plan line's recorded response, parsed once per context: the envelope item and list answers are rendered into. */
export function envelopeOf(ctx: ServeContext, ordinal: number): Promise<JsonValue | undefined> {
  let perCtx = envelopes.get(ctx);
  if (!perCtx) envelopes.set(ctx, (perCtx = new Map()));
  let hit = perCtx.get(ordinal);
  if (!hit) {
    hit = ctx.k
      .selectFrom('record')
      .select(['response_body_id', 'response_media_type'])
      .where('capture_id', '=', ctx.captureId)
      .where('ordinal', '=', ordinal)
      .executeTakeFirst()
      .then(async (r) => (r ? jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type)) : undefined));
    perCtx.set(ordinal, hit);
  }
  return hit;
}

/**
 * Whether a string member of some entity of `collection` holds `value` (a path value may name it
 * by that key: a slug, an identifier). A member named as a reference (`postId`, `project_id`)
 * names another entity, not this one: json-server 1.0 spells ids as strings, so a comment's
 * `"postId": "3"` is no sign that `/comments/3` names a comment by another key.
 */
export async function namesByAnotherKey(model: ServedModel, collection: string, value: string): Promise<boolean> {
  const isReference = (k: string) => referenceKey(k, () => true) !== undefined;
  for (const e of await model.collection(collection)) {
    if (!isObject(e.value)) continue;
    for (const k of keysOf(e.value)) {
      const v = member(e.value, k);
      if (typeof v === 'string' && v === value && !isReference(k)) return true;
    }
  }
  return false;
}

/** Whether the entity holds every member the item view always shows (its required fields), in its own view values or its value. */
export function holdsRequired(plan: ItemPlan, e: StateEntity): boolean {
  const own = e.view_values[plan.tool] ?? {};
  // Members a read embeds on request (`?_expand=post`) are the relation's, never the entity's.
  const embedded = new Set((plan.embedded_members ?? []).map((m) => m.member));
  return plan.required_fields
    .filter((f) => !embedded.has(f))
    .every((f) => Object.hasOwn(own, f) || (isObject(e.value) && member(e.value, f) !== undefined));
}
