/**
 * Answering a read from the served model (src/model/served/model.ts: the stored state and this
 * session's writes): an item, list or document plan renders the call with the one renderer
 * ES-37 checked the plan with (src/model/plan/render.ts). An item read renders any id the model
 * holds; an id it does not hold, on a type whose whole membership a list plan knows, is the
 * app's own 404. A call the state cannot answer — a record view, a request line no plan line
 * or shared envelope covers — returns null and replays instead: with reason `projection`
 * (ES-15) or `variant` (ES-20) when the call names such a key (`replayReason`).
 */
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { StoredLookups } from '../plan/lookups.js';
import { collectionsOf, entityByKey, lineQuery, renderItem, renderList, type Collections } from '../plan/render.js';
import { isListQuery, parseListQuery, type ListQuery } from '../plan/list-queries.js';
import type { ItemPlan, ListParent, ListPlan, PlanLine, StateEntity } from '../plan/types.js';
import { namesVariantKey } from '../plan/variants.js';
import type { ServeContext } from './context.js';
import { templateParams } from '../../manifest/paths.js';
import type { CallRequest } from './input-schema.js';
import { servedLookups, type ServedModel } from './model.js';
import { onlyEmbedded, relationCall, withRecordedMembersAt, withRelatedMembers } from './relations.js';
import { relationWords } from '../plan/relations.js';
import { callLine, jsonValueOf, lineRecords, readBody, toolRecords, type ToolRecord } from './records.js';

/**
 * The served capture's stored state (the view `capstate state` prints; nothing is
 * recomputed), looked up by index per call: a tool's plan, the entities it renders; null
 * when the load stored a failure instead of a state (every read then replays).
 */
export function servedState(ctx: ServeContext): Promise<StoredLookups | null> {
  return servedLookups(ctx);
}

