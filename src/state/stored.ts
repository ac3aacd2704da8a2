/**
 * The environment state stored in the store (issue 13; DESIGN: "a load … stores the
 * capture's state in the same transaction (or records why it could not)" and "`capstate
 * state --json` is a rendering of the state_* tables"). `storeState` computes a capture's
 * view once and writes it into the state_* tables (migrations/0003-state.sql); every reader
 * rebuilds the view from those rows (`readStoredState`) or streams its document
 * (`writeStoredStateDocument`) without computing a rule again.
 *
 * Each table's row is turned back into its part of the view by exactly one function below
 * (`typeOf`, `entityOf`, …), which restores the view's key order, so the rebuilt view and
 * its bytes (OQ-36) are those the state pass produced.
 */
import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { CapstateError, shellWord } from '../errors.js';
import { parseAcceptedJson, stringifyExact, type JsonValue } from '../json/exact.js';
import { JSON_FORMAT_VERSION } from '../json/output.js';
import { queriesHash } from '../store/open.js';
import { STATE_PASS_CACHE_KIB, withPageCache } from '../store/page-cache.js';
import type { DB } from '../store/types.js';
import { markWriteEffects } from './evidence.js';
import { computeState, type StateHead } from './index.js';
import type { EnvironmentState, ItemPlan, ListPlan, Plan, StateDocument, StateEntity, StateType, WriteEffectsMark } from './types.js';

type Row<T extends keyof DB> = Selectable<DB[T]>;
type Insert<T extends keyof DB> = DB[T];

/** Tables holding a capture's state, children first (state_capture last: the others reference it). */
const STATE_TABLES = ['state_write_effects', 'state_change_bounds', 'state_records', 'state_types', 'state_entities', 'state_documents', 'state_plans', 'state_limitations', 'state_gate_findings', 'state_capture'] as const;

/** Rows per insert statement: well under SQLite's bound-parameter limit for the widest table (14 columns). */
const INSERT_BATCH = 500;

/** The queries/ hash this capstate's views are built from (the files ship with capstate: hashed once per process). */
let currentQueries: string | undefined;
export const viewsHash = (): string => (currentQueries ??= queriesHash());

/** Exact JSON text of a stored value (the state pass's own serialiser, so bytes match OQ-36). */
const text = (v: unknown): string => stringifyExact(v as JsonValue);

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
 * transaction, so a load that fails there stores nothing.
 */
export function storeState(k: Kysely<DB>, captureId: number, checkWrites: CheckWrites): Promise<{ status: 'computed' } | { status: 'failed'; code: string }> {
  // The pass and the write check read with small page caches: flat memory (issue 14, store/page-cache.ts).
  return withPageCache(k, STATE_PASS_CACHE_KIB, () => computeAndStore(k, captureId, checkWrites));
}

