/**
 * Kysely types: one interface per table (schema/) and per view (queries/). test/store.test.ts
 * checks the column lists in COLUMNS against the store, so they cannot drift.
 */
import type { Generated, GeneratedAlways } from 'kysely';

export interface CaptureTable {
  id: Generated<number>;
  path: string;
  sha256: string;
  bytes: number;
  format: 'har' | 'scenario-evidence';
  format_version: string | null;
  creator: string | null;
  start_url: string | null;
  request_bodies_selected: number | null;
  response_bodies_selected: number | null;
  header_values_selected: number | null;
  loaded_at: string;
}

export interface PageTable {
  capture_id: number;
  position: number;
  page_id: string;
  title: string | null;
  started_ms: number | null;
}

export interface BodyTable {
  id: Generated<number>;
  sha256: string;
  bytes: number;
  kind: 'none' | 'base64' | 'cut' | 'json' | 'text';
  is_usable: number;
  unusable_reason: string | null;
  content: string | Buffer | null;
  /** 'deflate': `content` is the body's bytes as a zlib stream (src/store/body-content.ts). */
  coding: 'deflate' | null;
}

export interface RecordTable {
  id: Generated<number>;
  capture_id: number;
  ordinal: number;
  method: string;
  url: string;
  origin: string;
  path: string;
  query: string | null;
  is_url_redacted: number;
  status: number;
  status_text: string | null;
  http_version: string | null;
  started_ms: number | null;
  duration_ms: number;
  page_id: string | null;
  step_id: string | null;
  transaction_id: string | null;
  redirected_from_transaction_id: string | null;
  redirect_state: 'linked' | 'root' | 'unknown' | null;
  resource_type: string | null;
  request_media_type: string | null;
  response_media_type: string | null;
  request_body_id: number;
  response_body_id: number;
  tool_id: number | null;
}

export interface QueryParamTable {
  record_id: number;
  position: number;
  name: string;
  value: string;
}

export interface HeaderTable {
  record_id: number;
  side: 'request' | 'response';
  source: 'header' | 'cookie';
  position: number;
  name: string;
  value: string | null;
  is_redacted: number;
}

/** schema/member_node.sql (issue 14): one JSON node, keyed by (body_id, parent, key). */
export interface MemberNodeTable {
  body_id: number;
  /** -1 for the root */
  parent: number;
  /** the member name in an object, the index in an array, 0 for the root */
  key: string | number;
  node: number;
  /** worked out from the row (VIRTUAL, migration 0013) */
  position: GeneratedAlways<number>;
  /** objects and arrays only (migration 0012); null for scalars */
  depth: number | null;
  /** 0 object, 1 array, 2 true, 3 false; null where the value says the type (migration 0013) */
  shape: 0 | 1 | 2 | 3 | null;
  /** worked out from shape and value (VIRTUAL, migration 0013) */
  type: GeneratedAlways<'object' | 'array' | 'string' | 'integer' | 'real' | 'true' | 'false' | 'null'>;
  value: string | number | bigint | null;
  /** RFC 6901, objects and arrays only */
  pointer: string | null;
}

/** queries/member.sql: member_node with pointers, the columns of the table before issue 14. */
export interface MemberTable {
  body_id: number;
  pointer: string;
  parent_pointer: string | null;
  key: string | null;
  position: number;
  depth: number;
  type: 'object' | 'array' | 'string' | 'integer' | 'real' | 'true' | 'false' | 'null';
  value: string | number | bigint | null;
}

/** View `body_content` (queries/body_content.sql): each body's bytes as recorded, inflated where kept deflated. */
export interface BodyContentView {
  id: number;
  content: string | Buffer | null;
}

export interface ToolTable {
  id: Generated<number>;
  capture_id: number;
  name: string;
  method: string;
  template: string;
  root_path: string;
  is_query_post: number;
  ends_in_param: number;
  template_source: 'inferred' | 'override';
}

export interface ManifestTable {
  capture_id: number;
  subject_origin: string;
  subject_source: 'page' | 'document' | 'json-responses' | 'all-responses' | 'start-url' | 'override';
  api_base: string;
  api_base_source: 'inferred' | 'override';
  override_json: string | null;
  override_sha256: string | null;
}

/** capture_normalisation: producer quirks the loader normalised (migrations/0006-real-exports.sql, issue 17). */
export interface CaptureNormalisationTable {
  capture_id: number;
  position: number;
  quirk: string;
  field: string;
  records: number;
  first_record: number | null;
  note: string;
}

