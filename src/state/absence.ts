/**
 * Proven absent (issue 18; ES-8/ES-27 reading, docs/decisions.md): an item read of the type
 * that answered 404 proves the entity it names absent at that point. When a later read shows
 * that entity and no earlier read did, something created it in between; when no recorded
 * write lies between them, the creating write is unrecorded, and the latest it can have
 * happened is just before the first read that shows the entity. The type's initial read ends
 * there (a bound stored like ES-27's), so the entity is not in the initial state and the reads
 * that show the unrecorded write's effect do not count as initial reads.
 */
import type { ChangeBound } from './changes.js';
import { writeBetween } from './changes.js';
import type { ReadLine, StateFacts } from './facts.js';

/** The type's absence bound, if any (`facts` covers one root, read before any ES-27 bound is known). */
export function findAbsenceBound(facts: StateFacts): ChangeBound | undefined {
  const itemTools = new Set(facts.tools.filter((t) => t.root_path === facts.root && t.ends_in_param === 1 && t.method.toUpperCase() === 'GET').map((t) => t.name));
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
    const shown = id === undefined ? [] : shownBy.get(id) ?? [];
    // Shown before the 404: the entity existed at the start (a later absence is a delete, not this reading).
    if (shown.some((r) => r.timeline_position < miss.timeline_position)) continue;
    const seen = shown.find((r) => r.timeline_position > miss.timeline_position);
    if (!seen) continue;
    // A recorded write between them: the change is seen across that write (ES-27 proper).
    const w = writeBetween(facts, miss, seen);
    const at = w ? { ordinal: w.ordinal, position: w.timeline_position } : { ordinal: seen.ordinal, position: seen.timeline_position };
    if (bound && bound.write_position <= at.position) continue;
    bound = {
      root_path: facts.root, write_ordinal: at.ordinal, write_position: at.position,
      detail: w
        ? `${id} answered 404 at #${miss.ordinal} and is shown at #${seen.ordinal}, across write #${w.ordinal} (ES-27)`
        : `${id} answered 404 at #${miss.ordinal} and is shown at #${seen.ordinal} with no recorded write between: an unrecorded write created it, and the initial read ends at #${seen.ordinal} (ES-27, issue 18)`,
    };
  }
  return bound;
}
