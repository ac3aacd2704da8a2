/**
 * @rule GQL-3
 * Issue 48: what a GraphQL endpoint's records teach, read once per served capture — the
 * entities before any mutation touches their type (GQL-3, ES-8's reading for GraphQL), the
 * root fields' conventions (an item by an id argument, a list, a Relay connection, and what
 * an unknown id answers: GQL-4), each list's members by position, and the mutations (GQL-5).
 * Every convention comes from the capture's own answers; nothing is assumed of the schema.
 */
import { canonicalJson } from '../../json/canonical.js';
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from '../served/context.js';
import type { Vocabulary } from '../../store/vocabulary.js';
import { jsonValueOf, readBody, toolRecords } from '../served/records.js';
import { captureWrites } from '../served/records.js';
import { idOfKey, idText, isIdArg, isPlainObject, isRef, normalize, typeOfKey, type Entity, type NValue } from './normalize.js';
import { fieldsOf, readRequest, type GqlRequest, type SelectedField } from './request.js';
import { learnMutations, namedType, type MutationConvention } from './mutations.js';
import { edgesOf, offsetCursor, type CursorScheme } from './cursors.js';

/** One record of the endpoint, read. */
export interface GqlRecord {
  ordinal: number;
  status: number;
  /** The request body's canonical JSON (equal requests, member order aside, give equal keys). */
  bodyKey: string;
  responseBodyId: number;
  mediaType: string | null;
  req: GqlRequest;
  /** The recorded answer (`{data, errors}`), or null when it is not a JSON object. */
  answer: Record<string, JsonValue> | null;
  /** The answer's `data`, normalized: root store key → value (null when the answer has none). */
  root: Record<string, NValue> | null;
  /** Every entity this answer showed, with the fields it showed. */
  shown: Map<string, Entity>;
}

/** The Relay Cursor Connections spec's arguments (GQL-6): they page a connection, never filter it. */
const RELAY_ARGS = new Set(['first', 'after', 'last', 'before']);

/**
 * Which arguments page a list rather than filter it: Relay's, and the store's pagination
 * vocabulary (OQ-13) — an offset by its `window_offset` rows, a size by `window_size` or `first`.
 */
export interface WindowWords {
  isWindow(arg: string): boolean;
  offset(args: Record<string, JsonValue>): number | undefined;
  size(args: Record<string, JsonValue>): number | undefined;
}

export function windowWords(v: Vocabulary): WindowWords {
  const numberOf = (args: Record<string, JsonValue>, role: 'offset' | 'size') => {
    for (const [k, x] of Object.entries(args))
      if (typeof x === 'number' && (v.windowRole(k) === role || (role === 'size' && k === 'first'))) return x;
    return undefined;
  };
  return {
    isWindow: (arg) => RELAY_ARGS.has(arg) || v.isPagination(arg),
    offset: (args) => numberOf(args, 'offset'),
    size: (args) => numberOf(args, 'size'),
  };
}

/** What a query root field answers, learned from every record that asked it. */
export interface RootConvention {
  name: string;
  kind: 'item' | 'list' | 'connection' | 'other';
  /** The type of the entities it answers (items, list members, connection nodes). */
  typename: string | null;
  /** Item: the argument whose value is the entity's id. */
  idArg?: string;
  /** Item: what an id the app does not hold answers (GQL-4), when the capture shows it. */
  notFound?: NotFoundAnswer;
  /** Connection: the objects' own type names, as the capture's answers give them. */
  wrappers?: { connection?: string; edge?: string; pageInfo?: string };
  cursors?: CursorScheme | null;
  /** Connection: `pageInfo.hasPreviousPage` after an `after` cursor: `start` (true past the first), `never` (graphql-relay's forward paging), or not shown. */
  hasPrevious?: 'start' | 'never' | null;
  /** List positions (an unfiltered read's members by offset) and the count, where shown. */
  positions: Map<number, string>;
  total: number | null;
  /** Filtered reads the capture made before its first mutation of the type: the check of each filter. */
  filteredReads: { args: Record<string, JsonValue>; ids: string[]; start: number; total: number | null }[];
}

export interface NotFoundAnswer {
  /** The app's errors for the field, with the asked id where the message named it. */
  errors: JsonValue[];
  idAsked: string;
  errorsFirst: boolean;
  status: number;
}

export interface Learned {
  records: GqlRecord[];
  /** The entities as they stood before the first mutation of their type (merged across reads). */
  initial: Map<string, Entity>;
  /** Every object type the answers name. */
  types: Set<string>;
  /** Per type, the ordinal of the first mutation whose answer or name touches it. */
  firstTouch: Map<string, number>;
  roots: Map<string, RootConvention>;
  mutations: Map<string, MutationConvention>;
  /** Per type, the ids the capture's creates got, in order (the app's counter). */
  createdIds: Map<string, string[]>;
  words: WindowWords;
  /** The capture's mutations, in order (the track a session follows, GQL-9). */
  mutationRecords: GqlRecord[];
  /** The ordinal of the capture's first write through another tool (Infinity: none): an answer recorded after it may show its effect. */
  firstOtherWrite: number;
}

