/**
 * The rule views' answers for one capture, read once each: the state pass assembles the
 * view from these and never restates a rule the views own.
 */
import type { Kysely, Selectable } from 'kysely';
import { parseAcceptedJson, type JsonValue } from '../json/exact.js';
import type { DB } from '../store/types.js';
import { readVocabulary, type Vocabulary } from '../store/vocabulary.js';
import { lineBound, readRecordLines, type LineBound, type RecordLine } from '../store/record-lines.js';
import { rowCost, valueCost, type Budget } from './budget.js';
import { at, isObject } from '../model/plan/json.js';
import { collectionNames } from './steps/merge-entities.js';
import { embeddedIn, withoutEmbedded, type EmbeddedMember } from '../model/plan/relations.js';
import { storedContent } from '../store/body-content.js';

/** A type's admitted read (`read_records`), as the one reader gives it (src/store/record-lines.ts). */
export type ReadLine = RecordLine;

/** OQ-35: a request line is one path with one query string (per tool); its records are its repeats. */
export const lineKey = (r: { path: string; query: string | null }) => `${r.path}?${r.query ?? ''}`;

/**
 * The facts every type's unit of work shares, read once and held for the whole pass
 * (OQ-32): the capture's writes (any of them may bound any type, ES-8/ES-9/ES-27), tools,
 * identities, vocabulary, and the per-record path and query values.
 */
export interface CaptureFacts {
  captureId: number;
  timelineOrder: 'start-time' | 'record-order';
  writes: DB['writes'][];
  /** Every type's identity, in root order: the units of work of the pass, in output order. */
  allIdentities: DB['type_identities'][];
  /** ES-8: each type root's bounding write, by ordinal, as `first_write_per_root` decides it. */
  firstWrites: Map<string, number>;
  /** Each type root's collection name (names depend on every root, steps/merge-entities.ts). */
  names: Map<string, string>;
  allTools: Selectable<DB['tool']>[];
  vocabulary: Vocabulary;
  /** ES-23: per concrete path, the top-level members generated per response. */
  perResponse: Map<string, Set<string>>;
  /** A read's last path parameter value (the id an item read names). */
  pathValue(recordId: number): string | undefined;
}

/** One type's facts (a unit of work, OQ-32): its reads and observations, its tools, and its bodies as asked for. */
export interface StateFacts extends CaptureFacts {
  /** The type root this unit covers. */
  root: string;
  /** The root's admitted reads (read_records), in timeline order, marked initial per ES-8/ES-9/ES-27 (initial_reads). */
  reads: ReadLine[];
  /** The root's identity, when it has one (zero or one row). */
  identities: DB['type_identities'][];
  /** ES-26 observations less the records of unchecked lines (ES-12, ES-13, ES-19): `kept_observations`. */
  observations: DB['kept_observations'][];
  order: DB['collection_order'][];
  itemLocations: DB['item_locations'][];
  listReads: DB['list_reads'][];
  counters: DB['list_counters'][];
  membership: DB['list_membership'][];
  /** ES-35/36 beyond the body (issue 18): pagination keys and total, range and next-link headers of list reads. */
  pageSignals: DB['list_page_signals'][];
  /** The root's tools. */
  tools: Selectable<DB['tool']>[];
  /** ES-21 (`view_fields`): per `tool\u0000scope`, the view's fields in order and those every observation shows. */
  viewFields: Map<string, { fields: string[]; required: string[] }>;
  /** ES-24 (`view_per_response_members`): per tool, the generated members every path it answers proves, sorted. */
  viewPerResponse: Map<string, string[]>;
  /** Issue 18: per nested list tool of the root (`/projects/{id}/memberships.json`), the type its path parameter names. */
  parents: Map<string, NestedParent>;
  /** ES-4/ES-5: a body as an exact value through the body owner, or undefined when it is not usable. */
  bodyValue(bodyId: number): JsonValue | undefined;
  bodyUsable(bodyId: number): boolean;
  /** The entity objects a read's body shows: an item read's located entity (ES-38), a list read's listed objects (OQ-11); without embedded members. */
  objectsShown(r: ReadLine, isItem: boolean): JsonValue[];
  /** Issue 16: an object a read shows, less the members its query embeds (`?_embed=comments`, relations.ts). */
  ownObject(recordId: number, object: JsonValue): JsonValue;
  /** Issue 16: the members a read's query embeds in an object it shows (relations.ts). */
  embeddedBy(recordId: number, object: JsonValue | undefined): EmbeddedMember[];
  /** Fetches more bodies (the gate's later reads and writes), charged like the first ones; returns the ids it fetched. */
  loadBodies(bodyIds: number[]): Promise<number[]>;
  /** Lets go of bodies `loadBodies` fetched (OQ-32: released when no longer held), and their charge. */
  dropBodies(bodyIds: number[]): void;
}

