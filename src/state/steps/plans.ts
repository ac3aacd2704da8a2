/**
 * @rule ES-37, ES-25, OQ-27, OQ-31, DOC-6
 * Forming plans, a step of the state pass: one render plan per read tool, kept only when
 * rendering gives back each request line's latest initial record (ES-37) with one shared
 * envelope (ES-25); a GET list tool without one gets a document (steps/documents.ts,
 * DOC-2..DOC-5); and the record reasons, the first that applies by precedence (DOC-6,
 * OQ-26..OQ-31). The views decide which reads are initial, where entities and lists sit,
 * identity, membership and counters; rendering itself is the model's
 * (src/model/plan/render.ts); this step renders and compares. What a plan states of its view
 * is ../plan-view-base.ts, what a list's lines teach (queries, a nested list's parent)
 * ../plan-list-lines.ts, and the context all of them share ../plan-context.ts.
 */
import type { JsonValue } from '../../json/exact.js';
import type { MergedTypes } from './merge-entities.js';
import { lineKey, type ReadLine, type StateFacts } from '../facts.js';
import { at, isObject, jsonEqual, keysOf, member } from '../../model/plan/json.js';
import { alternateKeyOf, collectionsOf, envelopeTemplate, renderItem, renderList, replaceShown, shownAt } from '../../model/plan/render.js';
import { REASON_PRECEDENCE, type ItemPlan, type ListPlan, type Plan, type PlanLine, type StateDocument } from '../../model/plan/types.js';
import type { Shaping } from '../../model/plan/variants.js';
import { childPointer } from '../../json/pointer.js';
import { applyListQuery, keyReaders } from '../../model/plan/list-queries.js';
import { UnitLearning } from '../../model/plan/unit-learning.js';
import {
  MAX_RENDERED_BYTES,
  lineName,
  noInitialDetail,
  ok,
  renderedBytes,
  unusableLines,
  type Ctx,
  type Outcome,
} from '../plan-context.js';
import { pageEnvelopeOf } from '../plan-page-envelope.js';
import { viewBase } from '../plan-view-base.js';
import { parentOf, readLineQuery } from '../plan-list-lines.js';
import { documentOf } from './documents.js';
import { emptyListCounters, emptyListIsWhole, emptyListPointer, laterItemView, laterListFields } from '../plan-empty-start.js';
import { windowEchoes } from '../plan-window-echoes.js';
import { pageLinksOf } from '../plan-page-links.js';
import { listDefaults } from '../plan-list-defaults.js';

/** Statuses that answer for an absent entity (the gate's "checked absence"). */
const ABSENCE = new Set([400, 404, 410]);

function recordPlan(tool: string, o: Outcome): Plan {
  const first = REASON_PRECEDENCE.map((r) => o.reasons.find((x) => x.reason === r)).find((x) => x !== undefined)!;
  return { tool, kind: 'record', reason: first.reason, detail: first.detail };
}

/** Request lines (path + query) of a tool's initial reads, each with its latest initial record (OQ-35). */
function latestPerLine(initial: ReadLine[]): ReadLine[] {
  const latest = new Map<string, ReadLine>();
  for (const r of initial) latest.set(lineKey(r), r);
  return [...latest.values()].sort((a, b) => a.timeline_position - b.timeline_position);
}

