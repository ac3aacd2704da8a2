/**
 * The state pass's writer (issue 13; DESIGN: "a load … stores the capture's state in the same
 * transaction (or records why it could not)"): `storeState` computes a capture's view once and
 * writes it into the state_* tables (migrations/0003-state.sql). Reading them back is the
 * model's (src/model/plan/stored.ts), which also owns the row encoding of a plan.
 */
import type { Kysely } from 'kysely';
import { CapstateError } from '../errors.js';
import { STATE_PASS_CACHE_KIB, withPageCache } from '../store/page-cache.js';
import type { DB } from '../store/types.js';
import { markWriteEffects } from '../model/plan/evidence.js';
import { planRow, renderStoredState, text, viewsHash } from '../model/plan/stored.js';
import type { WriteEffectsMark } from '../model/plan/types.js';
import { computeState, type StateHead, type StateProgress } from './index.js';

type Insert<T extends keyof DB> = DB[T];

/** Tables holding a capture's state, children first (state_capture last: the others reference it). */
const STATE_TABLES = [
  'state_write_effects',
  'state_change_bounds',
  'state_records',
  'state_types',
  'state_entities',
  'state_documents',
  'state_plans',
  'state_limitations',
  'state_gate_findings',
  'state_capture',
] as const;

/** Rows per insert statement: well under SQLite's bound-parameter limit for the widest table (14 columns). */
const INSERT_BATCH = 500;

/**
 * Computes capture `captureId`'s environment state and stores it, replacing any stored
 * state. Runs on the caller's transaction (the load's, or one per capture in `capstate
 * migrate`), so the rows commit or roll back with it. Each type's rows are written as soon as
 * the pass decides them (OQ-32: decided entities are not kept), and the view's SHA-256 is
 * then hashed from the stored rows. A state that cannot be computed (a CapstateError such
 * as `budget-exceeded`, ES-39) is stored as `failed` with its code, message and context, and
 * no other row; `capstate state` reports it as the error itself. Any other error is a bug
 * and propagates (the transaction then stores nothing).
 *
 * `checkWrites` (issue 16, ES-41 extended) checks the capture's write tools against its own
 * later reads over the rows just written (serving's check-effects, which sits above the state
 * pass and is handed in by the load); its marking is stored in state_write_effects and in the
 * view's evidence before the SHA-256 is taken. It runs on the same connection and
 * transaction, so a load that fails there stores nothing. `progress` hears each step (issue 46).
 */
export function storeState(
  k: Kysely<DB>,
  captureId: number,
  checkWrites: CheckWrites,
  progress?: (p: StateProgress) => void,
): Promise<{ status: 'computed' } | { status: 'failed'; code: string }> {
  // The pass and the write check read with small page caches: flat memory (issue 14, store/page-cache.ts).
  return withPageCache(k, STATE_PASS_CACHE_KIB, () => computeAndStore(k, captureId, checkWrites, progress));
}

