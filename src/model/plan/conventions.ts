/**
 * The API's read conventions (issue 44): what the capture's list reads prove about how the
 * API filters, sorts and pages, learned once from every list plan and applied to every list
 * of the API — not only to the tool where it was seen. A list plan keeps a query key (ES-37,
 * `list_queries`) only when applying it to the state reproduced every recorded line naming
 * it; such a key is the API's habit until the capture shows otherwise:
 *
 * - an equality filter on a field (`?userId=2` on /posts) means every list filters by any of
 *   its fields by name (`?author=carol`, `/comments?userId=3`; a repeated key is OR);
 * - a filter operator suffix (`views_gte`) means that operator on any field;
 * - a filter by a reference's id (`?project_id=1` filtering `project.id`) means the same key
 *   spelling filters any reference field of any list (`tracker_id`, `/versions.json?project_id=`);
 * - a sort key and a multi-field sort mean the same on every list, unless the capture's
 *   reads sort by another spelling too;
 * - window keys mean the same window on every list, unless the capture's reads page by
 *   another spelling too, with the total header and page links the recorded window line sent.
 *
 * Nothing here is guessed from a vocabulary alone: a key no list of the capture proved is not
 * a convention (the caller's decline names it). The answers these conventions make say so
 * (`convention: api-filter`, …; provenance.ts).
 */
import { referenceKey, type FilterOp } from './list-queries.js';
import { keyedSortKey } from './keyed-sort.js';
import type { ListPlan, ListQueries, WindowEcho } from './types.js';
import type { Vocabulary } from '../../store/vocabulary.js';

const OPS: readonly FilterOp[] = ['gte', 'lte', 'ne', 'like'];

/** The conventions of one API, each with the tools whose recorded lines proved it. */
export interface ReadConventions {
  /** Equality filters by field name. */
  filter: string[];
  /** Filters by a reference's id, per key spelling (the ending of `project_id`, which filters `project.id`), each with its tools. */
  reference: Map<string, string[]>;
  /** Filter operator suffixes, per operator. */
  ops: Partial<Record<FilterOp, string[]>>;
  /** Sort keys (`_sort`, `_order`), each with its tools. */
  sort: Map<string, string[]>;
  multi_sort: string[];
  /** Tools whose lines proved a repeated filter key lists what any of its values picks. */
  any_of: string[];
  /** Tools whose lines proved a reference key lists what sits under the entity named too (ListQueries `tree`). */
  tree: string[];
  /** Window keys (`_page`, `_limit`), each with its tools. */
  window: Map<string, string[]>;
  /** The tools whose lists answer in an envelope (list pointer not the root): a window borrowed from one is borrowed only by a list answering alike. */
  enveloped: string[];
  /** Envelope members that echo the window on a list that learned its window keys (Redmine's `offset`, `limit`), from the first such list. */
  window_echoes: WindowEcho[];
  /** Header names a windowed line's record sent and the plan recounted (`x-total-count`), with the line's tool and record. */
  window_headers: { names: string[]; tool: string; record_ordinal: number } | null;
}

/** What a list answers by: its own learned keys and the API's, and which keys are the API's only. */
export interface WidenedQueries {
  queries: ListQueries;
  /** Keys the list answers only by an API convention, each with the convention's name and the tools that proved it. */
  borrowed: Map<string, { convention: ApiConvention; tools: string[] }>;
}

/**
 * `page-links-end`: a page past the last, or the only page, sends no Link (a documented default);
 * `api-embed`: a relation embedded as another read of the API proved it (embed-conventions.ts);
 * `api-null-filter`: an entity whose field is null listed under any equality filter on it, as a
 * recorded filtered read of the API showed (served/null-filters.ts); `api-page-envelope`: a page
 * in the page envelope another list's recorded page proved (served/page-envelope.ts);
 * `api-page-cut`: a list grown past its record, cut to the page other lists' plain lines showed
 * the API cuts to (served/page-cut.ts).
 */
export type ApiConvention =
  | 'api-filter'
  | 'api-reference-filter'
  | 'api-sort'
  | 'api-window'
  | 'api-embed'
  | 'page-links-end'
  | 'api-null-filter'
  | 'api-page-envelope'
  | 'api-page-cut';

const add = <K>(m: Map<K, string[]>, k: K, tool: string) => {
  const l = m.get(k) ?? [];
  if (!l.includes(tool)) l.push(tool);
  m.set(k, l);
};

/**
 * Learns the API's read conventions from its list plans (those with learned `list_queries`).
 * `recordedKeys`: every query key the capture's reads name. Where they sort or page by a
 * spelling no list learned (Grafana pages search by `perpage` and annotations by `limit`),
 * the API has no one habit for that kind, and no list borrows it.
 */
