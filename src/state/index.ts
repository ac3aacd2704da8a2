/**
 * @rule ES-1, OQ-36
 * The environment-state view (ES-1), as one straight pass over the final rule views:
 * find the ES-27 change bounds and store them (so `initial_reads` is final), then, one type
 * at a time (OQ-32), read its facts, merge its entities (ES-26), form and check its plans
 * (ES-37) and documents (DOC-1..DOC-5), run the gate (OQ-20), and hand the decided type to
 * a sink — the store's state_* tables (writer.ts) or an in-memory view — before the next.
 * The rule steps are in steps/, one file each; `stateDocumentValue` prints the view (OQ-36).
 */
import type { Kysely } from 'kysely';
import { stringifyExact, type JsonValue } from '../json/exact.js';
import { sha256Hex } from '../json/sha256.js';
import { JSON_FORMAT_VERSION } from '../json/output.js';
import type { DB } from '../store/types.js';
import { mergeEntities } from './steps/merge-entities.js';
import { readCaptureFacts, readUnitFacts, STATE_VIEWS, unitRoots, type CaptureFacts } from './facts.js';
import { withSnapshot, type Snapshot } from '../store/snapshot.js';
import { planTools } from './steps/plans.js';
import { classifyRows, type Shaping } from '../model/plan/variants.js';
import { findAbsenceBound, findChangeBound, keepRecordedWhenStillDiffering, type ChangeBound } from './steps/change-bounds.js';
import { Budget, valueCost } from './budget.js';
import { applyGate, runGate } from './steps/gate.js';
import type { EnvironmentState, Plan, StateDocument, StateEntity, StateHead, StateType } from '../model/plan/types.js';
import { PASS_EVIDENCE } from '../model/plan/evidence.js';

export type { EnvironmentState } from '../model/plan/types.js';

/** What one type's unit of work decided, in the view's order; plans and documents carry their place in the view's tool order. */
export interface UnitResult {
  types: StateType[];
  entities: StateEntity[];
  plans: { position: number; plan: Plan }[];
  documents: { position: number; document: StateDocument }[];
  gate_findings: string[];
}

export interface RecordDecision {
  record_id: number;
  is_initial: number;
  bound_rule: 'ES-8' | 'ES-9' | 'ES-27' | null;
  bound_ordinal: number | null;
  list_pointer: string | null;
}

/** The view's parts that are not per type. */
export type { StateHead } from '../model/plan/types.js';

/** Where the pass puts what it decides: each type as soon as it is decided, then the head. */
export interface StateSink {
  /** ES-27's bounds, before any type is taken (the store keeps them for `initial_reads`). */
  changeBounds(bounds: ChangeBound[]): Promise<void>;
  /** Per record: initial read and bound (`initial_reads`), list pointer (`list_locations`), as the final views say. */
  records(rows: RecordDecision[]): Promise<void>;
  unit(result: UnitResult): Promise<void>;
  /** Issue 46: told as each step starts and as each of its units of work ends, so a long pass is not silent. */
  progress?(p: StateProgress): void;
}

/**
 * The pass's steps in order: evaluating the rule views, the change bounds (a unit per type
 * with an identity), the record decisions, then a unit per type root; the store adds the
 * write check and the digest (writer.ts). `done` of `total` units of the step are finished.
 */
export type StateStep = 'views' | 'bounds' | 'records' | 'types' | 'write-check' | 'digest';
export interface StateProgress {
  step: StateStep;
  done: number;
  total: number;
}

/** The view in memory (tests, and callers that need the whole value); the store computes it with `storeState`. */
export async function environmentState(k: Kysely<DB>, captureId: number): Promise<EnvironmentState> {
  const parts: UnitResult[] = [];
  const head = await computeState(k, captureId, {
    changeBounds: async () => {},
    records: async () => {},
    unit: async (u) => {
      parts.push(u);
    },
  });
  const inOrder = <T extends { position: number }>(xs: T[]) => xs.sort((a, b) => a.position - b.position);
  return {
    ...head,
    types: parts.flatMap((p) => p.types),
    entities: parts.flatMap((p) => p.entities),
    documents: inOrder(parts.flatMap((p) => p.documents)).map((d) => d.document),
    plans: inOrder(parts.flatMap((p) => p.plans)).map((p) => p.plan),
    gate_findings: parts.flatMap((p) => p.gate_findings),
  };
}

