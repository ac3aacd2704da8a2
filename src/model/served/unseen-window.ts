/**
 * Issue 44: a recorded page of a list the state holds only in part (its total counted entities
 * the capture never showed: PlanLine.unseen), after this session's writes moved what the page
 * holds. Feathers' `$sort[id]=-1&$limit=5` pages 1 and 2 showed messages 14 to 5 of 14: message 1
 * was never shown. After six deletes the state's page 2 is messages 3 and 2, where the app lists
 * 3, 2 and 1 — a plausible wrong answer, since where an unseen entity sorts is not known.
 *
 * What is known: every unseen entity sorts after the last entity of the longest run of the order
 * the recorded pages of the same filter and order showed from its start (message 5, after pages
 * 1 and 2). A page that moved is answered only when it is full and every entity on it sorts
 * before that one (or is it); else it is declined (`no-record`). A page holding what its record
 * listed is answered as before (its total recounted).
 */
import { CapstateError } from '../../errors.js';
import { lineName } from '../plan/render.js';
import { applyListQuery, compare, fieldOf, type ListQuery } from '../plan/list-queries.js';
import type { ListPlan, PlanLine, StateEntity } from '../plan/types.js';
import type { ServeContext } from './context.js';
import { servedState } from './read-index.js';

type SortKey = NonNullable<ListQuery['sort']>;

const sameFilter = (a: PlanLine['filter'], b: PlanLine['filter']) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
const keysOf = (l: PlanLine): SortKey[] => (l.sort ? [l.sort, ...(l.then_by ?? [])] : []);

/** Throws `no-record` where `page` (the line's window of the current state) may hold an unseen entity. */
export async function refuseUnseenWindow(
  ctx: ServeContext,
  plan: ListPlan,
  line: PlanLine,
  page: readonly StateEntity[],
  asked: string,
): Promise<void> {
  const size = line.window?.size;
  if (!line.unseen || size == null) return;
  if (JSON.stringify(page.map((e) => e.id)) === JSON.stringify(line.listed_ids ?? [])) return;
  const keys: SortKey[] = keysOf(line);
  const decline = (why: string): never => {
    throw new CapstateError(
      'no-record',
      `${plan.tool}: ${asked}: record #${line.record_ordinal} (${lineName(line)}) counted ${line.unseen} more ${plan.collection} than the capture ever showed, and after this session's writes ${why}, where one of those may sit`,
      { tool: plan.tool, request_line: asked, nearest_tool: plan.tool, did_not_match: 'a page the capture showed whole' },
    );
  };
  if (keys.length === 0) return decline('the page holds others than its record listed, in an order the capture never named');
  // The run of the order the recorded pages of this filter and order showed from its start.
  const spans = plan.lines
    .filter(
      (l) =>
        l.reason === undefined &&
        l.window &&
        l.listed_ids &&
        sameFilter(l.filter, line.filter) &&
        JSON.stringify(keysOf(l)) === JSON.stringify(keys),
    )
    .map((l) => [l.window!.offset, l.window!.offset + l.listed_ids!.length] as const)
    .sort((a, b) => a[0] - b[0]);
  let run = 0;
  for (const [from, to] of spans) if (from <= run) run = Math.max(run, to);
  const initial = await (await servedState(ctx))?.collection(plan.collection);
  const last =
    run > 0 && initial
      ? applyListQuery(initial, { filter: line.filter, sort: keys[0], then_by: keys.slice(1) }, plan.tool).entities[run - 1]
      : undefined;
  if (!last) return decline('the page holds others than its record listed, and no recorded page showed where the list starts');
  const order = (a: StateEntity, b: StateEntity) =>
    keys.reduce(
      (c, k) => c || (k.direction === 'desc' ? -1 : 1) * compare(fieldOf(a, plan.tool, k.field), fieldOf(b, plan.tool, k.field)),
      0,
    );
  if (page.length < size) return decline(`the page lists ${page.length} of ${size}`);
  const past = page.find((e) => e.id !== last.id && order(e, last) >= 0);
  if (past)
    return decline(
      `the page holds ${plan.collection} ${past.id}, which does not sort before ${last.id}, the last the recorded pages showed in a run from the start`,
    );
}
