/**
 * Storing a capture's environment state with its write tools checked (issue 16, ES-41
 * extended). The state pass (src/model/plan/stored.ts) writes the state_* rows; serving's
 * check-effects (src/model/served/effects.ts), which reads those rows through a serve context, then
 * marks each write tool verified or replayed; both run on the caller's connection and
 * transaction, so the transaction that stores a capture's state (a load's or a migrate's)
 * stores all of it or nothing.
 */
import { serveContextOn, type ServeContext } from '../model/served/context.js';
import { shareFacts } from '../model/served/records.js';
import { checkWrites } from '../model/served/effects.js';
import { learnRelations } from '../model/served/relations.js';
import { storeLaterQueries } from '../model/served/later-queries.js';
import { learnTreeFilters } from '../model/served/tree-filters.js';
import { learnPairedQueries } from '../model/served/paired-queries.js';
import { viewsHash } from '../model/plan/stored.js';
import { storeState, type CheckWrites } from '../state/writer.js';
import type { StateProgress } from '../state/index.js';
import { kyselyFor, type Sqlite } from '../store/open.js';

/** The write check over connection `db` of store `file` (the file only names the store in messages). */
export function checkWritesOn(db: Sqlite, file: string): CheckWrites {
  return async (captureId) => {
    const k = kyselyFor(db);
    // Each step has a context of its own, dropped after it with its caches: a step reads what the
    // one before it stored. The records and bodies are the same facts in every step (shareFacts).
    let previous: ServeContext | null = null;
    const context = async () => {
      const ctx = await serveContextOn(db, k, file, captureId);
      previous = previous ? shareFacts(previous, ctx) : ctx;
      return ctx;
    };
    // Issue 16: the plans' embedded relations are learned first, so the check serves them.
    await learnRelations(await context());
    // Issue 44: reference keys that list what sits under the entity named (tree-filters.ts), with every type at hand.
    await learnTreeFilters(await context());
    // Issue 44: keys a filtered read reproduced beside the whole list read just before it (paired-queries.ts).
    await learnPairedQueries(await context());
    const { later_queries, ...mark } = await checkWrites(await context());
    // Issue 44: the list keys the reads after the capture's verified writes taught (later-queries.ts).
    await storeLaterQueries(await context(), later_queries);
    return mark;
  };
}

/** Computes and stores capture `captureId`'s state and its write marking, on the caller's transaction; `progress` hears each step (issue 46). */
export function storeCaptureState(
  db: Sqlite,
  file: string,
  captureId: number,
  progress?: (p: StateProgress) => void,
): ReturnType<typeof storeState> {
  return storeState(kyselyFor(db), captureId, checkWritesOn(db, file), progress);
}

/**
 * The rule views' hash capture `captureId`'s stored state was computed from, read on the
 * caller's connection (inside its transaction); undefined when it has none stored: pending,
 * issue 49.
 */
export function storedStateHash(db: Sqlite, captureId: number): string | undefined {
  return db.prepare('select queries_sha256 from state_capture where capture_id = ?').pluck().get(captureId) as string | undefined;
}

/**
 * Brings every capture's stored state up to date with the rule views (`capstate migrate`):
 * a capture with no stored state, or one computed from another queries/ hash, is computed
 * again — all of them with `all` (a capture with none is pending, issue 49: its load was
 * interrupted). One transaction per capture, so an interrupted migrate keeps what it
 * finished and loses nothing it had not.
 */
export async function refreshStoredStates(
  db: Sqlite,
  file: string,
  opts: { all?: boolean; log?: (message: string) => void } = {},
): Promise<{ computed: number[]; failed: number[] }> {
  const k = kyselyFor(db);
  const hash = viewsHash();
  const captures = await k
    .selectFrom('capture')
    .leftJoin('state_capture as s', 's.capture_id', 'capture.id')
    .select(['capture.id', 's.queries_sha256'])
    .orderBy('capture.id')
    .execute();
  const done = { computed: [] as number[], failed: [] as number[] };
  for (const c of captures) {
    if (!opts.all && c.queries_sha256 === hash) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      // Issue 49: a pending capture may be a load's still computing it, done by the time the lock is ours.
      if (!opts.all && storedStateHash(db, c.id) === hash) {
        db.exec('COMMIT');
        continue;
      }
      const { status } = await storeCaptureState(db, file, c.id);
      db.exec('COMMIT');
      done[status].push(c.id);
      opts.log?.(
        `capture ${c.id}: environment state ${status === 'computed' ? 'recomputed' : 'could not be computed (see capstate state)'}`,
      );
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
  }
  return done;
}
