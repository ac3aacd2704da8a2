/**
 * Answering a read from the served model (src/model/served/model.ts: the stored state and this
 * session's writes): an item, list or document plan renders the call with the one renderer
 * ES-37 checked the plan with (src/model/plan/render.ts). An item read renders any id the model
 * holds; an id it does not hold, on a type whose whole membership a list plan knows, is the
 * app's own 404. A call the state cannot answer — a record view, a request line no plan line
 * or shared envelope covers — returns null and replays instead: with reason `projection`
 * (ES-15) or `variant` (ES-20) when the call names such a key (`replayReason`).
 */
import type { ManifestTool } from '../../manifest/read.js';
import { collectionsOf, entityByKey, lineQuery, renderItem } from '../plan/render.js';
import type { ItemPlan, ListPlan } from '../plan/types.js';
import { namesVariantKey } from '../plan/variants.js';
import { perContextKey, type ServeContext } from './context.js';
import { itemParamOf, templateParams } from '../../manifest/paths.js';
import type { CallRequest } from './input-schema.js';
import { servedTypes, type ServedModel } from './model.js';
import { onlyEmbedded, relationCall, withRecordedMembersAt, withRelatedMembers } from './relations.js';
import { relationWords, type Relation } from '../plan/relations.js';
import {
  callLine,
  itemValue,
  jsonValueOf,
  latestRecord,
  lineRecords,
  readBody,
  requestLine,
  toolRecords,
  type RetainedBodyView,
  type ToolRecord,
} from './records.js';
import { linkBy, linkHabitOf } from './link-habit.js';
import { singular } from '../plan/relations.js';
import { CapstateError } from '../../errors.js';

import { answerList } from './list-answer.js';
import {
  embeddedOf,
  heldWhole,
  entitiesFor,
  envelopeOf,
  holdsRequired,
  knownCollections,
  namesByAnotherKey,
  servedState,
  type StateAnswer,
} from './read-index.js';
import { embedKey } from '../plan/embed-conventions.js';
import { stringsOf, withAskedId } from './not-found-echo.js';

export { embeddedOf, knownCollections, readConventions, referenceMembers, servedState, type StateAnswer } from './read-index.js';

/**
 * The latest recorded 404 of the API's item reads (a GET tool whose template ends in a
 * parameter, optionally with a suffix such as `.json`), other than `except`'s: the API's own
 * not-found, which it answers alike for every collection until the capture shows otherwise
 * (issue 44). Null when none is recorded.
 */
export function apiNotFoundRecord(ctx: ServeContext, except?: string): Promise<ToolRecord | null> {
  // Remembered per context and tool: every not-found answer asks, and the search reads every record of every item tool.
  return apiNotFound(ctx, except ?? '');
}

