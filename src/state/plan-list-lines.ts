/**
 * What a list plan's recorded lines teach beside their listed ids (steps/plans.ts, `listPlan`;
 * issues 16 and 18, ES-35, ES-37): a line's query keys read as a filter, sort or window of the
 * state (`readLineQuery`), and the field a nested collection's entities carry their parent in
 * (`parentOf`). Apart from steps/plans.ts (issue 43) to keep the step's file to deciding plans.
 */
import { isObject, member } from '../model/plan/json.js';
import { singular } from '../model/plan/relations.js';
import type { ListParent, PlanLine, StateEntity } from '../model/plan/types.js';
import { applyListQuery, isListQuery, parseListQuery, type ParsedQuery, type QueryUnit } from '../model/plan/list-queries.js';
import type { Vocabulary } from '../store/vocabulary.js';
import type { ReadLine, StateFacts } from './facts.js';
import { lineName, type Ctx } from './plan-context.js';

export type LineRead =
  | { kind: 'plain'; membership: 'all' | 'recorded'; failed?: QueryUnit[]; unseen?: number }
  | { kind: 'query'; membership: 'all' | 'recorded'; line: Partial<PlanLine>; units: Map<QueryUnit, string[]> }
  | { kind: 'differs'; detail: string; units: QueryUnit[] };

/**
 * Issue 18 (ES-35, ES-37): what a list line's query keys say about its membership. A query
 * that filters, sorts or windows the collection is kept when applying it to the state
 * reproduces the listed ids in order; a line ES-35 calls `all` that lists other entities,
 * or another order, than the collection and that no query explains is `membership-differs`.
 * Only a line without a filtering key keeps ES-35's `all` (issue 44 kind 9, `filteringKey`).
 */