export function learnReadConventions(
  plans: readonly ListPlan[],
  recordedKeys: Iterable<string> = [],
  vocabulary?: Pick<Vocabulary, 'isOrdering' | 'isPagination'>,
): ReadConventions {
  const out: ReadConventions = {
    filter: [],
    reference: new Map(),
    ops: {},
    sort: new Map(),
    multi_sort: [],
    any_of: [],
    tree: [],
    window: new Map(),
    enveloped: [],
    window_echoes: [],
    window_headers: null,
  };
  for (const plan of plans) {
    const q = plan.list_queries;
    if (!q) continue;
    if (plan.list_pointer !== '') out.enveloped.push(plan.tool);
    for (const key of q.filter) {
      const op = plan.fields.includes(key)
        ? undefined
        : OPS.find((o) => key.endsWith(`_${o}`) && plan.fields.includes(key.slice(0, -o.length - 1)));
      const ref = plan.fields.includes(key) ? undefined : referenceKey(key, (f) => plan.fields.includes(f));
      if (op) out.ops[op] = [...new Set([...(out.ops[op] ?? []), plan.tool])];
      // A reference's id (`project_id`, learned only where it reproduced) is the API's way of naming any reference.
      else if (ref) add(out.reference, ref.suffix, plan.tool);
      else if (plan.fields.includes(key) && !out.filter.includes(plan.tool)) out.filter.push(plan.tool);
    }
    for (const key of q.sort) add(out.sort, key, plan.tool);
    if (q.multi_sort && !out.multi_sort.includes(plan.tool)) out.multi_sort.push(plan.tool);
    if (q.any_of && !out.any_of.includes(plan.tool)) out.any_of.push(plan.tool);
    if (q.tree?.length && !out.tree.includes(plan.tool)) out.tree.push(plan.tool);
    for (const key of q.window) add(out.window, key, plan.tool);
    if (q.window.length && plan.window_echoes?.length && !out.window_echoes.length) out.window_echoes = plan.window_echoes;
    if (q.window.length && !out.window_headers) {
      const line = plan.lines.find((l) => l.window !== undefined && l.reason === undefined && l.total_headers?.length);
      if (line) out.window_headers = { names: line.total_headers!, tool: plan.tool, record_ordinal: line.record_ordinal };
    }
  }
  if (vocabulary)
    for (const key of recordedKeys) {
      if (vocabulary.isOrdering(key) && !out.sort.has(key)) {
        out.sort.clear();
        out.multi_sort = [];
      }
      if (vocabulary.isPagination(key) && !out.window.has(key)) {
        out.window.clear();
        out.window_echoes = [];
        out.window_headers = null;
      }
    }
  return out;
}

/**
 * The keys `plan` answers from state: its own learned keys, and every key an API convention
 * gives it (filters on its own fields only). Undefined when neither gives it any.
 */
export function widenQueries(plan: ListPlan, conv: ReadConventions, references: readonly string[] = []): WidenedQueries | undefined {
  const own = plan.list_queries ?? { filter: [], sort: [], window: [] };
  const borrowed = new Map<string, { convention: ApiConvention; tools: string[] }>();
  const queries: ListQueries = { filter: [...own.filter], sort: [...own.sort], window: [...own.window], tree: [...(own.tree ?? [])] };
  // A key of this list's own recorded line that the state did not reproduce is one the capture
  // shows this list answers otherwise (Redmine's `project_id=1` also lists subprojects' issues): not borrowed.
  const failed = (l: ListPlan['lines'][number]) =>
    l.reason !== undefined || (l.membership === 'recorded' && !l.filter && !l.sort && !l.window);
  const named = new Set(plan.lines.filter(failed).flatMap((l) => [...new URLSearchParams(l.query ?? '').keys()]));
  const borrow = (list: string[], key: string, convention: ApiConvention, tools: string[]) => {
    if (list.includes(key) || tools.length === 0 || named.has(key)) return;
    list.push(key);
    borrowed.set(key, { convention, tools });
  };
  for (const field of plan.fields) {
    borrow(queries.filter, field, 'api-filter', conv.filter);
    for (const op of OPS) borrow(queries.filter, `${field}_${op}`, 'api-filter', conv.ops[op] ?? []);
  }
  for (const field of references)
    for (const [suffix, tools] of conv.reference)
      if (!plan.fields.includes(`${field}${suffix}`)) {
        borrow(queries.filter, `${field}${suffix}`, 'api-reference-filter', tools);
        // The API's reference keys list what sits under the entity named where one of its lists proved so.
        if (conv.tree.length && borrowed.has(`${field}${suffix}`)) queries.tree!.push(`${field}${suffix}`);
      }
  for (const [key, tools] of conv.sort) borrow(queries.sort, key, 'api-sort', tools);
  // A keyed sort (`$sort[id]`) learned on any list sorts by any field so spelled (`$sort[views]`).
  const keyedTools = new Map<string, string[]>();
  for (const [key, tools] of [...own.sort.map((k) => [k, [plan.tool]] as const), ...conv.sort])
    for (const field of plan.fields) {
      const spelled = keyedSortKey(key, field);
      if (spelled !== undefined) keyedTools.set(spelled, [...new Set([...(keyedTools.get(spelled) ?? []), ...tools])]);
    }
  for (const [key, tools] of keyedTools) borrow(queries.sort, key, 'api-sort', tools);
  // A window proved on a list answering in an envelope (json-server 1.0's `_page` answers
  // `{"first", …, "data": […]}`) says nothing of a list answering a bare array, and the other way round.
  const alike = (t: string) => conv.enveloped.includes(t) === (plan.list_pointer !== '');
  for (const [key, tools] of conv.window) borrow(queries.window, key, 'api-window', tools.filter(alike));
  if (own.multi_sort || conv.multi_sort.length) queries.multi_sort = true;
  if (own.any_of || conv.any_of.length) queries.any_of = true;
  if (!queries.tree!.length) delete queries.tree;
  if (!queries.filter.length && !queries.sort.length && !queries.window.length) return undefined;
  return { queries, borrowed };
}