export async function readRecords(ctx: ServeContext, tool: ManifestTool): Promise<GqlRecord[]> {
  const out: GqlRecord[] = [];
  for (const r of await toolRecords(ctx, tool.name)) {
    if (r.status <= 0 || r.request_kind === 'none') continue;
    const body = jsonValueOf(await readBody(ctx, r.request_body_id));
    const req = readRequest(body);
    // A body the model cannot read makes the endpoint one it does not model: replay answers it.
    if (!req) return [];
    const answer = jsonValueOf(await readBody(ctx, r.response_body_id));
    const obj = isPlainObject(answer) ? answer : null;
    const shown = new Map<string, Entity>();
    let root: Record<string, NValue> | null = null;
    if (obj && isPlainObject(obj.data)) root = normalize(req, req.operation.selectionSet, obj.data, shown) as Record<string, NValue>;
    out.push({
      ordinal: r.ordinal,
      status: r.status,
      bodyKey: canonicalJson(body as JsonValue),
      responseBodyId: r.response_body_id,
      mediaType: r.response_media_type,
      req,
      answer: obj,
      root,
      shown,
    });
  }
  return out;
}

/** Reads the endpoint's records and learns from them (model.ts caches it, with the mutations checked). */
export async function learn(ctx: ServeContext, tool: ManifestTool): Promise<Learned> {
  const records = await readRecords(ctx, tool);
  const types = new Set<string>();
  for (const r of records) for (const e of r.shown.values()) types.add(e.typename);
  // GQL-3: a type's initial window closes at the first mutation that shows or names it.
  const firstTouch = new Map<string, number>();
  for (const r of records) {
    if (r.req.kind !== 'mutation') continue;
    const touched = new Set([...r.shown.values()].map((e) => e.typename));
    for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
      const t = namedType(f.name, types);
      if (t) touched.add(t);
    }
    for (const t of touched) if (!firstTouch.has(t)) firstTouch.set(t, r.ordinal);
  }
  const isInitial = (typename: string, ordinal: number) => ordinal < (firstTouch.get(typename) ?? Infinity);
  const initial = new Map<string, Entity>();
  for (const r of records) {
    if (r.req.kind !== 'query') continue;
    for (const [key, e] of r.shown) {
      if (!isInitial(e.typename, r.ordinal)) continue;
      const had = initial.get(key);
      if (had) Object.assign(had.fields, e.fields);
      else initial.set(key, { typename: e.typename, id: e.id, fields: { ...e.fields } });
    }
  }
  const words = windowWords(ctx.vocabulary);
  const roots = new Map<string, RootConvention>();
  for (const r of records) if (r.req.kind === 'query' && r.root) learnRoots(r, roots, isInitial, words);
  for (const c of roots.values()) {
    if (c.kind !== 'connection') continue;
    c.cursors = offsetCursor(records, c.name);
    c.hasPrevious = previousRule(records, c);
    if (c.cursors) placeLaterPages(records, c, isInitial, words);
  }
  const mutations = learnMutations(records, initial, types);
  const createdIds = new Map<string, string[]>();
  for (const r of records) {
    if (r.req.kind !== 'mutation' || !r.root) continue;
    for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
      const c = mutations.get(f.name);
      const v = r.root[f.storeKey];
      if (c?.kind === 'create' && isRef(v)) createdIds.set(c.typename, [...(createdIds.get(c.typename) ?? []), idOfKey(v.__ref)]);
    }
  }
  const others = (await captureWrites(ctx)).filter((w) => w.tool !== tool.name);
  const firstOtherWrite = others.length ? others[0].ordinal : Infinity;
  const mutationRecords = records.filter((r) => r.req.kind === 'mutation');
  return { records, initial, types, firstTouch, roots, mutations, createdIds, words, firstOtherWrite, mutationRecords };
}

const rootOf = (roots: Map<string, RootConvention>, name: string): RootConvention => {
  let c = roots.get(name);
  if (!c) roots.set(name, (c = { name, kind: 'other', typename: null, positions: new Map(), total: null, filteredReads: [] }));
  return c;
};

