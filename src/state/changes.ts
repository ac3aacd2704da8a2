/**
 * ES-27 / ES-28 / OQ-21: a change seen across a write under another root — an entity's
 * value, or a request line's membership or field presence, differing between two initial
 * observations with a write between them — ends the type's initial read at the earliest
 * such write. The state is then extracted once more from the shorter initial read.
 */
import type { JsonValue } from '../json/exact.js';
import type { MergedTypes } from './entities.js';
import { lineKey, type ReadLine, type StateFacts } from './facts.js';
import { readClock, sameInstant } from './clocks.js';
import { at, isObject, jsonEqual, keysOf, member } from './json.js';

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
  return facts.writes.find((w) => facts.timelineOrder === 'record-order' || w.started_ms === null || r1.ended_ms === null || r2.started_ms === null
    ? w.timeline_position > r1.timeline_position && w.timeline_position < r2.timeline_position
    : w.started_ms > r1.ended_ms && w.started_ms < r2.started_ms);
}

/** `facts.observations` arrive without the records ES-12..ES-19 took out; `excluded` names them for the reads. */
export function findChanges(facts: StateFacts, merged: MergedTypes, excluded: Set<number>): Map<string, ChangeBound> {
  const readOf = new Map(facts.reads.map((r) => [r.record_id, r]));
  const bounds = new Map<string, ChangeBound>();
  const note = (root: string, r1: ReadLine, r2: ReadLine, what: string) => {
    const w = writeBetween(facts, r1, r2);
    if (!w) return;
    const cur = bounds.get(root);
    if (!cur || w.timeline_position < cur.write_position) {
      bounds.set(root, { root_path: root, write_ordinal: w.ordinal, write_position: w.timeline_position, detail: `${what} changed between #${r1.ordinal} and #${r2.ordinal} across write #${w.ordinal} (ES-27)` });
    }
  };

  // An entity's common fields, across any two of its observations in timeline order.
  const byEntity = new Map<string, { root: string; id: string; obs: { record: ReadLine; object: JsonValue }[] }>();
  const generatedFor = (r: ReadLine) => facts.perResponse.get(r.path) ?? new Set<string>();
  for (const o of facts.observations) {
    const r = readOf.get(o.record_id);
    const body = r && facts.bodyValue(o.body_id);
    const object = body === undefined ? undefined : at(body, o.entity_pointer);
    if (!r || !isObject(object)) continue;
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
  const listed = new Map<number, string[]>();
  for (const o of facts.observations) if (o.view_kind === 'list') (listed.get(o.record_id) ?? listed.set(o.record_id, []).get(o.record_id)!).push(o.entity_id);
  const fields = new Map<number, Set<string>>();
  for (const list of merged.observationsByTool.values()) {
    for (const o of list) {
      const set = fields.get(o.record_id) ?? fields.set(o.record_id, new Set()).get(o.record_id)!;
      for (const k of keysOf(o.object)) set.add(k);
    }
  }
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
      if (keys[i - 1].membership !== keys[i].membership) note(a.root_path, a, b, `the membership of ${a.path}${a.query ? '?' + a.query : ''}`);
      else if (keys[i - 1].presence !== keys[i].presence) note(a.root_path, a, b, `the fields of ${a.path}${a.query ? '?' + a.query : ''}`);
    }
  }
  return bounds;
}

/** The facts with each changed type's initial reads ending at its new bound (the re-extraction). */
export function reextract(facts: StateFacts, bounds: Map<string, ChangeBound>): StateFacts {
  if (bounds.size === 0) return facts;
  const writes = new Map(facts.writes.map((w) => [w.ordinal, w]));
  const keep = (r: ReadLine): boolean => {
    const b = bounds.get(r.root_path);
    if (!b || !r.is_initial) return r.is_initial;
    const w = writes.get(b.write_ordinal)!;
    return facts.timelineOrder === 'record-order' || w.started_ms === null || r.ended_ms === null
      ? r.timeline_position < w.timeline_position
      : r.ended_ms < w.started_ms;
  };
  const reads = facts.reads.map((r) => {
    const b = bounds.get(r.root_path);
    return r.is_initial && !keep(r) ? { ...r, is_initial: false } : b && r.is_initial ? { ...r, bound_ordinal: b.write_ordinal, bound_rule: 'ES-27' as const } : r;
  });
  const initial = new Set(reads.filter((r) => r.is_initial).map((r) => r.record_id));
  return { ...facts, reads, observations: facts.observations.filter((o) => initial.has(o.record_id)) };
}
