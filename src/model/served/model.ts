/**
 * The served model: one session's working copy of the capture's stored state (issue 16).
 * Reads go to the stored state (src/model/plan/stored.ts, never recomputed, never written) through
 * an overlay that holds only what this session's writes changed; `load_state` swaps the
 * base for a state given by hand, `reset_state` drops both. Each MCP session and each HTTP
 * server owns one model, so sessions never see each other's writes.
 */
import { CapstateError } from '../../errors.js';
import { stringifyExact, type JsonValue } from '../../json/exact.js';
import { sha256Hex } from '../../json/sha256.js';
import { readStoredState } from '../plan/stored.js';
import { storedLookups, type StoredLookups } from '../plan/lookups.js';
import type { ListPlan, StateDocument, StateEntity } from '../plan/types.js';
import { perContext, type ServeContext } from './context.js';
import type { SessionWrite } from './write-log.js';
import { isInt } from './ids.js';
import { member } from '../plan/json.js';

/** What a model reads its entities and documents from before any write. */
interface Base {
  entity(collection: string, id: string): Promise<StateEntity | undefined>;
  collection(collection: string): Promise<StateEntity[]>;
  document(tool: string): Promise<StateDocument | undefined>;
}

/** A type of the stored state, as writes need it: its collection, root and identity member. */
export interface ServedType {
  collection: string;
  root_path: string;
  identity: string;
}

const lookups = new WeakMap<ServeContext, Promise<StoredLookups | null>>();

/**
 * The capture's stored state, or null when the load could not compute it (a stored
 * failure such as `budget-exceeded`): then every read replays its records.
 */
export function servedLookups(ctx: ServeContext): Promise<StoredLookups | null> {
  let hit = lookups.get(ctx);
  if (!hit) {
    hit = storedLookups(ctx.k, ctx.captureId, ctx.storeName).catch((e: unknown) => {
      if (e instanceof CapstateError && !['stale-store', 'state-pending', 'damaged-store'].includes(e.code)) return null;
      throw e;
    });
    lookups.set(ctx, hit);
  }
  return hit;
}

/**
 * The list plans of the API's GET tools, in manifest order, read once per served store: where a
 * habit learned on one list (its page envelope, default page, default orders) is looked up.
 */
export const servedListPlans = perContext(async (ctx): Promise<ListPlan[]> => {
  const state = await servedLookups(ctx);
  const out: ListPlan[] = [];
  for (const tool of ctx.manifest.tools) {
    const plan = state && tool.method.toUpperCase() === 'GET' ? await state.plan(tool.name) : undefined;
    if (plan?.kind === 'list') out.push(plan);
  }
  return out;
});

const types = new WeakMap<ServeContext, Promise<ServedType[]>>();

/** The stored state's types (collection, root path, identity member), read once per context. */
export function servedTypes(ctx: ServeContext): Promise<ServedType[]> {
  let hit = types.get(ctx);
  if (!hit) {
    hit = servedLookups(ctx).then(async (state) =>
      state === null ? [] : (await state.types()).map(({ collection, root_path, identity }) => ({ collection, root_path, identity })),
    );
    types.set(ctx, hit);
  }
  return hit;
}

/** The served state document `get_state` answers and `load_state` takes (entities and documents as `state --json` has them). */
export interface ServedStateDocument {
  kind: 'served-state';
  capture_id: number;
  entities: StateEntity[];
  documents: StateDocument[];
}

/** Whether every entity showing an identity member shows an integer, and the largest of them (0: none). */
export interface IntIds {
  allInt: boolean;
  top: number | bigint;
}

/**
 * A collection as `collection()` answers it, and the state order of the stored state's first
 * entity (Infinity: none); with what each create reads of it, kept as writes change it: the
 * largest state order (its place) and, per identity member, the integer ids' top (its id).
 * Reading them off the whole collection on each create made a long session's k-th create cost
 * k (r200's write check: a fifth of its state pass).
 */
interface Merged {
  list: StateEntity[];
  first: number;
  maxOrder?: number;
  ids: Map<string, IntIds>;
}

/** An identity value joining a collection's integer ids (none: the entity lacks the member). */
function joins(held: IntIds, v: JsonValue | undefined): void {
  if (v === undefined) return;
  if (isInt(v)) held.top = v > held.top ? v : held.top;
  else held.allInt = false;
}

/** A created entity added to `merged`'s list: what it kept grows with it. */
function noteAdded(merged: Merged, e: StateEntity): void {
  if (merged.maxOrder !== undefined) merged.maxOrder = Math.max(merged.maxOrder, e.state_order);
  for (const [identity, held] of merged.ids) joins(held, member(e.value, identity));
}