async function computeAndStore(k: Kysely<DB>, captureId: number, checkWrites: CheckWrites): Promise<{ status: 'computed' } | { status: 'failed'; code: string }> {
  await deleteStoredState(k, captureId);
  const queries_sha256 = viewsHash();
  const c = captureId;
  // The rows reference state_capture: it is written first and completed at the end.
  await k.insertInto('state_capture').values({
    capture_id: c, status: 'computed', queries_sha256, sha256: '', timeline_order: 'record-order', evidence: 'null',
    error_code: null, error_message: null, error_context: null,
  }).execute();
  const counts = { types: 0, entities: 0, findings: 0 };
  // Documents come in tool order, types one at a time: each is stored at its tool's place
  // shifted past every final position, then numbered 0..n in that order at the end.
  const documentPlaces: number[] = [];
  let head: StateHead;
  try {
    head = await computeState(k, captureId, {
      // The pass shadows this table with its own (store/snapshot.ts): the stored rows go to the file's.
      changeBounds: (bounds) => insertAll(k.withSchema('main'), 'state_change_bounds', bounds.map((b) => ({ capture_id: c, root_path: b.root_path, write_ordinal: b.write_ordinal, detail: b.detail }))),
      records: (rows) => insertAll(k, 'state_records', rows.map((r) => ({ capture_id: c, ...r }))),
      unit: async (u) => {
        await insertAll(k, 'state_types', u.types.map((t): Insert<'state_types'> => ({
          capture_id: c, position: counts.types++, collection: t.collection, root_path: t.root_path, identity: t.identity, identity_source: t.identity_source,
          order_source: t.order_source, bound_rule: t.bound?.rule ?? null, bound_write_ordinal: t.bound?.write_ordinal ?? null, initial_order: text(t.initial_order),
        })));
        await insertAll(k, 'state_entities', u.entities.map((e): Insert<'state_entities'> => ({
          capture_id: c, position: counts.entities++, collection: e.collection, entity_key: e.id, value: text(e.value), view_values: text(e.view_values),
          state_order: e.state_order, record_ordinals: text(e.record_ordinals),
        })));
        await insertAll(k, 'state_documents', u.documents.map(({ position, document: d }): Insert<'state_documents'> => {
          documentPlaces.push(position);
          return { capture_id: c, position: DOCUMENT_PLACE + position, tool: d.tool, path: d.path, query: d.query, status: d.status, value: text(d.value), record_ordinal: d.record_ordinal };
        }));
        await insertAll(k, 'state_plans', u.plans.map(({ position, plan }) => planRow(c, position, plan)));
        await insertAll(k, 'state_gate_findings', u.gate_findings.map((finding) => ({ capture_id: c, position: counts.findings++, finding })));
      },
    });
  } catch (e) {
    if (!(e instanceof CapstateError)) throw e;
    await deleteStoredState(k, captureId);
    await k.insertInto('state_capture').values({
      capture_id: captureId, status: 'failed', queries_sha256, sha256: null, timeline_order: null, evidence: null,
      error_code: e.code, error_message: e.message, error_context: JSON.stringify(e.context),
    }).execute();
    return { status: 'failed', code: e.code };
  }
  documentPlaces.sort((a, b) => a - b);
  for (const [i, place] of documentPlaces.entries()) {
    await k.updateTable('state_documents').set({ position: i }).where('capture_id', '=', c).where('position', '=', DOCUMENT_PLACE + place).execute();
  }
  await insertAll(k, 'state_limitations', head.limitations.map((limitation, position) => ({ capture_id: c, position, limitation })));
  await k.updateTable('state_capture').set({ timeline_order: head.timeline_order, evidence: text(head.evidence) }).where('capture_id', '=', c).execute();
  // The state's rows are complete: its write tools are checked against them.
  const mark = await checkWrites(c);
  await insertAll(k, 'state_write_effects', [
    ...mark.verified.map((v) => ({ tool: v.tool, verified: 1, effect: v.effect, reason: null })),
    ...mark.replayed.map((r) => ({ tool: r.tool, verified: 0, effect: null, reason: r.reason })),
  ].map((r, position): Insert<'state_write_effects'> => ({ capture_id: c, position, ...r })));
  head = { ...head, evidence: markWriteEffects(head.evidence, mark) };
  await k.updateTable('state_capture').set({ evidence: text(head.evidence) }).where('capture_id', '=', c).execute();
  const sha256 = await renderStoredState(k, c, head, null);
  await k.updateTable('state_capture').set({ sha256 }).where('capture_id', '=', c).execute();
  return { status: 'computed' };
}

/** Checks capture `captureId`'s write tools over its stored state rows (issue 16): the verified and the replayed. */
export type CheckWrites = (captureId: number) => Promise<WriteEffectsMark>;

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

/** Where a document waits for its final position: past any position a capture's documents can have. */
const DOCUMENT_PLACE = 1 << 30;

/** Removes capture `captureId`'s stored state (before it is computed again). */
export async function deleteStoredState(k: Kysely<DB>, captureId: number): Promise<void> {
  for (const table of STATE_TABLES) await k.deleteFrom(table).where('capture_id', '=', captureId).execute();
}