/** Just the entities one rendering needs, as the renderer's Collections. */
async function entitiesFor(model: ServedModel, collection: string, ids: readonly string[] | 'all'): Promise<Collections> {
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
async function parentId(ctx: ServeContext, parent: ListParent, value: string, model: ServedModel): Promise<string | undefined> {
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
}

/** What serving asks of the read plans across tools, gathered once per served store. */
interface PlanIndex {
  /** Collections with a list plan line of membership `all`. */
  whole: Set<string>;
  /** Issue 18: per collection, an item plan that learned an alternate key. */
  alternateKeys: Map<string, ItemPlan>;
}
const planIndexes = new WeakMap<ServeContext, Promise<PlanIndex>>();

function planIndex(ctx: ServeContext): Promise<PlanIndex> {
  let hit = planIndexes.get(ctx);
  if (!hit) {
    hit = (async () => {
      const state = await servedState(ctx);
      const out: PlanIndex = { whole: new Set(), alternateKeys: new Map() };
      if (!state) return out;
      for (const tool of ctx.manifest.tools) {
        if (tool.method.toUpperCase() !== 'GET') continue;
        const plan = await state.plan(tool.name);
        if (plan?.kind === 'list' && plan.lines.some((l) => l.membership === 'all')) out.whole.add(plan.collection);
        if (plan?.kind === 'item' && plan.alternate_key !== undefined && !out.alternateKeys.has(plan.collection))
          out.alternateKeys.set(plan.collection, plan);
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
 * The latest recorded 404 of the API's item reads (a GET tool whose template ends in a
 * parameter, optionally with a suffix such as `.json`), other than `except`'s: the API's own
 * not-found, which it answers alike for every collection until the capture shows otherwise
 * (issue 44). Null when none is recorded.
 */
export async function apiNotFoundRecord(ctx: ServeContext, except?: string): Promise<ToolRecord | null> {
  let best: ToolRecord | null = null;
  for (const tool of ctx.manifest.tools) {
    if (tool.name === except || tool.method.toUpperCase() !== 'GET' || !/\{[^}/]+\}[^/{}]*$/.test(tool.template)) continue;
    for (const r of await toolRecords(ctx, tool.name)) if (r.status === 404 && (!best || r.ordinal > best.ordinal)) best = r;
  }
  return best;
}

/**
 * The app's own 404 for an entity the state does not hold: the latest recorded 404 of the
 * tool (its status and body, as recorded), else the API's (apiNotFoundRecord: marked
 * `convention: api-not-found`), else a plain JSON `{"error": "not found"}` marked
 * `default-not-found`.
 */
export async function notFound(
  ctx: ServeContext,
  toolName: string,
  asked: string,
  what: string,
  rules: string[] = [],
): Promise<StateAnswer> {
  const own = (await toolRecords(ctx, toolName)).filter((r) => r.status === 404).at(-1);
  const recorded = own ?? (await apiNotFoundRecord(ctx, toolName));
  if (recorded) {
    const value = jsonValueOf(await readBody(ctx, recorded.response_body_id, recorded.response_media_type));
    const why = own
      ? `${what}: the app's own 404, shaped like record #${recorded.ordinal}`
      : `${what}: the API's own 404, as another of its item reads answered it (record #${recorded.ordinal})`;
    const convention = own ? {} : { convention: 'api-not-found' };
    return value === undefined
      ? { status: 404, value: null, record_ordinal: recorded.ordinal, request_line: asked, why, rules, record: recorded, ...convention }
      : { status: 404, value, record_ordinal: recorded.ordinal, request_line: asked, why, rules, ...convention };
  }
  return {
    status: 404,
    value: { error: 'not found' },
    record_ordinal: 0,
    request_line: asked,
    why: `${what}: no 404 of this API is recorded, so a plain JSON 404`,
    rules,
    convention: 'default-not-found',
  };
}

const envelopes = new WeakMap<ServeContext, Map<number, Promise<JsonValue | undefined>>>();

/** A plan line's recorded response, parsed once per context: the envelope item and list answers are rendered into. */
function envelopeOf(ctx: ServeContext, ordinal: number): Promise<JsonValue | undefined> {
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

/** The call answered from the model, or null when the state has no answer for it. */
export async function answerFromState(
  ctx: ServeContext,
  tool: ManifestTool,
  call: CallRequest,
  model: ServedModel,
  withEmbedded = true,
): Promise<StateAnswer | null> {
  if (tool.method.toUpperCase() !== 'GET') return null;
  const state = await servedState(ctx);
  if (!state) return null;
  const plan = await state.plan(tool.name);
  if (!plan || plan.kind === 'record') return null;
  // The call's request line is matched to its records as replay matches them (path values,
  // query pairs from the loader's facts); a plan line or document answers through its record.
  const recorded = new Set(lineRecords(await toolRecords(ctx, tool.name), call).map((r) => r.ordinal));
  const asked = callLine(tool, call);

  if (plan.kind === 'document') {
    const stored = (await state.document(tool.name))!;
    if (!recorded.has(stored.record_ordinal)) return null;
    const doc = (await model.document(tool.name)) ?? stored;
    const why = doc === stored ? `its latest initial value, #${doc.record_ordinal}` : 'as this session wrote or loaded it';
    return {
      status: doc.status,
      value: doc.value,
      record_ordinal: doc.record_ordinal,
      request_line: asked,
      why: `document of ${doc.path}: ${why}`,
      rules: ['DOC-1', 'DOC-2'],
    };
  }

  // Issue 16: a call naming embedded members answers as the call without them, each shown
  // object given the members from the model (relations.ts); one with no learned reading replays.
  if (plan.embedded_members && withEmbedded) {
    const rel = relationCall(plan, call);
    // A member no reading fills: only a recorded line answers (its entities from state, that
    // member as the line's record shows it); else the call without the members it names.
    const template =
      rel.unlearned.length === 0 ? undefined : plan.lines.find((l) => recorded.has(l.record_ordinal) && l.status >= 200 && l.status <= 299);
    if (rel.unlearned.length > 0 && !template) return null;
    if (rel.relations.length > 0 || template) {
      const base = await answerFromState(ctx, tool, template ? call : rel.base, model, false);
      if (!base || base.record || base.status < 200 || base.status > 299)
        return base && base.status === 404 && !template ? { ...base, request_line: asked } : null;
      let value = await withRelatedMembers(ctx, plan, base.value, rel.relations, model);
      const said = rel.relations.map((r) => `${r.member} (${relationWords(r)})`);
      if (template) {
        value = await withRecordedMembersAt(ctx, plan, value, await envelopeOf(ctx, template.record_ordinal), rel.unlearned);
        said.push(
          `${rel.unlearned.map((m) => m.member).join(', ')} as #${template.record_ordinal} recorded ${rel.unlearned.length === 1 ? 'it' : 'them'}`,
        );
      }
      return {
        ...base,
        value,
        request_line: asked,
        why: `${base.why}, with ${said.join(', ')}${rel.relations.length ? " from this session's state" : ''}`,
      };
    }
  }

  const line = plan.lines.find((l) => recorded.has(l.record_ordinal));
  if (plan.kind === 'item') {
    const asked_id = call.params.get(templateParams(tool.template).at(-1) ?? '');
    if (asked_id === undefined) return null;
    // Issue 18: a path value naming the entity by its alternate key (`garden` for project 2).
    const id =
      (plan as ItemPlan).alternate_key !== undefined && !(await model.entity(plan.collection, asked_id))
        ? (entityByKey(collectionsOf(await model.collection(plan.collection)), plan as ItemPlan, asked_id)?.id ?? asked_id)
        : asked_id;
    const entities = await entitiesFor(model, plan.collection, [id]);
    if (!entities.entity(plan.collection, id)) {
      // An id the model does not hold: a 404 where the whole membership is known, else replay.
      if (call.query.length > 0 && !line) return null;
      if (!(await knownCollections(ctx)).has(plan.collection)) return null;
      return notFound(ctx, tool.name, asked, `${plan.collection} holds no entity ${id} (its whole membership is known)`, ['ES-35']);
    }
    // A 2xx line the plan checked keeps its own envelope; another id, or a line recorded as
    // an error before the entity existed, renders in the shared one (OQ-19).
    const shared = () =>
      plan.shared_envelope && call.query.length === 0
        ? plan.lines.find((l) => l.status >= 200 && l.status <= 299 && onlyEmbedded(plan, l.query))
        : undefined;
    const template = line && line.status >= 200 && line.status <= 299 ? line : shared();
    if (!template) return null;
    const envelope = await envelopeOf(ctx, template.record_ordinal);
    if (envelope === undefined) return null;
    const rendered = renderItem(plan as ItemPlan, { ...template, id }, envelope, entities);
    if (rendered.status !== 'rendered') return null;
    return {
      status: template.status,
      value: rendered.body,
      record_ordinal: template.record_ordinal,
      request_line: asked,
      why:
        `rendered from state: ${plan.collection} entity ${id}` +
        (template === line
          ? `, in the envelope of #${template.record_ordinal}`
          : `, in the envelope the item view shares (#${template.record_ordinal})`),
      rules: template === line ? ['ES-37'] : ['ES-37', 'OQ-19'],
    };
  }

  return answerList(ctx, plan as ListPlan, line, call, model, asked);
}

/**
 * A list read (ES-37; issue 18/16): a recorded line renders as its plan line says — the
 * whole collection, the ids it listed, or what its filter, sort or window picks from this
 * session's model; a line the state could not reproduce (`membership-differs`) replays. A
 * call no record answers is answered when every key it names is one the plan learned
 * (`list_queries`), rendered in the envelope of a line with the same keys (else the shared
 * envelope), its totals recounted. Anything else replays.
 */
async function answerList(
  ctx: ServeContext,
  plan: ListPlan,
  recordedLine: PlanLine | undefined,
  call: CallRequest,
  model: ServedModel,
  asked: string,
): Promise<StateAnswer | null> {
  let line = recordedLine;
  let how: string;
  if (line) {
    if (line.reason === 'membership-differs') return null;
    const q = lineQuery(line);
    how = q
      ? describeQuery(q)
      : line.membership === 'all'
        ? 'the whole collection in state order'
        : `the entities #${line.record_ordinal} listed`;
  } else if (plan.parent && call.query.length === 0) {
    // Issue 18: a parent no record shows lists the entities its parent filter picks, in the
    // envelope of a recorded parent's line without a query.
    const asked_parent = call.params.get(plan.parent.param);
    const template = plan.lines.find(
      (l) =>
        l.status >= 200 && l.status <= 299 && l.reason === undefined && l.query === null && l.filter?.[0]?.field === plan.parent!.field,
    );
    const id = asked_parent === undefined ? undefined : await parentId(ctx, plan.parent, asked_parent, model);
    if (id === undefined || !template) return null;
    const filter = [{ field: plan.parent.field, values: [id] }];
    // The template's totals (Redmine's total_count) count what the parent filter matches.
    line = { ...template, filter, sort: undefined, then_by: undefined, window: undefined, listed_ids: undefined };
    how = `${describeQuery({ filter })}, a parent no record shows (its ${plan.parent.field} learned from the recorded nested lines), in the envelope of #${template.record_ordinal}`;
  } else {
    const learned = plan.list_queries;
    if (!learned || call.query.length === 0) return null;
    // Filters only on the keys learned as filters (an operator key as spelled: `views_gte`); a
    // sort by any field the view shows, on several fields only where a multi-field sort was learned.
    const operatorKey = (n: string) => /_(gte|lte|ne|like)$/.test(n) && plan.fields.includes(n.replace(/_(gte|lte|ne|like)$/, ''));
    const isField = (name: string, use: 'filter' | 'sort') =>
      plan.fields.includes(name) || (use === 'filter' && learned.filter.includes(name) && !operatorKey(name));
    const parsed = parseListQuery(call.query, ctx.vocabulary, isField);
    if (!parsed.ok || !isListQuery(parsed.query)) return null;
    for (const [kind, names] of parsed.kinds) if (names.some((n) => !learned[kind].includes(n))) return null;
    if (parsed.units.has('sort:multi') && !learned.multi_sort) return null;
    if (plan.parent) {
      // Issue 18: a nested list's query applies to its parent's members only.
      const value = call.params.get(plan.parent.param);
      const id = value === undefined ? undefined : await parentId(ctx, plan.parent, value, model);
      if (id === undefined) return null;
      parsed.query.filter = [{ field: plan.parent.field, values: [id] }, ...(parsed.query.filter ?? [])];
    }
    const keys = (l: { query: string | null }) => [...new Set(new URLSearchParams(l.query ?? '').keys())].sort().join('&');
    const wanted = [...new Set(call.query.map((p) => p.name))].sort().join('&');
    const usable = plan.lines.filter((l) => l.status >= 200 && l.status <= 299 && l.reason === undefined);
    // The envelope (and the totals to recount) of the line most like the call: the same keys,
    // else the same kinds of query, else a window beside a window; other envelopes only when shared (ES-25).
    const kindsOf = (q: ListQuery | undefined) => (['filter', 'sort', 'window'] as const).filter((k) => q?.[k] !== undefined).join('&');
    const score = (l: PlanLine) =>
      (keys(l) === wanted ? 4 : 0) +
      (kindsOf(lineQuery(l)) === kindsOf(parsed.query) ? 2 : 0) +
      ((lineQuery(l)?.window !== undefined) === (parsed.query.window !== undefined) ? 1 : 0);
    const best = [...usable].sort((a, b) => score(b) - score(a))[0];
    const template = best && (keys(best) === wanted || plan.shared_envelope) ? best : undefined;
    if (!template) return null;
    const totals = template.total_members ?? (lineQuery(template) ? [] : template.membership === 'all' ? plan.counters : []);
    line = {
      ...template,
      filter: parsed.query.filter,
      sort: parsed.query.sort,
      then_by: parsed.query.then_by,
      window: parsed.query.window,
      ...(totals.length ? { total_members: totals } : {}),
      ...(template.total_headers ? { total_headers: template.total_headers } : {}),
    };
    how = `${describeQuery(parsed.query)}, a query no record shows (learned from the recorded ${[...parsed.kinds.keys()].join(', ')} lines), in the envelope of #${template.record_ordinal}`;
  }
  if (line.status < 200 || line.status > 299) return null;
  const envelope = await envelopeOf(ctx, line.record_ordinal);
  if (envelope === undefined) return null;
  const entities = await entitiesFor(
    model,
    plan.collection,
    lineQuery(line) || line.membership === 'all' ? 'all' : (line.listed_ids ?? []),
  );
  const rendered = renderList(plan, line, envelope, entities);
  if (rendered.status !== 'rendered') return null;
  const headers: Record<string, string> = {};
  // Issue 16: a total header (X-Total-Count) counts what the query matched, as the capture shows.
  if (rendered.matched !== undefined)
    for (const h of line.total_headers ?? []) if (ctx.vocabulary.headerKind(h) === 'total') headers[h] = String(rendered.matched);
  if (rendered.matched !== undefined && line.window?.size) {
    const link = await pageLinks(ctx, line.record_ordinal, call, line.window as { offset: number; size: number }, rendered.matched);
    if (link) headers.link = link;
  }
  return {
    status: line.status,
    value: rendered.body,
    record_ordinal: line.record_ordinal,
    request_line: asked,
    why: `rendered from state: ${plan.collection} list (${how})`,
    rules: ['ES-37'],
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}

const PAGE_RELS = ['first', 'prev', 'next', 'last'] as const;

/**
 * Issue 16: a page's `Link` header, recomputed where the envelope's record sent one for a
 * page-number window (json-server's `_page`): `first` and `last` always, `prev` and `next`
 * where such a page exists, each the recorded link's origin and path with the call's own
 * query, its page key set to that page. Null when the record sent none, or the call names
 * no page key.
 */
async function pageLinks(
  ctx: ServeContext,
  ordinal: number,
  call: CallRequest,
  window: { offset: number; size: number },
  matched: number,
): Promise<string | null> {
  const pageKey = call.query.find((p) => ctx.vocabulary.windowRole(p.name) === 'page')?.name;
  if (!pageKey) return null;
  const recorded = await ctx.k
    .selectFrom('header')
    .innerJoin('record', 'record.id', 'header.record_id')
    .select(['header.name', 'header.value'])
    .where('record.capture_id', '=', ctx.captureId)
    .where('record.ordinal', '=', ordinal)
    .where('header.side', '=', 'response')
    .where('header.source', '=', 'header')
    .execute();
  const value = recorded.find((h) => h.value !== null && ctx.vocabulary.headerKind(h.name) === 'next')?.value;
  const first = value?.match(/<([^>]*)>/)?.[1];
  if (!first || !/rel="?(first|prev|next|last)"?/.test(value!)) return null;
  let base: URL;
  try {
    base = new URL(first);
  } catch {
    return null;
  }
  const page = Math.floor(window.offset / window.size) + 1;
  const last = Math.max(1, Math.ceil(matched / window.size));
  const target: Record<(typeof PAGE_RELS)[number], number | null> = {
    first: 1,
    prev: page > 1 ? page - 1 : null,
    next: page < last ? page + 1 : null,
    last,
  };
  const href = (n: number) =>
    `${base.origin}${base.pathname}?${call.query.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p.name === pageKey ? String(n) : p.value)}`).join('&')}`;
  return PAGE_RELS.filter((rel) => target[rel] !== null)
    .map((rel) => `<${href(target[rel]!)}>; rel="${rel}"`)
    .join(', ');
}

/** A list query in words, for `why`. */
function describeQuery(q: ListQuery): string {
  const parts: string[] = [];
  const OP_WORDS = { gte: '>=', lte: '<=', ne: 'is not', like: 'matches (case-insensitive)' } as const;
  for (const f of q.filter ?? []) {
    if (f.op) parts.push(`${f.field} ${OP_WORDS[f.op]} ${f.values.join(f.op === 'ne' ? ' nor ' : ' or ')}`);
    else parts.push(f.values.length === 1 ? `${f.field} = ${f.values[0]}` : `${f.field} in ${f.values.join(', ')}`);
  }
  for (const [i, k] of [...(q.sort ? [q.sort] : []), ...(q.then_by ?? [])].entries())
    parts.push(`${i === 0 ? 'sorted by' : 'then by'} ${k.field} ${k.direction === 'desc' ? 'descending' : 'ascending'}`);
  if (q.window)
    parts.push(
      q.window.size === null ? `from item ${q.window.offset + 1}` : `items ${q.window.offset + 1} to ${q.window.offset + q.window.size}`,
    );
  return `the collection ${parts.join(', ')}, from this session's state`;
}

/**
 * ES-15 / ES-20: why a read that the state does not answer replays — `variant` when the call
 * names a key that tells a variant apart, `projection` when it names a projection parameter
 * with a value no checked row gave (or one a replayed row gave) — or null.
 */
export async function replayReason(ctx: ServeContext, tool: ManifestTool, call: CallRequest): Promise<'variant' | 'projection' | null> {
  if (tool.method.toUpperCase() !== 'GET') return null;
  const plan = await (await servedState(ctx))?.plan(tool.name);
  if (!plan || (plan.kind !== 'item' && plan.kind !== 'list')) return null;
  const projection = call.query.filter((p) => ctx.vocabulary.isProjection(p.name)).map((p) => p.value);
  if (
    projection.length &&
    projection.some((v) => v !== '*' && (!plan.projection_values.checked.includes(v) || plan.projection_values.replayed.includes(v)))
  )
    return 'projection';
  return namesVariantKey(plan.projected_query_keys, call.query) ? 'variant' : null;
}
