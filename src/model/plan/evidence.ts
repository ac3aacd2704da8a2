/**
 * ES-41's evidence marking, extended (issue 16): the state pass marks the view inferred with
 * authorization, response semantics and write effects unknown; once the capture's write
 * tools are checked against its own later reads, `write_effects` says per tool which are
 * verified (with the effect) and which replay (with why), and `write-effects` stays unknown
 * only while some write tool replays.
 */
import type { Evidence, WriteEffectsMark } from './types.js';

/** The pass's own marking, before any write is checked. */
export const PASS_EVIDENCE: Evidence = { status: 'inferred', unknown: ['authorization', 'response-semantics', 'write-effects'] };

/** The evidence with each write tool's marking: `write-effects` leaves `unknown` when every write tool is verified (or there is none). */
export function markWriteEffects(evidence: Evidence, mark: WriteEffectsMark): Evidence {
  const unknown: Evidence['unknown'] = evidence.unknown.filter((u) => u !== 'write-effects');
  if (mark.replayed.length > 0) unknown.push('write-effects');
  return {
    status: evidence.status,
    unknown,
    write_effects: {
      verified: mark.verified.map(({ tool, effect }) => ({ tool, effect })),
      replayed: mark.replayed.map(({ tool, reason }) => ({ tool, reason })),
    },
  };
}
