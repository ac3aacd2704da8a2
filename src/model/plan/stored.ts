/**
 * The environment state as the store holds it, read back (issue 13; DESIGN: "`capstate state
 * --json` is a rendering of the state_* tables"). The state pass writes the rows
 * (src/state/writer.ts); every reader rebuilds the view from them (`readStoredState`) or
 * streams its document (`writeStoredStateDocument`) without computing a rule again, and
 * serving reads them a tool at a time (lookups.ts).
 *
 * Each table's row is turned back into its part of the view by exactly one function below
 * (`typeOf`, `entityOf`, …), which restores the view's key order, so the rebuilt view and
 * its bytes (OQ-36) are those the state pass produced. `planRow` is the one encoding of a
 * plan as a row, for the writer and for relation learning's `restorePlanFacts`.
 */
import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { CapstateError, shellWord } from '../../errors.js';
import { parseAcceptedJson, stringifyExact, type JsonValue } from '../../json/exact.js';
import { JSON_FORMAT_VERSION } from '../../json/output.js';
import { queriesHash } from '../../store/open.js';
import type { DB } from '../../store/types.js';
import type {
  EnvironmentState,
  ItemPlan,
  ListPlan,
  Plan,
  StateDocument,
  StateEntity,
  StateHead,
  StateType,
  WriteEffectsMark,
} from './types.js';

type Row<T extends keyof DB> = Selectable<DB[T]>;
type Insert<T extends keyof DB> = DB[T];

/** The queries/ hash this capstate's views are built from (the files ship with capstate: hashed once per process). */
let currentQueries: string | undefined;
export const viewsHash = (): string => (currentQueries ??= queriesHash());

/** Exact JSON text of a stored value (the state pass's own serialiser, so bytes match OQ-36). */
export const text = (v: unknown): string => stringifyExact(v as JsonValue);

/**
 * The stored marking of capture `captureId`'s write tools (serving uses the verified ones);
 * null when none is stored: the state was computed before migration 0011, or the capture
 * has no write tool.
 */
export async function storedWriteEffects(k: Kysely<DB>, captureId: number): Promise<WriteEffectsMark | null> {
  const rows = await k.selectFrom('state_write_effects').selectAll().where('capture_id', '=', captureId).orderBy('position').execute();
  if (rows.length === 0) return null;
  return {
    verified: rows.filter((r) => r.verified === 1).map((r) => ({ tool: r.tool, effect: r.effect! })),
    replayed: rows.filter((r) => r.verified === 0).map((r) => ({ tool: r.tool, reason: r.reason! })),
  };
}

/** Keys of an item or list plan stored in their own columns; the rest is `view_facts`, in the plan's key order. */
const PLAN_COLUMN_KEYS = new Set(['tool', 'kind', 'collection', 'entity_pointer', 'list_pointer', 'membership', 'counters', 'lines']);

export function planRow(capture_id: number, position: number, p: Plan): Insert<'state_plans'> {
  const row: Insert<'state_plans'> = {
    capture_id,
    position,
    tool: p.tool,
    kind: p.kind,
    reason: null,
    detail: null,
    collection: null,
    pointer: null,
    membership: null,
    path: null,
    record_ordinal: null,
    view_facts: null,
    counters: null,
    lines: null,
  };
  if (p.kind === 'record') return { ...row, reason: p.reason, detail: p.detail };
  if (p.kind === 'document') return { ...row, path: p.path, record_ordinal: p.record_ordinal };
  const facts = Object.fromEntries(Object.entries(p).filter(([key]) => !PLAN_COLUMN_KEYS.has(key)));
  return {
    ...row,
    collection: p.collection,
    pointer: p.kind === 'item' ? p.entity_pointer : p.list_pointer,
    membership: p.kind === 'list' ? p.membership : null,
    view_facts: text(facts),
    counters: text(p.counters),
    lines: text(p.lines),
  };
}

/**
 * Issue 16: an item or list plan's view facts written again (serving's relation learning,
 * src/model/served/relations.ts, completes `embedded_members` after the pass, before the state's
 * SHA-256 is taken), on the caller's transaction.
 */
export async function restorePlanFacts(k: Kysely<DB>, captureId: number, plan: ItemPlan | ListPlan): Promise<void> {
  const { view_facts } = planRow(captureId, 0, plan);
  await k.updateTable('state_plans').set({ view_facts }).where('capture_id', '=', captureId).where('tool', '=', plan.tool).execute();
}

// ---------------------------------------------------------------------------------------------
// Reading: rows back into the view, one function per table.

function json(value: string, where: string): JsonValue {
  const r = parseAcceptedJson(value); // the state pass's own exact serialisation
  if (!r.ok)
    throw new CapstateError(
      'damaged-store',
      `the stored state has a value that is not exact JSON (${where}: ${r.detail}); recompute it: capstate migrate --recompute`,
      { where },
    );
  return r.value;
}

