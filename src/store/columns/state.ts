/**
 * Column lists of the stored state's tables (migrations/0003, 0005, 0011): one capture's state as
 * the state pass wrote it (types, entities, documents, plans, ES-27's bounds, write effects), which
 * serving reads. Each column once, with its TypeScript type (types.ts).
 */
import { col } from './col.js';

/** state_capture: one row per capture whose state was computed or failed (migrations/0003-state.sql); none: pending (issue 49). */
const state_capture = {
  capture_id: col<number>(),
  status: col<'computed' | 'failed'>(),
  queries_sha256: col<string>(),
  sha256: col<string | null>(),
  timeline_order: col<'start-time' | 'record-order' | null>(),
  /** Exact JSON text of the view's `evidence`. */
  evidence: col<string | null>(),
  error_code: col<string | null>(),
  error_message: col<string | null>(),
  /** JSON text of the error's context. */
  error_context: col<string | null>(),
};
export type StateCaptureTable = typeof state_capture;

const state_types = {
  capture_id: col<number>(),
  position: col<number>(),
  collection: col<string>(),
  root_path: col<string>(),
  identity: col<string>(),
  identity_source: col<'path' | 'name' | 'suffix' | 'member'>(),
  order_source: col<'row' | 'appearance'>(),
  bound_rule: col<'ES-8' | 'ES-9' | 'ES-27' | null>(),
  bound_write_ordinal: col<number | null>(),
  /** JSON array of entity keys. */
  initial_order: col<string>(),
};
export type StateTypesTable = typeof state_types;

const state_entities = {
  capture_id: col<number>(),
  position: col<number>(),
  collection: col<string>(),
  entity_key: col<string>(),
  /** Exact JSON text. */
  value: col<string>(),
  view_values: col<string>(),
  state_order: col<number>(),
  record_ordinals: col<string>(),
};
export type StateEntitiesTable = typeof state_entities;

const state_documents = {
  capture_id: col<number>(),
  position: col<number>(),
  tool: col<string>(),
  path: col<string>(),
  query: col<string | null>(),
  status: col<number>(),
  value: col<string>(),
  record_ordinal: col<number>(),
};
export type StateDocumentsTable = typeof state_documents;

const state_plans = {
  capture_id: col<number>(),
  position: col<number>(),
  tool: col<string>(),
  kind: col<'item' | 'list' | 'document' | 'record'>(),
  reason: col<string | null>(),
  detail: col<string | null>(),
  collection: col<string | null>(),
  pointer: col<string | null>(),
  membership: col<'all' | 'recorded' | null>(),
  path: col<string | null>(),
  record_ordinal: col<number | null>(),
  view_facts: col<string | null>(),
  counters: col<string | null>(),
  lines: col<string | null>(),
};
export type StatePlansTable = typeof state_plans;

/** state_change_bounds: ES-27's bound per type (migrations/0005-state-records.sql). */
const state_change_bounds = {
  capture_id: col<number>(),
  root_path: col<string>(),
  write_ordinal: col<number>(),
  detail: col<string>(),
};
export type StateChangeBoundsTable = typeof state_change_bounds;

/** state_records: per record, initial read, bound and list pointer (migrations/0005-state-records.sql). */
const state_records = {
  capture_id: col<number>(),
  record_id: col<number>(),
  is_initial: col<number>(),
  bound_rule: col<'ES-8' | 'ES-9' | 'ES-27' | null>(),
  bound_ordinal: col<number | null>(),
  list_pointer: col<string | null>(),
};
export type StateRecordsTable = typeof state_records;

const state_limitations = {
  capture_id: col<number>(),
  position: col<number>(),
  limitation: col<string>(),
};
export type StateLimitationsTable = typeof state_limitations;

const state_gate_findings = {
  capture_id: col<number>(),
  position: col<number>(),
  finding: col<string>(),
};
export type StateGateFindingsTable = typeof state_gate_findings;

/** state_write_effects: per write tool, its verified effect or why it replays (migrations/0011-state-write-effects.sql). */
const state_write_effects = {
  capture_id: col<number>(),
  position: col<number>(),
  tool: col<string>(),
  verified: col<number>(),
  effect: col<string | null>(),
  reason: col<string | null>(),
};
export type StateWriteEffectsTable = typeof state_write_effects;

/** The stored state's tables by name. */
export const STATE_TABLES = {
  state_capture,
  state_types,
  state_entities,
  state_documents,
  state_plans,
  state_limitations,
  state_gate_findings,
  state_write_effects,
  state_change_bounds,
  state_records,
};