/**
 * An entity gone from `merged`'s list (removed, or replaced in its place by `now`): what it
 * may have decided (the largest order, an identity's top or its one non-integer id) is read
 * again when next asked.
 */
function noteGone(merged: Merged, gone: StateEntity, now?: StateEntity): void {
  if (merged.maxOrder !== undefined && now?.state_order !== gone.state_order && gone.state_order >= merged.maxOrder)
    merged.maxOrder = undefined;
  for (const [identity, held] of merged.ids) {
    const was = member(gone.value, identity);
    const is = now && member(now.value, identity);
    if (was === is) continue;
    if (was !== undefined && !(isInt(was) && was < held.top)) merged.ids.delete(identity);
    else joins(held, is);
  }
}

/**
 * Puts a written entity into `merged` where mergedCollection would, when that is plain: an
 * entity already listed, in its place (its order unchanged); one this session created, last or
 * first when its order is beyond every listed one's on that side. False when it is not plain (the caller
 * merges anew): each create re-merging its collection made a long session quadratic.
 */
function placed(merged: Merged, e: StateEntity, before: StateEntity | undefined, creation: boolean): boolean {
  const { list, first } = merged;
  const at = list.findIndex((x) => x.id === e.id);
  if (at >= 0) {
    if (before?.state_order !== e.state_order) return false;
    noteGone(merged, list[at], e);
    list[at] = e;
    return true;
  }
  // One the stored state holds (removed, now written again) takes its stored place: merge anew.
  if (before !== undefined || !creation) return false;
  // Created entities ordered before the stored state's first precede it, the others follow it, each side in order.
  const last = list.at(-1);
  if ((e.state_order >= first || first === Infinity) && (!last || e.state_order > last.state_order)) list.push(e);
  else if (e.state_order < first && (!list.length || e.state_order < list[0].state_order)) list.unshift(e);
  else return false;
  noteAdded(merged, e);
  return true;
}

/** One session's copy of the state. */
export class ServedModel {
  private base: Base | null = null;
  /** collection → id → the entity as written, or null when deleted. */
  private entities = new Map<string, Map<string, StateEntity | null>>();
  /**
   * collection → `collection()`'s answer until the next write to it: a create asks for its
   * collection to allocate an id and to order itself, so building it anew each time made a
   * session's k-th create cost k (the load's write check on a long single-app capture).
   */
  private merged = new Map<string, Merged>();
  /**
   * collection → the entities this session created that are still there, beside `entities`:
   * merging walked every id the session ever wrote, and a long session's creates and deletes
   * leave thousands of them (null) behind. Derived on first use, then kept by put and remove.
   */
  private created = new Map<string, Map<string, StateEntity>>();
  /** tool → the document as written. */
  private documents = new Map<string, StateDocument>();
  private loaded = false;
  /** This session's writes, in order (write-log.ts: which recorded reads are still current). */
  readonly writes: SessionWrite[] = [];
  /**
   * Roots a create went to that the model replayed rather than applied, while check-effects
   * verifies (it keeps no write log): such a create may have made any id, so none is claimed absent.
   */
  readonly replayedCreates = new Set<string>();
  /**
   * Entities this session created whose place in their collection's lists the capture does not
   * show (`collection\0id`; placement.ts): a list without a sort that would show one is declined.
   */
  readonly unplaced = new Set<string>();
  /** Other models of the session (a GraphQL endpoint's entities, src/model/graphql/model.ts), reset with it. */
  private parts = new Map<string, { reset(): void }>();

  constructor(readonly ctx: ServeContext) {}

  /** Whether the served state exists (false: the load stored a failure; everything replays). */
  async hasState(): Promise<boolean> {
    return (await this.baseOf()) !== null;
  }

  private async baseOf(): Promise<Base | null> {
    if (this.base) return this.base;
    const stored = await servedLookups(this.ctx);
    return (this.base = stored);
  }

  async entity(collection: string, id: string): Promise<StateEntity | undefined> {
    const written = this.entities.get(collection);
    if (written?.has(id)) return written.get(id) ?? undefined;
    return (await this.baseOf())?.entity(collection, id);
  }

  /** The collection in state order (ES-34), this session's writes applied: created entities last, or first when ordered before the state's first. */
  async collection(collection: string): Promise<StateEntity[]> {
    return [...(await this.mergedOf(collection)).list];
  }