/** Runs the pass for capture `captureId`, handing each decided type to `sink`; returns the head. */
export function computeState(k: Kysely<DB>, captureId: number, sink: StateSink): Promise<StateHead> {
  sink.progress?.({ step: 'views', done: 0, total: 1 });
  // The pass's own change bounds shadow any the file stores: it starts from ES-8/ES-9 alone.
  return withSnapshot(
    k,
    STATE_VIEWS,
    (snapshot) => statePass(k, captureId, snapshot, sink),
    { state_change_bounds: [] },
    { capture: captureId },
  );
}

async function statePass(k: Kysely<DB>, captureId: number, snapshot: Snapshot, sink: StateSink): Promise<StateHead> {
  const budget = new Budget();
  const tell = sink.progress?.bind(sink) ?? (() => {});
  tell({ step: 'views', done: 1, total: 1 });
  const capture = await readCaptureFacts(k, captureId, budget);
  let shaping = await classifyRows(k, captureId);
  // ES-27 / ES-28, before anything is decided: a type's initial read ends at a change across a
  // write under another root. The bounds are facts the views then read (`initial_reads`).
  const bounds = await changeBounds(k, capture, shaping, budget, tell);
  await sink.changeBounds([...bounds.values()]);
  if (bounds.size > 0) {
    snapshot.replace(
      'state_change_bounds',
      [...bounds.values()].map((b) => ({
        capture_id: captureId,
        root_path: b.root_path,
        write_ordinal: b.write_ordinal,
        detail: b.detail,
      })),
    );
    // The views under `initial_reads` are final now; the shaping views read them (the capture's shared facts do not).
    shaping = await classifyRows(k, captureId);
  }
  tell({ step: 'records', done: 0, total: 1 });
  await sink.records(await recordDecisions(k, captureId));
  // Each read tool's place in the view's plan list (tool order), fixed before the types are taken.
  const readTools = await k.selectFrom('read_records').select('tool').distinct().where('capture_id', '=', captureId).execute();
  const hasReads = new Set(readTools.map((r) => r.tool));
  const position = new Map(capture.allTools.filter((t) => hasReads.has(t.name)).map((t, i) => [t.name, i]));
  const roots = unitRoots(capture);
  for (const [i, root] of roots.entries()) {
    tell({ step: 'types', done: i, total: roots.length });
    await sink.unit(await budget.unit(root, () => typePass(k, capture, root, shaping, bounds.get(root), position, budget)));
  }
  tell({ step: 'types', done: roots.length, total: roots.length });
  const redacted = capture.writes.filter((w) => w.is_url_redacted === 1).length;
  const limitations: string[] = [];
  // ES-8: a write whose URL is redacted bounds every type; the view counts such writes.
  if (redacted > 0)
    limitations.push(
      `${redacted} write${redacted === 1 ? '' : 's'} with a redacted URL bound${redacted === 1 ? 's' : ''} every type (ES-8)`,
    );
  return {
    kind: 'environment-state',
    capture_id: captureId,
    timeline_order: capture.timelineOrder,
    limitations,
    // ES-41: the view's evidence is inferred; these stay unknown (write effects until the store checks them).
    evidence: { ...PASS_EVIDENCE, unknown: [...PASS_EVIDENCE.unknown] },
  };
}