/** The first pointer where two values differ, for a reason's detail. */
function firstDifference(a: JsonValue | undefined, b: JsonValue | undefined, pointer = ''): string {
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...keysOf(a), ...keysOf(b)])) {
      const [x, y] = [member(a, k), member(b, k)];
      if (!jsonEqual(x, y)) return firstDifference(x, y, childPointer(pointer, k));
    }
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${pointer || 'the root'} (${a.length} items rendered, ${b.length} recorded)`;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return firstDifference(a[i], b[i], `${pointer}/${i}`);
  }
  return pointer === '' ? '(the whole body)' : pointer;
}

export interface PlanResult {
  plans: Plan[];
  documents: StateDocument[];
}

export function planTools(facts: StateFacts, merged: MergedTypes, shaping: Shaping): PlanResult {
  const names = new Map(merged.types.map((t) => [t.root_path, t.collection]));
  const identityOf = new Map(facts.identities.map((t) => [t.root_path, t]));
  const state = collectionsOf(merged.entities);
  const plans: Plan[] = [];
  const documents: StateDocument[] = [];
  const readsByTool = new Map<string, ReadLine[]>();
  for (const r of facts.reads) {
    const list = readsByTool.get(r.tool) ?? [];
    list.push(r);
    readsByTool.set(r.tool, list);
  }

  for (const tool of facts.tools) {
    const reads = readsByTool.get(tool.name);
    if (!reads) continue; // a write tool: plans are per read tool
    if (tool.method.toUpperCase() !== 'GET') {
      // OQ-28: only GET tools get item, list or document plans; other read tools are listed.
      plans.push({
        tool: tool.name,
        kind: 'record',
        reason: 'not-planned',
        detail: `${tool.method} tools are answered from their records`,
      });
      continue;
    }
    const initialAll = reads.filter((r) => r.is_initial);
    const initial = initialAll.filter((r) => !shaping.excluded.has(r.record_id));
    const lines = latestPerLine(initial);
    const viewShaping = shaping.byTool.get(tool.name) ?? {
      projected_record_ordinals: [],
      projected_query_keys: [],
      projection_values: { checked: [], replayed: [] },
    };
    const identity = identityOf.get(tool.root_path);
    const collection = names.get(tool.root_path);
    const obs = merged.observationsByTool.get(tool.name) ?? [];
    const ctx: Ctx = { facts, state, tool: tool.name, lines, obs, collection: collection!, initial, initialAll, shaping: viewShaping };

    if (tool.ends_in_param === 1) {
      // DOC-6: `no-identity` names item tools only; item-shaped paths get no documents yet (DOC-1, §13).
      const reasons: Outcome['reasons'] = [];
      if (!identity) reasons.push({ reason: 'no-identity', detail: `no identity field is known for ${tool.root_path}` });
      else if (initial.length > 0 && obs.length === 0) {
        reasons.push({
          reason: 'no-identity',
          detail: `no initial read shows an entity repeating its path value in ${identity.identity_field}`,
        });
      }
      if (initial.length === 0) reasons.push({ reason: 'no-initial-record', detail: noInitialDetail(reads, initialAll.length) });
      // OQ-11 (5): an item tool of a type that starts empty, read only after the session's writes (plan-empty-start.ts).
      const later = identity ? laterItemView(ctx) : undefined;
      if (later) {
        plans.push({ tool: tool.name, kind: 'item', ...viewBase(ctx, [], 'all'), ...later, membership: null, counters: [] });
        continue;
      }
      const plan = reasons.length ? null : itemPlan(ctx, reasons);
      plans.push(plan && reasons.length === 0 ? plan : recordPlan(tool.name, { reasons }));
      continue;
    }

    // OQ-11 (5): an initial `[]` is the list where the tool's later reads list there (plan-empty-start.ts).
    const emptyAt = identity && !obs.some((o) => o.view_kind === 'list') ? emptyListPointer(ctx) : undefined;
    if (identity && (emptyAt !== undefined || obs.some((o) => o.view_kind === 'list'))) {
      const reasons: Outcome['reasons'] = [];
      const plan = listPlan(ctx, reasons, emptyAt);
      plans.push(plan && reasons.length === 0 ? plan : recordPlan(tool.name, { reasons }));
      continue;
    }

    // DOC-2: a GET list tool that forms no entity plan saves its latest initial value as a document.
    const reasons: Outcome['reasons'] = [];
    const doc = documentOf(ctx, reads, reasons);
    if (doc && reasons.length === 0) {
      documents.push(doc);
      plans.push({ tool: tool.name, kind: 'document', path: doc.path, record_ordinal: doc.record_ordinal });
    } else plans.push(recordPlan(tool.name, { reasons }));
  }
  return { plans, documents };
}

/**
 * Issue 44 (ES-20's reading for envelopes): lines whose list sits at another place than the
 * plain list's, each naming a query key no line at the plain list's place names — json-server
 * 1.0 answers `/posts` as the bare array and `/posts?_page=1&_per_page=3` as
 * `{"first": 1, …, "data": […]}`. Those keys pick another representation: the lines leave the
 * plan (their records replay, as a variant's do) and a call naming such a key replays. The
 * plain list's place is that of the lines naming no query key. Null when the places are not so
 * explained (no plain line, plain lines at two places, or a line at another place naming no key
 * of its own): the tool stays a record view.
 */
function envelopeVariants(ctx: Ctx, pointerOf: Map<number, string>): Ctx | null {
  const plain = new Set(
    ctx.lines.filter((r) => r.query_pairs.length === 0 && pointerOf.has(r.record_id)).map((r) => pointerOf.get(r.record_id)),
  );
  if (plain.size !== 1) return null;
  const [base] = plain;
  const isVariant = (r: ReadLine) => pointerOf.has(r.record_id) && pointerOf.get(r.record_id) !== base;
  const baseNames = new Set(ctx.initial.filter((r) => !isVariant(r)).flatMap((r) => r.query_pairs.map((q) => q.name)));
  const keys = new Set<string>();
  for (const r of ctx.initial.filter(isVariant)) {
    const own = r.query_pairs.map((q) => q.name).filter((n) => !baseNames.has(n));
    if (own.length === 0) return null;
    for (const n of own) keys.add(n);
  }
  const variants = ctx.lines.filter(isVariant);
  const known = new Set(ctx.shaping.projected_query_keys.map((k) => k.name));
  return {
    ...ctx,
    lines: ctx.lines.filter((r) => !isVariant(r)),
    initial: ctx.initial.filter((r) => !isVariant(r)),
    shaping: {
      ...ctx.shaping,
      projected_record_ordinals: [...ctx.shaping.projected_record_ordinals, ...variants.map((r) => r.ordinal)].sort((a, b) => a - b),
      projected_query_keys: [...ctx.shaping.projected_query_keys, ...[...keys].filter((n) => !known.has(n)).map((name) => ({ name }))].sort(
        (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      ),
    },
  };
}

/** ES-37: every line's render must equal its latest initial record; envelopes must be shared (ES-25). */
function checkLines(ctx: Ctx, plan: ItemPlan | ListPlan, reasons: Outcome['reasons']): void {
  let template: { value: JsonValue | undefined; line: PlanLine } | null = null;
  let shared = true;
  for (const line of plan.lines) {
    const r = ctx.lines.find((l) => l.ordinal === line.record_ordinal)!;
    let recorded = ctx.facts.bodyValue(r.response_body_id);
    if (!ok(line.status)) {
      const absent = plan.kind === 'item' && ABSENCE.has(line.status) && ctx.state.entity(plan.collection, line.id!) === undefined;
      if (!absent)
        reasons.push({
          reason: 'fields-differ',
          detail: `record #${line.record_ordinal} (${lineName(line)}) answered ${line.status}, which the state cannot render`,
        });
      continue;
    }
    if (recorded === undefined) continue; // reported as body-unusable
    const rendered = plan.kind === 'item' ? renderItem(plan, line, recorded, ctx.state) : renderList(plan, line, recorded, ctx.state);
    // Issue 16: what the line's query embeds is checked by serving's relations (src/model/served/relations.ts),
    // not here; the rendered entities hold no embedded member (the merge kept them out).
    if (plan.embedded_members) recorded = withoutEmbeddedAt(ctx, plan, r.record_id, recorded);
    if (rendered.status === 'entity-absent') {
      reasons.push({
        reason: 'fields-differ',
        detail: `record #${line.record_ordinal} (${lineName(line)}) shows an entity the state does not hold`,
      });
      continue;
    }
    if (rendered.status === 'link-unknown') {
      reasons.push({ reason: 'fields-differ', detail: `record #${line.record_ordinal} does not show ${rendered.detail}` });
      continue;
    }
    if (renderedBytes(rendered.body) > MAX_RENDERED_BYTES) {
      reasons.push({ reason: 'rendered-oversize', detail: `rendering ${lineName(line)} exceeds ${MAX_RENDERED_BYTES} bytes (DOC-4)` });
      continue;
    }
    if (!jsonEqual(rendered.body, recorded)) {
      reasons.push({
        reason: 'fields-differ',
        detail: `rendering ${lineName(line)} differs from record #${line.record_ordinal} at ${firstDifference(rendered.body, recorded)}`,
      });
      continue;
    }
    const t = envelopeTemplate(plan, recorded, line);
    if (template === null) template = { value: t, line };
    else if (!jsonEqual(template.value, t)) {
      shared = false;
      reasons.push({
        reason: 'fields-differ',
        detail: `the envelopes of ${lineName(template.line)} and ${lineName(line)} differ at ${firstDifference(template.value, t)} (ES-25)`,
      });
    }
  }
  plan.shared_envelope = shared;
}