async function computeAndStore(
  k: Kysely<DB>,
  captureId: number,
  checkWrites: CheckWrites,
  progress?: (p: StateProgress) => void,
): Promise<{ status: 'computed' } | { status: 'failed'; code: string }> {
  await deleteStoredState(k, captureId);
  const queries_sha256 = viewsHash();
  const c = captureId;
  // The rows reference state_capture: it is written first and completed at the end.
  await k
    .insertInto('state_capture')
    .values({
      capture_id: c,
      status: 'computed',
      queries_sha256,
      sha256: '',
      timeline_order: 'record-order',
      evidence: 'null',
      error_code: null,
      error_message: null,
      error_context: null,
    })
    .execute();
  const counts = { types: 0, entities: 0, findings: 0 };
  // Documents come in tool order, types one at a time: each is stored at its tool's place
  // shifted past every final position, then numbered 0..n in that order at the end.
  const documentPlaces: number[] = [];
  let head: StateHead;
  try {
    head = await computeState(k, captureId, {
      progress,
      // The pass shadows this table with its own (store/snapshot.ts): the stored rows go to the file's.
      changeBounds: (bounds) =>
        insertAll(
          k.withSchema('main'),
          'state_change_bounds',
          bounds.map((b) => ({ capture_id: c, root_path: b.root_path, write_ordinal: b.write_ordinal, detail: b.detail })),
        ),
      records: (rows) =>
        insertAll(
          k,
          'state_records',
          rows.map((r) => ({ capture_id: c, ...r })),
        ),
      unit: async (u) => {
        await insertAll(
          k,
          'state_types',
          u.types.map(
            (t): Insert<'state_types'> => ({
              capture_id: c,
              position: counts.types++,
              collection: t.collection,
              root_path: t.root_path,
              identity: t.identity,
              identity_source: t.identity_source,
              order_source: t.order_source,
              bound_rule: t.bound?.rule ?? null,
              bound_write_ordinal: t.bound?.write_ordinal ?? null,
              initial_order: text(t.initial_order),
            }),
          ),
        );
        await insertAll(
          k,
          'state_entities',
          u.entities.map(
            (e): Insert<'state_entities'> => ({
              capture_id: c,
              position: counts.entities++,
              collection: e.collection,
              entity_key: e.id,
              value: text(e.value),
              view_values: text(e.view_values),
              state_order: e.state_order,
              record_ordinals: text(e.record_ordinals),
            }),
          ),
        );
        await insertAll(
          k,
          'state_documents',
          u.documents.map(({ position, document: d }): Insert<'state_documents'> => {
            documentPlaces.push(position);
            return {
              capture_id: c,
              position: DOCUMENT_PLACE + position,
              tool: d.tool,
              path: d.path,
              query: d.query,
              status: d.status,
              value: text(d.value),
              record_ordinal: d.record_ordinal,
            };
          }),
        );
        await insertAll(
          k,
          'state_plans',
          u.plans.map(({ position, plan }) => planRow(c, position, plan)),
        );
        await insertAll(
          k,
          'state_gate_findings',
          u.gate_findings.map((finding) => ({ capture_id: c, position: counts.findings++, finding })),
        );
      },
    });
  } catch (e) {
    if (!(e instanceof CapstateError)) throw e;
    await deleteStoredState(k, captureId);
    await k
      .insertInto('state_capture')
      .values({
        capture_id: captureId,
        status: 'failed',
        queries_sha256,
        sha256: null,
        timeline_order: null,
        evidence: null,
        error_code: e.code,
        error_message: e.message,
        error_context: JSON.stringify(e.context),
      })
      .execute();
    return { status: 'failed', code: e.code };
  }
  documentPlaces.sort((a, b) => a - b);
  for (const [i, place] of documentPlaces.entries()) {
    await k
      .updateTable('state_documents')
      .set({ position: i })
      .where('capture_id', '=', c)
      .where('position', '=', DOCUMENT_PLACE + place)
      .execute();
  }
  await insertAll(
    k,
    'state_limitations',
    head.limitations.map((limitation, position) => ({ capture_id: c, position, limitation })),
  );
  await k
    .updateTable('state_capture')
    .set({ timeline_order: head.timeline_order, evidence: text(head.evidence) })
    .where('capture_id', '=', c)
    .execute();
  // The state's rows are complete: its write tools are checked against them.
  progress?.({ step: 'write-check', done: 0, total: 1 });
  const mark = await checkWrites(c);
  await insertAll(
    k,
    'state_write_effects',
    [
      ...mark.verified.map((v) => ({ tool: v.tool, verified: 1, effect: v.effect, reason: null })),
      ...mark.replayed.map((r) => ({ tool: r.tool, verified: 0, effect: null, reason: r.reason })),
    ].map((r, position): Insert<'state_write_effects'> => ({ capture_id: c, position, ...r })),
  );
  head = { ...head, evidence: markWriteEffects(head.evidence, mark) };
  await k
    .updateTable('state_capture')
    .set({ evidence: text(head.evidence) })
    .where('capture_id', '=', c)
    .execute();
  progress?.({ step: 'digest', done: 0, total: 1 });
  const sha256 = await renderStoredState(k, c, head, null);
  await k.updateTable('state_capture').set({ sha256 }).where('capture_id', '=', c).execute();
  return { status: 'computed' };
}

/** Checks capture `captureId`'s write tools over its stored state rows (issue 16): the verified and the replayed. */
export type CheckWrites = (captureId: number) => Promise<WriteEffectsMark>;

/** Where a document waits for its final position: past any position a capture's documents can have. */
const DOCUMENT_PLACE = 1 << 30;

/** Removes capture `captureId`'s stored state (before it is computed again). */
export async function deleteStoredState(k: Kysely<DB>, captureId: number): Promise<void> {
  for (const table of STATE_TABLES) await k.deleteFrom(table).where('capture_id', '=', captureId).execute();
}

async function insertAll<
  T extends
    | 'state_write_effects'
    | 'state_change_bounds'
    | 'state_records'
    | 'state_types'
    | 'state_entities'
    | 'state_documents'
    | 'state_plans'
    | 'state_limitations'
    | 'state_gate_findings',
>(k: Kysely<DB>, table: T, rows: Insert<T>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    // The row type is checked where the rows are built; Kysely's union of tables cannot narrow `values` here.
    await k
      .insertInto(table)
      .values(rows.slice(i, i + INSERT_BATCH) as never)
      .execute();
  }
}
