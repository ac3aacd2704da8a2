/**
 * Issue 44 (kinds 1 and 8): a list's recorded page that ES-20 set apart as a variant (its list
 * sits at another place than the plain list's), read as a page envelope its window explains
 * (src/model/plan/page-envelope.ts) and kept only when the reading renders the recorded page
 * from the state exactly as recorded. json-server 1.0's `/posts?_page=1&_per_page=3`.
 */
import { explainPage, renderPage } from '../model/plan/page-envelope.js';
import { jsonEqual } from '../model/plan/json.js';
import { parseListQuery } from '../model/plan/list-queries.js';
import type { ListPlan, PageEnvelope } from '../model/plan/types.js';
import type { Ctx } from './plan-context.js';

/**
 * The page envelope of `plan` (its lines already checked) from the initial records `whole` held
 * and `ctx` set apart, or undefined. `isField` is the list's field test; `baseFilters` the
 * filters a line carries by itself (a nested list's parent, a default filter).
 */
export function pageEnvelopeOf(
  whole: Ctx,
  ctx: Ctx,
  plan: ListPlan,
  isField: (name: string) => boolean,
  baseFilters: (r: Ctx['lines'][number]) => { field: string; values: string[] }[],
): PageEnvelope | undefined {
  const root = ctx.facts.tools.find((t) => t.name === ctx.tool)?.root_path;
  const identity = ctx.facts.identities.find((t) => t.root_path === root)?.identity_field;
  if (identity === undefined) return undefined;
  const kept = new Set(ctx.initial.map((r) => r.record_id));
  const all = ctx.state.all(ctx.collection);
  for (const r of whole.initial) {
    if (kept.has(r.record_id) || r.status < 200 || r.status > 299) continue;
    if (!r.query_pairs.some((p) => ctx.facts.vocabulary.windowRole(p.name) === 'page')) continue;
    const parsed = parseListQuery(r.query_pairs, ctx.facts.vocabulary, isField);
    const body = ctx.facts.bodyValue(r.response_body_id);
    if (!parsed.ok || !parsed.query.window?.size || body === undefined) continue;
    const query = { ...parsed.query, filter: [...baseFilters(r), ...(parsed.query.filter ?? [])] };
    const reading = explainPage(body, identity, query, all, plan, r.ordinal, parsed.kinds.get('window') ?? []);
    if (reading && jsonEqual(renderPage(reading, body, plan, query, all), body)) return reading;
  }
  return undefined;
}