/** A line's body with its entity (or each listed object) less the members the line's query embeds. */
function withoutEmbeddedAt(ctx: Ctx, plan: ItemPlan | ListPlan, recordId: number, body: JsonValue): JsonValue {
  const shown = shownAt(plan, body);
  return shown
    ? replaceShown(
        plan,
        body,
        shown.map((o) => ctx.facts.ownObject(recordId, o)),
      )
    : body;
}

function itemPlan(ctx: Ctx, reasons: Outcome['reasons']): ItemPlan | null {
  unusableLines(ctx, reasons, (r) => ok(r.status));
  const located = new Map(ctx.facts.observations.filter((o) => o.tool === ctx.tool).map((o) => [o.record_id, o.entity_pointer]));
  const pointers = [...new Set(ctx.lines.map((l) => located.get(l.record_id)).filter((p): p is string => p !== undefined))];
  if (pointers.length > 1) {
    reasons.push({ reason: 'fields-differ', detail: `the item sits at different places in different records: ${pointers.join(', ')}` });
    return null;
  }
  const lines: PlanLine[] = [];
  for (const r of ctx.lines) {
    const id = ctx.facts.pathValue(r.record_id);
    lines.push({ path: r.path, query: r.query, record_ordinal: r.ordinal, status: r.status, ...(id !== undefined ? { id } : {}) });
    if (ok(r.status) && ctx.facts.bodyUsable(r.response_body_id) && !located.has(r.record_id)) {
      reasons.push({ reason: 'fields-differ', detail: `record #${r.ordinal} (${lineName(r)}) does not show the entity its path names` });
    }
  }
  // Issue 18: reads naming the entity by another member than its identity (an alternate key).
  const itemObs = new Map(ctx.obs.filter((x) => x.view_kind === 'item').map((x) => [x.record_id, x]));
  const named = ctx.lines.flatMap((r) => {
    const o = itemObs.get(r.record_id);
    const path_value = ctx.facts.pathValue(r.record_id);
    return o && path_value !== undefined && ok(r.status) ? [{ path_value, entity_id: o.entity_id }] : [];
  });
  const alternate = alternateKeyOf(ctx.state, ctx.collection, named);
  const plan: ItemPlan = {
    tool: ctx.tool,
    kind: 'item',
    ...viewBase(ctx, ctx.obs, 'all'),
    ...(alternate !== undefined ? { alternate_key: alternate } : {}),
    entity_pointer: pointers[0] ?? '',
    membership: null,
    counters: [],
    lines,
  };
  if (reasons.length === 0) checkLines(ctx, plan, reasons);
  return plan;
}