export function typeOf(r: Row<'state_types'>): StateType {
  return {
    collection: r.collection,
    root_path: r.root_path,
    identity: r.identity,
    identity_source: r.identity_source,
    order_source: r.order_source,
    bound: r.bound_rule === null || r.bound_write_ordinal === null ? null : { rule: r.bound_rule, write_ordinal: r.bound_write_ordinal },
    initial_order: json(r.initial_order, 'state_types.initial_order') as string[],
  };
}

export function entityOf(r: Row<'state_entities'>): StateEntity {
  return {
    collection: r.collection,
    id: r.entity_key,
    value: json(r.value, 'state_entities.value'),
    view_values: json(r.view_values, 'state_entities.view_values') as StateEntity['view_values'],
    state_order: r.state_order,
    record_ordinals: json(r.record_ordinals, 'state_entities.record_ordinals') as number[],
  };
}

export function documentOf(r: Row<'state_documents'>): StateDocument {
  return {
    tool: r.tool,
    path: r.path,
    query: r.query,
    status: r.status,
    value: json(r.value, 'state_documents.value'),
    record_ordinal: r.record_ordinal,
  };
}

export function planOf(r: Row<'state_plans'>): Plan {
  if (r.kind === 'record')
    return { tool: r.tool, kind: 'record', reason: r.reason as Extract<Plan, { kind: 'record' }>['reason'], detail: r.detail! };
  if (r.kind === 'document') return { tool: r.tool, kind: 'document', path: r.path!, record_ordinal: r.record_ordinal! };
  const facts = json(r.view_facts!, 'state_plans.view_facts') as Record<string, unknown>;
  const counters = json(r.counters!, 'state_plans.counters') as string[];
  const lines = json(r.lines!, 'state_plans.lines') as unknown as ItemPlan['lines'];
  // types.ts's key order: tool, kind, collection, the view facts, the pointer, membership, counters, lines.
  if (r.kind === 'item')
    return {
      tool: r.tool,
      kind: 'item',
      collection: r.collection!,
      ...facts,
      entity_pointer: r.pointer!,
      membership: null,
      counters: [],
      lines,
    } as ItemPlan;
  return {
    tool: r.tool,
    kind: 'list',
    collection: r.collection!,
    ...facts,
    list_pointer: r.pointer!,
    membership: r.membership!,
    counters,
    lines,
  } as ListPlan;
}

/**
 * The stored state's bookkeeping row of a capture that has a computed state; throws what a
 * reader must say otherwise: the stored failure (as the state pass raised it),
 * `state-pending` when there is none yet, or `stale-store` when it was computed from other
 * rule views.
 */
export async function storedStateOf(
  k: Kysely<DB>,
  captureId: number,
  file: string,
): Promise<Row<'state_capture'> & { status: 'computed'; sha256: string }> {
  const row = await freshStoredState(k, captureId, file);
  if (row.status === 'failed') {
    // Reported as the state pass raised it when the capture was loaded (same code, message and context).
    throw new CapstateError(
      row.error_code!,
      row.error_message!,
      row.error_context ? (JSON.parse(row.error_context) as Record<string, unknown>) : {},
    );
  }
  return row as Row<'state_capture'> & { status: 'computed'; sha256: string };
}

/**
 * The capture's state_capture row, computed or failed. Without one the capture is pending
 * (issue 49): its facts are committed and its state is not yet stored — its load is still
 * computing it, or was killed first (or an older capstate loaded it) — so `state-pending`
 * names what completes it. A state computed from other rule views is `stale-store` naming
 * `capstate migrate` (STYLE §3: read-only commands detect what is stale and name the fix).
 */
export async function freshStoredState(k: Kysely<DB>, captureId: number, file: string): Promise<Row<'state_capture'>> {
  const row = await k.selectFrom('state_capture').selectAll().where('capture_id', '=', captureId).executeTakeFirst();
  const fix = `run: capstate migrate --db ${shellWord(file)}`;
  if (!row)
    throw new CapstateError(
      'state-pending',
      `the environment state of capture ${captureId} in ${file} is pending (its load was interrupted or is still running, or an older capstate loaded it); the next capstate load into this store completes it, or ${fix}`,
      { file, capture: captureId },
    );
  if (row.queries_sha256 !== viewsHash()) {
    throw new CapstateError(
      'stale-store',
      `the stored environment state of capture ${captureId} in ${file} was computed from other rule views; ${fix}`,
      { file, capture: captureId },
    );
  }
  return row;
}

/** The capture's environment state, rebuilt from the state_* tables (no rule is computed). */
export async function readStoredState(k: Kysely<DB>, captureId: number, file: string): Promise<EnvironmentState> {
  const head = await storedStateOf(k, captureId, file);
  const q = stateQueries(k, captureId);
  return {
    kind: 'environment-state',
    capture_id: captureId,
    timeline_order: head.timeline_order!,
    limitations: (await q.limitations.execute()).map((r) => r.limitation),
    evidence: json(head.evidence!, 'state_capture.evidence') as unknown as EnvironmentState['evidence'],
    types: (await q.types.execute()).map(typeOf),
    entities: (await q.entities.execute()).map(entityOf),
    documents: (await q.documents.execute()).map(documentOf),
    plans: (await q.plans.execute()).map(planOf),
    gate_findings: (await q.gateFindings.execute()).map((r) => r.finding),
  };
}