export interface AdmissionNoteTable {
  capture_id: number;
  position: number;
  note: string;
}

export interface PathParamTable {
  record_id: number;
  position: number;
  name: string;
  value: string;
}

export interface MetaTable {
  key: string;
  value: string;
}

/** migrations/0002-vocabulary.sql: one list per vocabulary (src/store/vocabulary.ts reads it). */
export interface VocabularyTable {
  vocabulary: 'identity' | 'projection' | 'pagination' | 'ordering' | 'random' | 'next_token' | 'item_total' | 'page_total' | 'safe_method'
    | 'window_page' | 'window_size' | 'window_offset' | 'window_end' | 'total_header' | 'next_header' | 'range_header'
    | 'query_segment' | 'query_suffix' | 'query_method_prefix' | 'query_area';
  name: string;
  rank: number;
}

/** queries/records_timeline.sql (ES-6) */
export interface RecordsTimelineView {
  capture_id: number;
  timeline_position: number;
  ordinal: number;
  record_id: number;
  timeline_order: 'start-time' | 'record-order';
  method: string;
  url: string;
  path: string;
  query: string | null;
  status: number;
  started_ms: number | null;
  duration_ms: number;
  ended_ms: number | null;
  is_url_redacted: number;
}

/** queries/capture_timeline.sql (ES-6) */
export interface CaptureTimelineView {
  capture_id: number;
  timeline_order: 'start-time' | 'record-order';
  records: number;
  records_with_start: number;
}

/** queries/response_members.sql */
export interface ResponseMembersView {
  capture_id: number;
  ordinal: number;
  record_id: number;
  method: string;
  path: string;
  query: string | null;
  status: number;
  pointer: string;
  parent_pointer: string | null;
  key: string | null;
  position: number;
  depth: number;
  type: MemberTable['type'];
  value: string | number | bigint | null;
}

/** queries/writes.sql (ES-8) */
export interface WritesView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  timeline_position: number;
  timeline_order: 'start-time' | 'record-order';
  method: string;
  status: number;
  tool: string;
  root_path: string;
  started_ms: number | null;
  ended_ms: number | null;
  is_url_redacted: number;
}

/** queries/first_write_per_root.sql (ES-8) */
export interface FirstWritePerRootView {
  capture_id: number;
  root_path: string;
  write_record_id: number;
  write_ordinal: number;
  write_timeline_position: number;
  write_started_ms: number | null;
  write_ended_ms: number | null;
  is_redacted_bound: number;
}

/** queries/tool_statuses.sql (DESC-4) */
export interface ToolStatusesView {
  capture_id: number;
  tool_id: number;
  tool: string;
  status: number;
  records: number;
}

/** queries/file_documents.sql */
export interface FileDocumentsView {
  capture_id: number;
  tool_id: number;
  root_path: string;
}

/** queries/read_records.sql */
export interface ReadRecordsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  timeline_position: number;
  timeline_order: 'start-time' | 'record-order';
  started_ms: number | null;
  ended_ms: number | null;
  method: string;
  status: number;
  response_body_id: number;
  tool_id: number;
  tool: string;
  root_path: string;
  ends_in_param: number;
  lists_collection: number;
}

/** queries/list_locations.sql (OQ-11) */
export interface ListLocationsView {
  body_id: number;
  list_pointer: string;
  entries: number;
  identity_key: string | null;
  identity_source: 'name' | 'suffix' | 'member' | null;
}

/** queries/read_shown_ids.sql (ES-10) */
export interface ReadShownIdsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  timeline_position: number;
  timeline_order: 'start-time' | 'record-order';
  started_ms: number | null;
  ended_ms: number | null;
  root_path: string;
  shown_id: string;
  shown_by: 'list' | 'item';
}

/** queries/post_created_ids.sql (ES-9) */
export interface PostCreatedIdsView {
  capture_id: number;
  root_path: string;
  post_record_id: number;
  post_ordinal: number;
  post_timeline_position: number;
  post_started_ms: number | null;
  post_ended_ms: number | null;
  created_id: string;
}

/** queries/initial_reads.sql (ES-8, ES-9) */
export interface InitialReadsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  timeline_position: number;
  tool_id: number;
  tool: string;
  root_path: string;
  method: string;
  status: number;
  response_body_id: number;
  bound_ordinal: number | null;
  bound_rule: 'ES-8' | 'ES-9' | 'ES-27' | null;
}

