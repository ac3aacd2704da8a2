/**
 * Issue 44 (ES-37 beside a whole list): query keys learned from a filtered read and the whole
 * list the app gave just before it. The state pass learns a list's keys from its initial lines
 * (plans.ts), and check-effects from reads after writes the model applied (later-queries.ts).
 * A session whose writes the model cannot apply — Alertmanager's `POST /api/v2/alerts` answers
 * an empty 200, and the app fingerprints the alerts itself — taught neither, so its read of
 * `/api/v2/alerts?filter=alertname="DiskFull"` answered that exact query string only.
 *
 * But where the capture reads the whole list (no query key) and then, with no write of any kind
 * between (a silence changes what the alerts list says), the same list with a query, the first
 * read shows the collection the second was taken from. A filter or sort key is learned when
 * applying the query to the entities the whole read listed (in its order, as it shows them)
 * gives the ids the query's read listed, in order, on every such pair naming it — the rule the
 * state pass applies to initial lines against the state. Nothing here reads the model: the
 * two records alone decide it. Windows are not learned (their totals come from a plan line's
 * record, ES-36), nor keys a line of the plan named where the state did not reproduce it.
 */
import type { JsonValue } from '../../json/exact.js';
import { at } from '../plan/json.js';
import { applyListQuery, readListQuery } from '../plan/list-queries.js';
import { UnitLearning } from '../plan/unit-learning.js';
import { matcherKeyParts } from '../plan/label-matchers.js';
import type { ListPlan, StateEntity } from '../plan/types.js';
import type { ServeContext } from './context.js';
import { servedState } from './from-state.js';
import { idIn } from './ids.js';
import { storeLaterQueries, type LaterQueries } from './later-queries.js';
import { servedTypes } from './model.js';
import { isWriteTool, jsonValueOf, readBody, toolRecords, type ToolRecord } from './records.js';

/** Learns, and stores into the list plans, the keys each filtered read reproduced beside the whole list read before it. */
export async function learnPairedQueries(ctx: ServeContext): Promise<void> {
  const state = await servedState(ctx);
  if (!state) return;
  const types = await servedTypes(ctx);
  // The lists a pair may teach, with their identity; a long capture's other records are not read.
  const lists = new Map<string, { plan: ListPlan; identity: string }>();
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET') continue;
    const plan = await state.plan(tool.name);
    // A nested list's parent, a default filter and a page envelope need the plan's own lines (plans.ts).
    // A list the state pass proved whole only: one the app cuts to a default page is no collection to filter.
    if (plan?.kind !== 'list' || plan.membership !== 'all' || plan.parent || plan.default_filter || plan.page_envelope) continue;
    const identity = types.find((t) => t.collection === plan.collection)?.identity;
    const records = await toolRecords(ctx, tool.name);
    if (identity !== undefined && records.some((r) => r.query_pairs.length > 0)) lists.set(tool.name, { plan, identity });
  }
  if (lists.size === 0) return;
  // Every write record, answered or not (one that failed may still have reached the app), and the lists' 2xx reads.
  const events: ToolRecord[] = [];
  for (const tool of ctx.manifest.tools) if (isWriteTool(ctx, tool)) events.push(...(await toolRecords(ctx, tool.name)));
  for (const tool of lists.keys()) events.push(...(await toolRecords(ctx, tool)).filter((r) => r.status >= 200 && r.status <= 299));
  events.sort((a, b) => a.timeline_position - b.timeline_position);

  const units = new Map<string, UnitLearning>();
  /** Per list tool, its latest whole read since the last write of the capture. */
  const whole = new Map<string, ToolRecord>();
  /** A long session reads the same pair again and again: each (whole body, query, body) is judged once. */
  const judged = new Set<string>();
  const listed = new Map<number, StateEntity[] | undefined>();
  const entitiesOf = async (r: ToolRecord, plan: ListPlan, identity: string) => {
    if (!listed.has(r.response_body_id))
      listed.set(
        r.response_body_id,
        listedEntities(plan, identity, jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type))),
      );
    return listed.get(r.response_body_id);
  };
  for (const record of events) {
    const list = lists.get(record.tool);
    // Any write may change any list (a silence changes the alerts it silences): every pair restarts.
    if (!list) {
      whole.clear();
      // Bodies read before the write are not paired again: only the entities since the last write are kept.
      listed.clear();
      continue;
    }
    if (record.query_pairs.length === 0) {
      whole.set(record.tool, record);
      continue;
    }
    const { plan, identity } = list;
    // Keys the list learned already teach nothing new (a long session repeats its reads).
    const own = plan.list_queries;
    if (own && record.query_pairs.every((p) => own.filter.includes(p.name) || own.sort.includes(p.name) || own.window.includes(p.name)))
      continue;
    const before = whole.get(record.tool);
    const key = `${record.tool}\u0000${before?.response_body_id}\u0000${record.query}\u0000${record.response_body_id}`;
    if (!before || judged.has(key)) continue;
    judged.add(key);
    const all = await entitiesOf(before, plan, identity);
    const shown = await entitiesOf(record, plan, identity);
    if (!all || !shown) continue;
    const parsed = readListQuery(record.query_pairs, ctx.vocabulary, plan.fields, all, plan.default_size);
    if (!parsed.ok || parsed.query.window !== undefined) continue;
    const learning = units.get(record.tool) ?? units.set(record.tool, new UnitLearning()).get(record.tool)!;
    if (learning.allFailed(parsed.units.keys())) continue;
    learning.judge(
      parsed.units,
      applyListQuery(all, parsed.query, record.tool).entities.map((e) => e.id),
      shown.map((e) => e.id),
    );
  }
  const learned: LaterQueries[] = [];
  for (const [tool, learning] of [...units].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { plan } = lists.get(tool)!;
    const q = learning.queries();
    // A key a line of the plan named where the state did not reproduce it: the capture shows this list answers it otherwise.
    const refuted = new Set(
      plan.lines.filter((l) => l.reason !== undefined).flatMap((l) => [...new URLSearchParams(l.query ?? '').keys()]),
    );
    const keep = (keys: string[]) => keys.filter((k) => !refuted.has(matcherKeyParts(k)?.key ?? k));
    const list_queries = { ...q, filter: keep(q.filter), sort: keep(q.sort) };
    if (list_queries.filter.length + list_queries.sort.length > 0) learned.push({ tool, list_queries });
  }
  await storeLaterQueries(ctx, learned);
}

/** The entities a list read shows, in its order (as it shows them); undefined where one has no id, or two the same. */
export function listedEntities(plan: ListPlan, identity: string, body: JsonValue | undefined): StateEntity[] | undefined {
  const list = body === undefined ? undefined : at(body, plan.list_pointer);
  if (!Array.isArray(list)) return undefined;
  const out: StateEntity[] = [];
  const seen = new Set<string>();
  for (const [i, o] of list.entries()) {
    const id = idIn(o, identity);
    if (id === undefined || seen.has(id)) return undefined;
    seen.add(id);
    out.push({ collection: plan.collection, id, value: o, view_values: {}, state_order: i, record_ordinals: [] });
  }
  return out;
}
