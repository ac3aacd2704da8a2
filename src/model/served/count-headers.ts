/**
 * Issue 44 (kind 8): response headers that count a list's answer, learned by their values, not
 * their names. WordPress sends `X-WP-Total: 11` and `X-WP-TotalPages: 2` with its posts list; no
 * vocabulary names them (X-Total-Count is ES-35's), and an answer the model makes without them
 * would tell a client paging by them that there is one page. A whole-number response header of a
 * list tool's recorded lines counts what the line matched (`matched`) or its pages at the line's
 * page size (`pages`) when every recorded line carrying it shows exactly that, computed from the
 * initial state the line was checked against (the state pass kept only lines it reproduces); a
 * value both readings explain on every line, or neither, teaches nothing. The list answer then
 * sends each, recounted (list-answer.ts).
 */
import { applyListQuery } from '../plan/list-queries.js';
import { lineQuery } from '../plan/render.js';
import type { ListPlan, PlanLine } from '../plan/types.js';
import { perContextKey, type ServeContext } from './context.js';
import { servedLookups } from './model.js';

export type CountKind = 'matched' | 'pages';

/** Pages of `size` that hold `matched` entities (none for none); a list without a page size is one page. */
export const pagesOf = (matched: number, size: number | null | undefined): number =>
  size ? Math.ceil(matched / size) : matched > 0 ? 1 : 0;

/** The count headers of a list plan's tool, by their recorded names; read once per served store and tool. */
export const countHeaders = perContextKey(async (ctx: ServeContext, tool: string): Promise<Map<string, CountKind>> => {
  const out = new Map<string, CountKind>();
  const state = await servedLookups(ctx);
  const plan = await state?.plan(tool);
  if (!state || plan?.kind !== 'list') return out;
  const lines = plan.lines.filter((l) => l.status >= 200 && l.status <= 299 && l.reason === undefined);
  if (lines.length === 0) return out;
  const rows = await ctx.k
    .selectFrom('header')
    .innerJoin('record', 'record.id', 'header.record_id')
    .select(['record.ordinal', 'header.name', 'header.value'])
    .where('record.capture_id', '=', ctx.captureId)
    .where(
      'record.ordinal',
      'in',
      lines.map((l) => l.record_ordinal),
    )
    .where('header.side', '=', 'response')
    .where('header.source', '=', 'header')
    .execute();
  const all = await state.collection(plan.collection);
  const counted = new Map(lines.map((l) => [l.record_ordinal, countsOf(plan, l, all)]));
  const seen = new Map<string, { name: string; fits: Set<CountKind> }>();
  for (const r of rows) {
    const lower = r.name.toLowerCase();
    // Known headers keep their own readings: totals, links, ranges (ES-35), and the body's length.
    if (lower === 'content-length' || ctx.vocabulary.headerKind(lower) !== null) continue;
    const c = counted.get(r.ordinal);
    const n = r.value !== null && /^[0-9]{1,9}$/.test(r.value.trim()) ? Number(r.value.trim()) : null;
    const entry = seen.get(lower) ?? seen.set(lower, { name: r.name, fits: new Set<CountKind>(['matched', 'pages']) }).get(lower)!;
    if (n === null || c === undefined) entry.fits.clear();
    else {
      if (n !== c.matched) entry.fits.delete('matched');
      if (n !== c.pages) entry.fits.delete('pages');
    }
  }
  for (const { name, fits } of seen.values()) if (fits.size === 1) out.set(name, [...fits][0]);
  return out;
});

/** What a recorded line matched in the initial state, and its pages. */
function countsOf(plan: ListPlan, line: PlanLine, all: Parameters<typeof applyListQuery>[0]): { matched: number; pages: number } {
  const q = lineQuery(line);
  const matched = q ? applyListQuery(all, q, plan.tool).matched : line.membership === 'all' ? all.length : (line.listed_ids ?? []).length;
  return { matched, pages: pagesOf(matched, line.window?.size) };
}
