/**
 * Issue 44: a filtered read after writes the model did not apply, answered from the whole
 * list the capture read after the same writes. When this session's writes are the capture's
 * own, in order (write-log.ts `currentWindow`), the app stands where it stood after them, and
 * the capture's latest read of the whole list (no query key) made then shows the collection.
 * A query whose every key the list learned (paired-queries.ts, plans.ts) is applied to the
 * entities that read listed, as it showed them, in its order: Alertmanager's
 * `/api/v2/alerts?filter=severity="critical"` after the capture's own alerts and silences.
 *
 * Only a bare array (or an envelope with no counter to recount) and no window: totals, pages
 * and links come from a plan line's record (ES-36), which this answer does not have.
 */
import { replaceAt } from '../plan/json.js';
import { applyListQuery, habitsLearned, isListQuery, readListQuery, unlearnedKeys } from '../plan/list-queries.js';
import type { ListPlan } from '../plan/types.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from './context.js';
import type { CallRequest } from './input-schema.js';
import type { ServedModel } from './model.js';
import { servedTypes } from './model.js';
import { listedEntities } from './paired-queries.js';
import type { StateAnswer } from './read-index.js';
import { jsonValueOf, readBody, requestLine, toolRecords } from './records.js';
import { currentWindow, inWindow } from './write-log.js';

/** The call answered from the latest whole-list record after the same writes, or null. */
export async function pairedWindowAnswer(
  ctx: ServeContext,
  tool: ManifestTool,
  plan: ListPlan,
  call: CallRequest,
  model: ServedModel,
  asked: string,
): Promise<StateAnswer | null> {
  const learned = plan.list_queries;
  // A list the state pass proved whole (`all`): a list the app cuts to a default page would be
  // filtered from its first page only, where the app filters the whole collection.
  if (!learned || call.query.length === 0 || plan.membership !== 'all' || plan.parent || plan.default_filter || plan.counters.length > 0)
    return null;
  const window = await currentWindow(ctx, model.writes);
  if (window === null || window === 'stale') return null;
  const whole = (await toolRecords(ctx, tool.name))
    .filter((r) => r.query_pairs.length === 0 && r.status >= 200 && r.status <= 299 && inWindow(r, window))
    .at(-1);
  const identity = (await servedTypes(ctx)).find((t) => t.collection === plan.collection)?.identity;
  if (!whole || identity === undefined) return null;
  const body = jsonValueOf(await readBody(ctx, whole.response_body_id, whole.response_media_type));
  const all = listedEntities(plan, identity, body);
  if (!all || body === undefined) return null;
  const parsed = readListQuery(call.query, ctx.vocabulary, plan.fields, all, plan.default_size);
  if (!parsed.ok || !isListQuery(parsed.query) || parsed.query.window !== undefined) return null;
  // Every key one the list learned (its own lines proved them), and no habit it did not learn.
  if (unlearnedKeys(parsed, learned).length > 0 || !habitsLearned(parsed, learned)) return null;
  const picked = applyListQuery(all, parsed.query, tool.name).entities.map((e) => e.value);
  return {
    status: whole.status,
    value: replaceAt(body, plan.list_pointer, picked),
    record_ordinal: whole.ordinal,
    request_line: asked,
    why: `the whole list the capture read after its write #${window.k} (#${whole.ordinal}, ${requestLine(whole)}), as its learned keys read it: this session's writes are the capture's own, in order`,
    rules: ['ES-37', 'ES-8'],
  };
}