function listPlan(whole: Ctx, reasons: Outcome['reasons'], emptyAt?: string): ListPlan | null {
  unusableLines(whole, reasons, () => true);
  const initialIds = new Set(whole.initial.map((r) => r.record_id));
  let listReads = whole.facts.listReads.filter((l) => initialIds.has(l.record_id));
  const pointers = [...new Set(listReads.map((l) => l.list_pointer))];
  let ctx = whole;
  if (pointers.length > 1) {
    const split = envelopeVariants(whole, new Map(listReads.map((l) => [l.record_id, l.list_pointer])));
    if (!split) {
      reasons.push({ reason: 'fields-differ', detail: `the list sits at different places in different records: ${pointers.join(', ')}` });
      return null;
    }
    ctx = split;
    const kept = new Set(ctx.initial.map((r) => r.record_id));
    listReads = listReads.filter((l) => kept.has(l.record_id));
  }
  const listPointer = listReads[0]?.list_pointer ?? emptyAt ?? '';
  const membership = new Map(ctx.facts.membership.map((m) => [m.record_id, m.membership]));
  let counters = [
    ...new Set(ctx.facts.counters.filter((c) => initialIds.has(c.record_id) && c.is_counter === 1).map((c) => c.member_pointer)),
  ].sort();
  const listObs = ctx.obs.filter((o) => o.view_kind === 'list');
  const all = ctx.state.all(ctx.collection);
  const { isField, referenceOf } = keyReaders(ctx.facts.viewFields.get(`${ctx.tool}\u0000list`)?.fields ?? [], all);
  const byRecord = <T extends { record_id: number }>(rows: T[]) => {
    const m = new Map<number, T[]>();
    for (const r of rows) (m.get(r.record_id) ?? m.set(r.record_id, []).get(r.record_id)!).push(r);
    return m;
  };
  const totals = { members: byRecord(ctx.facts.counters), headers: byRecord(ctx.facts.pageSignals) };
  const shownBy = byRecord(ctx.facts.observations.filter((o) => o.tool === ctx.tool));
  const parent = parentOf(ctx, all, membership, shownBy, isField, totals);
  const parentFilter = (r: ReadLine) => (parent ? { field: parent.field, value: parent.valueOf(r) } : undefined);
  // Issue 44: what the list shows unless asked: a default filter, page size and order (plan-list-defaults.ts).
  const listedOf = (r: ReadLine) => (shownBy.get(r.record_id) ?? []).map((o) => o.entity_id);
  const { defaults, defaultSize, orders, baseFilters } = listDefaults(ctx, {
    membership,
    listedOf,
    all,
    isField,
    referenceOf,
    totals,
    parentFilter,
  });
  const lines: PlanLine[] = [];
  const units = new UnitLearning();
  for (const r of ctx.lines) {
    const base = { path: r.path, query: r.query, record_ordinal: r.ordinal, status: r.status };
    const m = membership.get(r.record_id);
    if (m) {
      const listedIds = (shownBy.get(r.record_id) ?? []).map((o) => o.entity_id);
      const read = readLineQuery(ctx, r, m, listedIds, all, isField, totals, baseFilters(r), defaults?.lifted_by, referenceOf, defaultSize);
      if (read.kind === 'query') {
        units.learn(read.units);
        lines.push({
          ...base,
          membership: read.membership,
          ...(read.membership === 'recorded' ? { listed_ids: listedIds } : {}),
          ...read.line,
        });
        continue;
      }
      if (read.kind === 'differs') {
        units.fail(read.units);
        lines.push({ ...base, membership: 'recorded', listed_ids: listedIds, reason: 'membership-differs', detail: read.detail });
        continue;
      }
      units.fail(read.failed ?? []);
      lines.push({
        ...base,
        membership: read.membership,
        ...(read.membership === 'recorded' ? { listed_ids: listedIds } : {}),
        ...(read.unseen ? { unseen: read.unseen } : {}),
      });
      continue;
    }
    // IDN-3 / OQ-11 (5): an empty list constrains nothing; it renders what it recorded (nothing).
    const body = ctx.facts.bodyValue(r.response_body_id);
    const list = body === undefined ? undefined : at(body, listPointer);
    const emptyParent = parentFilter(r);
    if (
      Array.isArray(list) &&
      list.length === 0 &&
      emptyParent &&
      r.query_pairs.length === 0 &&
      applyListQuery(all, { filter: [{ field: emptyParent.field, values: [emptyParent.value] }] }, ctx.tool).entities.length === 0
    ) {
      // Issue 18: a parent without members lists what its parent filter picks (nothing, until a write adds one).
      lines.push({ ...base, membership: 'recorded', listed_ids: [], filter: [{ field: emptyParent.field, values: [emptyParent.value] }] });
    } else if (Array.isArray(list) && list.length === 0) {
      // ES-35: a plain `[]` of a collection the state holds nothing of shows all of it (plan-empty-start.ts).
      const whole =
        !emptyParent && r.query_pairs.length === 0 && all.length === 0 && emptyListIsWhole(body!, listPointer, ctx.facts.vocabulary);
      lines.push(whole ? { ...base, membership: 'all' } : { ...base, membership: 'recorded', listed_ids: [] });
      // ES-36: its item totals (0, as it lists) are counters, where no listing line named any.
      if (whole && counters.length === 0) counters = emptyListCounters(body!, ctx.facts.vocabulary);
    } else {
      lines.push(base);
      if (ok(r.status) && body !== undefined)
        reasons.push({
          reason: 'fields-differ',
          detail: `record #${r.ordinal} (${lineName(r)}) has no list at ${listPointer || 'the root'}`,
        });
    }
  }
  if (lines.length > 0 && lines.every((l) => l.reason === 'membership-differs')) {
    reasons.push({ reason: 'membership-differs', detail: `no request line's list is one the state reproduces: ${lines[0].detail}` });
  }
  // Issue 16: a query key is answered for any value only when every line using its unit reproduced.
  const listQueries = units.queries();
  const hasQueries = listQueries.filter.length + listQueries.sort.length + listQueries.window.length > 0;
  const echoes = windowEchoes(ctx, ctx.lines, listPointer);
  const links = pageLinksOf(ctx, ctx.lines, listPointer);
  const plan: ListPlan = {
    tool: ctx.tool,
    kind: 'list',
    ...viewBase(ctx, listObs, 'list'),
    ...(emptyAt !== undefined ? laterListFields(ctx, emptyAt) : {}),
    ...(hasQueries ? { list_queries: listQueries } : {}),
    ...(parent
      ? {
          parent: {
            param: parent.param,
            field: parent.field,
            ...(parent.collection !== undefined ? { collection: parent.collection } : {}),
          },
        }
      : {}),
    ...(echoes.length ? { window_echoes: echoes } : {}),
    // Page links are rendered for lines read as windows of the state only; a list no line of which
    // is one keeps comparing them as data (ES-25) and replays, as before.
    ...(links.length && lines.some((l) => l.window !== undefined) ? { page_links: links } : {}),
    ...(defaults ? { default_filter: defaults } : {}),
    ...(defaultSize !== undefined ? { default_size: defaultSize } : {}),
    ...(orders.length ? { default_order: orders } : {}),
    list_pointer: listPointer,
    membership: lines.every((l) => l.membership === 'all') ? 'all' : 'recorded',
    counters,
    lines,
  };
  if (reasons.length === 0) checkLines(ctx, plan, reasons);
  // Issue 44: a page ES-20 set apart may be a page envelope its window explains.
  const page = ctx === whole ? undefined : pageEnvelopeOf(whole, ctx, plan, isField, baseFilters);
  if (page) plan.page_envelope = page;
  return plan;
}
