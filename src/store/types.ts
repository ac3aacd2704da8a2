/**
 * Kysely types: one row type per table (schema/, migrations/) and per view (queries/), each
 * column stated once, with its TypeScript type and in the store's order, in the column lists of
 * columns/ (facts, stored state, rule views, shaping views). `DB` and `COLUMNS` derive from those
 * lists; test/store.test.ts checks COLUMNS against a freshly migrated store, so they cannot drift.
 */
import { FACT_TABLES } from './columns/facts.js';
import { STATE_TABLES } from './columns/state.js';
import { RULE_VIEWS } from './columns/views.js';
import { SHAPING_VIEWS } from './columns/shaping-views.js';

export type {
  CaptureTable,
  PageTable,
  BodyTable,
  RecordTable,
  QueryParamTable,
  HeaderTable,
  MemberNodeTable,
  ToolTable,
  ManifestTable,
  CaptureNormalisationTable,
  AdmissionNoteTable,
  PathParamTable,
  MetaTable,
  VocabularyTable,
} from './columns/facts.js';
export type {
  StateCaptureTable,
  StateTypesTable,
  StateEntitiesTable,
  StateDocumentsTable,
  StatePlansTable,
  StateChangeBoundsTable,
  StateRecordsTable,
  StateLimitationsTable,
  StateGateFindingsTable,
  StateWriteEffectsTable,
} from './columns/state.js';
export type {
  MemberTable,
  BodyContentView,
  RecordsTimelineView,
  CaptureTimelineView,
  ResponseMembersView,
  WritesView,
  FirstWritePerRootView,
  ToolStatusesView,
  FileDocumentsView,
  ReadRecordsView,
  ListLocationsView,
  ReadShownIdsView,
  PostCreatedIdsView,
  InitialReadsView,
  ItemLocationsView,
  TypeIdentitiesView,
  EntityObservationsView,
  UncheckedRecordsView,
  ViewPerResponseMembersView,
  ViewFieldsView,
  CollectionOrderView,
  ListReadsView,
  ListCountersView,
  ListMembershipView,
  ListPageSignalsView,
  PerResponseMembersView,
} from './columns/views.js';
export type {
  QueryParamRolesView,
  LineRecordsView,
  ShownObjectsView,
  ShownObjectMembersView,
  ShownObjectIdsView,
  ShapingLinesView,
  ProjectedItemReadsView,
  ProjectedListRowsView,
  BaseRowsView,
  VariantRowsView,
  VariantKeysView,
  UncheckedLinesView,
  KeptObservationsView,
  LateShapingRowsView,
  ProjectionValuesView,
} from './columns/shaping-views.js';

/** Every table and view by name. */
const TABLES = { ...FACT_TABLES, ...STATE_TABLES, ...RULE_VIEWS, ...SHAPING_VIEWS };

/** Kysely's database type: every table and view by name, each its row type. */
export type DB = typeof TABLES;

/** Each list's keys: its column names in the store's order. */
function columnsOf<T extends Record<string, object>>(tables: T): { [K in keyof T]: readonly string[] } {
  const out = {} as { [K in keyof T]: readonly string[] };
  for (const name of Object.keys(tables) as (keyof T)[]) out[name] = Object.keys(tables[name]);
  return out;
}

/** Column names per table and view, in the store's order (test/store.test.ts checks them against the store). */
export const COLUMNS: { [K in keyof DB]: readonly string[] } = columnsOf(TABLES);