export function readLineQuery(
  ctx: Ctx,
  r: ReadLine,
  m: 'all' | 'recorded',
  listedIds: string[],
  all: StateEntity[],
  isField: (n: string) => boolean,
  totalsOf: Totals,
  base: { field: string; values: string[] }[] = [],
  lifting: readonly string[] = [],
  referenceOf?: (name: string) => string | undefined,
  defaultSize?: number,
): LineRead {
  const same = (ids: string[]) => ids.length === listedIds.length && ids.every((id, i) => id === listedIds[i]);
  // Issue 44 kind 9 (ES-35): a filtered line may list every entity the state holds and still
  // not be the collection; the state holds what such reads showed, so the check is circular.
  // A key that lifts the list's default filter (`status_id=*`) widens the list rather than filtering it.
  const proves = m === 'all' && filteringKey(r, ctx.facts.vocabulary, lifting) === undefined;
  // Issue 44: a key naming a reference's id (`project_id`) is read as a filter on `project.id`
  // only where that reproduces the line (Redmine's `project_id=1` also lists subprojects'
  // issues, `project_id=garden` names a project by identifier); a key that lifts the default
  // filter (`status_id=*`) names no filter of its own. Else the line reads as before.
  // A list the app cuts to a default page (plan-default-window.ts) is read as that window even without a key.
  const parse = (pairs: ReadLine['query_pairs'], refs?: (name: string) => string | undefined) =>
    pairs.length || defaultSize !== undefined ? parseListQuery(pairs, ctx.facts.vocabulary, isField, refs, undefined, defaultSize) : null;
  const reproduces = (p: ParsedQuery | null) =>
    p?.ok === true &&
    same(applyListQuery(all, { ...p.query, filter: [...base, ...(p.query.filter ?? [])] }, ctx.tool).entities.map((e) => e.id));
  const unlifted = r.query_pairs.filter((p) => !lifting.includes(p.name));
  const lifted = unlifted.length < r.query_pairs.length;
  // Only a line naming such a key is checked against other readings (the common line is read once, as before).
  const refs = referenceOf && r.query_pairs.some((p) => referenceOf(p.name) !== undefined) ? referenceOf : undefined;
  const plain = parse(r.query_pairs);
  const readings = refs || lifted ? [refs ? parse(r.query_pairs, refs) : plain, ...(lifted ? [parse(unlifted, refs)] : [])] : [];
  let parsed: ParsedQuery | null = readings.find(reproduces) ?? plain;
  if (base.length && (parsed === null || parsed.ok)) {
    // Issue 18: a nested line's parent is its first filter (the field learned by parentOf);
    // issue 44: a list's default filter (plan-default-filter.ts) comes next.
    const q = parsed?.query ?? {};
    parsed = {
      ok: true,
      kinds: parsed?.kinds ?? new Map(),
      units: parsed?.units ?? new Map(),
      query: { ...q, filter: [...base, ...(q.filter ?? [])] },
    };
  }
  if (parsed?.ok && isListQuery(parsed.query)) {
    const picked = applyListQuery(all, parsed.query, ctx.tool);
    if (same(picked.entities.map((e) => e.id))) {
      const { unseen, totals, headers } = countedTotals(totalsOf, r.record_id, picked.matched);
      const membership = proves && picked.entities.length === all.length && unseen === 0 ? 'all' : 'recorded';
      return {
        kind: 'query',
        membership,
        units: parsed.units,
        line: {
          ...parsed.query,
          ...(totals.length ? { total_members: [...new Set(totals)].sort() } : {}),
          ...(headers.length ? { total_headers: [...new Set(headers)].sort() } : {}),
          ...(unseen > 0 ? { unseen } : {}),
        },
      };
    }
    if (m === 'all') {
      const shown =
        picked.entities.length === listedIds.length ? 'another order' : `${picked.entities.length} entities, ${listedIds.length} listed`;
      return {
        kind: 'differs',
        units: [...parsed.units.keys()],
        detail: `record #${r.ordinal} (${lineName(r)}): its query read from state gives ${shown} (issue 18)`,
      };
    }
    // A page ES-35 already calls `recorded` renders the ids it listed, as before; its keys are not learned.
    return { kind: 'plain', membership: 'recorded', failed: [...parsed.units.keys()] };
  }
  if (m === 'all' && !same(all.map((e) => e.id))) {
    const why = parsed && !parsed.ok ? `; its key ${JSON.stringify(parsed.key)} is ${parsed.why}` : '';
    const shown =
      all.length === listedIds.length
        ? 'another order than the collection'
        : `${listedIds.length} of the collection's ${all.length} entities`;
    return {
      kind: 'differs',
      units: parsed?.ok ? [...parsed.units.keys()] : [],
      detail: `record #${r.ordinal} (${lineName(r)}) lists ${shown}, and no filter, sort or window explains it (issue 18)${why}`,
    };
  }
  // Issue 44: a line with no query whose total counts more than the state holds lists part of a
  // collection the capture never showed whole (a first page, its size not learned).
  const { unseen } = countedTotals(totalsOf, r.record_id, all.length);
  if (unseen > 0) return { kind: 'plain', membership: 'recorded', unseen };
  return { kind: 'plain', membership: proves ? 'all' : 'recorded' };
}

/**
 * Issue 44 kind 9 (ES-35): the first key of a line's query that filters — any key the
 * vocabulary names neither pagination, ordering (random included) nor projection: `id_like`,
 * `userId`, `q`, `status_id` — or undefined. A line read through a filter never proves the
 * whole collection: it keeps its listed ids or its learned filter (OQ-25, ES-37). A key of
 * `lifting` lifts the list's default filter (plan-default-filter.ts: Redmine's `status_id`,
 * whose `*` lists the closed issues the plain line leaves out): it widens, and is not one.
 */
function filteringKey(r: Pick<ReadLine, 'query_pairs'>, vocabulary: Vocabulary, lifting: readonly string[] = []): string | undefined {
  return r.query_pairs.find(
    (p) =>
      !vocabulary.isPagination(p.name) && !vocabulary.isOrdering(p.name) && !vocabulary.isProjection(p.name) && !lifting.includes(p.name),
  )?.name;
}

export type Totals = { members: Map<number, StateFacts['counters']>; headers: Map<number, StateFacts['pageSignals']> };

/**
 * A query line's item totals (ES-36 members, total headers) that count what the query matches in
 * the state; where none does and some count more, the least of those, `unseen` entities more:
 * the app held entities the capture never showed (issue 44: a Feathers list paged through in
 * part says `"total": 14` where the state matches 13). Those totals are then the line's, counted
 * as the state's matches plus `unseen` (render.ts), and no other query is answered from the
 * list's state. A total below the matches is no count of them: left as recorded, as before.
 */