const apiNotFound = perContextKey(async (ctx, except): Promise<ToolRecord | null> => {
  let best: ToolRecord | null = null;
  for (const tool of ctx.manifest.tools) {
    if (tool.name === except || tool.method.toUpperCase() !== 'GET' || itemParamOf(tool.template) === undefined) continue;
    for (const r of await toolRecords(ctx, tool.name)) if (r.status === 404 && (!best || r.ordinal > best.ordinal)) best = r;
  }
  return best;
});

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
  id?: string,
): Promise<StateAnswer> {
  const own = (await latestRecord(ctx, toolName, '404')) ?? undefined;
  const recorded = own ?? (await apiNotFoundRecord(ctx, toolName));
  if (recorded) {
    const body = await readBody(ctx, recorded.response_body_id, recorded.response_media_type);
    // Issue 44 (kind 6): a 404 that names its own collection (WordPress's `rest_post_invalid_id`,
    // "Invalid post ID.") is that collection's, not the API's: another's would be a plausible wrong body.
    const named = own ? undefined : collectionNamed(body, recorded.root_path, ctx.tools.get(toolName)?.root_path);
    if (named !== undefined)
      throw new CapstateError(
        'no-convention',
        `${toolName}: ${asked}: ${what}, but the only 404 of this API the capture recorded (#${recorded.ordinal}, ${requestLine(recorded)}) names ${named}, so it is not the app's answer here`,
        { tool: toolName, request_line: asked, nearest_tool: recorded.tool, did_not_match: `a 404 that names ${named}` },
      );
    // Issue 44 (kind 8): the Link the recorded 404 came with, unless it names that request's own path.
    const link = linkBy(await linkHabitOf(ctx, [recorded]), undefined, toolName, asked);
    const headers = link === undefined ? {} : { headers: { link } };
    const kept = jsonValueOf(body);
    // Issue 44 (kind 6): a 404 naming the id it was asked for names the one asked now (not-found-echo.ts).
    const recordedId = recordedItemId(ctx, recorded);
    const echo = kept === undefined || id === undefined || recordedId === undefined ? undefined : withAskedId(kept, recordedId, id, 404);
    if (echo && !echo.ok)
      throw new CapstateError(
        'no-convention',
        `${toolName}: ${asked}: ${what}, but the 404 the capture recorded (#${recorded.ordinal}, ${requestLine(recorded)}) ${echo.why}, so how the app names ${id} is not known`,
        { tool: toolName, request_line: asked, nearest_tool: recorded.tool, did_not_match: `a 404 naming ${recordedId}` },
      );
    const value = echo?.ok ? echo.value : kept;
    const named_id = echo?.ok && echo.echoed ? `, naming ${id} where it named ${recordedId}` : '';
    const why = own
      ? `${what}: the app's own 404, shaped like record #${recorded.ordinal}${named_id}`
      : `${what}: the API's own 404, as another of its item reads answered it (record #${recorded.ordinal}${named_id})`;
    const convention = own ? {} : { convention: 'api-not-found' };
    return value === undefined
      ? {
          status: 404,
          value: null,
          record_ordinal: recorded.ordinal,
          request_line: asked,
          why,
          rules,
          record: recorded,
          ...convention,
          ...headers,
        }
      : { status: 404, value, record_ordinal: recorded.ordinal, request_line: asked, why, rules, ...convention, ...headers };
  }
  // No 404 of the API is recorded: the status is known (the whole membership is), its body is
  // not. An RFC 9457 problem document says so in a shape no client takes for the app's own body.
  return {
    status: 404,
    value: {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      // The caller's id stays out of the body (it may be megabytes); `why` names the entity.
      detail: "the model holds no such entity, and the capture records no 404 of this API: this body is capstate's, not the app's",
      code: 'default-not-found',
    },
    record_ordinal: 0,
    request_line: asked,
    why: `${what}: no 404 of this API is recorded, so capstate's own problem document (RFC 9457) with the status`,
    rules,
    convention: 'default-not-found',
    media_type: 'application/problem+json',
  };
}

/**
 * The word of `root`'s collection (`post` or `posts` of `/wp-json/wp/v2/posts`) where a retained
 * body names it, and `asked`'s collection is another; else undefined. Words end at anything but
 * a letter, so `rest_post_invalid_id` names `post` and `postcard` does not.
 */
function collectionNamed(body: RetainedBodyView, root: string, asked: string | undefined): string | undefined {
  const word = (r: string) => singular(r.split('/').filter(Boolean).pop() ?? '').toLowerCase();
  const own = word(root);
  if (own === '' || asked === undefined || word(asked) === own || typeof body.content !== 'string') return undefined;
  // What a JSON body says is in its strings: a member name (Feathers' `"message"`) names no collection.
  const value = jsonValueOf(body);
  const said = value === undefined ? [body.content] : stringsOf(value);
  const named = new RegExp(`(^|[^a-z])${own.replace(/[^a-z0-9]/g, '')}s?([^a-z]|$)`, 'i');
  return said.some((s) => named.test(s)) ? own : undefined;
}

