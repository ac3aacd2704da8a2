/**
 * The environment-state view (ES-1): reads the rule views for one capture, merges entities
 * (ES-26), forms and checks plans (ES-37) and documents (DOC-1..DOC-5), and serialises the
 * result byte-stably (OQ-36).
 */
import type { Kysely } from 'kysely';
import { stringifyExact, type JsonValue } from '../json/exact.js';
import { sha256Hex } from '../json/sha256.js';
import { JSON_FORMAT_VERSION } from '../json/output.js';
import type { DB } from '../store/types.js';
import { mergeEntities } from './entities.js';
import { readOrder, readStateFacts, STATE_VIEWS, type StateFacts } from './facts.js';
import { withSnapshot, type Snapshot } from '../store/snapshot.js';
import { planTools } from './plans.js';
import { classifyRows } from './variants.js';
import { findChanges, reextract } from './changes.js';
import { Budget, valueCost } from './budget.js';
import { runGate, sortedCandidates } from './gate.js';
import type { EnvironmentState } from './types.js';

export type { EnvironmentState } from './types.js';

export function environmentState(k: Kysely<DB>, captureId: number): Promise<EnvironmentState> {
  return withSnapshot(k, STATE_VIEWS, (snapshot) => statePass(k, captureId, snapshot));
}

/**
 * ES-27 before ES-33: the re-extraction (changes.ts, still TypeScript) takes more records out
 * of the observations, so the snapshot's `kept_observations` are narrowed to match and the
 * order rule (`collection_order`) is evaluated again over them before it is read. ES-12..ES-19
 * need no such step: `kept_observations` already leaves their records out.
 */
async function orderAfterReextraction(k: Kysely<DB>, captureId: number, snapshot: Snapshot, budget: Budget, removed: Iterable<number>): Promise<StateFacts['order']> {
  snapshot.deleteRows('kept_observations', 'record_id', removed);
  snapshot.rebuild('collection_order');
  return readOrder(k, captureId, budget);
}

async function statePass(k: Kysely<DB>, captureId: number, snapshot: Snapshot): Promise<EnvironmentState> {
  const budget = new Budget();
  const all = await readStateFacts(k, captureId, budget);
  // ES-12..ES-14, ES-19: the views name the projected rows and distinguishable variants, whose
  // records are already out of `kept_observations` (and so of the order), and leave the checks.
  const shaping = await classifyRows(k, captureId);
  let facts: StateFacts = all;
  let merged = mergeEntities(facts);
  const chargePlanning = () => { for (const e of merged.entities) budget.charge('planning', valueCost(e.value) + valueCost(e.view_values as unknown as JsonValue)); };
  chargePlanning();
  // ES-27/ES-28: a change across a write under another root ends the type's initial read at
  // that write; the state is extracted once more (never iteratively).
  const changes = findChanges(facts, merged, shaping.excluded);
  if (changes.size > 0) {
    const before = new Set(facts.observations.map((o) => o.record_id));
    facts = reextract(facts, changes);
    const kept = new Set(facts.observations.map((o) => o.record_id));
    facts = { ...facts, order: await orderAfterReextraction(k, captureId, snapshot, budget, [...before].filter((id) => !kept.has(id))) };
    budget.release('planning'); // ES-39: the trimmed pass releases its charge first
    merged = mergeEntities(facts);
    chargePlanning();
  }
  const { plans, documents } = planTools(facts, merged, shaping);
  // OQ-21: after the re-extraction, a type whose reads still disagree keeps every tool recorded.
  for (const [root, change] of changes) {
    const tools = new Set(facts.tools.filter((t) => t.root_path === root).map((t) => t.name));
    if (!plans.some((p) => tools.has(p.tool) && p.kind === 'record' && p.reason === 'fields-differ')) continue;
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i];
      if (!tools.has(p.tool) || (p.kind === 'record' && p.reason !== 'fields-differ')) continue;
      plans[i] = { tool: p.tool, kind: 'record', reason: 'fields-differ', detail: `${change.detail}; after the re-extraction the type's reads still disagree (ES-27)` };
    }
    for (let i = documents.length - 1; i >= 0; i--) if (tools.has(documents[i].tool)) documents.splice(i, 1);
  }
  // OQ-20: the minimal gate learns required-field relaxations (ES-21) and sorted arrays (ES-31/32).
  const gate = await runGate(k, facts, merged, shaping, plans);
  const rootOf = new Map(facts.tools.map((t) => [t.name, t.root_path]));
  for (const p of plans) {
    if (p.kind !== 'item' && p.kind !== 'list') continue;
    const root = rootOf.get(p.tool)!;
    const relaxed = gate.relaxed.get(root);
    if (relaxed) p.required_fields = p.required_fields.filter((f) => !relaxed.has(f));
    const learned = gate.sorted.get(root);
    if (learned) p.sorted_arrays = sortedCandidates((merged.observationsByTool.get(p.tool) ?? []).map((o) => o.object)).filter((f) => learned.has(f));
  }
  const redacted = facts.writes.filter((w) => w.is_url_redacted === 1).length;
  const limitations: string[] = [];
  // ES-8: a write whose URL is redacted bounds every type; the view counts such writes.
  if (redacted > 0) limitations.push(`${redacted} write${redacted === 1 ? '' : 's'} with a redacted URL bound${redacted === 1 ? 's' : ''} every type (ES-8)`);
  return {
    kind: 'environment-state',
    capture_id: captureId,
    timeline_order: facts.timelineOrder,
    limitations,
    // ES-41: the view's evidence is inferred; these stay unknown.
    evidence: { status: 'inferred', unknown: ['authorization', 'response-semantics', 'write-effects'] },
    types: merged.types,
    entities: merged.entities,
    documents,
    plans,
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