function countedTotals(totalsOf: Totals, recordId: number, matched: number): { unseen: number; totals: string[]; headers: string[] } {
  const members = (totalsOf.members.get(recordId) ?? []).map((c) => ({ at: c.member_pointer, n: Number(c.value) }));
  const headers = (totalsOf.headers.get(recordId) ?? [])
    .filter((s) => s.total !== null)
    .map((s) => ({ at: s.name.toLowerCase(), n: Number(s.total) }));
  const counting = (n: number) => ({
    totals: members.filter((c) => c.n === n).map((c) => c.at),
    headers: headers.filter((h) => h.n === n).map((h) => h.at),
  });
  const exact = counting(matched);
  if (exact.totals.length || exact.headers.length) return { unseen: 0, ...exact };
  const more = [...members, ...headers].map((c) => c.n).filter((n) => Number.isSafeInteger(n) && n > matched);
  if (more.length === 0) return { unseen: 0, ...exact };
  const least = Math.min(...more);
  return { unseen: least - matched, ...counting(least) };
}

/**
 * Issue 18 (ES-35, ES-37): the field a nested collection's entities carry their parent in.
 * A list tool under a parent (`/posts/{id}/comments`, which the manifest gave the flat
 * `/comments` root; `/projects/{id}/memberships.json`, a root of its own) lists the entities
 * whose field equals the parent the path value names. The field is learned as list filters
 * are: the first field (those named for the parent — `postId`, `post_id`, `project` — first,
 * then the view's field order; an object field by its parent identity member, `project.id`)
 * whose filter reproduces every listed line of the tool, in order; with none, no parent is
 * learned and the lines keep their reasons. A path value naming the parent by another key
 * than its id (`/projects/garden/memberships.json`) stands for the entity the parent's own
 * item read by that value showed (`garden` → project 1).
 */
export function parentOf(
  ctx: Ctx,
  all: StateEntity[],
  membership: Map<number, 'all' | 'recorded'>,
  shownBy: Map<number, { entity_id: string }[]>,
  isField: (n: string) => boolean,
  totals: Totals,
): FoundParent | null {
  const tool = ctx.facts.tools.find((t) => t.name === ctx.tool);
  const params = [...(tool?.template.matchAll(/\{([^}]+)\}/g) ?? [])].map((m) => m[1]);
  if (!tool || params.length !== 1 || tool.ends_in_param === 1) return null;
  const listed = ctx.lines.filter((r) => membership.has(r.record_id) && ctx.facts.pathValue(r.record_id) !== undefined);
  if (listed.length === 0) return null;
  const nested = ctx.facts.parents.get(ctx.tool);
  const valueOf = (r: ReadLine) => {
    const v = ctx.facts.pathValue(r.record_id)!;
    return nested?.aliases.get(v) ?? v;
  };
  const statics = tool.template.split('/').filter((s) => s !== '' && !s.startsWith('{'));
  const parentWord = singular(statics[statics.length - 2] ?? '');
  const named = (f: string) => [`${parentWord}Id`, `${parentWord}_id`, parentWord].includes(f);
  const fields = ctx.facts.viewFields.get(`${ctx.tool}\u0000list`)?.fields ?? [];
  const byParentIdentity = (f: string) =>
    nested?.identity && all.some((e) => isObject(member(e.value, f))) ? [`${f}.${nested.identity}`, f] : [f];
  const candidates = [...fields.filter(named), ...fields.filter((f) => !named(f))].flatMap(byParentIdentity);
  const field = candidates.find((f) =>
    listed.every((r) => {
      const ids = (shownBy.get(r.record_id) ?? []).map((o) => o.entity_id);
      return (
        readLineQuery(ctx, r, membership.get(r.record_id)!, ids, all, isField, totals, [{ field: f, values: [valueOf(r)] }]).kind ===
        'query'
      );
    }),
  );
  if (field === undefined) return null;
  return { param: params[0], field, valueOf, ...(nested && nested.aliases.size > 0 ? { collection: nested.collection } : {}) };
}

/** A learned parent: the plan's `parent`, and the parent id each recorded line's path value names. */
export type FoundParent = ListParent & { valueOf: (r: ReadLine) => string };