/** Each list of the view: its table's rows of one capture, in the list's order. */
function stateQueries(k: Kysely<DB>, captureId: number) {
  return {
    limitations: k.selectFrom('state_limitations').selectAll().where('capture_id', '=', captureId).orderBy('position'),
    types: k.selectFrom('state_types').selectAll().where('capture_id', '=', captureId).orderBy('position'),
    entities: k.selectFrom('state_entities').selectAll().where('capture_id', '=', captureId).orderBy('position'),
    documents: k.selectFrom('state_documents').selectAll().where('capture_id', '=', captureId).orderBy('position'),
    plans: k.selectFrom('state_plans').selectAll().where('capture_id', '=', captureId).orderBy('position'),
    gateFindings: k.selectFrom('state_gate_findings').selectAll().where('capture_id', '=', captureId).orderBy('position'),
  };
}

/**
 * Writes the `capstate state --json` document of a capture's stored state to `write`, a
 * table row at a time, never as one string (issue 14). The bytes are those of
 * `stringifyExact(stateDocumentValue(state), 2) + '\n'`: the view's keys in order, each list
 * element indented as the whole document would indent it, and last `sha256`, the SHA-256
 * of the view's compact exact JSON, hashed from the same rows as they are written (OQ-36).
 * Returns that SHA-256.
 */
export async function writeStoredStateDocument(
  k: Kysely<DB>,
  captureId: number,
  file: string,
  write: (chunk: string) => void,
): Promise<string> {
  const head = await storedStateOf(k, captureId, file);
  return renderStoredState(
    k,
    captureId,
    {
      kind: 'environment-state',
      capture_id: captureId,
      timeline_order: head.timeline_order!,
      limitations: [],
      evidence: json(head.evidence!, 'state_capture.evidence') as unknown as StateHead['evidence'],
    },
    write,
  );
}

/**
 * The view's SHA-256 from the stored rows of capture `captureId`, and with `write`, the
 * document itself (`head` gives the parts not stored per row; its limitations are read from
 * their table). One walk over the rows serves both, so the digest is always of the bytes printed.
 */
export async function renderStoredState(
  k: Kysely<DB>,
  captureId: number,
  head: StateHead,
  write: ((chunk: string) => void) | null,
): Promise<string> {
  const hash = createHash('sha256');
  let pending = '';
  const emit =
    write === null
      ? () => {}
      : (s: string) => {
          pending += s;
          if (pending.length >= 1 << 20) {
            write(pending);
            pending = '';
          }
        };
  // A value rendered at depth `pad`: stringifyExact's newlines only come from structure
  // (strings are escaped), so indenting each line is rendering it nested.
  const nested = write === null ? () => '' : (v: unknown, pad: string) => stringifyExact(v as JsonValue, 2).replaceAll('\n', '\n' + pad);
  let first = true;
  const key = (name: string) => {
    emit(`,\n  ${JSON.stringify(name)}: `);
    hash.update(`${first ? '' : ','}${JSON.stringify(name)}:`);
    first = false;
  };
  const member = (name: string, v: unknown) => {
    key(name);
    emit(nested(v, '  '));
    hash.update(text(v));
  };
  const list = async <R, V>(name: string, query: { stream(): AsyncIterable<R> }, of: (r: R) => V) => {
    key(name);
    emit('[');
    hash.update('[');
    let n = 0;
    for await (const r of query.stream()) {
      const v = of(r);
      emit(`${n === 0 ? '' : ','}\n    ${nested(v, '    ')}`);
      hash.update(`${n === 0 ? '' : ','}${text(v)}`);
      n++;
    }
    emit(n === 0 ? ']' : '\n  ]');
    hash.update(']');
  };
  const q = stateQueries(k, captureId);
  emit(`{\n  "format_version": ${JSON_FORMAT_VERSION}`);
  hash.update('{');
  member('kind', 'environment-state');
  member('capture_id', captureId);
  member('timeline_order', head.timeline_order);
  await list('limitations', q.limitations, (r) => r.limitation);
  member('evidence', head.evidence);
  await list('types', q.types, typeOf);
  await list('entities', q.entities, entityOf);
  await list('documents', q.documents, documentOf);
  await list('plans', q.plans, planOf);
  await list('gate_findings', q.gateFindings, (r) => r.finding);
  hash.update('}');
  const sha256 = hash.digest('hex');
  emit(`,\n  "sha256": ${JSON.stringify(sha256)}\n}\n`);
  if (write) write(pending);
  return sha256;
}
