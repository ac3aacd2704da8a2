/**
 * @rule ES-27, ES-28, OQ-21
 * The change bounds, decided before anything else (the state pass stores them, and the view
 * `initial_reads` then ends each bounded type's initial read there; the state is extracted
 * once, from the shorter initial read):
 * - ES-27 / ES-28 / OQ-21: a change seen across a write under another root — an entity's
 *   value, or a request line's membership or field presence, differing between two initial
 *   observations with a write between them — ends the type's initial read at the earliest
 *   such write (`findChangeBound`); a type whose reads still disagree after the re-extraction
 *   keeps every tool recorded (`keepRecordedWhenStillDiffering`).
 * - Issue 18's reading of ES-27 (proven absent, docs/decisions.md): an entity a 404 proved
 *   absent and a later read shows bounds the type the same way (`findAbsenceBound`).
 * ES-8's own bound (the first write) is decided by queries/first_write_per_root.sql.
 */
import type { JsonValue } from '../../json/exact.js';
import { observedObject } from './merge-entities.js';
import { lineKey, type ReadLine, type StateFacts } from '../facts.js';
import { readClock, sameInstant } from '../../model/plan/clocks.js';
import { at, isObject, jsonEqual, keysOf, member } from '../../model/plan/json.js';
import type { Plan, StateDocument } from '../../model/plan/types.js';

export interface ChangeBound {
  root_path: string;
  write_ordinal: number;
  write_position: number;
  detail: string;
}

/** OQ-21: values compare after mapping clock spellings to instants (ES-29's reading of a clock). */
function sameValue(field: string, a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const [x, y] = [readClock(field, a), readClock(field, b)];
  if (typeof a === 'string' && typeof b === 'string' && x && y) return sameInstant(x.instant, y.instant);
  return jsonEqual(a, b);
}

/** The earliest write that starts after r1 ended and before r2 started (record order: between them). */
export function writeBetween(facts: StateFacts, r1: ReadLine, r2: ReadLine): StateFacts['writes'][number] | undefined {
  return facts.writes.find((w) =>
    facts.timelineOrder === 'record-order' || w.started_ms === null || r1.ended_ms === null || r2.started_ms === null
      ? w.timeline_position > r1.timeline_position && w.timeline_position < r2.timeline_position
      : w.started_ms > r1.ended_ms && w.started_ms < r2.started_ms,
  );
}

/**
 * One type's change bound, if any (`facts` covers one root, read before any ES-27 bound is
 * known: its initial reads are those of ES-8/ES-9). `excluded` names the records ES-12..ES-19
 * took out of the checks. The pass stores the bound (state_change_bounds) and `initial_reads`
 * ends the type's initial read there; the state is then extracted once, never iteratively.
 */
export function findChangeBound(facts: StateFacts, excluded: Set<number>): ChangeBound | undefined {
  const readOf = new Map(facts.reads.map((r) => [r.record_id, r]));
  let bound: ChangeBound | undefined;
  const note = (root: string, r1: ReadLine, r2: ReadLine, what: string) => {
    const w = writeBetween(facts, r1, r2);
    if (!w) return;
    if (!bound || w.timeline_position < bound.write_position) {
      bound = {
        root_path: root,
        write_ordinal: w.ordinal,
        write_position: w.timeline_position,
        detail: `${what} changed between #${r1.ordinal} and #${r2.ordinal} across write #${w.ordinal} (ES-27)`,
      };
    }
  };

  // An entity's common fields, across any two of its observations in timeline order; and
  // each record's listed ids and shown fields (ES-28), from the same objects.
  const byEntity = new Map<string, { root: string; id: string; obs: { record: ReadLine; object: JsonValue }[] }>();
  const generatedFor = (r: ReadLine) => facts.perResponse.get(r.path) ?? new Set<string>();
  const listed = new Map<number, string[]>();
  const fields = new Map<number, Set<string>>();
  for (const o of facts.observations) {
    const r = readOf.get(o.record_id);
    if (o.view_kind === 'list') (listed.get(o.record_id) ?? listed.set(o.record_id, []).get(o.record_id)!).push(o.entity_id);
    const body = r && facts.bodyValue(o.body_id);
    const found = body === undefined ? undefined : at(body, o.entity_pointer);
    if (!r || !isObject(found)) continue;
    const object = facts.ownObject(o.record_id, found);
    const shown = observedObject(facts, o, r.path)!;
    const set = fields.get(o.record_id) ?? fields.set(o.record_id, new Set()).get(o.record_id)!;
    for (const k of keysOf(shown)) set.add(k);
    const key = `${o.root_path}\u0000${o.entity_id}`;
    const e = byEntity.get(key) ?? { root: o.root_path, id: o.entity_id, obs: [] };
    e.obs.push({ record: r, object });
    byEntity.set(key, e);
  }
  for (const { root, id, obs } of byEntity.values()) {
    for (let i = 1; i < obs.length; i++) {
      const [a, b] = [obs[i - 1], obs[i]];
      const generated = new Set([...generatedFor(a.record), ...generatedFor(b.record)]);
      const common = keysOf(a.object).filter((k) => !generated.has(k) && member(b.object, k) !== undefined);
      const field = common.find((k) => !sameValue(k, member(a.object, k), member(b.object, k)));
      if (field !== undefined) note(root, a.record, b.record, `${id}.${field}`);
    }
  }

  // ES-28: a request line's membership (including empty lists) and field presence across its records.
  const lines = new Map<string, ReadLine[]>();
  for (const r of facts.reads) {
    if (!r.is_initial || excluded.has(r.record_id) || r.status < 200 || r.status > 299) continue;
    const k = `${r.tool}\u0000${lineKey(r)}`;
    (lines.get(k) ?? lines.set(k, []).get(k)!).push(r);
  }
  // Each record's membership and field presence, as comparable keys, computed once.
  const membershipKey = (r: ReadLine) => [...(listed.get(r.record_id) ?? [])].sort().join(',');
  const presenceKey = (r: ReadLine) => [...(fields.get(r.record_id) ?? [])].sort().join(',');
  for (const rs of lines.values()) {
    const keys = rs.map((r) => ({ membership: membershipKey(r), presence: presenceKey(r) }));
    for (let i = 1; i < rs.length; i++) {
      const [a, b] = [rs[i - 1], rs[i]];
      if (keys[i - 1].membership !== keys[i].membership)
        note(a.root_path, a, b, `the membership of ${a.path}${a.query ? '?' + a.query : ''}`);
      else if (keys[i - 1].presence !== keys[i].presence) note(a.root_path, a, b, `the fields of ${a.path}${a.query ? '?' + a.query : ''}`);
    }
  }
  return bound;
}