async function insertAll<T extends 'state_write_effects' | 'state_change_bounds' | 'state_records' | 'state_types' | 'state_entities' | 'state_documents' | 'state_plans' | 'state_limitations' | 'state_gate_findings'>(
  k: Kysely<DB>, table: T, rows: Insert<T>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    // The row type is checked where the rows are built; Kysely's union of tables cannot narrow `values` here.
    await k.insertInto(table).values(rows.slice(i, i + INSERT_BATCH) as never).execute();
  }
}

/** Keys of an item or list plan stored in their own columns; the rest is `view_facts`, in the plan's key order. */
const PLAN_COLUMN_KEYS = new Set(['tool', 'kind', 'collection', 'entity_pointer', 'list_pointer', 'membership', 'counters', 'lines']);

function planRow(capture_id: number, position: number, p: Plan): Insert<'state_plans'> {
  const row: Insert<'state_plans'> = {
    capture_id, position, tool: p.tool, kind: p.kind, reason: null, detail: null, collection: null, pointer: null, membership: null,
    path: null, record_ordinal: null, view_facts: null, counters: null, lines: null,
  };
  if (p.kind === 'record') return { ...row, reason: p.reason, detail: p.detail };
  if (p.kind === 'document') return { ...row, path: p.path, record_ordinal: p.record_ordinal };
  const facts = Object.fromEntries(Object.entries(p).filter(([key]) => !PLAN_COLUMN_KEYS.has(key)));
  return {
    ...row, collection: p.collection, pointer: p.kind === 'item' ? p.entity_pointer : p.list_pointer,
    membership: p.kind === 'list' ? p.membership : null, view_facts: text(facts), counters: text(p.counters), lines: text(p.lines),
  };
}

/**
 * Issue 16: an item or list plan's view facts written again (serving's relation learning,
 * src/serve/relations.ts, completes `embedded_members` after the pass, before the state's
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
  if (!r.ok) throw new CapstateError('damaged-store', `the stored state has a value that is not exact JSON (${where}: ${r.detail}); recompute it: capstate migrate --recompute`, { where });
  return r.value;
}

function typeOf(r: Row<'state_types'>): StateType {
  return {
    collection: r.collection, root_path: r.root_path, identity: r.identity, identity_source: r.identity_source, order_source: r.order_source,
    bound: r.bound_rule === null || r.bound_write_ordinal === null ? null : { rule: r.bound_rule, write_ordinal: r.bound_write_ordinal },
    initial_order: json(r.initial_order, 'state_types.initial_order') as string[],
  };
}

function entityOf(r: Row<'state_entities'>): StateEntity {
  return {
    collection: r.collection, id: r.entity_key, value: json(r.value, 'state_entities.value'),
    view_values: json(r.view_values, 'state_entities.view_values') as StateEntity['view_values'], state_order: r.state_order,
    record_ordinals: json(r.record_ordinals, 'state_entities.record_ordinals') as number[],
  };
}

function documentOf(r: Row<'state_documents'>): StateDocument {
  return { tool: r.tool, path: r.path, query: r.query, status: r.status, value: json(r.value, 'state_documents.value'), record_ordinal: r.record_ordinal };
}

function planOf(r: Row<'state_plans'>): Plan {
  if (r.kind === 'record') return { tool: r.tool, kind: 'record', reason: r.reason as Extract<Plan, { kind: 'record' }>['reason'], detail: r.detail! };
  if (r.kind === 'document') return { tool: r.tool, kind: 'document', path: r.path!, record_ordinal: r.record_ordinal! };
  const facts = json(r.view_facts!, 'state_plans.view_facts') as Record<string, unknown>;
  const counters = json(r.counters!, 'state_plans.counters') as string[];
  const lines = json(r.lines!, 'state_plans.lines') as unknown as ItemPlan['lines'];
  // types.ts's key order: tool, kind, collection, the view facts, the pointer, membership, counters, lines.
  if (r.kind === 'item') return { tool: r.tool, kind: 'item', collection: r.collection!, ...facts, entity_pointer: r.pointer!, membership: null, counters: [], lines } as ItemPlan;
  return { tool: r.tool, kind: 'list', collection: r.collection!, ...facts, list_pointer: r.pointer!, membership: r.membership!, counters, lines } as ListPlan;
}

/**
 * The stored state's bookkeeping row of a capture that has a computed state; throws what a
 * reader must say otherwise: the stored failure (as the state pass raised it), or
 * `stale-store` when there is none or it was computed from other rule views.
 */