/** Each record's initial-read bound and list pointer, from the final views (in the snapshot: already evaluated). */
async function recordDecisions(k: Kysely<DB>, captureId: number): Promise<RecordDecision[]> {
  // Both are matched here, by id: the snapshot's tables have no index and SQLite scanned
  // each of them once per record for a join (initial_reads: 35,000 records of one tool,
  // 33 s; list_locations: 38,052 records against 20,911 list bodies at 1 GB, 38 s).
  const initial = new Map(
    (
      await k.selectFrom('initial_reads').select(['record_id', 'bound_rule', 'bound_ordinal']).where('capture_id', '=', captureId).execute()
    ).map((i) => [i.record_id, i]),
  );
  const lists = new Map(
    (await k.selectFrom('list_locations').select(['body_id', 'list_pointer']).execute()).map((l) => [l.body_id, l.list_pointer]),
  );
  const rows = await k.selectFrom('record').select(['id', 'response_body_id']).where('capture_id', '=', captureId).orderBy('id').execute();
  return rows.map((r) => {
    const i = initial.get(r.id);
    const list_pointer = r.response_body_id === null ? null : (lists.get(r.response_body_id) ?? null);
    return {
      record_id: r.id,
      is_initial: i ? 1 : 0,
      bound_rule: i?.bound_rule ?? null,
      bound_ordinal: i?.bound_ordinal ?? null,
      list_pointer,
    };
  });
}

/** ES-27: each type's change bound (or absence bound, steps/change-bounds.ts), a type at a time (its bodies released before the next). */
async function changeBounds(
  k: Kysely<DB>,
  capture: CaptureFacts,
  shaping: Shaping,
  budget: Budget,
  tell: (p: StateProgress) => void,
): Promise<Map<string, ChangeBound>> {
  const bounds = new Map<string, ChangeBound>();
  const total = capture.allIdentities.length;
  for (const [i, t] of capture.allIdentities.entries()) {
    tell({ step: 'bounds', done: i, total });
    const bound = await budget.unit(t.root_path, async () => {
      const facts = await readUnitFacts(k, capture, t.root_path, budget);
      // Issue 18: an entity proven absent by a 404 and shown later bounds the type too; the earlier bound wins.
      const found = [findChangeBound(facts, shaping.excluded), findAbsenceBound(facts)].filter((b): b is ChangeBound => b !== undefined);
      return found.sort((a, b) => a.write_position - b.write_position)[0];
    });
    if (bound) bounds.set(t.root_path, bound);
  }
  return bounds;
}

/** One type: its entities, plans, documents and gate, from its facts alone (plus the capture's shared ones). */
async function typePass(
  k: Kysely<DB>,
  capture: CaptureFacts,
  root: string,
  shaping: Shaping,
  change: ChangeBound | undefined,
  position: Map<string, number>,
  budget: Budget,
): Promise<UnitResult> {
  const facts = await readUnitFacts(k, capture, root, budget);
  const merged = mergeEntities(facts);
  for (const e of merged.entities) budget.charge('planning', valueCost(e.value) + valueCost(e.view_values as unknown as JsonValue));
  const { plans, documents } = planTools(facts, merged, shaping);
  // OQ-21: after the re-extraction, a type whose reads still disagree keeps every tool recorded.
  keepRecordedWhenStillDiffering(change, plans, documents);
  // OQ-20: the minimal gate learns required-field relaxations (ES-21) and sorted arrays (ES-31/32).
  const gate = await runGate(k, facts, merged, shaping, plans, budget);
  applyGate(gate, root, merged, plans);
  return {
    types: merged.types,
    entities: merged.entities,
    plans: plans.map((plan) => ({ position: position.get(plan.tool)!, plan })),
    documents: documents.map((document) => ({ position: position.get(document.tool)!, document })),
    gate_findings: gate.findings,
  };
}

/**
 * The view as bytes: compact exact JSON in a fixed key order, so the same store always gives
 * the same bytes; its SHA-256 is what `sha256` in the printed document states.
 */
export function stateBytes(state: EnvironmentState): { text: string; sha256: string } {
  const text = stringifyExact(state as unknown as JsonValue);
  return { text, sha256: sha256Hex(text) };
}

/** The printed document: `format_version`, the view (OQ-36) and `sha256` of the view's bytes. */
export function stateDocumentValue(state: EnvironmentState): Record<string, unknown> {
  return { format_version: JSON_FORMAT_VERSION, ...state, sha256: stateBytes(state).sha256 };
}