/** queries/item_locations.sql (ES-38, IDN-5) */
export interface ItemLocationsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  tool_id: number;
  tool: string;
  root_path: string;
  path_value: string;
  entity_pointer: string;
  identity_key: string;
}

/** queries/type_identities.sql (ES-11, IDN-1) */
export interface TypeIdentitiesView {
  capture_id: number;
  root_path: string;
  identity_field: string;
  identity_source: 'path' | 'name' | 'suffix' | 'member';
  evidence_reads: number;
}

/** queries/entity_observations.sql (ES-26) */
export interface EntityObservationsView {
  capture_id: number;
  root_path: string;
  record_id: number;
  ordinal: number;
  timeline_position: number;
  tool_id: number;
  tool: string;
  view_kind: 'list' | 'item';
  entity_pointer: string;
  list_index: number | null;
  entity_id: string;
  body_id: number;
}

/** queries/unchecked_records.sql (ES-19) */
export interface UncheckedRecordsView {
  capture_id: number;
  record_id: number;
  tool: string;
  line_id: number;
}

/** queries/view_per_response_members.sql (ES-24) */
export interface ViewPerResponseMembersView {
  capture_id: number;
  tool: string;
  member_key: string;
}

/** queries/view_fields.sql (ES-21, ES-25) */
export interface ViewFieldsView {
  capture_id: number;
  tool: string;
  scope: 'all' | 'list';
  field: string;
  field_order: number;
  is_required: number;
}

/** queries/collection_order.sql (ES-33, ES-34) */
export interface CollectionOrderView {
  capture_id: number;
  root_path: string;
  entity_id: string;
  state_order: number;
  order_source: 'row' | 'appearance';
  order_record_id: number | null;
}

/** queries/list_reads.sql */
export interface ListReadsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  tool: string;
  body_id: number;
  list_pointer: string;
  entries: number;
}

/** queries/list_counters.sql (ES-36) */
export interface ListCountersView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  tool: string;
  list_pointer: string;
  entries: number;
  member_pointer: string;
  value: number;
  is_counter: number;
}

/** queries/list_membership.sql (ES-35) */
export interface ListMembershipView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  tool: string;
  list_pointer: string;
  entries: number;
  membership: 'all' | 'recorded';
}

/** queries/list_page_signals.sql (ES-35, issue 18) */
export interface ListPageSignalsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  tool: string;
  list_pointer: string;
  entries: number;
  signal: 'window' | 'total_header' | 'next_header' | 'range_header';
  name: string;
  value: string;
  total: number | null;
  is_counter: number;
  is_set: number;
}

/** queries/per_response_members.sql (ES-23) */
export interface PerResponseMembersView {
  capture_id: number;
  path: string;
  member_key: string;
}

/** state_capture: one row per capture whose state was computed or failed (migrations/0003-state.sql). */
export interface StateCaptureTable {
  capture_id: number;
  status: 'computed' | 'failed';
  queries_sha256: string;
  sha256: string | null;
  timeline_order: 'start-time' | 'record-order' | null;
  /** Exact JSON text of the view's `evidence`. */
  evidence: string | null;
  error_code: string | null;
  error_message: string | null;
  /** JSON text of the error's context. */
  error_context: string | null;
}

export interface StateTypesTable {
  capture_id: number;
  position: number;
  collection: string;
  root_path: string;
  identity: string;
  identity_source: 'path' | 'name' | 'suffix' | 'member';
  order_source: 'row' | 'appearance';
  bound_rule: 'ES-8' | 'ES-9' | 'ES-27' | null;
  bound_write_ordinal: number | null;
  /** JSON array of entity keys. */
  initial_order: string;
}

export interface StateEntitiesTable {
  capture_id: number;
  position: number;
  collection: string;
  entity_key: string;
  /** Exact JSON text. */
  value: string;
  view_values: string;
  state_order: number;
  record_ordinals: string;
}

export interface StateDocumentsTable {
  capture_id: number;
  position: number;
  tool: string;
  path: string;
  query: string | null;
  status: number;
  value: string;
  record_ordinal: number;
}

export interface StatePlansTable {
  capture_id: number;
  position: number;
  tool: string;
  kind: 'item' | 'list' | 'document' | 'record';
  reason: string | null;
  detail: string | null;
  collection: string | null;
  pointer: string | null;
  membership: 'all' | 'recorded' | null;
  path: string | null;
  record_ordinal: number | null;
  view_facts: string | null;
  counters: string | null;
  lines: string | null;
}

