/**
 * A list read answered from state (ES-37; issue 18/16/44): a recorded line renders as its
 * plan line says; a call no record answers is answered when every key it names is one the
 * plan learned or an API convention gives it (src/model/plan/conventions.ts), rendered in the
 * envelope of the line most like it, its totals and page links recounted.
 */
import { holdsUnplaced } from './placement.js';
import { recordedLink } from './link-habit.js';
import { CapstateError } from '../../errors.js';
import { lineName, lineQuery, renderList } from '../plan/render.js';
import { at } from '../plan/json.js';
import {
  applyListQuery,
  habitsLearned,
  isListQuery,
  parseListQuery,
  referenceFilterField,
  unlearnedKeys,
  type ListQuery,
} from '../plan/list-queries.js';
import { labelReader, matcherKeyParts } from '../plan/label-matchers.js';
import { knownReferences } from './reference-filters.js';
import { withSubtrees } from './tree-filters.js';
import type { QueryPair } from './cache-busters.js';
import { refuseUnheldNulls, withNullFilters } from './null-filters.js';
import { pageEnvelopeFor } from './page-envelope.js';
import { pageCutFor } from './page-cut.js';
import { refuseUnseenWindow } from './unseen-window.js';
import { countHeaders, pagesOf } from './count-headers.js';
import { pageWords, renderPage } from '../plan/page-envelope.js';
import { lastPageOf, pageOf } from '../plan/page-links.js';
import { widenQueries, type ApiConvention, type WidenedQueries } from '../plan/conventions.js';
import type { ListPlan, PlanLine } from '../plan/types.js';
import type { ServeContext } from './context.js';
import type { CallRequest } from './input-schema.js';
import type { ServedModel } from './model.js';
import { oddValue, refuseLargerPage, refusePageGuess, refuseUnknownOrder, unseenBehindDefault } from './list-declines.js';
import {
  countedWhole,
  entitiesFor,
  envelopeOf,
  knownCollections,
  parentId,
  readConventions,
  referenceMembers,
  type StateAnswer,
} from './read-index.js';
import { lineRecords, toolRecords } from './records.js';

/**
 * A list read (ES-37; issue 18/16): a recorded line renders as its plan line says — the
 * whole collection, the ids it listed, or what its filter, sort or window picks from this
 * session's model; a line the state could not reproduce (`membership-differs`) replays. A
 * call no record answers is answered when every key it names is one the plan learned
 * (`list_queries`), rendered in the envelope of a line with the same keys (else the shared
 * envelope), its totals recounted. Anything else replays.
 */
