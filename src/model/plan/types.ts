/**
 * The environment-state view result (decisions OQ-36). Key names are a promise: `--json`
 * prints exactly this shape under `format_version` 1.
 */
import type { EmbeddedMembers } from './relations.js';
import type { JsonValue } from '../../json/exact.js';
import type { ClockFormat } from './clocks.js';
import type { ListQuery } from './list-queries.js';

/** OQ-31: the closed reason vocabulary (`not-entity` is never emitted, DOC-6). */
export type Reason =
  | 'body-unusable'
  | 'rendered-oversize'
  | 'no-identity'
  | 'path-varies'
  | 'query-varies'
  | 'no-initial-record'
  | 'fields-differ'
  | 'membership-differs'
  | 'not-planned';

/** OQ-27: when several reasons apply, the first in this order is reported. */
export const REASON_PRECEDENCE: readonly Reason[] = [
  'body-unusable',
  'rendered-oversize',
  'no-identity',
  'path-varies',
  'query-varies',
  'no-initial-record',
  'fields-differ',
  'membership-differs',
  'not-planned',
];

export interface StateType {
  collection: string;
  root_path: string;
  identity: string;
  /** `member` (issue 18): no identity name or suffix name; a member unique across every listed item. */
  identity_source: 'path' | 'name' | 'suffix' | 'member';
  /** ES-33: `row` when a complete unsorted list row decided it, `appearance` otherwise. */
  order_source: 'row' | 'appearance';
  /** Where the type's initial read ends: the bounding write and its rule, or null (nothing bounds it). */
  bound: { rule: 'ES-8' | 'ES-9' | 'ES-27'; write_ordinal: number } | null;
  initial_order: string[];
}

export interface StateEntity {
  collection: string;
  id: string;
  value: JsonValue;
  /** OQ-19: per tool, the fields whose value in that view differs from `value`. */
  view_values: Record<string, Record<string, JsonValue>>;
  state_order: number;
  record_ordinals: number[];
}

export interface StateDocument {
  tool: string;
  path: string;
  query: string | null;
  status: number;
  value: JsonValue;
  record_ordinal: number;
}

/** One request line a plan reproduced: its latest initial record, which is also its envelope. */
export interface PlanLine {
  path: string;
  query: string | null;
  record_ordinal: number;
  status: number;
  /** List lines: `all` renders the collection, `recorded` the ids the record listed (OQ-25). */
  membership?: 'all' | 'recorded';
  listed_ids?: string[];
  /** Item lines: the path value naming the entity. */
  id?: string;
  /**
   * List lines (issue 18): the equality or membership filters, sort and window the line's
   * query keys read, kept only when applying them to the state reproduces its list.
   */
  filter?: ListQuery['filter'];
  sort?: ListQuery['sort'];
  then_by?: ListQuery['then_by'];
  window?: ListQuery['window'];
  /** Such a line's item totals that count what its query matches (before the window): body pointers, header names. */
  total_members?: string[];
  total_headers?: string[];
  /**
   * Issue 44: how many more entities those totals counted than the state holds for the query:
   * the app held entities its capture never showed (a list paged through in part). The totals
   * render as the state's count plus these; no query the capture did not record is answered
   * from the state of such a list (src/model/served/list-answer.ts).
   */
  unseen?: number;
  /** A list line whose membership the state cannot reproduce (issue 18): it replays its record; the other lines keep the plan. */
  reason?: 'membership-differs';
  detail?: string;
}

/** The query keys a list plan answers from state for any value (issue 16), per kind; learned when every line naming one reproduced. */
export interface ListQueries {
  filter: string[];
  sort: string[];
  window: string[];
  /** Issue 16: present when a multi-field sort (`_sort=a,b`) reproduced every recorded line sorting so. */
  multi_sort?: true;
  /** Issue 44: present when a filter key given more than once (`?userId=1&userId=3`, any of them) reproduced every recorded line naming one so. */
  any_of?: true;
  /**
   * Issue 44: reference keys whose value stands for the entity it names and those under it in
   * its own collection (Redmine's `project_id=1` lists subproject 3's issues too;
   * src/model/served/tree-filters.ts), learned where that reproduced a line equality did not.
   */
  tree?: string[];
}

interface ViewFacts {
  tool: string;
  collection: string;
  /** The members this view shows, in first-seen order; an entity renders those it holds. */
  fields: string[];
  required_fields: string[];
  projected_record_ordinals: number[];
  projected_query_keys: { name: string; value?: string; omitted?: true }[];
  /** OQ-17: the projection values checked rows and replayed rows gave (for ES-15/ES-20 serving). */
  projection_values: { checked: string[]; replayed: string[] };
  per_response_members: string[];
  clock_formats: Record<string, ClockFormat>;
  sorted_arrays: string[];
  shared_envelope: boolean;
  /** Issue 16: members the view's reads embed on request (`?_embed=comments`), each with the relation serving fills it from, where learned. */
  embedded_members?: EmbeddedMembers;
  lines: PlanLine[];
}

/**
 * `alternate_key` (issue 18): a member whose value some item reads name in the path instead of
 * the identity (Redmine's `/projects/garden.json` beside `/projects/2.json`); present only when learned.
 */
