/**
 * Column lists of the rule views (queries/) over the facts: timelines (ES-6), writes and their
 * bounds (ES-8, ES-9, ES-27), reads, lists and identities (ES-10, ES-11, ES-26, ES-33..ES-38,
 * OQ-11), views' fields (ES-21..ES-25), and the member views over member_node. Each column
 * once, with its TypeScript type (types.ts).
 */
import { col } from './col.js';

/** queries/member.sql: member_node with pointers, the columns of the table before issue 14. */
const member = {
  body_id: col<number>(),
  pointer: col<string>(),
  parent_pointer: col<string | null>(),
  key: col<string | null>(),
  position: col<number>(),
  depth: col<number>(),
  type: col<'object' | 'array' | 'string' | 'integer' | 'real' | 'true' | 'false' | 'null'>(),
  value: col<string | number | bigint | null>(),
};
export type MemberTable = typeof member;

/** View `body_content` (queries/body_content.sql): each body's bytes as recorded. */
const body_content = {
  id: col<number>(),
  content: col<string | Buffer | null>(),
};
export type BodyContentView = typeof body_content;

/** queries/records_timeline.sql (ES-6) */
const records_timeline = {
  capture_id: col<number>(),
  timeline_position: col<number>(),
  ordinal: col<number>(),
  record_id: col<number>(),
  timeline_order: col<'start-time' | 'record-order'>(),
  method: col<string>(),
  url: col<string>(),
  path: col<string>(),
  query: col<string | null>(),
  status: col<number>(),
  started_ms: col<number | null>(),
  duration_ms: col<number>(),
  ended_ms: col<number | null>(),
  is_url_redacted: col<number>(),
};
export type RecordsTimelineView = typeof records_timeline;

/** queries/capture_timeline.sql (ES-6) */
const capture_timeline = {
  capture_id: col<number>(),
  timeline_order: col<'start-time' | 'record-order'>(),
  records: col<number>(),
  records_with_start: col<number>(),
};
export type CaptureTimelineView = typeof capture_timeline;

/** queries/response_members.sql */
const response_members = {
  capture_id: col<number>(),
  ordinal: col<number>(),
  record_id: col<number>(),
  method: col<string>(),
  path: col<string>(),
  query: col<string | null>(),
  status: col<number>(),
  pointer: col<string>(),
  parent_pointer: col<string | null>(),
  key: col<string | null>(),
  position: col<number>(),
  depth: col<number>(),
  type: col<MemberTable['type']>(),
  value: col<string | number | bigint | null>(),
};
export type ResponseMembersView = typeof response_members;

/** queries/writes.sql (ES-8) */
const writes = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  timeline_position: col<number>(),
  timeline_order: col<'start-time' | 'record-order'>(),
  method: col<string>(),
  status: col<number>(),
  tool: col<string>(),
  root_path: col<string>(),
  started_ms: col<number | null>(),
  ended_ms: col<number | null>(),
  is_url_redacted: col<number>(),
};
export type WritesView = typeof writes;

/** queries/first_write_per_root.sql (ES-8) */
const first_write_per_root = {
  capture_id: col<number>(),
  root_path: col<string>(),
  write_record_id: col<number>(),
  write_ordinal: col<number>(),
  write_timeline_position: col<number>(),
  write_started_ms: col<number | null>(),
  write_ended_ms: col<number | null>(),
  is_redacted_bound: col<number>(),
};
export type FirstWritePerRootView = typeof first_write_per_root;

/** queries/tool_statuses.sql (DESC-4) */
const tool_statuses = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  status: col<number>(),
  records: col<number>(),
};
export type ToolStatusesView = typeof tool_statuses;

/** queries/file_documents.sql */
const file_documents = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  root_path: col<string>(),
};
export type FileDocumentsView = typeof file_documents;

/** queries/database_documents.sql */
const database_documents = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  root_path: col<string>(),
};
export type DatabaseDocumentsView = typeof database_documents;

/** queries/read_records.sql */
const read_records = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  timeline_position: col<number>(),
  timeline_order: col<'start-time' | 'record-order'>(),
  started_ms: col<number | null>(),
  ended_ms: col<number | null>(),
  method: col<string>(),
  status: col<number>(),
  response_body_id: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  root_path: col<string>(),
  ends_in_param: col<number>(),
  lists_collection: col<number>(),
};
export type ReadRecordsView = typeof read_records;

/** queries/list_locations.sql (OQ-11) */
const list_locations = {
  body_id: col<number>(),
  list_pointer: col<string>(),
  entries: col<number>(),
  identity_key: col<string | null>(),
  identity_source: col<'name' | 'suffix' | 'member' | null>(),
};
export type ListLocationsView = typeof list_locations;

/** queries/read_shown_ids.sql (ES-10) */
const read_shown_ids = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  timeline_position: col<number>(),
  timeline_order: col<'start-time' | 'record-order'>(),
  started_ms: col<number | null>(),
  ended_ms: col<number | null>(),
  root_path: col<string>(),
  shown_id: col<string>(),
  shown_by: col<'list' | 'item'>(),
};
export type ReadShownIdsView = typeof read_shown_ids;