/** state_change_bounds: ES-27's bound per type (migrations/0005-state-records.sql). */
export interface StateChangeBoundsTable { capture_id: number; root_path: string; write_ordinal: number; detail: string }

/** state_records: per record, initial read, bound and list pointer (migrations/0005-state-records.sql). */
export interface StateRecordsTable {
  capture_id: number;
  record_id: number;
  is_initial: number;
  bound_rule: 'ES-8' | 'ES-9' | 'ES-27' | null;
  bound_ordinal: number | null;
  list_pointer: string | null;
}

export interface StateLimitationsTable { capture_id: number; position: number; limitation: string }
export interface StateGateFindingsTable { capture_id: number; position: number; finding: string }

/** state_write_effects: per write tool, its verified effect or why it replays (migrations/0011-state-write-effects.sql). */
export interface StateWriteEffectsTable { capture_id: number; position: number; tool: string; verified: number; effect: string | null; reason: string | null }
/** queries/query_param_roles.sql (OQ-13) */
export interface QueryParamRolesView {
  record_id: number;
  position: number;
  name: string;
  value: string;
  bare_name: string;
  role: 'projection' | 'pagination' | 'ordering' | 'random' | 'shaping';
  is_shaping: number;
}

/** queries/line_records.sql (OQ-35) */
export interface LineRecordsView {
  capture_id: number;
  record_id: number;
  ordinal: number;
  timeline_position: number;
  tool_id: number;
  tool: string;
  root_path: string;
  ends_in_param: number;
  path: string;
  query: string | null;
  response_body_id: number;
  is_initial: number;
  line_id: number;
}

/** queries/shown_objects.sql */
export interface ShownObjectsView {
  body_id: number;
  set_pointer: string;
  object_pointer: string;
  list_index: number;
  object_count: number;
}

/** queries/shown_object_members.sql */
export interface ShownObjectMembersView {
  body_id: number;
  set_pointer: string;
  /** null on the one row of a set whose objects carry no member */
  member_key: string | null;
  object_count: number;
  objects_with_key: number;
  is_common: number;
}

/** queries/shown_object_ids.sql */
export interface ShownObjectIdsView {
  body_id: number;
  set_pointer: string;
  identity_field: string;
  entity_id: string;
  members_signature: string;
}

/** queries/shaping_lines.sql (OQ-35) */
export interface ShapingLinesView {
  capture_id: number;
  tool_id: number;
  tool: string;
  root_path: string;
  ends_in_param: number;
  is_initial: number;
  line_id: number;
  latest_ordinal: number;
  latest_timeline_position: number;
  path: string;
  query: string | null;
  record_count: number;
  identity_field: string | null;
  set_body_id: number | null;
  set_pointer: string | null;
  object_count: number;
  member_count: number;
  common_member_count: number;
  members_signature: string;
  has_projection: number;
  is_partial_projection: number;
  is_all_fields: number;
  has_shaping_param: number;
}

/** queries/projected_item_reads.sql (ES-12) */
export interface ProjectedItemReadsView extends ShapingLinesView {
  is_projected_item: number;
}

/** queries/projected_list_rows.sql (ES-13) */
export interface ProjectedListRowsView extends ProjectedItemReadsView {
  unprojected_member_count: number;
  carried_member_count: number;
  is_projected_list: number;
  is_projected: number;
}

/** queries/base_rows.sql (ES-18) */
export interface BaseRowsView extends ProjectedListRowsView {
  is_rest: number;
  has_no_shaping_line: number;
  has_all_fields_line: number;
  member_set_line_count: number | null;
  member_set_first_position: number;
  most_shared_line_count: number | null;
  agreed_set_first_position: number | null;
  base_choice: 'no-shaping' | 'all-fields' | 'agree-most' | null;
  is_base: number;
}

/** queries/variant_rows.sql (ES-17) */
export interface VariantRowsView extends BaseRowsView {
  base_line_count: number;
  shows_entity_otherwise: number;
  names_param_base_lacks: number;
  carries_member_base_lacks: number;
  lacks_member_base_carries: number;
  is_variant: number;
}

/** queries/variant_keys.sql (ES-19, OQ-16) */
export interface VariantKeysView {
  capture_id: number;
  tool_id: number;
  tool: string;
  line_id: number;
  key_name: string;
  key_value: string | null;
  is_omitted: number;
}

/** queries/unchecked_lines.sql (ES-19) */
export interface UncheckedLinesView extends VariantRowsView {
  is_distinguished: number;
  is_unchecked: number;
}