/** OQ-21: after the re-extraction, a type whose reads still disagree keeps every tool recorded (and no document). */
export function keepRecordedWhenStillDiffering(change: ChangeBound | undefined, plans: Plan[], documents: StateDocument[]): void {
  if (change && plans.some((p) => p.kind === 'record' && p.reason === 'fields-differ')) {
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i];
      if (p.kind === 'record' && p.reason !== 'fields-differ') continue;
      plans[i] = {
        tool: p.tool,
        kind: 'record',
        reason: 'fields-differ',
        detail: `${change.detail}; after the re-extraction the type's reads still disagree (ES-27)`,
      };
    }
    documents.length = 0;
  }
}
/*
 * Proven absent (issue 18; ES-8/ES-27 reading, docs/decisions.md): an item read of the type
 * that answered 404 proves the entity it names absent at that point. When a later read shows
 * that entity and no earlier read did, something created it in between; when no recorded
 * write lies between them, the creating write is unrecorded, and the latest it can have
 * happened is just before the first read that shows the entity. The type's initial read ends
 * there (a bound stored like ES-27's), so the entity is not in the initial state and the reads
 * that show the unrecorded write's effect do not count as initial reads.
 */
/** The type's absence bound, if any (`facts` covers one root, read before any ES-27 bound is known). */
export function findAbsenceBound(facts: StateFacts): ChangeBound | undefined {
  const itemTools = new Set(
    facts.tools.filter((t) => t.root_path === facts.root && t.ends_in_param === 1 && t.method.toUpperCase() === 'GET').map((t) => t.name),
  );
  const position = new Map(facts.reads.map((r) => [r.record_id, r]));
  // Each entity's reads that show it, in timeline order.
  const shownBy = new Map<string, ReadLine[]>();
  for (const o of facts.observations) {
    const r = position.get(o.record_id);
    if (!r || o.root_path !== facts.root) continue;
    (shownBy.get(o.entity_id) ?? shownBy.set(o.entity_id, []).get(o.entity_id)!).push(r);
  }
  for (const rs of shownBy.values()) rs.sort((a, b) => a.timeline_position - b.timeline_position);
  let bound: ChangeBound | undefined;
  for (const miss of facts.reads) {
    if (!miss.is_initial || miss.status !== 404 || !itemTools.has(miss.tool)) continue;
    const id = facts.pathValue(miss.record_id);
    const shown = id === undefined ? [] : (shownBy.get(id) ?? []);
    // Shown before the 404: the entity existed at the start (a later absence is a delete, not this reading).
    if (shown.some((r) => r.timeline_position < miss.timeline_position)) continue;
    const seen = shown.find((r) => r.timeline_position > miss.timeline_position);
    if (!seen) continue;
    // A recorded write between them: the change is seen across that write (ES-27 proper).
    const w = writeBetween(facts, miss, seen);
    const at = w ? { ordinal: w.ordinal, position: w.timeline_position } : { ordinal: seen.ordinal, position: seen.timeline_position };
    if (bound && bound.write_position <= at.position) continue;
    bound = {
      root_path: facts.root,
      write_ordinal: at.ordinal,
      write_position: at.position,
      detail: w
        ? `${id} answered 404 at #${miss.ordinal} and is shown at #${seen.ordinal}, across write #${w.ordinal} (ES-27)`
        : `${id} answered 404 at #${miss.ordinal} and is shown at #${seen.ordinal} with no recorded write between: an unrecorded write created it, and the initial read ends at #${seen.ordinal} (ES-27, issue 18)`,
    };
  }
  return bound;
}