export async function answerList(
  ctx: ServeContext,
  plan: ListPlan,
  recordedLine: PlanLine | undefined,
  call: CallRequest,
  model: ServedModel,
  asked: string,
): Promise<StateAnswer | null> {
  let line = recordedLine;
  let how: string;
  // The call's path (`GET /posts?_page=2` → `/posts`): what the answer's page links link from.
  const askedPath = asked.slice(asked.indexOf(' ') + 1).split('?')[0];
  /** Issue 44: the API conventions the answer rests on, each with the tools whose lines proved it. */
  const borrowedFrom = new Map<ApiConvention, Set<string>>();
  const restsOn = (c: ApiConvention, tools: Iterable<string> = []) =>
    borrowedFrom.set(c, new Set([...(borrowedFrom.get(c) ?? []), ...tools]));
  let linkRecord: number | undefined;
  let shape = plan;
  // Issue 45: a created entity whose place in the list the capture does not show (placement.ts).
  if (!call.query.some((p) => ctx.vocabulary.isOrdering(p.name)) && (await holdsUnplaced(model, plan.collection)))
    throw new CapstateError(
      'no-convention',
      `${plan.tool}: ${asked} would list ${plan.collection} this session created, and the capture does not show where the app lists a new one (its lists are ordered by neither ascending id nor newest first)`,
      { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: 'the place of a created entity' },
    );
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
    // A list that learned no key may still page in a page envelope (below).
    const references = await referenceMembers(ctx, plan.collection);
    const widened: WidenedQueries = widenQueries(plan, await readConventions(ctx), references) ?? {
      queries: { filter: [], sort: [], window: [] },
      borrowed: new Map(),
    };
    if (call.query.length === 0) return null;
    // Issue 44: the state answers a query no record shows only for a list it holds whole; a
    // record of this very line still may answer (replay decides), else the decline says why.
    const notWhole = async (why: string): Promise<null> => {
      if (lineRecords(await toolRecords(ctx, plan.tool), call).length > 0) return null;
      throw new CapstateError('no-record', `${plan.tool}: no retained record answers ${asked}, and the state cannot: ${why}`, {
        tool: plan.tool,
        request_line: asked,
        recorded_request_lines: [...new Set(plan.lines.map(lineName))].slice(0, 20),
      });
    };
    // A list whose recorded totals counted entities the capture never showed: any other query may pick some.
    const partial = plan.lines.find((l) => l.unseen !== undefined);
    if (partial)
      return notWhole(
        `record #${partial.record_ordinal} (${lineName(partial)}) counted ${partial.unseen} more ${plan.collection} than the capture ever showed, which a query it never made may list`,
      );
    // Nor a list no line shows whole — every entity, or a total of them the state holds: a full
    // page (`?limit=3` listing 3) says nothing of what comes after it.
    if (
      !plan.parent &&
      !(await knownCollections(ctx)).has(plan.collection) &&
      !countedWhole(plan) &&
      // A header that counted every recorded line's matches (WordPress's X-WP-Total) counts them whole
      // too, where one of those lines filters by nothing but the default (`?post=3` counts post 3's comments only).
      !(
        [...(await countHeaders(ctx, plan.tool)).values()].includes('matched') &&
        plan.lines.some(
          (l) => l.reason === undefined && l.unseen === undefined && (l.filter ?? []).every((f) => f.field === plan.default_filter?.field),
        )
      )
    )
      return notWhole(
        `no line of the capture shows every entity of ${plan.collection}, or counts them, so a query it never made may list some it never showed`,
      );
    const learned = widened.queries;
    // Filters only on the keys learned as filters (an operator key as spelled: `views_gte`); a
    // sort by any field the view shows, on several fields only where a multi-field sort was learned.
    const operatorKey = (n: string) => /_(gte|lte|ne|like)$/.test(n) && plan.fields.includes(n.replace(/_(gte|lte|ne|like)$/, ''));
    // Issue 44: a learned key naming a reference's id (`project_id`) filters the reference's `id`.
    const referenceOf = (name: string) =>
      learned.filter.includes(name) ? referenceFilterField(name, (f) => references.includes(f)) : undefined;
    const isField = (name: string, use: 'filter' | 'sort') =>
      plan.fields.includes(name) ||
      (use === 'filter' && learned.filter.includes(name) && !operatorKey(name) && referenceOf(name) === undefined);
    // Issue 44 kind 4: a key that lifts the default filter with the value a recorded line lifted it by (`status_id=*`) filters nothing.
    const lifts = liftingPairs(plan, call.query);
    const unseen = unseenBehindDefault(plan, call.query, lifts);
    if (unseen)
      throw new CapstateError(
        'no-convention',
        `${plan.tool}: ${asked} asks for ${plan.collection} whose ${plan.default_filter!.field} is ${unseen.value}, which the list leaves out unless asked (${unseen.name}); the capture never asked for them, so the state does not hold them all`,
        { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: `${unseen.name}=${unseen.value}` },
      );
    // Issue 44: label matchers (`filter=alertname="DiskFull"`) only where a line proved a key so.
    const labelsOf = learned.filter.some((k) => matcherKeyParts(k) !== undefined)
      ? labelReader(new Set(plan.fields), await model.collection(plan.collection))
      : undefined;
    const parsed = parseListQuery(
      call.query.filter((p) => !lifts.includes(p)),
      ctx.vocabulary,
      isField,
      referenceOf,
      labelsOf,
      plan.default_size,
    );
    if (!parsed.ok || !isListQuery(parsed.query)) return null;
    // Issue 44: a reference key learned (or borrowed) as `tree` lists what sits under the entity named too (tree-filters.ts).
    const treeFields = new Set((learned.tree ?? []).map(referenceOf).filter((f): f is string => f !== undefined));
    await knownReferences(ctx, model, plan, parsed.query, call, treeFields);
    if (treeFields.size)
      parsed.query.filter = (
        await withSubtrees(ctx, model, await model.collection(plan.collection), plan.tool, parsed.query, treeFields)
      ).filter;
    const odd = oddValue(parsed.query, await model.collection(plan.collection), plan.tool);
    if (odd)
      throw new CapstateError(
        'no-convention',
        `${plan.tool}: ${asked} filters ${odd.field} by ${JSON.stringify(odd.value)}, and every ${plan.collection} entity holds a number there; the capture does not show how the app reads such a value (a list of values, an error, or no match)`,
        { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: `${odd.field}=${odd.value}` },
      );
    const unlearned = unlearnedKeys(parsed, learned);
    // Issue 44: a window no line of the list learned may still be a page the API's page envelope explains.
    const paging = unlearned.length === 1 && unlearned[0][0] === 'window' ? await pageEnvelopeFor(ctx, plan, unlearned[0][1]) : null;
    if (unlearned.length > 0 && !paging) return null;
    if (!habitsLearned(parsed, learned)) return null;
    // Issue 44: the keys answered only by a convention the API's other lists proved.
    for (const p of call.query) {
      const b = widened.borrowed.get(p.name);
      if (b) restsOn(b.convention, b.tools);
    }
    if (parsed.units.has('sort:multi') && !plan.list_queries?.multi_sort) restsOn('api-sort', (await readConventions(ctx)).multi_sort);
    if (parsed.units.has('filter:any') && !plan.list_queries?.any_of) restsOn('api-filter', (await readConventions(ctx)).any_of);
    if (plan.parent) {
      // Issue 18: a nested list's query applies to its parent's members only.
      const value = call.params.get(plan.parent.param);
      const id = value === undefined ? undefined : await parentId(ctx, plan.parent, value, model);
      if (id === undefined) return null;
      parsed.query.filter = [{ field: plan.parent.field, values: [id] }, ...(parsed.query.filter ?? [])];
    }
    // Issue 44 kind 4: the list's default filter holds unless the call names a key that lifts it.
    const d = plan.default_filter;
    if (d && !call.query.some((p) => d.lifted_by.includes(p.name)))
      parsed.query.filter = [{ field: d.field, values: d.values }, ...(parsed.query.filter ?? [])];
    if (paging) {
      const nulls = await withNullFilters(ctx, parsed.query.filter, call);
      const all = await model.collection(plan.collection);
      const query = { ...parsed.query, filter: nulls.filter };
      const { reading, envelope, status } = paging;
      await refuseUnknownOrder(ctx, plan, query, all, asked);
      const value = renderPage(reading, envelope, plan, query, all);
      // A page past the last: the app may answer it empty or as the last page (json-server 1.0
      // clamps it); unless a record of this very line shows which, no answer is made up.
      if (value === null) {
        if (lineRecords(await toolRecords(ctx, plan.tool), call).length > 0) return null;
        throw new CapstateError(
          'no-convention',
          `${plan.tool}: ${asked} asks for a page past the last; the capture does not show what the app answers there (an empty page, or the last one)`,
          { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: 'a page past the last page' },
        );
      }
      if (reading.tool !== plan.tool) restsOn('api-page-envelope', [reading.tool]);
      if (nulls.habit && nulls.listsNull(all, query, plan.tool)) restsOn('api-null-filter', nulls.habit.tools);
      return {
        status,
        value,
        record_ordinal: reading.record_ordinal,
        request_line: asked,
        why: `rendered from state: ${plan.collection} list (${describeQuery(parsed.query)}, in the page envelope of #${reading.record_ordinal}: ${pageWords(reading)})`,
        rules: ['ES-37', 'ES-20'],
        ...(borrowedFrom.size ? { convention: [...borrowedFrom.keys()].sort().join(', ') } : {}),
      };
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
    // Issue 44: a window on a list whose own lines never paged sends the headers the API's recorded window sent.
    const conv = await readConventions(ctx);
    const apiHeaders = parsed.query.window && !template.total_headers && template.window === undefined ? conv.window_headers : null;
    if (apiHeaders) {
      linkRecord = apiHeaders.record_ordinal;
      restsOn('api-window', [apiHeaders.tool]);
    }
    const totalHeaders = template.total_headers ?? apiHeaders?.names;
    // Issue 44: envelope members that echo the window on the list that proved the window keys
    // (Redmine's `offset`, `limit`) echo it here too, where this list's envelope has them.
    if (parsed.query.window && !plan.window_echoes?.length && conv.window_echoes.length)
      shape = { ...plan, window_echoes: conv.window_echoes };
    await refuseLargerPage(ctx, shape, parsed.query, asked);
    line = {
      ...template,
      // The call's own request line: what the envelope's page links link from (page-links.ts).
      path: askedPath,
      query: call.query.length ? new URLSearchParams(call.query.map((p) => [p.name, p.value])).toString() : null,
      filter: parsed.query.filter,
      sort: parsed.query.sort,
      then_by: parsed.query.then_by,
      window: parsed.query.window,
      ...(totals.length ? { total_members: totals } : {}),
      ...(totalHeaders ? { total_headers: totalHeaders } : {}),
    };
    const from = borrowedFrom.size
      ? `the API's conventions, proved by the recorded lines of ${[...new Set([...borrowedFrom.values()].flatMap((t) => [...t]))].join(', ')}`
      : `learned from the recorded ${[...parsed.kinds.keys()].join(', ')} lines`;
    how = `${describeQuery(parsed.query)}, a query no record shows (${from}), in the envelope of #${template.record_ordinal}`;
  }
  if (line.status < 200 || line.status > 299) return null;
  // Issue 44: the app builds page links from the URL it was asked, cache-busters too (Django's
  // `next` of `?published=true&_=1712` is `?_=1712&page=2&published=true`).
  if (call.asked) line = { ...line, query: new URLSearchParams(call.asked.map((p) => [p.name, p.value])).toString() };
  // Issue 44: where the API lists null-valued entities under any equality filter, the call's do too.
  const nulls = await withNullFilters(ctx, line.filter, call);
  if (nulls.fields.length) line = { ...line, filter: nulls.filter };
  // Issue 45: a delete that cleared references may have cleared them on entities the model does not hold (null-filters.ts).
  await refuseUnheldNulls(ctx, model, plan, line.filter ?? [], asked);
  const envelope = await envelopeOf(ctx, line.record_ordinal);
  if (envelope === undefined) return null;
  const entities = await entitiesFor(
    model,
    plan.collection,
    lineQuery(line) || line.membership === 'all' ? 'all' : (line.listed_ids ?? []),
  );
  // Issue 44 kind 1: a list held whole, called with no query, grown past what its record listed,
  // in the envelope of the API's page cut (page-cut.ts), answers the cut's first page.
  const recordedList = at(envelope, plan.list_pointer);
  const cut =
    plan.default_size === undefined &&
    line.membership === 'all' &&
    !lineQuery(line) &&
    call.query.length === 0 &&
    Array.isArray(recordedList) &&
    entities.all(plan.collection).length > recordedList.length
      ? await pageCutFor(ctx, envelope)
      : undefined;
  if (cut) {
    line = { ...line, window: { offset: 0, size: cut.size }, total_members: plan.counters };
    shape = { ...shape, page_links: [cut.next] };
    restsOn('api-page-cut', [cut.tool]);
    how = `${how}, cut to the API's default page of ${cut.size} (record #${cut.record_ordinal} of ${cut.tool} showed it)`;
  }
  // Issue 44: a query no record shows lists in an order the capture showed, or not at all.
  const query = lineQuery(line);
  if (!recordedLine && query) await refuseUnknownOrder(ctx, plan, query, entities.all(plan.collection), asked);
  // Issue 44: a recorded page of a list held in part, moved by this session's writes (unseen-window.ts).
  if (recordedLine?.unseen && query)
    await refuseUnseenWindow(ctx, plan, line, applyListQuery(entities.all(plan.collection), query, plan.tool).entities, asked);
  const rendered = renderList(shape, line, envelope, entities);
  if (rendered.status !== 'rendered') return null;
  await refusePageGuess(ctx, plan, {
    line,
    call,
    asked,
    body: rendered.body,
    matched: rendered.matched,
    envelope,
    recorded: !!recordedLine,
    cut: !!cut,
  });
  if (nulls.habit && nulls.listsNull(entities.all(plan.collection), lineQuery(line), plan.tool))
    restsOn('api-null-filter', nulls.habit.tools);
  const headers: Record<string, string> = {};
  // Issue 16: a total header (X-Total-Count) counts what the query matched, as the capture shows.
  if (rendered.matched !== undefined)
    for (const h of line.total_headers ?? []) if (ctx.vocabulary.headerKind(h) === 'total') headers[h] = String(rendered.matched);
  // Issue 44: headers whose recorded values counted each line's matches or pages (WordPress's X-WP-Total, X-WP-TotalPages).
  const counts = await countHeaders(ctx, plan.tool);
  if (counts.size) {
    const shown = at(rendered.body, plan.list_pointer);
    const matched = rendered.matched ?? (Array.isArray(shown) ? shown.length : undefined);
    if (matched !== undefined)
      for (const [h, kind] of counts) headers[h] = String(kind === 'matched' ? matched : pagesOf(matched, line.window?.size));
  }
  if (rendered.matched !== undefined && line.window?.size) {
    const link = await pageLinks(
      ctx,
      linkRecord ?? line.record_ordinal,
      askedPath,
      call,
      line.window as { offset: number; size: number },
      rendered.matched,
    );
    if (link === 'none') restsOn('page-links-end');
    else if (link) headers.link = link;
  }
  return {
    status: line.status,
    value: rendered.body,
    record_ordinal: line.record_ordinal,
    request_line: asked,
    why: `rendered from state: ${plan.collection} list (${how})`,
    rules: ['ES-37'],
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(borrowedFrom.size ? { convention: [...borrowedFrom.keys()].sort().join(', ') } : {}),
  };
}