/**
 * Issue 18: the parent type of a nested list tool — its root, collection and identity name —
 * and the path values its item reads named an entity by other than its id (Redmine's
 * `/projects/garden.json` shows project 1: `garden` → `1`), learned from the parent's own
 * item observations, since the parent is another unit of work.
 */
export interface NestedParent {
  root: string;
  collection: string;
  identity: string | null;
  aliases: Map<string, string>;
}

/** The rule views the state pass reads (evaluated once per pass, store/snapshot.ts). */
export const STATE_VIEWS = [
  'capture_timeline',
  'read_records',
  'initial_reads',
  'first_write_per_root',
  'writes',
  'type_identities',
  'kept_observations',
  'collection_order',
  'item_locations',
  'list_reads',
  'list_counters',
  'list_membership',
  'list_page_signals',
  'per_response_members',
  'line_records',
  'unchecked_lines',
  'unchecked_records',
  'variant_keys',
  'late_shaping_rows',
  'projection_values',
  'list_locations',
  'view_fields',
  'view_per_response_members',
] as const;

/** The facts shared by every unit, each view read once; charged to the budget for the whole pass. */
export async function readCaptureFacts(k: Kysely<DB>, captureId: number, budget: Budget): Promise<CaptureFacts> {
  const timeline = await k.selectFrom('capture_timeline').select('timeline_order').where('capture_id', '=', captureId).executeTakeFirst();
  const [writes, identities, tools, firstWrites] = await Promise.all([
    k.selectFrom('writes').selectAll().where('capture_id', '=', captureId).orderBy('timeline_position').execute(),
    k.selectFrom('type_identities').selectAll().where('capture_id', '=', captureId).orderBy('root_path').execute(),
    k.selectFrom('tool').selectAll().where('capture_id', '=', captureId).orderBy('template').orderBy('method').execute(),
    k.selectFrom('first_write_per_root').select(['root_path', 'write_ordinal']).where('capture_id', '=', captureId).execute(),
  ]);
  const perResponse = new Map<string, Set<string>>();
  for (const r of await k.selectFrom('per_response_members').select(['path', 'member_key']).where('capture_id', '=', captureId).execute()) {
    const set = perResponse.get(r.path) ?? new Set<string>();
    set.add(r.member_key);
    perResponse.set(r.path, set);
  }
  // ES-39: the manifest's grouping and every record row count as transient bytes.
  for (const t of tools) budget.charge('manifest', rowCost(t));
  for (const rows of [writes, identities] as Record<string, unknown>[][]) for (const r of rows) budget.charge('records', rowCost(r));
  const params = await k
    .selectFrom('path_param as p')
    .innerJoin('record as r', 'r.id', 'p.record_id')
    .select(['p.record_id', 'p.value'])
    .where('r.capture_id', '=', captureId)
    .orderBy('p.record_id')
    .orderBy('p.position')
    .execute();
  const pathValues = new Map(params.map((p) => [p.record_id, p.value]));
  return {
    captureId,
    timelineOrder: timeline?.timeline_order ?? 'record-order',
    writes,
    firstWrites: new Map(firstWrites.map((w) => [w.root_path, w.write_ordinal])),
    allIdentities: identities,
    names: collectionNames(identities.map((t) => t.root_path)),
    allTools: tools,
    perResponse,
    vocabulary: await readVocabulary(k),
    pathValue: (id) => pathValues.get(id),
  };
}

/**
 * The units of work, in output order: each type root with an identity in root order, then
 * the roots of tools without one (their documents and record plans).
 */
export function unitRoots(capture: CaptureFacts): string[] {
  const typed = capture.allIdentities.map((t) => t.root_path);
  const seen = new Set(typed);
  const rest = [...new Set(capture.allTools.map((t) => t.root_path))].filter((r) => !seen.has(r)).sort();
  return [...typed, ...rest];
}

