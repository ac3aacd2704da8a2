/**
 * The state phase of a load (issue 49): facts, then state. A load into an existing store
 * commits its captures' facts and manifests first; a capture is then *pending* — it has no
 * state_capture row, and every reader says so (src/model/plan/stored.ts) — until its state
 * is stored in a short transaction of its own. A load killed in between leaves pending
 * captures, never a wrong answer, and the next load (or `capstate migrate`) computes them
 * before anything else. A new store, which nobody can read before it is put in place, keeps
 * its one transaction: the states are stored in it, before its commit.
 */
import { CapstateError } from '../errors.js';
import type { Sqlite } from '../store/open.js';
import { storeError } from '../store/guard.js';
import { collectBetweenPhases } from './collect.js';
import { storeCaptureState, storedStateHash } from './store-state.js';
import type { LoadedCapture, LoadOptions, LoadProgress } from './load-captures.js';

type Tell = (p: Omit<LoadProgress, 'file' | 'bytesRead' | 'bytesTotal' | 'records'>) => void;

/** The state phase of one capture on the caller's transaction, told as the load's progress (issue 46). */
async function storeStateTold(db: Sqlite, dbFile: string, captureId: number, tell: Tell): Promise<string | null> {
  // The other files' facts may have come between this capture's manifest and its state (issue 14: flat memory).
  collectBetweenPhases();
  const state = await storeCaptureState(db, dbFile, captureId, (step) => tell({ phase: 'state', step }));
  tell({ phase: 'done' });
  return state.status === 'failed' ? state.code : null;
}

/** ES-39: a state that could not be computed is stored as such; the load goes on and says so. */
const failedWords = (code: string) => `could not be computed (${code}); capstate state reports why`;

/**
 * Stores the state of each capture the load added. `own`: each in a transaction of its own,
 * after the facts' commit (an existing store); else on the caller's (a new store's one
 * transaction). Fills in each result's `phases_ms.state` and `duration_ms`.
 */
export async function storeLoadedStates(
  db: Sqlite,
  results: LoadedCapture[],
  opts: Pick<LoadOptions, 'db' | 'onProgress' | 'log'>,
  own: boolean,
): Promise<void> {
  const added = results.filter((r) => !r.already_loaded);
  for (const [i, r] of added.entries()) {
    const tell: Tell = (p) => opts.onProgress?.({ file: r.file, bytesRead: r.bytes, bytesTotal: r.bytes, records: r.records, ...p });
    const t0 = performance.now();
    if (own) db.exec('BEGIN IMMEDIATE');
    try {
      // Another load finds pending captures first, and may have taken this one between the commits.
      const failed = own && storedStateHash(db, r.capture_id) !== undefined ? null : await storeStateTold(db, opts.db, r.capture_id, tell);
      if (own) db.exec('COMMIT');
      if (failed) opts.log?.(`${r.file}: capture loaded, but its environment state ${failedWords(failed)}`);
    } catch (e) {
      if (own && db.inTransaction) db.exec('ROLLBACK');
      throw own ? stillPending(e, opts.db, added.slice(i)) : e;
    }
    r.phases_ms.state = performance.now() - t0;
    r.duration_ms += r.phases_ms.state;
  }
}

/**
 * The error of a state phase that failed after the facts' commit, with what it left: the
 * captures whose state is pending, and what completes them (one line, STYLE §11).
 */
function stillPending(e: unknown, dbFile: string, left: LoadedCapture[]): unknown {
  const err = storeError(e, dbFile);
  if (!(err instanceof CapstateError)) return err;
  const ids = left.map((r) => r.capture_id);
  const which = ids.length === 1 ? `capture ${ids[0]} is` : `captures ${ids.join(', ')} are`;
  return new CapstateError(
    err.code,
    `${err.message} (${which} stored with ${ids.length === 1 ? 'its environment state pending: the next capstate load into this store, or capstate migrate, computes it' : 'their environment states pending: the next capstate load into this store, or capstate migrate, computes them'})`,
    err.context,
    err.exitCode,
  );
}

/**
 * The next write command completes what an interrupted load left (issue 49): the state of
 * every pending capture, each in a transaction of its own, said on stderr. The lock is taken
 * before looking, so a load still computing its own capture's state is waited for (up to the
 * busy timeout) rather than taken for an interrupted one.
 */
export async function completePendingStates(db: Sqlite, opts: Pick<LoadOptions, 'db' | 'onProgress' | 'log'>): Promise<number[]> {
  const done: number[] = [];
  for (;;) {
    db.exec('BEGIN IMMEDIATE');
    try {
      const c = db
        .prepare(`select c.id, c.bytes, (select count(*) from record r where r.capture_id = c.id) as records from capture c
          where not exists (select 1 from state_capture s where s.capture_id = c.id) order by c.id limit 1`)
        .get() as { id: number; bytes: number; records: number } | undefined;
      if (!c) {
        db.exec('COMMIT');
        return done;
      }
      opts.log?.(`capture ${c.id}: its state was not stored (an interrupted load); computing it now`);
      const file = `capture ${c.id}`;
      const tell: Tell = (p) => opts.onProgress?.({ file, bytesRead: c.bytes, bytesTotal: c.bytes, records: c.records, ...p });
      const failed = await storeStateTold(db, opts.db, c.id, tell);
      db.exec('COMMIT');
      if (failed) opts.log?.(`capture ${c.id}: its environment state ${failedWords(failed)}`);
      done.push(c.id);
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
  }
}