/**
 * Issue 44 kind 4: the call's pairs that lift the list's default filter as a recorded line lifted
 * it — the same key and value (Redmine's `status_id=*`) on a line the state reproduced as the
 * whole collection, or with no filter but one on the default filter's field. Another value
 * (`status_id=5`) is a filter, or not understood.
 */
function liftingPairs(plan: ListPlan, query: readonly QueryPair[]): QueryPair[] {
  const d = plan.default_filter;
  if (!d) return [];
  return query.filter(
    (p) =>
      d.lifted_by.includes(p.name) &&
      plan.lines.some(
        (l) =>
          l.reason === undefined &&
          l.query !== null &&
          new URLSearchParams(l.query).getAll(p.name).includes(p.value) &&
          (l.membership === 'all' || (l.filter ?? []).every((f) => f.field === d.field)) &&
          // WordPress's `status=draft` filters by the value; it is no lift.
          !(l.filter ?? []).some((f) => f.field === d.field && f.values.includes(p.value)),
      ),
  );
}

const PAGE_RELS = ['first', 'prev', 'next', 'last'] as const;

/**
 * Issue 16/44: a page's `Link` header, recomputed where the envelope's record sent page links:
 * the page relations the record's header named (json-server: `first`, `prev`, `next`, `last`;
 * WordPress: `prev` and `next` only; one of `prev` and `next` stands for both, the other being
 * absent on a first or last page), each where such a page exists, each the recorded link's origin
 * with the call's own path and query, its page key set to that page (added last where the call
 * named none: WordPress's `?per_page=5` links `?per_page=5&page=2`). The page key is the call's,
 * else the one the recorded links page by. Null when the record sent none; `none` for a page
 * that links nowhere (past the last, or the only one).
 */