export async function storedStateOf(k: Kysely<DB>, captureId: number, file: string): Promise<Row<'state_capture'> & { status: 'computed'; sha256: string }> {
  const row = await freshStoredState(k, captureId, file);
  if (row.status === 'failed') {
    // Reported as the state pass raised it when the capture was loaded (same code, message and context).
    throw new CapstateError(row.error_code!, row.error_message!, row.error_context ? JSON.parse(row.error_context) as Record<string, unknown> : {});
  }
  return row as Row<'state_capture'> & { status: 'computed'; sha256: string };
}

/**
 * The capture's state_capture row, computed or failed; `stale-store` naming `capstate
 * migrate` when there is none (a capture loaded before migration 0003) or it was computed
 * from other rule views (STYLE §3: read-only commands detect what is stale and name the fix).
 */
export async function freshStoredState(k: Kysely<DB>, captureId: number, file: string): Promise<Row<'state_capture'>> {
  const row = await k.selectFrom('state_capture').selectAll().where('capture_id', '=', captureId).executeTakeFirst();
  const fix = `run: capstate migrate --db ${shellWord(file)}`;
  if (!row) throw new CapstateError('stale-store', `capture ${captureId} in ${file} has no stored environment state (it was loaded by an older capstate); ${fix}`, { file, capture: captureId });
  if (row.queries_sha256 !== viewsHash()) {
    throw new CapstateError('stale-store', `the stored environment state of capture ${captureId} in ${file} was computed from other rule views; ${fix}`, { file, capture: captureId });
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

/**
 * Indexed lookups into one capture's stored state, for serving (issue 14): a call reads the
 * plan of its tool and the entities it renders, never the whole state. Plans and documents
 * are decoded once per tool; entities are read per call (SQLite's page cache keeps the hot ones).
 */
export interface StoredLookups {
  plan(tool: string): Promise<Plan | undefined>;
  document(tool: string): Promise<StateDocument | undefined>;
  entity(collection: string, id: string): Promise<StateEntity | undefined>;
  /** The collection's entities in state order (ES-34). */
  collection(collection: string): Promise<StateEntity[]>;
  /** The state's types, in the view's order. */
  types(): Promise<StateType[]>;
  /** Per record: initial read, bound and list pointer, as the final views said when the state was computed. */
  records(): Promise<Row<'state_records'>[]>;
}

/** Lookups into capture `captureId`'s stored state; throws as `readStoredState` does when it is failed or stale. */
export async function storedLookups(k: Kysely<DB>, captureId: number, file: string): Promise<StoredLookups> {
  await storedStateOf(k, captureId, file);
  const plans = new Map<string, Promise<Plan | undefined>>();
  const documents = new Map<string, Promise<StateDocument | undefined>>();
  const collections = new BoundedCache<StateEntity[]>(COLLECTION_CACHE_CHARS);
  const once = <T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>) => {
    let hit = cache.get(key);
    if (!hit) cache.set(key, (hit = read()));
    return hit;
  };
  return {
    plan: (tool) => once(plans, tool, async () => {
      const r = await k.selectFrom('state_plans').selectAll().where('capture_id', '=', captureId).where('tool', '=', tool).executeTakeFirst();
      return r && planOf(r);
    }),
    document: (tool) => once(documents, tool, async () => {
      const r = await k.selectFrom('state_documents').selectAll().where('capture_id', '=', captureId).where('tool', '=', tool).executeTakeFirst();
      return r && documentOf(r);
    }),
    entity: async (collection, id) => {
      const r = await k.selectFrom('state_entities').selectAll().where('capture_id', '=', captureId)
        .where('collection', '=', collection).where('entity_key', '=', id).executeTakeFirst();
      return r && entityOf(r);
    },
    records: () => k.selectFrom('state_records').selectAll().where('capture_id', '=', captureId).execute(),
    types: async () => (await k.selectFrom('state_types').selectAll().where('capture_id', '=', captureId).orderBy('position').execute()).map(typeOf),
    collection: (collection) => collections.read(collection, async () => {
      const rows = await k.selectFrom('state_entities').selectAll().where('capture_id', '=', captureId)
        .where('collection', '=', collection).orderBy('state_order').orderBy('position').execute();
      let chars = 0;
      for (const r of rows) chars += r.value.length + r.view_values.length;
      return { value: Object.freeze(rows.map((r) => Object.freeze(entityOf(r)))) as StateEntity[], chars };
    }),
  };
}

/**
 * Decoded collections kept, up to this many characters of stored JSON in all: a write
 * check (and a served session) reads a type's whole collection on every create to choose
 * the next id and the defaults, and decoding it again each time was a tenth of the state
 * pass at 1 GB (18 of 183 s). The stored state does not change under a lookups object;
 * each array and its entities are frozen so that no caller can add, drop or replace what the
 * next one reads (the JSON values inside are shared: writers build new ones, as `put` does).
 */
const COLLECTION_CACHE_CHARS = 8 * 1024 * 1024;

/** Values read once and kept while their sizes fit the budget; the oldest go first. */
export class BoundedCache<T> {
  private readonly held = new Map<string, { value: Promise<T>; chars: number }>();
  private chars = 0;

  constructor(private readonly budget: number) {}

  read(key: string, load: () => Promise<{ value: T; chars: number }>): Promise<T> {
    const hit = this.held.get(key);
    if (hit) return hit.value;
    const entry = { value: load().then((r) => { this.keep(key, entry, r.chars); return r.value; }), chars: 0 };
    entry.value.catch(() => { if (this.held.get(key) === entry) this.held.delete(key); });
    this.held.set(key, entry);
    return entry.value;
  }

  /** Characters held now (for tests). */
  get size(): number {
    return this.chars;
  }

  private keep(key: string, entry: { chars: number }, chars: number): void {
    if (this.held.get(key) !== entry) return;
    if (chars > this.budget) { this.held.delete(key); return; } // read again each time: never held whole
    entry.chars = chars;
    this.chars += chars;
    for (const [k, e] of this.held) {
      if (this.chars <= this.budget) break;
      if (k === key) continue;
      this.held.delete(k);
      this.chars -= e.chars;
    }
  }
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
export async function writeStoredStateDocument(k: Kysely<DB>, captureId: number, file: string, write: (chunk: string) => void): Promise<string> {
  const head = await storedStateOf(k, captureId, file);
  return renderStoredState(k, captureId, {
    kind: 'environment-state', capture_id: captureId, timeline_order: head.timeline_order!,
    limitations: [], evidence: json(head.evidence!, 'state_capture.evidence') as unknown as StateHead['evidence'],
  }, write);
}

/**
 * The view's SHA-256 from the stored rows of capture `captureId`, and with `write`, the
 * document itself (`head` gives the parts not stored per row; its limitations are read from
 * their table). One walk over the rows serves both, so the digest is always of the bytes printed.
 */
async function renderStoredState(k: Kysely<DB>, captureId: number, head: StateHead, write: ((chunk: string) => void) | null): Promise<string> {
  const hash = createHash('sha256');
  let pending = '';
  const emit = write === null ? () => {} : (s: string) => {
    pending += s;
    if (pending.length >= 1 << 20) { write(pending); pending = ''; }
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