/** queries/kept_observations.sql (ES-19) */
export type KeptObservationsView = EntityObservationsView;

/** queries/late_shaping_rows.sql (ES-14) */
export interface LateShapingRowsView {
  capture_id: number;
  tool_id: number;
  tool: string;
  line_id: number;
  latest_ordinal: number;
  path: string;
  query: string | null;
  is_partial_projection: number;
  names_new_shaping_param: number;
  carries_member_checked_lack: number;
  lacks_member_checked_show: number;
}

/** queries/projection_values.sql (OQ-17) */
export interface ProjectionValuesView {
  capture_id: number;
  tool_id: number;
  tool: string;
  projection_value: string;
  is_replayed: number;
}

export interface DB {
  capture: CaptureTable;
  page: PageTable;
  body: BodyTable;
  record: RecordTable;
  query_param: QueryParamTable;
  header: HeaderTable;
  member_node: MemberNodeTable;
  member: MemberTable;
  body_content: BodyContentView;
  meta: MetaTable;
  tool: ToolTable;
  manifest: ManifestTable;
  admission_note: AdmissionNoteTable;
  capture_normalisation: CaptureNormalisationTable;
  path_param: PathParamTable;
  state_capture: StateCaptureTable;
  state_types: StateTypesTable;
  state_entities: StateEntitiesTable;
  state_documents: StateDocumentsTable;
  state_plans: StatePlansTable;
  state_limitations: StateLimitationsTable;
  state_gate_findings: StateGateFindingsTable;
  state_write_effects: StateWriteEffectsTable;
  state_change_bounds: StateChangeBoundsTable;
  state_records: StateRecordsTable;
  vocabulary: VocabularyTable;
  records_timeline: RecordsTimelineView;
  capture_timeline: CaptureTimelineView;
  response_members: ResponseMembersView;
  writes: WritesView;
  first_write_per_root: FirstWritePerRootView;
  tool_statuses: ToolStatusesView;
  file_documents: FileDocumentsView;
  read_records: ReadRecordsView;
  list_locations: ListLocationsView;
  read_shown_ids: ReadShownIdsView;
  post_created_ids: PostCreatedIdsView;
  initial_reads: InitialReadsView;
  item_locations: ItemLocationsView;
  type_identities: TypeIdentitiesView;
  entity_observations: EntityObservationsView;
  collection_order: CollectionOrderView;
  list_reads: ListReadsView;
  list_counters: ListCountersView;
  list_membership: ListMembershipView;
  list_page_signals: ListPageSignalsView;
  per_response_members: PerResponseMembersView;
  query_param_roles: QueryParamRolesView;
  line_records: LineRecordsView;
  shown_objects: ShownObjectsView;
  shown_object_members: ShownObjectMembersView;
  shown_object_ids: ShownObjectIdsView;
  shaping_lines: ShapingLinesView;
  projected_item_reads: ProjectedItemReadsView;
  projected_list_rows: ProjectedListRowsView;
  base_rows: BaseRowsView;
  variant_rows: VariantRowsView;
  variant_keys: VariantKeysView;
  unchecked_lines: UncheckedLinesView;
  kept_observations: KeptObservationsView;
  late_shaping_rows: LateShapingRowsView;
  projection_values: ProjectionValuesView;
  view_fields: ViewFieldsView;
  view_per_response_members: ViewPerResponseMembersView;
  unchecked_records: UncheckedRecordsView;
}

/** A column list that must name every key of T (a compile error otherwise). */
const cols = <T>() => <const L extends readonly (keyof T & string)[]>(list: L & (Exclude<keyof T, L[number]> extends never ? unknown : never)): L => list;