async function pageLinks(
  ctx: ServeContext,
  ordinal: number,
  path: string,
  call: CallRequest,
  window: { offset: number; size: number },
  matched: number,
): Promise<string | 'none' | null> {
  const value = await recordedLink(ctx, ordinal);
  const links = [...(value ?? '').matchAll(/<([^>]*)>\s*;\s*rel="?([^",;]+)"?/g)].filter(([, , rel]) =>
    (PAGE_RELS as readonly string[]).includes(rel),
  );
  if (links.length === 0) return null;
  let base: URL;
  try {
    base = new URL(links[0][1]);
  } catch {
    return null;
  }
  // A window by offset or end (`_start=2&_end=5`) is no page: it links none.
  if (call.query.some((p) => ['offset', 'end'].includes(ctx.vocabulary.windowRole(p.name) ?? ''))) return null;
  const pageKey =
    call.query.find((p) => ctx.vocabulary.windowRole(p.name) === 'page')?.name ??
    [...base.searchParams.keys()].find((k) => ctx.vocabulary.windowRole(k) === 'page');
  if (!pageKey) return null;
  const named = new Set(links.map(([, , rel]) => rel));
  if (named.has('prev') || named.has('next')) named.add('prev').add('next');
  const page = pageOf(window.offset, window.size);
  const last = lastPageOf(matched, window.size);
  // Issue 44 (kind 8): a page past the last, or the only page, links nowhere — the recorded
  // links show only a page inside a longer list (decisions: "page links past the end").
  if (page > last || (last === 1 && page === 1)) return 'none';
  const target: Record<(typeof PAGE_RELS)[number], number | null> = {
    first: 1,
    prev: page > 1 ? page - 1 : null,
    next: page < last ? page + 1 : null,
    last,
  };
  const asked = call.asked ?? call.query;
  const pairs = asked.some((p) => p.name === pageKey) ? asked : [...asked, { name: pageKey, value: '' }];
  const href = (n: number) =>
    `${base.origin}${path}?${pairs.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p.name === pageKey ? String(n) : p.value)}`).join('&')}`;
  return PAGE_RELS.filter((rel) => named.has(rel) && target[rel] !== null)
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