/** One type root's facts; the bodies of its initial reads are loaded, others on `loadBodies`. Charged to the unit. */
export async function readUnitFacts(k: Kysely<DB>, capture: CaptureFacts, root: string, budget: Budget): Promise<StateFacts> {
  const captureId = capture.captureId;
  const tools = capture.allTools.filter((t) => t.root_path === root);
  const toolNames = tools.map((t) => t.name);
  const byTool = <T>(q: () => Promise<T[]>): Promise<T[]> => (toolNames.length === 0 ? Promise.resolve([]) : q());
  const initial = new Map<number, LineBound>();
  for (const i of await k
    .selectFrom('initial_reads')
    .select(['record_id', 'bound_ordinal', 'bound_rule'])
    .where('capture_id', '=', captureId)
    .where('root_path', '=', root)
    .execute()) {
    initial.set(i.record_id, lineBound(i));
  }
  const reads = await readRecordLines(k, {
    captureId,
    tools: tools.map((t) => ({ id: t.id, name: t.name, root_path: t.root_path })),
    readsOnly: true,
    initial,
  });
  const [observations, order, itemLocations, listReads, counters, membership, pageSignals] = await Promise.all([
    k
      .selectFrom('kept_observations')
      .selectAll()
      .where('capture_id', '=', captureId)
      .where('root_path', '=', root)
      .orderBy('timeline_position')
      .orderBy('list_index')
      .execute(),
    k
      .selectFrom('collection_order')
      .selectAll()
      .where('capture_id', '=', captureId)
      .where('root_path', '=', root)
      .orderBy('state_order')
      .execute(),
    k.selectFrom('item_locations').selectAll().where('capture_id', '=', captureId).where('root_path', '=', root).execute(),
    byTool(() => k.selectFrom('list_reads').selectAll().where('capture_id', '=', captureId).where('tool', 'in', toolNames).execute()),
    byTool(() =>
      k
        .selectFrom('list_counters')
        .selectAll()
        .where('capture_id', '=', captureId)
        .where('tool', 'in', toolNames)
        .orderBy('record_id')
        .orderBy('member_pointer')
        .execute(),
    ),
    byTool(() => k.selectFrom('list_membership').selectAll().where('capture_id', '=', captureId).where('tool', 'in', toolNames).execute()),
    byTool(() =>
      k
        .selectFrom('list_page_signals')
        .selectAll()
        .where('capture_id', '=', captureId)
        .where('tool', 'in', toolNames)
        .orderBy('record_id')
        .orderBy('signal')
        .orderBy('name')
        .execute(),
    ),
  ]);
  const fieldRows = await byTool(() =>
    k
      .selectFrom('view_fields')
      .selectAll()
      .where('capture_id', '=', captureId)
      .where('tool', 'in', toolNames)
      .orderBy('tool')
      .orderBy('scope')
      .orderBy('field_order')
      .execute(),
  );
  const viewFields = new Map<string, { fields: string[]; required: string[] }>();
  for (const f of fieldRows) {
    const key = `${f.tool}\u0000${f.scope}`;
    const v = viewFields.get(key) ?? viewFields.set(key, { fields: [], required: [] }).get(key)!;
    v.fields.push(f.field);
    if (f.is_required === 1) v.required.push(f.field);
  }
  const perResponseRows = await byTool(() =>
    k
      .selectFrom('view_per_response_members')
      .select(['tool', 'member_key'])
      .where('capture_id', '=', captureId)
      .where('tool', 'in', toolNames)
      .orderBy('tool')
      .orderBy('member_key')
      .execute(),
  );
  const viewPerResponse = new Map<string, string[]>();
  for (const r of perResponseRows) (viewPerResponse.get(r.tool) ?? viewPerResponse.set(r.tool, []).get(r.tool)!).push(r.member_key);
  for (const rows of [
    reads,
    observations,
    order,
    itemLocations,
    listReads,
    counters,
    membership,
    pageSignals,
    fieldRows,
    perResponseRows,
  ] as Record<string, unknown>[][]) {
    for (const r of rows) budget.charge('records', rowCost(r));
  }
  const parents = await nestedParents(k, capture, tools, budget);
  const itemPointer = new Map(itemLocations.map((l) => [l.record_id, l.entity_pointer]));
  const listPointer = new Map(listReads.map((l) => [l.record_id, l.list_pointer]));
  // Initial reads' bodies are rendered and compared; the gate asks for later ones. Each is parsed on first use.
  const texts = new Map<number, string | null>();
  const parsed = new Map<number, JsonValue | undefined>();
  // What each held body was charged, so letting it go releases exactly that.
  const charged = new Map<number, { bodies: number; values: number }>();
  const chargeBody = (id: number, phase: 'bodies' | 'values', bytes: number) => {
    budget.charge(phase, bytes);
    const c = charged.get(id) ?? charged.set(id, { bodies: 0, values: 0 }).get(id)!;
    c[phase] += bytes;
  };
  const loadBodies = async (ids: number[]) => {
    const bodyIds = [...new Set(ids)].filter((id) => !texts.has(id));
    for (let i = 0; i < bodyIds.length; i += 500) {
      const rows = await k
        .selectFrom('body')
        .select(['id', 'kind', 'is_usable', 'content', 'coding'])
        .where('id', 'in', bodyIds.slice(i, i + 500))
        .execute();
      for (const b of rows) {
        const content = b.kind === 'json' && b.is_usable === 1 ? storedContent(b.content, b.coding) : null;
        const text = typeof content === 'string' ? content : null;
        // ES-39: a body counts at its stored length before decoding…
        if (text !== null) chargeBody(b.id, 'bodies', Buffer.byteLength(text, 'utf8'));
        texts.set(b.id, text);
        parsed.delete(b.id); // a body asked for before it was loaded is parsed anew
      }
    }
    return bodyIds;
  };
  const dropBodies = (ids: number[]) => {
    for (const id of ids) {
      const c = charged.get(id);
      if (c) {
        budget.release('bodies', c.bodies);
        budget.release('values', c.values);
      }
      charged.delete(id);
      texts.delete(id);
      parsed.delete(id);
    }
  };
  await loadBodies(reads.filter((r) => r.is_initial).map((r) => r.response_body_id));
  await loadBodies(laterBodies(reads, listReads, itemLocations));
  const value = (id: number): JsonValue | undefined => {
    if (!parsed.has(id)) {
      const text = texts.get(id);
      // …and again at its decoded length before parsing; the parsed value is retained.
      if (text != null) chargeBody(id, 'bodies', 2 * text.length);
      const p = text == null ? null : parseAcceptedJson(text);
      if (p && p.ok) chargeBody(id, 'values', valueCost(p.value));
      parsed.set(id, p && p.ok ? p.value : undefined);
      // Issue 14: the text is not needed once parsed (its charge stays, ES-39 counts both);
      // letting it go keeps a unit's peak near its parsed values rather than both.
      if (text != null) texts.set(id, null);
    }
    return parsed.get(id);
  };
  const pairsOf = new Map(reads.map((r) => [r.record_id, r.query_pairs]));
  const vocabulary = capture.vocabulary;
  const isEmbedding = (name: string) => vocabulary.isShaping(name) && !vocabulary.isProjection(name);
  const embeddedBy = (recordId: number, object: JsonValue | undefined) => {
    const pairs = pairsOf.get(recordId);
    return pairs && pairs.length ? embeddedIn(object, pairs, isEmbedding) : [];
  };
  const ownObject = (recordId: number, object: JsonValue) => withoutEmbedded(object, embeddedBy(recordId, object));
  return {
    ...capture,
    root,
    reads,
    identities: capture.allIdentities.filter((t) => t.root_path === root),
    observations,
    order,
    itemLocations,
    listReads,
    counters,
    membership,
    pageSignals,
    tools,
    viewFields,
    viewPerResponse,
    parents,
    bodyValue: value,
    loadBodies,
    dropBodies,
    bodyUsable: (id) => value(id) !== undefined,
    objectsShown: (r, isItem) => {
      const body = value(r.response_body_id);
      if (body === undefined) return [];
      const p = (isItem ? itemPointer : listPointer).get(r.record_id);
      const found = p === undefined ? undefined : at(body, p);
      if (isItem) return isObject(found) ? [ownObject(r.record_id, found)] : [];
      return Array.isArray(found) ? found.filter(isObject).map((o) => ownObject(r.record_id, o)) : [];
    },
    ownObject,
    embeddedBy,
  };
}

