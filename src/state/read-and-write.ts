/**
 * ES-8 (Reading, OQ-8): where a read lies against a write on the timeline. With start-time
 * order a read comes `before` a write when it ended before the write started, and it
 * `overlaps` the write when their closed intervals [start, start + duration] meet (a read
 * ending exactly when the write starts overlaps it, docs/decisions.md); otherwise it is
 * `after`. With record order, or a time missing, there is no overlap test: `before` means
 * earlier in timeline position.
 *
 * Which reads are initial (before their type's bound) is decided once, by the view
 * `initial_reads` (queries/initial_reads.sql); the state pass reads its answer (`is_initial`).
 * This relation serves what SQL cannot reach: the gate (steps/gate.ts), in TypeScript, tells
 * a later read that overlaps the bounding write from one after it. It claims no rule; ES-8's
 * bound is queries/first_write_per_root.sql (docs/rules.md#es-8).
 */
/** The timeline facts of one record that ES-8 compares. */
export interface TimedRecord {
  timeline_position: number;
  started_ms: number | null;
  ended_ms: number | null;
}

export type ReadVersusWrite = 'before' | 'overlaps' | 'after';

/** ES-8: whether `read` came before, overlapped or came after `write`. */
export function readVersusWrite(order: 'start-time' | 'record-order', read: TimedRecord, write: TimedRecord): ReadVersusWrite {
  if (
    order === 'record-order' ||
    read.started_ms === null ||
    read.ended_ms === null ||
    write.started_ms === null ||
    write.ended_ms === null
  ) {
    return read.timeline_position < write.timeline_position ? 'before' : 'after';
  }
  if (read.ended_ms < write.started_ms) return 'before';
  return read.started_ms <= write.ended_ms ? 'overlaps' : 'after';
}