  /** The collection's integer ids under `identity` (ids.ts: the next id after the top). */
  async intIds(collection: string, identity: string): Promise<IntIds> {
    const merged = await this.mergedOf(collection);
    let held = merged.ids.get(identity);
    if (!held) {
      held = { allInt: true, top: 0 };
      for (const e of merged.list) joins(held, member(e.value, identity));
      merged.ids.set(identity, held);
    }
    return held;
  }

  /** The kept collection (a copy of it is what `collection()` answers), merged when not kept. */
  private async mergedOf(collection: string): Promise<Merged> {
    let merged = this.merged.get(collection);
    if (!merged) this.merged.set(collection, (merged = await this.mergedCollection(collection)));
    return merged;
  }

  private async mergedCollection(collection: string): Promise<Merged> {
    const base = (await (await this.baseOf())?.collection(collection)) ?? [];
    // A created entity ordered before the state's first (newest first lists) comes first.
    const first = base.length ? base[0].state_order : Infinity;
    const written = this.entities.get(collection);
    // A copy: `placed` edits the list in place, and the stored lookups keep `base` for every session.
    if (!written) return { list: [...base], first, ids: new Map() };
    const out: StateEntity[] = [];
    const seen = new Set<string>();
    for (const e of base) {
      seen.add(e.id);
      if (!written.has(e.id)) out.push(e);
      else if (written.get(e.id)) out.push(written.get(e.id)!);
    }
    let created = this.created.get(collection);
    if (!created) {
      created = new Map([...written].filter((w): w is [string, StateEntity] => !seen.has(w[0]) && w[1] !== null));
      this.created.set(collection, created);
    }
    const added = [...created.values()].sort((a, b) => a.state_order - b.state_order);
    return {
      list: [...added.filter((e) => e.state_order < first), ...out, ...added.filter((e) => e.state_order >= first)],
      first,
      ids: new Map(),
    };
  }

  async document(tool: string): Promise<StateDocument | undefined> {
    return this.documents.get(tool) ?? (await this.baseOf())?.document(tool);
  }

  /** Writes an entity (created or changed); a created one is ordered after every entity of its collection unless `state_order` says otherwise. */
  async put(entity: Omit<StateEntity, 'state_order'> & { state_order?: number }): Promise<StateEntity> {
    const current = await this.entity(entity.collection, entity.id);
    let order = entity.state_order ?? current?.state_order;
    if (order === undefined) {
      const merged = await this.mergedOf(entity.collection);
      merged.maxOrder ??= merged.list.reduce((m, e) => Math.max(m, e.state_order), -1);
      order = merged.maxOrder + 1;
    }
    const e: StateEntity = { ...entity, state_order: order };
    let written = this.entities.get(e.collection);
    if (!written) this.entities.set(e.collection, (written = new Map()));
    written.set(e.id, e);
    // One the stored state does not hold is this session's creation (the stored state never changes).
    const created = this.created.get(e.collection);
    const merged = this.merged.get(e.collection);
    const creation = created?.has(e.id) || ((created || merged) && !(await (await this.baseOf())?.entity(e.collection, e.id)));
    if (created && creation) created.set(e.id, e);
    if (merged && !placed(merged, e, current, creation === true)) this.merged.delete(e.collection);
    return e;
  }

  /** Whether this session wrote the entity (created, changed or removed it). */
  isWritten(collection: string, id: string): boolean {
    return this.entities.get(collection)?.has(id) ?? false;
  }

  /** Removes an entity from its collection (and so from every list that renders it). */
  remove(collection: string, id: string): void {
    let written = this.entities.get(collection);
    if (!written) this.entities.set(collection, (written = new Map()));
    written.set(id, null);
    this.created.get(collection)?.delete(id);
    const merged = this.merged.get(collection);
    if (merged) {
      const gone = merged.list.find((e) => e.id === id);
      merged.list = merged.list.filter((e) => e !== gone);
      if (gone) noteGone(merged, gone);
    }
  }

  /** Whether this session removed `id` from `collection`. */
  removedHere(collection: string, id: string): boolean {
    return this.entities.get(collection)?.get(id) === null;
  }

  /** The largest integer id this session removed from `collection` (as its entity key), if any. */
  removedTop(collection: string): bigint | undefined {
    let top: bigint | undefined;
    for (const [id, e] of this.entities.get(collection) ?? [])
      if (e === null && /^-?[0-9]+$/.test(id) && (top === undefined || BigInt(id) > top)) top = BigInt(id);
    return top;
  }

