/**
 * Column lists of the shaping views (queries/, OQ-35): query parameters' roles (OQ-13), lines of
 * reads and the objects they show, projections (ES-12, ES-13, OQ-17), base and variant rows
 * (ES-17, ES-18), variant keys and unchecked lines (ES-19, OQ-16), late shaping (ES-14). A view
 * that adds columns to another spreads that view's list first, as its SQL selects `v.*` first.
 */
import { col } from './col.js';
import { RULE_VIEWS } from './views.js';

/** queries/query_param_roles.sql (OQ-13) */
const query_param_roles = {
  record_id: col<number>(),
  position: col<number>(),
  name: col<string>(),
  value: col<string>(),
  bare_name: col<string>(),
  role: col<'projection' | 'pagination' | 'ordering' | 'random' | 'shaping'>(),
  is_shaping: col<number>(),
};
export type QueryParamRolesView = typeof query_param_roles;

/** queries/line_records.sql (OQ-35) */
const line_records = {
  capture_id: col<number>(),
  record_id: col<number>(),
  ordinal: col<number>(),
  timeline_position: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  root_path: col<string>(),
  ends_in_param: col<number>(),
  path: col<string>(),
  query: col<string | null>(),
  response_body_id: col<number>(),
  is_initial: col<number>(),
  line_id: col<number>(),
};
export type LineRecordsView = typeof line_records;

/** queries/shown_objects.sql */
const shown_objects = {
  body_id: col<number>(),
  set_pointer: col<string>(),
  object_pointer: col<string>(),
  list_index: col<number>(),
  object_count: col<number>(),
};
export type ShownObjectsView = typeof shown_objects;

/** queries/shown_object_members.sql */
const shown_object_members = {
  body_id: col<number>(),
  set_pointer: col<string>(),
  /** null on the one row of a set whose objects carry no member */
  member_key: col<string | null>(),
  object_count: col<number>(),
  objects_with_key: col<number>(),
  is_common: col<number>(),
};
export type ShownObjectMembersView = typeof shown_object_members;

/** queries/shown_object_ids.sql */
const shown_object_ids = {
  body_id: col<number>(),
  set_pointer: col<string>(),
  identity_field: col<string>(),
  entity_id: col<string>(),
  members_signature: col<string>(),
};
export type ShownObjectIdsView = typeof shown_object_ids;

/** queries/shaping_lines.sql (OQ-35) */
const shaping_lines = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  root_path: col<string>(),
  ends_in_param: col<number>(),
  is_initial: col<number>(),
  line_id: col<number>(),
  latest_ordinal: col<number>(),
  latest_timeline_position: col<number>(),
  path: col<string>(),
  query: col<string | null>(),
  record_count: col<number>(),
  identity_field: col<string | null>(),
  set_body_id: col<number | null>(),
  set_pointer: col<string | null>(),
  object_count: col<number>(),
  member_count: col<number>(),
  common_member_count: col<number>(),
  members_signature: col<string>(),
  has_projection: col<number>(),
  is_partial_projection: col<number>(),
  is_all_fields: col<number>(),
  has_shaping_param: col<number>(),
};
export type ShapingLinesView = typeof shaping_lines;

/** queries/projected_item_reads.sql (ES-12) */
const projected_item_reads = {
  ...shaping_lines,
  is_projected_item: col<number>(),
};
export type ProjectedItemReadsView = typeof projected_item_reads;

/** queries/projected_list_rows.sql (ES-13) */
const projected_list_rows = {
  ...projected_item_reads,
  unprojected_member_count: col<number>(),
  carried_member_count: col<number>(),
  is_projected_list: col<number>(),
  is_projected: col<number>(),
};
export type ProjectedListRowsView = typeof projected_list_rows;

/** queries/base_rows.sql (ES-18) */
const base_rows = {
  ...projected_list_rows,
  is_rest: col<number>(),
  has_no_shaping_line: col<number>(),
  has_all_fields_line: col<number>(),
  member_set_line_count: col<number | null>(),
  member_set_first_position: col<number>(),
  most_shared_line_count: col<number | null>(),
  agreed_set_first_position: col<number | null>(),
  base_choice: col<'no-shaping' | 'all-fields' | 'agree-most' | null>(),
  is_base: col<number>(),
};
export type BaseRowsView = typeof base_rows;

/** queries/variant_rows.sql (ES-17) */
const variant_rows = {
  ...base_rows,
  base_line_count: col<number>(),
  shows_entity_otherwise: col<number>(),
  names_param_base_lacks: col<number>(),
  carries_member_base_lacks: col<number>(),
  lacks_member_base_carries: col<number>(),
  is_variant: col<number>(),
};
export type VariantRowsView = typeof variant_rows;

/** queries/variant_keys.sql (ES-19, OQ-16) */
const variant_keys = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  line_id: col<number>(),
  key_name: col<string>(),
  key_value: col<string | null>(),
  is_omitted: col<number>(),
};
export type VariantKeysView = typeof variant_keys;

/** queries/unchecked_lines.sql (ES-19) */
const unchecked_lines = {
  ...variant_rows,
  is_distinguished: col<number>(),
  is_unchecked: col<number>(),
};
export type UncheckedLinesView = typeof unchecked_lines;

/** queries/kept_observations.sql (ES-19) */
const kept_observations = RULE_VIEWS.entity_observations;
export type KeptObservationsView = typeof kept_observations;

/** queries/late_shaping_rows.sql (ES-14) */
const late_shaping_rows = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  line_id: col<number>(),
  latest_ordinal: col<number>(),
  path: col<string>(),
  query: col<string | null>(),
  is_partial_projection: col<number>(),
  names_new_shaping_param: col<number>(),
  carries_member_checked_lack: col<number>(),
  lacks_member_checked_show: col<number>(),
};
export type LateShapingRowsView = typeof late_shaping_rows;

/** queries/projection_values.sql (OQ-17) */
const projection_values = {
  capture_id: col<number>(),
  tool_id: col<number>(),
  tool: col<string>(),
  projection_value: col<string>(),
  is_replayed: col<number>(),
};
export type ProjectionValuesView = typeof projection_values;

/** The shaping views by name. */
export const SHAPING_VIEWS = {
  query_param_roles,
  line_records,
  shown_objects,
  shown_object_members,
  shown_object_ids,
  shaping_lines,
  projected_item_reads,
  projected_list_rows,
  base_rows,
  variant_rows,
  variant_keys,
  unchecked_lines,
  kept_observations,
  late_shaping_rows,
  projection_values,
};