/** A template's shape without parameter names or a format suffix: `/projects/{id}.json` → `/projects/{}`. */
const bareTemplate = (t: string) => t.replace(/\{[^}]+\}/g, '{}').replace(/\.[A-Za-z0-9]+$/, '');

/**
 * Issue 18: the parents of the root's nested list tools — a GET template with one parameter
 * between its parent's segment and its own, under another root than its parent's — each found
 * through the parent's GET item template (`/projects/{id}/memberships.json` → `/projects/{id}.json`),
 * else its list (`/projects.json`).
 */
async function nestedParents(
  k: Kysely<DB>,
  capture: CaptureFacts,
  tools: Selectable<DB['tool']>[],
  budget: Budget,
): Promise<Map<string, NestedParent>> {
  const out = new Map<string, NestedParent>();
  for (const t of tools) {
    const bare = bareTemplate(t.template);
    const cut = bare.indexOf('/{}');
    if (t.method !== 'GET' || t.ends_in_param === 1 || cut <= 0 || bare.indexOf('{}', cut + 3) !== -1 || bare.startsWith(`${t.root_path}/`))
      continue;
    const items = capture.allTools.filter(
      (p) => p.method === 'GET' && p.ends_in_param === 1 && bareTemplate(p.template) === bare.slice(0, cut + 3),
    );
    // Without an item template, the parent's list (`/posts`) still names its type.
    const root = (items[0] ?? capture.allTools.find((p) => p.method === 'GET' && bareTemplate(p.template) === bare.slice(0, cut)))
      ?.root_path;
    const collection = root === undefined ? undefined : capture.names.get(root);
    if (root === undefined || collection === undefined || root === t.root_path) continue;
    const aliases = new Map<string, string>();
    const ambiguous = new Set<string>();
    const rows =
      items.length === 0
        ? []
        : await k
            .selectFrom('kept_observations')
            .select(['record_id', 'entity_id'])
            .where('capture_id', '=', capture.captureId)
            .where('root_path', '=', root)
            .where('view_kind', '=', 'item')
            .where(
              'tool',
              'in',
              items.map((p) => p.name),
            )
            .orderBy('timeline_position')
            .execute();
    for (const r of rows) {
      budget.charge('records', rowCost(r));
      const v = capture.pathValue(r.record_id);
      if (v === undefined || v === r.entity_id) continue;
      if (aliases.has(v) && aliases.get(v) !== r.entity_id) ambiguous.add(v);
      aliases.set(v, r.entity_id);
    }
    for (const v of ambiguous) aliases.delete(v);
    out.set(t.name, {
      root,
      collection,
      identity: capture.allIdentities.find((i) => i.root_path === root)?.identity_field ?? null,
      aliases,
    });
  }
  return out;
}