function learnRoots(
  r: GqlRecord,
  roots: Map<string, RootConvention>,
  isInitial: (t: string, o: number) => boolean,
  words: WindowWords,
): void {
  for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
    if (!(f.storeKey in r.root!)) continue;
    const v = r.root![f.storeKey];
    const c = rootOf(roots, f.name);
    if (isRef(v)) {
      c.kind = 'item';
      c.typename = typeOfKey(v.__ref);
      const idArg = Object.entries(f.args).find(([, a]) => idText(a) === idOfKey(v.__ref));
      if (idArg) c.idArg = idArg[0];
    } else if (v === null) {
      const nf = notFoundOf(r, f);
      if (nf) c.notFound = nf;
    } else if (Array.isArray(v) && v.length > 0 && v.every(isRef)) {
      c.kind = 'list';
      c.typename = typeOfKey((v[0] as { __ref: string }).__ref);
      if (isInitial(c.typename, r.ordinal))
        place(
          c,
          f,
          v.map((x) => (x as { __ref: string }).__ref),
          words.offset(f.args) ?? 0,
          null,
          words,
        );
    } else if (Array.isArray(v) && v.length === 0 && c.kind === 'other') {
      c.kind = 'list';
    } else {
      const edges = edgesOf(v);
      if (!edges) continue;
      c.kind = 'connection';
      const obj = v as Record<string, NValue>;
      const first = (Array.isArray(obj.edges) ? obj.edges[0] : undefined) as Record<string, NValue> | undefined;
      const pageInfo = obj.pageInfo as Record<string, NValue> | undefined;
      c.wrappers = {
        connection: typeof obj.__typename === 'string' ? obj.__typename : c.wrappers?.connection,
        edge: typeof first?.__typename === 'string' ? first.__typename : c.wrappers?.edge,
        pageInfo: typeof pageInfo?.__typename === 'string' ? pageInfo.__typename : c.wrappers?.pageInfo,
      };
      if (edges.length) c.typename = typeOfKey(edges[0].ref);
      const total = typeof obj.totalCount === 'number' ? obj.totalCount : null;
      // Positions are placed once the cursor scheme is known (an `after` read's start is its cursor's); first pages now.
      if (c.typename && isInitial(c.typename, r.ordinal) && f.args.after == null && f.args.before == null && f.args.last == null)
        place(
          c,
          f,
          edges.map((e) => e.ref),
          0,
          total,
          words,
        );
    }
  }
}

/** Records a read's members at their positions (unfiltered reads) or as a filtered read to check filters against. */
export function place(c: RootConvention, f: SelectedField, refs: string[], start: number, total: number | null, words: WindowWords): void {
  const filters = Object.fromEntries(Object.entries(f.args).filter(([k]) => !words.isWindow(k)));
  const ids = refs.map(idOfKey);
  const limited = words.size(f.args) !== undefined || f.args.last != null;
  // A read with no window answers the whole (filtered) list: its count is its length.
  const count = total ?? (!limited && start === 0 ? refs.length : null);
  if (Object.keys(filters).length) {
    c.filteredReads.push({ args: filters, ids, start, total: count });
    return;
  }
  ids.forEach((id, i) => c.positions.set(start + i, id));
  if (count !== null) c.total = count;
}

/** The errors of an answer whose `path` starts at root field `responseKey`. */
export function fieldErrors(answer: Record<string, JsonValue> | null, responseKey: string | undefined): JsonValue[] {
  const errors = answer?.errors;
  return Array.isArray(errors) ? errors.filter((e) => isPlainObject(e) && Array.isArray(e.path) && e.path[0] === responseKey) : [];
}

/** GQL-4: what the app answered for an item whose id it does not hold, with the asked id. */
function notFoundOf(r: GqlRecord, f: SelectedField): NotFoundAnswer | null {
  const idArg = Object.entries(f.args).find(([k, a]) => isIdArg(k) && idText(a) !== null);
  if (!idArg || !r.answer) return null;
  return {
    errors: fieldErrors(r.answer, f.responseKey),
    idAsked: idText(idArg[1])!,
    errorsFirst: Object.keys(r.answer)[0] === 'errors',
    status: r.status,
  };
}

/** Places the members of a connection's pages read past an `after` cursor, once the cursor scheme says where they start. */
function placeLaterPages(records: GqlRecord[], c: RootConvention, isInitial: (t: string, o: number) => boolean, words: WindowWords): void {
  for (const r of records) {
    if (r.req.kind !== 'query' || !r.root || !c.typename || !isInitial(c.typename, r.ordinal)) continue;
    for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
      if (f.name !== c.name || f.args.after == null || f.args.before != null || f.args.last != null) continue;
      const start = c.cursors!.decode(f.args.after);
      const v = r.root[f.storeKey];
      const edges = edgesOf(v);
      if (start === null || !edges) continue;
      const total = (v as Record<string, NValue>).totalCount;
      place(
        c,
        f,
        edges.map((e) => e.ref),
        start + 1,
        typeof total === 'number' ? total : null,
        words,
      );
    }
  }
}

/** Which `hasPreviousPage` rule every recorded page past the first agrees with (null when none shows it). */
function previousRule(records: GqlRecord[], c: RootConvention): 'start' | 'never' | null {
  let start = true;
  let never = true;
  let seen = false;
  for (const r of records) {
    if (r.req.kind !== 'query' || !r.root) continue;
    for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
      if (f.name !== c.name || typeof f.args.after !== 'string' || !c.cursors) continue;
      const v = r.root[f.storeKey] as Record<string, NValue> | null;
      const prev = (v?.pageInfo as Record<string, NValue> | undefined)?.hasPreviousPage;
      if (typeof prev !== 'boolean') continue;
      const s = c.cursors.decode(f.args.after);
      if (s === null) continue;
      seen = true;
      if (prev !== s + 1 > 0) start = false;
      if (prev !== false) never = false;
    }
  }
  if (!seen) return null;
  return start && !never ? 'start' : never && !start ? 'never' : null;
}
