/**
 * Issue 44 (ES-37 after writes): query keys learned from the capture's reads after its own
 * writes. The state pass learns a list's filter and sort keys from its initial lines only, the
 * ones made before the first write to its type (ES-8). An app whose session starts empty
 * (OQ-11 (5): `GET /todos` is `[]`, then the session creates todos and reads
 * `/todos?done=false`) has no initial line naming a key, so every filtered read after the
 * creates was replayed for that exact query string alone.
 *
 * check-effects replays the capture in order against the model its verified writes change;
 * where such a read comes after only verified writes under its type, the model stands where
 * the app stood. A filter or sort key is learned when applying the read's query to the model
 * then reproduces the ids the read listed, in order, on every such read naming it — the rule
 * the state pass applies to initial lines (plans.ts, `learnedUnits`). A read after a write the
 * model did not apply teaches nothing (the model does not stand where the app did). Windows
 * are not learned here: their totals and links come from a plan line's record (ES-36).
 */
import type { ManifestTool } from '../../manifest/read.js';
import { at } from '../plan/json.js';
import { applyListQuery, readListQuery, withListQueries } from '../plan/list-queries.js';
import { UnitLearning } from '../plan/unit-learning.js';
import type { ListQueries } from '../plan/types.js';
import { restorePlanFacts } from '../plan/stored.js';
import type { ServeContext } from './context.js';
import { servedState } from './from-state.js';
import { servedTypes, type ServedModel } from './model.js';
import { jsonValueOf, readBody, type ToolRecord } from './records.js';
import { idIn } from './ids.js';

/** A list tool's keys learned from its reads after the capture's writes. */
export interface LaterQueries {
  tool: string;
  list_queries: ListQueries;
}

/** What one check-effects run learns from the reads it replays after writes. */
export class LaterQueryLearning {
  /** Per list tool, what its reads after the capture's writes taught (plans.ts's rule, list-queries.ts). */
  private readonly units = new Map<string, UnitLearning>();
  /** Roots the model applied a write to: reads there come after the capture's writes. */
  private readonly written = new Set<string>();
  /** Roots a write the model did not apply went to: the model no longer stands where the app did. */
  private readonly unapplied = new Set<string>();

  /** A write record of the capture, answered by the model (`applied`) or replayed. */
  write(tool: ManifestTool, applied: boolean): void {
    (applied ? this.written : this.unapplied).add(tool.root_path);
  }

  /** A read record of `tool`, replayed after the capture's writes: its query tried on the model. */
  async observe(ctx: ServeContext, tool: ManifestTool, record: ToolRecord, model: ServedModel): Promise<void> {
    // Initial reads are the state pass's to learn from (plans.ts); a read after a write the model did not apply teaches nothing.
    if (!this.written.has(tool.root_path) || this.unapplied.has(tool.root_path)) return;
    if (record.query_pairs.length === 0 || record.status < 200 || record.status > 299) return;
    const plan = await (await servedState(ctx))?.plan(tool.name);
    // A nested list's parent and a default filter need the plan's own lines (plans.ts).
    if (plan?.kind !== 'list' || plan.parent || plan.default_filter || plan.page_envelope) return;
    const all = await model.collection(plan.collection);
    const parsed = readListQuery(record.query_pairs, ctx.vocabulary, plan.fields, all, plan.default_size);
    if (!parsed.ok || parsed.query.window !== undefined) return;
    const units = this.units.get(tool.name) ?? this.units.set(tool.name, new UnitLearning()).get(tool.name)!;
    // A long session repeats its reads: once each unit failed, another read cannot teach it (its body stays unread).
    if (units.allFailed(parsed.units.keys())) return;
    const identity = (await servedTypes(ctx)).find((t) => t.collection === plan.collection)?.identity;
    const body = jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type));
    const list = body === undefined ? undefined : at(body, plan.list_pointer);
    if (identity === undefined || !Array.isArray(list)) return;
    const listed = list.map((o) => idIn(o, identity));
    if (listed.some((id) => id === undefined)) return;
    units.judge(
      parsed.units,
      applyListQuery(all, parsed.query, tool.name).entities.map((e) => e.id),
      listed,
    );
  }

  /** Per tool, the keys every read naming them reproduced (a unit that failed once is not learned). */
  result(): LaterQueries[] {
    return [...this.units]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([tool, units]) => ({ tool, list_queries: units.queries() }))
      .filter(({ list_queries: q }) => q.filter.length + q.sort.length > 0);
  }
}

/**
 * Writes each tool's later-learned keys into its stored list plan (beside the keys its initial
 * lines taught), on the caller's transaction, before the state's SHA-256 is taken — as
 * relations.ts stores the relations it learns after the pass.
 */
export async function storeLaterQueries(ctx: ServeContext, later: readonly LaterQueries[]): Promise<void> {
  const state = await servedState(ctx);
  for (const { tool, list_queries: q } of later) {
    const plan = await state?.plan(tool);
    if (plan?.kind !== 'list') continue;
    const list_queries = withListQueries(plan.list_queries, q);
    await restorePlanFacts(ctx.k, ctx.captureId, { ...plan, list_queries });
  }
}