/** How many later reads a tool whose initial reads show none of its type's entities learns its view's members from. */
const LATER_READS = 8;

/**
 * OQ-11 (5): the bodies of the first later reads (by ordinal) of each list tool whose initial
 * reads list nothing, and of each item tool read only after its type's first change — a type
 * that starts empty learns the members its views show from them (plan-empty-start.ts).
 */
function laterBodies(
  reads: readonly ReadLine[],
  listReads: readonly DB['list_reads'][],
  itemLocations: readonly DB['item_locations'][],
): number[] {
  const initial = new Set(reads.filter((r) => r.is_initial).map((r) => r.record_id));
  const bodyOf = new Map(reads.map((r) => [r.record_id, r.response_body_id]));
  const listedInitially = new Set(listReads.filter((l) => initial.has(l.record_id)).map((l) => l.tool));
  // A 404 before the create shows nothing: such a tool learns its members from its later reads too.
  const readInitially = new Set(reads.filter((r) => r.is_initial && r.status >= 200 && r.status <= 299).map((r) => r.tool));
  const rows = [...listReads.filter((l) => !listedInitially.has(l.tool)), ...itemLocations.filter((l) => !readInitially.has(l.tool))].sort(
    (a, b) => a.ordinal - b.ordinal,
  );
  const later = new Map<string, number[]>();
  for (const l of rows) {
    const body = bodyOf.get(l.record_id);
    if (body === undefined || initial.has(l.record_id)) continue;
    const bodies = later.get(l.tool) ?? later.set(l.tool, []).get(l.tool)!;
    if (bodies.length < LATER_READS) bodies.push(body);
  }
  return [...later.values()].flat();
}
