/**
 * Column lists of the fact tables (schema/, migrations/): what the loader writes of each capture
 * (records, bodies, headers, JSON nodes), the manifest's rows (OQ-1, OQ-2, OQ-5, OQ-7), the
 * vocabulary (OQ-9, OQ-13) and meta. Each column once, with its TypeScript type (types.ts).
 */
import type { Generated, GeneratedAlways } from 'kysely';
import { col } from './col.js';

const capture = {
  id: col<Generated<number>>(),
  path: col<string>(),
  sha256: col<string>(),
  bytes: col<number>(),
  format: col<'har' | 'scenario-evidence'>(),
  format_version: col<string | null>(),
  creator: col<string | null>(),
  start_url: col<string | null>(),
  request_bodies_selected: col<number | null>(),
  response_bodies_selected: col<number | null>(),
  header_values_selected: col<number | null>(),
  loaded_at: col<string>(),
};
export type CaptureTable = typeof capture;

const page = {
  capture_id: col<number>(),
  position: col<number>(),
  page_id: col<string>(),
  title: col<string | null>(),
  started_ms: col<number | null>(),
};
export type PageTable = typeof page;

const body = {
  id: col<Generated<number>>(),
  sha256: col<string>(),
  bytes: col<number>(),
  kind: col<'none' | 'base64' | 'cut' | 'json' | 'text'>(),
  is_usable: col<number>(),
  unusable_reason: col<string | null>(),
  content: col<string | Buffer | null>(),
  /** NULL on every row from migration 0016 (issue 46); 'deflate' meant a zlib stream before (src/store/body-content.ts). */
  coding: col<'deflate' | null>(),
};
export type BodyTable = typeof body;

const record = {
  id: col<Generated<number>>(),
  capture_id: col<number>(),
  ordinal: col<number>(),
  method: col<string>(),
  url: col<string>(),
  origin: col<string>(),
  path: col<string>(),
  query: col<string | null>(),
  is_url_redacted: col<number>(),
  status: col<number>(),
  status_text: col<string | null>(),
  http_version: col<string | null>(),
  started_ms: col<number | null>(),
  duration_ms: col<number>(),
  page_id: col<string | null>(),
  step_id: col<string | null>(),
  transaction_id: col<string | null>(),
  redirected_from_transaction_id: col<string | null>(),
  redirect_state: col<'linked' | 'root' | 'unknown' | null>(),
  resource_type: col<string | null>(),
  request_media_type: col<string | null>(),
  response_media_type: col<string | null>(),
  request_body_id: col<number>(),
  response_body_id: col<number>(),
  tool_id: col<number | null>(),
};
export type RecordTable = typeof record;

const query_param = {
  record_id: col<number>(),
  position: col<number>(),
  name: col<string>(),
  value: col<string>(),
};
export type QueryParamTable = typeof query_param;

const header = {
  record_id: col<number>(),
  side: col<'request' | 'response'>(),
  source: col<'header' | 'cookie'>(),
  position: col<number>(),
  name: col<string>(),
  value: col<string | null>(),
  is_redacted: col<number>(),
};
export type HeaderTable = typeof header;

/** schema/member_node.sql (issue 14): one JSON node, keyed by (body_id, parent, key). */
const member_node = {
  body_id: col<number>(),
  /** -1 for the root */
  parent: col<number>(),
  /** the member name in an object, the index in an array, 0 for the root */
  key: col<string | number>(),
  node: col<number>(),
  /** objects and arrays only (migration 0012); null for scalars */
  depth: col<number | null>(),
  /** 0 object, 1 array, 2 true, 3 false; null where the value says the type (migration 0013) */
  shape: col<0 | 1 | 2 | 3 | null>(),
  value: col<string | number | bigint | null>(),
  /** RFC 6901, objects and arrays only */
  pointer: col<string | null>(),
  /** worked out from the row (VIRTUAL, migration 0013) */
  position: col<GeneratedAlways<number>>(),
  /** worked out from shape and value (VIRTUAL, migration 0013) */
  type: col<GeneratedAlways<'object' | 'array' | 'string' | 'integer' | 'real' | 'true' | 'false' | 'null'>>(),
};
export type MemberNodeTable = typeof member_node;

const tool = {
  id: col<Generated<number>>(),
  capture_id: col<number>(),
  name: col<string>(),
  method: col<string>(),
  template: col<string>(),
  root_path: col<string>(),
  is_query_post: col<number>(),
  ends_in_param: col<number>(),
  template_source: col<'inferred' | 'override'>(),
};
export type ToolTable = typeof tool;

const manifest = {
  capture_id: col<number>(),
  subject_origin: col<string>(),
  subject_source: col<'page' | 'document' | 'json-responses' | 'all-responses' | 'start-url' | 'override'>(),
  api_base: col<string>(),
  api_base_source: col<'inferred' | 'override'>(),
  override_json: col<string | null>(),
  override_sha256: col<string | null>(),
};
export type ManifestTable = typeof manifest;

/** capture_normalisation: producer quirks the loader normalised (migrations/0006-real-exports.sql, issue 17). */
const capture_normalisation = {
  capture_id: col<number>(),
  position: col<number>(),
  quirk: col<string>(),
  field: col<string>(),
  records: col<number>(),
  first_record: col<number | null>(),
  note: col<string>(),
};
export type CaptureNormalisationTable = typeof capture_normalisation;

const admission_note = {
  capture_id: col<number>(),
  position: col<number>(),
  note: col<string>(),
};
export type AdmissionNoteTable = typeof admission_note;

const path_param = {
  record_id: col<number>(),
  position: col<number>(),
  name: col<string>(),
  value: col<string>(),
};
export type PathParamTable = typeof path_param;

const meta = {
  key: col<string>(),
  value: col<string>(),
};
export type MetaTable = typeof meta;

/** migrations/0002-vocabulary.sql: one list per vocabulary (src/store/vocabulary.ts reads it). */
const vocabulary = {
  vocabulary: col<
    | 'identity'
    | 'projection'
    | 'pagination'
    | 'ordering'
    | 'random'
    | 'next_token'
    | 'item_total'
    | 'page_total'
    | 'safe_method'
    | 'window_page'
    | 'window_size'
    | 'window_offset'
    | 'window_end'
    | 'total_header'
    | 'next_header'
    | 'range_header'
    | 'query_segment'
    | 'query_suffix'
    | 'query_method_prefix'
    | 'query_area'
    | 'cache_buster'
  >(),
  name: col<string>(),
  rank: col<number>(),
};
export type VocabularyTable = typeof vocabulary;

/** The fact tables by name. */
export const FACT_TABLES = {
  capture,
  page,
  body,
  record,
  query_param,
  header,
  member_node,
  tool,
  manifest,
  capture_normalisation,
  admission_note,
  path_param,
  meta,
  vocabulary,
};
