/**
 * Issue 44: what a list shows unless the call asks otherwise, learned together because each
 * explains the plain line only with the others: its default filter (plan-default-filter.ts,
 * Redmine's open issues, WordPress's published posts), the page it is cut to
 * (plan-default-window.ts, WordPress's 10, Django REST framework's PAGE_SIZE) and the orders its
 * unsorted lines show (plan-default-order.ts). Apart from steps/plans.ts (issue 43) to keep the
 * step's file to deciding plans.
 */
import type { DefaultFilter, StateEntity } from '../model/plan/types.js';
import type { ReadLine } from './facts.js';
import type { Ctx } from './plan-context.js';
import { defaultFilterOf } from './plan-default-filter.js';
import { defaultOrdersOf } from './plan-default-order.js';
import { defaultSizeCandidate, sizeReproduces } from './plan-default-window.js';
import { readLineQuery, type Totals } from './plan-list-lines.js';

type Filter = { field: string; values: string[] };

export interface ListDefaultsInput {
  membership: Map<number, 'all' | 'recorded'>;
  listedOf: (r: ReadLine) => string[];
  all: StateEntity[];
  isField: (n: string) => boolean;
  referenceOf: (name: string) => string | undefined;
  totals: Totals;
  parentFilter: (r: ReadLine) => { field: string; value: string } | undefined;
}

export interface ListDefaults {
  defaults: DefaultFilter | null;
  defaultSize: number | undefined;
  orders: { field: string; direction: 'asc' | 'desc' }[];
  /** The filters a line carries by itself: its nested list's parent, then the default filter unless the line lifts it. */
  baseFilters: (r: ReadLine) => Filter[];
}

export function listDefaults(ctx: Ctx, input: ListDefaultsInput): ListDefaults {
  const { membership, listedOf, all, isField, referenceOf, totals, parentFilter } = input;
  // Issue 44 kind 4: a list whose plain line shows a proper subset of its collection by one field.
  // Only a list at one path: a nested list's plain lines are one per parent (issue 18 reads those).
  const atOnePath = !ctx.facts.tools.find((t) => t.name === ctx.tool)?.template.includes('{');
  const plainLine = atOnePath ? ctx.lines.find((r) => r.query_pairs.length === 0 && membership.has(r.record_id)) : undefined;
  const listedLines = ctx.lines.filter((r) => membership.has(r.record_id));
  const others = listedLines.filter((r) => r !== plainLine).map((line) => ({ line, listed: listedOf(line) }));
  const basesOf =
    (d: DefaultFilter | null) =>
    (r: ReadLine): Filter[] => {
      const p = parentFilter(r);
      const lifted = r.query_pairs.some((q) => d?.lifted_by.includes(q.name));
      return [...(p ? [{ field: p.field, values: [p.value] }] : []), ...(d && !lifted ? [{ field: d.field, values: d.values }] : [])];
    };
  // Issue 44: a line read with a default filter and a default page size reproduces its list, or not.
  // A line that counts its matches (Django REST framework's `count`, WordPress's X-WP-Total) reproduces
  // only where one of its totals counts what the reading matched: a list the state does not hold whole
  // (count 12, 11 posts known) is no page of the state's.
  const counts = (r: ReadLine) =>
    (totals.members.get(r.record_id) ?? []).some((c) => ctx.facts.vocabulary.isItemTotal(c.member_pointer.slice(1))) ||
    (totals.headers.get(r.record_id) ?? []).some((h) => h.total !== null);
  const reproduces = (r: ReadLine, d: DefaultFilter | null, size: number | undefined) => {
    const read = readLineQuery(
      ctx,
      r,
      membership.get(r.record_id)!,
      listedOf(r),
      all,
      isField,
      totals,
      basesOf(d)(r),
      d?.lifted_by,
      referenceOf,
      size,
    );
    if (read.kind === 'query')
      return !counts(r) || (!read.line.unseen && (!!read.line.total_members?.length || !!read.line.total_headers?.length));
    return read.kind === 'plain' && read.membership === 'all';
  };
  let defaults = defaultFilterOf(ctx, plainLine && { listed: listedOf(plainLine) }, others, all);
  // Issue 44 kind 1: a plain line cut to a default page (plan-default-window.ts), perhaps of a default filter's entities.
  const pageSize = plainLine && defaultSizeCandidate(ctx, [{ line: plainLine, listed: listedOf(plainLine) }, ...others], all.length);
  if (!defaults && pageSize !== undefined)
    defaults = defaultFilterOf(ctx, { listed: listedOf(plainLine!) }, others, all, {
      size: pageSize,
      reproduced: (d) => listedLines.filter((r) => reproduces(r, d, pageSize)).length,
    });
  const defaultSize =
    pageSize !== undefined && sizeReproduces(listedLines, pageSize, (r, size) => reproduces(r, defaults, size)) ? pageSize : undefined;
  if (defaultSize === undefined && defaults && pageSize !== undefined && !reproduces(plainLine!, defaults, undefined)) defaults = null;
  const baseFilters = basesOf(defaults);
  const root = ctx.facts.tools.find((t) => t.name === ctx.tool)?.root_path;
  const identity = ctx.facts.identities.find((t) => t.root_path === root)?.identity_field;
  const orders =
    identity === undefined
      ? []
      : defaultOrdersOf(
          ctx,
          listedLines.map((line) => ({ line, listed: listedOf(line) })),
          all,
          identity,
        );
  return { defaults, defaultSize, orders, baseFilters };
}
