/**
 * Issue 44/45: the orders a list shows its entities in when the call names no sort, where the
 * state's own order does not already follow them. WordPress lists posts newest first (by id and
 * by `date`), but the state holds drafts 13 and 12 after post 2, where a later line first showed
 * them; Django REST framework lists authors by `name`. A created entity belongs where such an
 * order sorts it, not after all others (src/model/served/placement.ts).
 *
 * Found, not guessed: each scalar field of the view (the identity among them) such that every
 * recorded line of the list naming no ordering key shows its entities in strictly ascending, or
 * every one in strictly descending, order of it, over at least three neighbouring pairs in all.
 * Every such field is kept, in the view's order: placement places a created entity only where
 * they all put it in the same place (a category's `count` and its `name` may both order the
 * recorded lines and place a new one differently: the capture does not tell which is the rule).
 * Nothing is kept where the identity orders the lines and the state's order follows it too
 * (ascending ids, or newest first, are placement.ts's own rule), so such lists keep their plans.
 */
import { compare, fieldOf } from '../model/plan/list-queries.js';
import type { StateEntity } from '../model/plan/types.js';
import type { ReadLine } from './facts.js';
import { ok, type Ctx } from './plan-context.js';

/** Neighbouring pairs the lines must show in order, in all, before an order is learned. */
const PAIRS = 3;

type Order = { field: string; direction: 'asc' | 'desc' };

export function defaultOrdersOf(
  ctx: Ctx,
  lines: readonly { line: ReadLine; listed: readonly string[] }[],
  all: readonly StateEntity[],
  identity: string,
): Order[] {
  const v = ctx.facts.vocabulary;
  const byId = new Map(all.map((e) => [e.id, e]));
  const unsorted = lines
    .filter((l) => ok(l.line.status) && !l.line.query_pairs.some((p) => v.isOrdering(p.name)))
    .map((l) => l.listed.map((id) => byId.get(id)))
    .filter((es): es is StateEntity[] => es.length > 1 && es.every((e) => e !== undefined));
  if (unsorted.reduce((n, es) => n + es.length - 1, 0) < PAIRS) return [];
  const direction = (field: string, runs: readonly StateEntity[][]): 'asc' | 'desc' | undefined => {
    let dir: 'asc' | 'desc' | undefined;
    for (const es of runs)
      for (let i = 1; i < es.length; i++) {
        const [a, b] = [fieldOf(es[i - 1], ctx.tool, field), fieldOf(es[i], ctx.tool, field)];
        const c = a === undefined || b === undefined || a === null || b === null || typeof a === 'object' ? 0 : compare(a, b);
        const d = c < 0 ? 'asc' : c > 0 ? 'desc' : undefined;
        if (d === undefined || (dir !== undefined && d !== dir)) return undefined;
        dir = d;
      }
    return dir;
  };
  const byIdentity = direction(identity, unsorted);
  if (byIdentity !== undefined && direction(identity, [all as StateEntity[]]) === byIdentity) return [];
  const fields = ctx.facts.viewFields.get(`${ctx.tool}\u0000list`)?.fields ?? [];
  const out: Order[] = [];
  for (const field of fields) {
    const d = direction(field, unsorted);
    if (d) out.push({ field, direction: d });
  }
  return out;
}