/** queries/post_created_ids.sql (ES-9) */
const post_created_ids = {
  capture_id: col<number>(),
  root_path: col<string>(),
  post_record_id: col<number>(),
  post_ordinal: col<number>(),
  post_timeline_position: col<number>(),
  post_started_ms: col<number | null>(),
  post_ended_ms: col<number | null>(),
  created_id: col<string>(),
};
export type PostCreatedIdsView = typeof post_created_ids;

/** queries/initial_reads.sql (ES-8, ES-9) */
const initial_reads = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  timeline_position: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  root_path: col<string>(),
  method: col<string>(),
  status: col<number>(),
  response_body_id: col<number>(),
  bound_ordinal: col<number | null>(),
  bound_rule: col<'ES-8' | 'ES-9' | 'ES-27' | null>(),
};
export type InitialReadsView = typeof initial_reads;

/** queries/item_locations.sql (ES-38, IDN-5) */
const item_locations = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  root_path: col<string>(),
  path_value: col<string>(),
  entity_pointer: col<string>(),
  identity_key: col<string>(),
};
export type ItemLocationsView = typeof item_locations;

/** queries/type_identities.sql (ES-11, IDN-1) */
const type_identities = {
  capture_id: col<number>(),
  root_path: col<string>(),
  identity_field: col<string>(),
  identity_source: col<'path' | 'name' | 'suffix' | 'member'>(),
  evidence_reads: col<number>(),
};
export type TypeIdentitiesView = typeof type_identities;

/** queries/entity_observations.sql (ES-26) */
const entity_observations = {
  capture_id: col<number>(),
  root_path: col<string>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  timeline_position: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  view_kind: col<'list' | 'item'>(),
  entity_pointer: col<string>(),
  list_index: col<number | null>(),
  entity_id: col<string>(),
  body_id: col<number>(),
};
export type EntityObservationsView = typeof entity_observations;

/** queries/unchecked_records.sql (ES-19) */
const unchecked_records = {
  capture_id: col<number>(),
  record_id: col<number>(),
  tool: col<string>(),
  line_id: col<number>(),
};
export type UncheckedRecordsView = typeof unchecked_records;

/** queries/view_per_response_members.sql (ES-24) */
const view_per_response_members = {
  capture_id: col<number>(),
  tool: col<string>(),
  member_key: col<string>(),
};
export type ViewPerResponseMembersView = typeof view_per_response_members;

/** queries/view_fields.sql (ES-21, ES-25) */
const view_fields = {
  capture_id: col<number>(),
  tool: col<string>(),
  scope: col<'all' | 'list'>(),
  field: col<string>(),
  field_order: col<number>(),
  is_required: col<number>(),
};
export type ViewFieldsView = typeof view_fields;

/** queries/collection_order.sql (ES-33, ES-34) */
const collection_order = {
  capture_id: col<number>(),
  root_path: col<string>(),
  entity_id: col<string>(),
  state_order: col<number>(),
  order_source: col<'row' | 'appearance'>(),
  order_record_id: col<number | null>(),
};
export type CollectionOrderView = typeof collection_order;

/** queries/list_reads.sql */
const list_reads = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  tool: col<string>(),
  body_id: col<number>(),
  list_pointer: col<string>(),
  entries: col<number>(),
};
export type ListReadsView = typeof list_reads;

/** queries/list_counters.sql (ES-36) */
const list_counters = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  tool: col<string>(),
  list_pointer: col<string>(),
  entries: col<number>(),
  member_pointer: col<string>(),
  value: col<number>(),
  is_counter: col<number>(),
};
export type ListCountersView = typeof list_counters;

/** queries/list_membership.sql (ES-35) */
const list_membership = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  tool: col<string>(),
  list_pointer: col<string>(),
  entries: col<number>(),
  membership: col<'all' | 'recorded'>(),
};
export type ListMembershipView = typeof list_membership;

/** queries/list_page_signals.sql (ES-35, issue 18) */
const list_page_signals = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  tool: col<string>(),
  list_pointer: col<string>(),
  entries: col<number>(),
  signal: col<'window' | 'total_header' | 'next_header' | 'range_header'>(),
  name: col<string>(),
  value: col<string>(),
  total: col<number | null>(),
  is_counter: col<number>(),
  is_set: col<number>(),
};
export type ListPageSignalsView = typeof list_page_signals;

/** queries/per_response_members.sql (ES-23) */
const per_response_members = {
  capture_id: col<number>(),
  path: col<string>(),
  member_key: col<string>(),
};
export type PerResponseMembersView = typeof per_response_members;

/** The rule views over the facts by name. */
export const RULE_VIEWS = {
  member,
  body_content,
  records_timeline,
  capture_timeline,
  response_members,
  writes,
  first_write_per_root,
  tool_statuses,
  file_documents,
  database_documents,
  read_records,
  list_locations,
  read_shown_ids,
  post_created_ids,
  initial_reads,
  item_locations,
  type_identities,
  entity_observations,
  collection_order,
  list_reads,
  list_counters,
  list_membership,
  list_page_signals,
  per_response_members,
  view_fields,
  view_per_response_members,
  unchecked_records,
};