export interface ItemPlan extends ViewFacts {
  kind: 'item';
  alternate_key?: string;
  entity_pointer: string;
  membership: null;
  counters: [];
}
/**
 * A nested collection's parent (issue 18): the path parameter naming it and the field its
 * members carry it in (a member path, `project.id`, into an object member). `collection`: the
 * parent's type, present when its item reads name parents by another key than the id, so a
 * path value is looked up by the parent item plan's `alternate_key` first.
 */
export interface ListParent {
  param: string;
  field: string;
  collection?: string;
}
/**
 * Issue 44 (kind 1): an envelope member that echoes the request's window (Redmine's `offset`,
 * `limit`): the recorded query keys of its role (`keys`), and what it shows when none is named.
 */
export interface WindowEcho {
  member: string;
  role: 'page' | 'size' | 'offset';
  keys: string[];
  default?: number;
}
/**
 * Issue 44 kind 4: what the list's line without a query shows of its collection (Redmine's open
 * issues): the entities whose `field` (a path: `status.is_closed`) is one of `values`, unless the
 * call names a key of `lifted_by` (`status_id`). src/state/plan-default-filter.ts finds it.
 */
export interface DefaultFilter {
  field: string;
  values: string[];
  lifted_by: string[];
}

export interface ListPlan extends ViewFacts {
  kind: 'list';
  default_filter?: DefaultFilter;
  /**
   * Issue 44 kind 1: the page size the app cuts the list to when a call names none (Django REST
   * framework's `PAGE_SIZE`, WordPress's 10), learned where it reproduced recorded lines no
   * reading without it did (src/state/plan-default-window.ts).
   */
  default_size?: number;
  /**
   * Issue 44/45: the fields (and directions) each of which orders every recorded line of the
   * list that names no sort, where the state's order does not follow them (WordPress's posts, by
   * id and `date`, newest first): where a created entity goes, when they agree
   * (src/state/plan-default-order.ts, src/model/served/placement.ts).
   */
  default_order?: { field: string; direction: 'asc' | 'desc' }[];
  list_queries?: ListQueries;
  parent?: ListParent;
  /** Issue 44: members of the envelope rendered from the line's window (steps/window-echoes.ts). */
  window_echoes?: WindowEcho[];
  /** Issue 44: a recorded page set apart as a variant (ES-20) that its window explains (page-envelope.ts). */
  page_envelope?: PageEnvelope;
  /** Issue 44: envelope members that link the next or previous page (src/state/plan-page-links.ts). */
  page_links?: PageLink[];
  list_pointer: string;
  membership: 'all' | 'recorded';
  counters: string[];
}
/**
 * Issue 44: an envelope member linking a page beside the line's (Django REST framework's `next`,
 * `previous`): the request's URL at `origin`, its page `key` one more or less; `first`: how a link
 * to page 1 is written (the key left out or named), `order`: the keys sorted or in the request's
 * order, each where a recorded link showed it.
 */
export interface PageLink {
  member: string;
  rel: 'next' | 'prev';
  key: string;
  origin: string;
  first?: 'omitted' | 'named';
  order?: 'sorted' | 'request';
}

/** What a page envelope's member shows: a page number of RFC 8288's page links, the page count or the count the query matched. */
export type PageQuantity = 'first' | 'prev' | 'next' | 'last' | 'pages' | 'matched';

/** A recorded page's envelope as its window explains it (src/model/plan/page-envelope.ts). */
export interface PageEnvelope {
  /** The recorded page: its answer is the envelope every page renders in. */
  record_ordinal: number;
  /** Where the page's entities sit (`/data`). */
  list_pointer: string;
  members: { pointer: string; quantity: PageQuantity }[];
  /** The window keys the recorded page named (`_page`, `_per_page`): a call pages by the same. */
  keys: string[];
}

export interface DocumentPlan {
  tool: string;
  kind: 'document';
  path: string;
  record_ordinal: number;
}
export interface RecordPlan {
  tool: string;
  kind: 'record';
  reason: Reason;
  detail: string;
}
export type Plan = ItemPlan | ListPlan | DocumentPlan | RecordPlan;

/**
 * ES-41 extended (issue 16): the capture's write tools, each verified with the effect its
 * model reproduces (check-effects' verified set) or replayed with why.
 */
export interface WriteEffectsMark {
  verified: { tool: string; effect: string }[];
  replayed: { tool: string; reason: string }[];
}

/** ES-41: the view's evidence is inferred; what stays unknown; with a stored state, each write tool's marking. */
export interface Evidence {
  status: 'inferred';
  unknown: ('authorization' | 'response-semantics' | 'write-effects')[];
  write_effects?: WriteEffectsMark;
}

export interface EnvironmentState {
  kind: 'environment-state';
  capture_id: number;
  timeline_order: 'start-time' | 'record-order';
  limitations: string[];
  evidence: Evidence;
  types: StateType[];
  entities: StateEntity[];
  documents: StateDocument[];
  plans: Plan[];
  /** OQ-20: what the minimal write gate saw disagree with its model (informational; plans do not change). */
  gate_findings: string[];
}

/** The parts of the view not stored a row per element (the state pass's result head). */
export type StateHead = Pick<EnvironmentState, 'kind' | 'capture_id' | 'timeline_order' | 'limitations' | 'evidence'>;