  /** What this session wrote to entities so far, for `restore` (catch-up.ts keeps a state only if the capture's reads agree). */
  writtenEntities(): Map<string, Map<string, StateEntity | null>> {
    return new Map([...this.entities].map(([c, m]) => [c, new Map(m)]));
  }

  restore(entities: Map<string, Map<string, StateEntity | null>>): void {
    this.entities = entities;
    this.merged.clear();
    this.created.clear();
  }

  putDocument(doc: StateDocument): void {
    this.documents.set(doc.tool, doc);
  }

  /** The session's part named `key`, made by `make` on first use. */
  part<T extends { reset(): void }>(key: string, make: () => T): T {
    let p = this.parts.get(key);
    if (!p) this.parts.set(key, (p = make()));
    return p as T;
  }

  /** `reset_state`: back to the capture's initial (stored) state. */
  reset(): void {
    for (const p of this.parts.values()) p.reset();
    this.entities.clear();
    this.merged.clear();
    this.created.clear();
    this.documents.clear();
    this.writes.length = 0;
    this.unplaced.clear();
    this.base = null;
    this.loaded = false;
  }

  /** Whether anything was written or loaded since the start (or the last reset). */
  get isChanged(): boolean {
    return this.loaded || this.entities.size > 0 || this.documents.size > 0;
  }

  /** `get_state`: every entity and document as served now, in the stored state's order. */
  async snapshot(): Promise<ServedStateDocument> {
    const base = await this.baseOf();
    if (base === null) throw noState(this.ctx);
    let entities: StateEntity[];
    let documents: StateDocument[];
    if (this.loaded && base instanceof SnapshotBase) {
      entities = base.doc.entities;
      documents = base.doc.documents;
    } else {
      const stored = await readStoredState(this.ctx.k, this.ctx.captureId, this.ctx.storeName);
      entities = stored.entities;
      documents = stored.documents;
    }
    const collections = [...new Set([...entities.map((e) => e.collection), ...this.entities.keys()])];
    const outEntities: StateEntity[] = [];
    for (const c of collections) {
      const byId = new Map(entities.filter((e) => e.collection === c).map((e) => [e.id, e]));
      const written = this.entities.get(c) ?? new Map<string, StateEntity | null>();
      const kept = [...byId.values()]
        .filter((e) => !written.has(e.id))
        .concat([...written.values()].filter((e): e is StateEntity => e !== null));
      outEntities.push(...kept.sort((a, b) => a.state_order - b.state_order));
    }
    const outDocuments = documents.map((d) => this.documents.get(d.tool) ?? d);
    return { kind: 'served-state', capture_id: this.ctx.captureId, entities: outEntities, documents: outDocuments };
  }

  /** `load_state`: serve this (validated) state from now on. */
  load(doc: ServedStateDocument): void {
    for (const p of this.parts.values()) p.reset();
    this.entities.clear();
    this.merged.clear();
    this.created.clear();
    this.documents.clear();
    this.writes.length = 0;
    this.base = new SnapshotBase(doc);
    this.loaded = true;
  }
}

/** A state given to `load_state`, served from memory. */
class SnapshotBase implements Base {
  private byKey = new Map<string, StateEntity>();
  constructor(readonly doc: ServedStateDocument) {
    for (const e of doc.entities) this.byKey.set(`${e.collection}\u0000${e.id}`, e);
  }
  async entity(collection: string, id: string) {
    return this.byKey.get(`${collection}\u0000${id}`);
  }
  async collection(collection: string) {
    return this.doc.entities.filter((e) => e.collection === collection).sort((a, b) => a.state_order - b.state_order);
  }
  async document(tool: string) {
    return this.doc.documents.find((d) => d.tool === tool);
  }
}

function noState(ctx: ServeContext): CapstateError {
  return new CapstateError(
    'no-state',
    `capture ${ctx.captureId} in ${ctx.storeName} has no environment state (the load stored why it could not compute one: see capstate state); its tools replay records`,
    { capture: ctx.captureId },
  );
}

/** The served state's exact text and its SHA-256 (byte-stable: the state pass's own serialiser). */
export function stateText(doc: ServedStateDocument): { text: string; sha256: string } {
  const text = stringifyExact(doc as unknown as JsonValue, 2) + '\n';
  return { text, sha256: sha256Hex(text) };
}

const defaults = new WeakMap<ServeContext, ServedModel>();

/** The model a caller without a session of its own (the bench, a one-off call) works on. */
export function defaultModel(ctx: ServeContext): ServedModel {
  let m = defaults.get(ctx);
  if (!m) defaults.set(ctx, (m = new ServedModel(ctx)));
  return m;
}