/** Column names per table and view, checked against the store by test/store.test.ts. */
export const COLUMNS: { [K in keyof DB]: readonly string[] } = {
  capture: cols<CaptureTable>()(['id', 'path', 'sha256', 'bytes', 'format', 'format_version', 'creator', 'start_url', 'request_bodies_selected', 'response_bodies_selected', 'header_values_selected', 'loaded_at']),
  page: cols<PageTable>()(['capture_id', 'position', 'page_id', 'title', 'started_ms']),
  body: cols<BodyTable>()(['id', 'sha256', 'bytes', 'kind', 'is_usable', 'unusable_reason', 'content', 'coding']),
  record: cols<RecordTable>()(['id', 'capture_id', 'ordinal', 'method', 'url', 'origin', 'path', 'query', 'is_url_redacted', 'status', 'status_text', 'http_version', 'started_ms', 'duration_ms', 'page_id', 'step_id', 'transaction_id', 'redirected_from_transaction_id', 'redirect_state', 'resource_type', 'request_media_type', 'response_media_type', 'request_body_id', 'response_body_id', 'tool_id']),
  query_param: cols<QueryParamTable>()(['record_id', 'position', 'name', 'value']),
  header: cols<HeaderTable>()(['record_id', 'side', 'source', 'position', 'name', 'value', 'is_redacted']),
  member_node: cols<MemberNodeTable>()(['body_id', 'parent', 'key', 'node', 'depth', 'shape', 'value', 'pointer', 'position', 'type']),
  body_content: cols<BodyContentView>()(['id', 'content']),
  member: cols<MemberTable>()(['body_id', 'pointer', 'parent_pointer', 'key', 'position', 'depth', 'type', 'value']),
  meta: cols<MetaTable>()(['key', 'value']),
  tool: cols<ToolTable>()(['id', 'capture_id', 'name', 'method', 'template', 'root_path', 'is_query_post', 'ends_in_param', 'template_source']),
  manifest: cols<ManifestTable>()(['capture_id', 'subject_origin', 'subject_source', 'api_base', 'api_base_source', 'override_json', 'override_sha256']),
  admission_note: cols<AdmissionNoteTable>()(['capture_id', 'position', 'note']),
  capture_normalisation: cols<CaptureNormalisationTable>()(['capture_id', 'position', 'quirk', 'field', 'records', 'first_record', 'note']),
  path_param: cols<PathParamTable>()(['record_id', 'position', 'name', 'value']),
  state_capture: cols<StateCaptureTable>()(['capture_id', 'status', 'queries_sha256', 'sha256', 'timeline_order', 'evidence', 'error_code', 'error_message', 'error_context']),
  state_types: cols<StateTypesTable>()(['capture_id', 'position', 'collection', 'root_path', 'identity', 'identity_source', 'order_source', 'bound_rule', 'bound_write_ordinal', 'initial_order']),
  state_entities: cols<StateEntitiesTable>()(['capture_id', 'position', 'collection', 'entity_key', 'value', 'view_values', 'state_order', 'record_ordinals']),
  state_documents: cols<StateDocumentsTable>()(['capture_id', 'position', 'tool', 'path', 'query', 'status', 'value', 'record_ordinal']),
  state_plans: cols<StatePlansTable>()(['capture_id', 'position', 'tool', 'kind', 'reason', 'detail', 'collection', 'pointer', 'membership', 'path', 'record_ordinal', 'view_facts', 'counters', 'lines']),
  state_limitations: cols<StateLimitationsTable>()(['capture_id', 'position', 'limitation']),
  state_gate_findings: cols<StateGateFindingsTable>()(['capture_id', 'position', 'finding']),
  state_write_effects: cols<StateWriteEffectsTable>()(['capture_id', 'position', 'tool', 'verified', 'effect', 'reason']),
  state_change_bounds: cols<StateChangeBoundsTable>()(['capture_id', 'root_path', 'write_ordinal', 'detail']),
  state_records: cols<StateRecordsTable>()(['capture_id', 'record_id', 'is_initial', 'bound_rule', 'bound_ordinal', 'list_pointer']),
  vocabulary: cols<VocabularyTable>()(['vocabulary', 'name', 'rank']),
  records_timeline: cols<RecordsTimelineView>()(['capture_id', 'timeline_position', 'ordinal', 'record_id', 'timeline_order', 'method', 'url', 'path', 'query', 'status', 'started_ms', 'duration_ms', 'ended_ms', 'is_url_redacted']),
  capture_timeline: cols<CaptureTimelineView>()(['capture_id', 'timeline_order', 'records', 'records_with_start']),
  writes: cols<WritesView>()(['capture_id', 'record_id', 'ordinal', 'timeline_position', 'timeline_order', 'method', 'status', 'tool', 'root_path', 'started_ms', 'ended_ms', 'is_url_redacted']),
  first_write_per_root: cols<FirstWritePerRootView>()(['capture_id', 'root_path', 'write_record_id', 'write_ordinal', 'write_timeline_position', 'write_started_ms', 'write_ended_ms', 'is_redacted_bound']),
  file_documents: cols<FileDocumentsView>()(['capture_id', 'tool_id', 'root_path']),
  read_records: cols<ReadRecordsView>()(['capture_id', 'record_id', 'ordinal', 'timeline_position', 'timeline_order', 'started_ms', 'ended_ms', 'method', 'status', 'response_body_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'lists_collection']),
  list_locations: cols<ListLocationsView>()(['body_id', 'list_pointer', 'entries', 'identity_key', 'identity_source']),
  read_shown_ids: cols<ReadShownIdsView>()(['capture_id', 'record_id', 'ordinal', 'timeline_position', 'timeline_order', 'started_ms', 'ended_ms', 'root_path', 'shown_id', 'shown_by']),
  post_created_ids: cols<PostCreatedIdsView>()(['capture_id', 'root_path', 'post_record_id', 'post_ordinal', 'post_timeline_position', 'post_started_ms', 'post_ended_ms', 'created_id']),
  initial_reads: cols<InitialReadsView>()(['capture_id', 'record_id', 'ordinal', 'timeline_position', 'tool_id', 'tool', 'root_path', 'method', 'status', 'response_body_id', 'bound_ordinal', 'bound_rule']),
  item_locations: cols<ItemLocationsView>()(['capture_id', 'record_id', 'ordinal', 'tool_id', 'tool', 'root_path', 'path_value', 'entity_pointer', 'identity_key']),
  type_identities: cols<TypeIdentitiesView>()(['capture_id', 'root_path', 'identity_field', 'identity_source', 'evidence_reads']),
  entity_observations: cols<EntityObservationsView>()(['capture_id', 'root_path', 'record_id', 'ordinal', 'timeline_position', 'tool_id', 'tool', 'view_kind', 'entity_pointer', 'list_index', 'entity_id', 'body_id']),
  view_fields: cols<ViewFieldsView>()(['capture_id', 'tool', 'scope', 'field', 'field_order', 'is_required']),
  view_per_response_members: cols<ViewPerResponseMembersView>()(['capture_id', 'tool', 'member_key']),
  unchecked_records: cols<UncheckedRecordsView>()(['capture_id', 'record_id', 'tool', 'line_id']),
  collection_order: cols<CollectionOrderView>()(['capture_id', 'root_path', 'entity_id', 'state_order', 'order_source', 'order_record_id']),
  list_reads: cols<ListReadsView>()(['capture_id', 'record_id', 'ordinal', 'tool', 'body_id', 'list_pointer', 'entries']),
  list_counters: cols<ListCountersView>()(['capture_id', 'record_id', 'ordinal', 'tool', 'list_pointer', 'entries', 'member_pointer', 'value', 'is_counter']),
  list_membership: cols<ListMembershipView>()(['capture_id', 'record_id', 'ordinal', 'tool', 'list_pointer', 'entries', 'membership']),
  list_page_signals: cols<ListPageSignalsView>()(['capture_id', 'record_id', 'ordinal', 'tool', 'list_pointer', 'entries', 'signal', 'name', 'value', 'total', 'is_counter', 'is_set']),
  per_response_members: cols<PerResponseMembersView>()(['capture_id', 'path', 'member_key']),
  tool_statuses: cols<ToolStatusesView>()(['capture_id', 'tool_id', 'tool', 'status', 'records']),
  query_param_roles: cols<QueryParamRolesView>()(['record_id', 'position', 'name', 'value', 'bare_name', 'role', 'is_shaping']),
  line_records: cols<LineRecordsView>()(['capture_id', 'record_id', 'ordinal', 'timeline_position', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'path', 'query', 'response_body_id', 'is_initial', 'line_id']),
  shown_objects: cols<ShownObjectsView>()(['body_id', 'set_pointer', 'object_pointer', 'list_index', 'object_count']),
  shown_object_members: cols<ShownObjectMembersView>()(['body_id', 'set_pointer', 'member_key', 'object_count', 'objects_with_key', 'is_common']),
  shown_object_ids: cols<ShownObjectIdsView>()(['body_id', 'set_pointer', 'identity_field', 'entity_id', 'members_signature']),
  shaping_lines: cols<ShapingLinesView>()(['capture_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'is_initial', 'line_id', 'latest_ordinal', 'latest_timeline_position', 'path', 'query', 'record_count', 'identity_field', 'set_body_id', 'set_pointer', 'object_count', 'member_count', 'common_member_count', 'members_signature', 'has_projection', 'is_partial_projection', 'is_all_fields', 'has_shaping_param']),
  projected_item_reads: cols<ProjectedItemReadsView>()(['capture_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'is_initial', 'line_id', 'latest_ordinal', 'latest_timeline_position', 'path', 'query', 'record_count', 'identity_field', 'set_body_id', 'set_pointer', 'object_count', 'member_count', 'common_member_count', 'members_signature', 'has_projection', 'is_partial_projection', 'is_all_fields', 'has_shaping_param', 'is_projected_item']),
  projected_list_rows: cols<ProjectedListRowsView>()(['capture_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'is_initial', 'line_id', 'latest_ordinal', 'latest_timeline_position', 'path', 'query', 'record_count', 'identity_field', 'set_body_id', 'set_pointer', 'object_count', 'member_count', 'common_member_count', 'members_signature', 'has_projection', 'is_partial_projection', 'is_all_fields', 'has_shaping_param', 'is_projected_item', 'unprojected_member_count', 'carried_member_count', 'is_projected_list', 'is_projected']),
  base_rows: cols<BaseRowsView>()(['capture_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'is_initial', 'line_id', 'latest_ordinal', 'latest_timeline_position', 'path', 'query', 'record_count', 'identity_field', 'set_body_id', 'set_pointer', 'object_count', 'member_count', 'common_member_count', 'members_signature', 'has_projection', 'is_partial_projection', 'is_all_fields', 'has_shaping_param', 'is_projected_item', 'unprojected_member_count', 'carried_member_count', 'is_projected_list', 'is_projected', 'is_rest', 'has_no_shaping_line', 'has_all_fields_line', 'member_set_line_count', 'member_set_first_position', 'most_shared_line_count', 'agreed_set_first_position', 'base_choice', 'is_base']),
  variant_rows: cols<VariantRowsView>()(['capture_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'is_initial', 'line_id', 'latest_ordinal', 'latest_timeline_position', 'path', 'query', 'record_count', 'identity_field', 'set_body_id', 'set_pointer', 'object_count', 'member_count', 'common_member_count', 'members_signature', 'has_projection', 'is_partial_projection', 'is_all_fields', 'has_shaping_param', 'is_projected_item', 'unprojected_member_count', 'carried_member_count', 'is_projected_list', 'is_projected', 'is_rest', 'has_no_shaping_line', 'has_all_fields_line', 'member_set_line_count', 'member_set_first_position', 'most_shared_line_count', 'agreed_set_first_position', 'base_choice', 'is_base', 'base_line_count', 'shows_entity_otherwise', 'names_param_base_lacks', 'carries_member_base_lacks', 'lacks_member_base_carries', 'is_variant']),
  variant_keys: cols<VariantKeysView>()(['capture_id', 'tool_id', 'tool', 'line_id', 'key_name', 'key_value', 'is_omitted']),
  unchecked_lines: cols<UncheckedLinesView>()(['capture_id', 'tool_id', 'tool', 'root_path', 'ends_in_param', 'is_initial', 'line_id', 'latest_ordinal', 'latest_timeline_position', 'path', 'query', 'record_count', 'identity_field', 'set_body_id', 'set_pointer', 'object_count', 'member_count', 'common_member_count', 'members_signature', 'has_projection', 'is_partial_projection', 'is_all_fields', 'has_shaping_param', 'is_projected_item', 'unprojected_member_count', 'carried_member_count', 'is_projected_list', 'is_projected', 'is_rest', 'has_no_shaping_line', 'has_all_fields_line', 'member_set_line_count', 'member_set_first_position', 'most_shared_line_count', 'agreed_set_first_position', 'base_choice', 'is_base', 'base_line_count', 'shows_entity_otherwise', 'names_param_base_lacks', 'carries_member_base_lacks', 'lacks_member_base_carries', 'is_variant', 'is_distinguished', 'is_unchecked']),
  kept_observations: cols<KeptObservationsView>()(['capture_id', 'root_path', 'record_id', 'ordinal', 'timeline_position', 'tool_id', 'tool', 'view_kind', 'entity_pointer', 'list_index', 'entity_id', 'body_id']),
  late_shaping_rows: cols<LateShapingRowsView>()(['capture_id', 'tool_id', 'tool', 'line_id', 'latest_ordinal', 'path', 'query', 'is_partial_projection', 'names_new_shaping_param', 'carries_member_checked_lack', 'lacks_member_checked_show']),
  projection_values: cols<ProjectionValuesView>()(['capture_id', 'tool_id', 'tool', 'projection_value', 'is_replayed']),
  response_members: cols<ResponseMembersView>()(['capture_id', 'ordinal', 'record_id', 'method', 'path', 'query', 'status', 'pointer', 'parent_pointer', 'key', 'position', 'depth', 'type', 'value']),
};