/** The id a recorded item read (or write) was asked for: its path value of the tool's item parameter. */
function recordedItemId(ctx: ServeContext, r: ToolRecord): string | undefined {
  const tool = ctx.tools.get(r.tool);
  return tool === undefined ? undefined : itemValue(tool, r);
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
    // A document at a collection's own path (an empty `[]` no later read showed as a list,
    // OQ-11 (5)) is what the app answered before this session's writes to that collection: after
    // them it may list what they created, so the state does not answer it (replay decides).
    if (
      doc === stored &&
      model.writes.some((w) => w.root === tool.root_path) &&
      (await servedTypes(ctx)).some((t) => t.root_path === tool.root_path)
    )
      return null;
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
  // Issue 44: the members are the plan's own and those the API's embed conventions give it.
  const embedded = withEmbedded ? await embeddedOf(ctx, plan) : undefined;
  if (embedded?.members.length) {
    const rel = relationCall({ ...plan, embedded_members: embedded.members }, call);
    // A member no reading fills: only a recorded line answers (its entities from state, that
    // member as the line's record shows it); else the call without the members it names.
    const template =
      rel.unlearned.length === 0 ? undefined : plan.lines.find((l) => recorded.has(l.record_ordinal) && l.status >= 200 && l.status <= 299);
    if (rel.unlearned.length > 0 && !template) return null;
    // Issue 44: an entity's children are known only where the model holds their collection whole:
    // after a dropped read, json-server 1.0's post 2 embedded only this session's comment.
    if (!(await childrenHeld(ctx, rel.relations))) return null;
    if (rel.relations.length > 0 || template) {
      const base = await answerFromState(ctx, tool, template ? call : rel.base, model, false);
      if (!base || base.record || base.status < 200 || base.status > 299)
        return base && base.status === 404 && !template ? { ...base, request_line: asked } : null;
      let value = await withRelatedMembers(ctx, plan, base.value, rel.relations, model);
      const proofs = rel.relations.flatMap((r) => embedded.borrowed.get(embedKey(r))?.tools ?? []);
      const said = rel.relations.map(
        (r) => `${r.member} (${relationWords(r)}${embedded.borrowed.has(embedKey(r)) ? ", by the API's embed convention" : ''})`,
      );
      if (template) {
        value = await withRecordedMembersAt(ctx, plan, value, await envelopeOf(ctx, template.record_ordinal), rel.unlearned);
        said.push(
          `${rel.unlearned.map((m) => m.member).join(', ')} as #${template.record_ordinal} recorded ${rel.unlearned.length === 1 ? 'it' : 'them'}`,
        );
      }
      // Issue 44: a member only the API's embed convention gives this tool marks the answer `api-embed`.
      const conventions = [...(base.convention?.split(', ') ?? []), ...(proofs.length ? ['api-embed'] : [])];
      return {
        ...base,
        ...(base.headers?.link && !template ? { headers: { ...base.headers, link: linksWith(base.headers.link, call, rel.base) } } : {}),
        value,
        request_line: asked,
        why:
          `${base.why}, with ${said.join(', ')}${rel.relations.length ? " from this session's state" : ''}` +
          (proofs.length ? ` (the convention proved by ${[...new Set(proofs)].join(', ')})` : ''),
        ...(conventions.length ? { convention: [...new Set(conventions)].sort().join(', ') } : {}),
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
      // Issue 45 (kind 5): one this session deleted is gone whatever else the state knows.
      if (model.isWritten(plan.collection, id))
        return notFound(ctx, tool.name, asked, `${plan.collection} entity ${id} was deleted in this session`, ['ES-35'], asked_id);
      if (!(await knownCollections(ctx)).has(plan.collection)) return null;
      // A create of the type the model did not apply may have made this very id: not known absent.
      if (
        model.replayedCreates.has(tool.root_path) ||
        model.writes.some((w) => w.root === tool.root_path && !w.applied && w.entity === undefined)
      )
        return null;
      // A value another member of an entity holds may name it by another key (Redmine's
      // `/projects/aurora-mobile.json`): not known to be absent, so no 404 is claimed.
      if (await namesByAnotherKey(model, plan.collection, id)) return null;
      return notFound(
        ctx,
        tool.name,
        asked,
        `${plan.collection} holds no entity ${id} (its whole membership is known)`,
        ['ES-35'],
        asked_id,
      );
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
    // Issue 44: an entity known only from a list may lack members every item read shows
    // (Redmine's project `homepage`): rendering it without them would be a plausible wrong answer.
    // (An entity this session wrote is the write model's, checked by check-effects.)
    if (!model.isWritten(plan.collection, id) && !holdsRequired(plan as ItemPlan, entities.entity(plan.collection, id)!)) return null;
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

  // Issue 44 (kind 7): a line that lists the ids its record listed (no query explains them) is
  // a snapshot: after this session's writes under its type the app may list others.
  if (line?.membership === 'recorded' && !lineQuery(line) && model.writes.some((w) => w.root === tool.root_path)) return null;
  return answerList(ctx, plan as ListPlan, line, call, model, asked);
}

/**
 * Page links of an answer to `base` (the call without its embed keys) as links of `call`: each
 * link's query pairs back in the call's order, the embed pairs among them as given — as
 * json-server links a page, its own request URL with the page number swapped.
 */
function linksWith(link: string, call: CallRequest, base: CallRequest): string {
  const kept = new Set(base.query);
  return link.replace(/<([^>]*)>/g, (whole, href: string) => {
    const q = href.indexOf('?');
    if (q < 0) return whole;
    const pairs = [...new URLSearchParams(href.slice(q + 1))];
    if (pairs.length !== base.query.length) return whole;
    let i = 0;
    const query = call.query.map((p) => (kept.has(p) ? pairs[i++] : [p.name, p.value]));
    return `<${href.slice(0, q)}?${query.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&')}>`;
  });
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

/** Whether the model holds every collection whose children the relations embed (read whole, or counted whole). */
async function childrenHeld(ctx: ServeContext, relations: readonly Relation[]): Promise<boolean> {
  for (const r of relations) if (r.kind === 'children' && !(await heldWhole(ctx, r.collection))) return false;
  return true;
}
