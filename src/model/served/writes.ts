/**
 * Writes that take effect on a session's model (issue 16): POST creates an entity, PATCH
 * merges, PUT replaces, DELETE removes it from its type (and so from every list); PATCH
 * and PUT on a document's path change the document. Ids are allocated the way the capture
 * shows them, server-stamped clocks are set in the recorded spelling (ES-29/30), and the
 * answer is shaped like the tool's recorded answer. Whether a tool's write model is used
 * at all is decided by src/model/served/effects.ts, against the capture's own later reads.
 */
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { clockNow, readClock } from '../plan/clocks.js';
import { at, entriesOf, isObject, jsonEqual, keysOf, member, objectFrom, replaceAt } from '../plan/json.js';
import type { StateEntity } from '../plan/types.js';
import type { ServeContext } from './context.js';
import { notFound, servedState, type StateAnswer } from './from-state.js';
import { refuseDanglingReference } from './dangling-references.js';
import { knownAbsent, refuseUnknownTop } from './held-whole.js';
import { unshownUpdate } from './update-evidence.js';
import type { SessionWrite } from './write-log.js';
import { templateParams } from '../../manifest/paths.js';
import type { CallRequest } from './input-schema.js';
import { servedTypes, type ServedModel } from './model.js';
import { callLine, jsonValueOf, latestRecord, readBody, type ToolRecord } from './records.js';
import { childPointer } from '../../json/pointer.js';
import { cascadeAfterRemove } from './delete-cascade.js';
import { omitsRecorded, referenceBase, requestGave, typeDefaults, withDefaults } from './create-members.js';
import { resolvedReferences, updateStamps } from './update-effects.js';
import { refuseLikelyDuplicate, requireSentMembers } from './sent-members.js';
import { collectionOrders, placeCreated } from './placement.js';
import { allocateId, createdIdOf, idShape, isInt, refuseReusedTop, scalarId, type RandomBytes } from './ids.js';

export type WriteKind = 'create' | 'create-with-defaults' | 'merge' | 'replace' | 'remove' | 'document-merge' | 'document-replace';

const isCreate = (k: WriteKind) => k === 'create' || k === 'create-with-defaults';

/** How one write tool changes the model. */
export interface WriteModel {
  tool: string;
  kind: WriteKind;
  /** The entity type written (entity writes), its identity member and the path parameter naming the id. */
  collection: string | null;
  identity: string | null;
  idParam: string | null;
  /** Where the entity sits in request and answer bodies (the item plan's entity pointer: `''`, `/issue`). */
  pointer: string;
  /** The read tools answering the written entity's item and the document. */
  itemTool: string | null;
  documentTool: string | null;
  /**
   * A create under a parent (issue 18: `POST /posts/{id}/comments`): the path parameter
   * naming the parent and the field the new entity carries it in, as the nested list's plan
   * learned it (`parent`).
   */
  parent?: { param: string; field: string };
}

const models = new WeakMap<ServeContext, Map<string, Promise<WriteModel | null>>>();

/** The write model of a manifest tool, or null when the capture shows no way to model it. */
export function writeModelOf(ctx: ServeContext, tool: ManifestTool): Promise<WriteModel | null> {
  let perCtx = models.get(ctx);
  if (!perCtx) models.set(ctx, (perCtx = new Map()));
  let hit = perCtx.get(tool.name);
  if (!hit) perCtx.set(tool.name, (hit = findWriteModel(ctx, tool)));
  return hit;
}

async function findWriteModel(ctx: ServeContext, tool: ManifestTool): Promise<WriteModel | null> {
  const method = tool.method.toUpperCase();
  if (ctx.vocabulary.isSafeMethod(method) || tool.is_query_post || !['POST', 'PATCH', 'PUT', 'DELETE'].includes(method)) return null;
  const state = await servedState(ctx);
  if (!state) return null;
  const params = templateParams(tool.template);
  const reads = ctx.manifest.tools.filter((t) => t.method.toUpperCase() === 'GET' && t.root_path === tool.root_path);
  const base = { tool: tool.name, collection: null, identity: null, idParam: null, pointer: '', itemTool: null, documentTool: null };

  if (params.length === 0 && (method === 'PATCH' || method === 'PUT')) {
    for (const r of reads) {
      if (r.template !== tool.template) continue;
      const plan = await state.plan(r.name);
      if (plan?.kind === 'document')
        return { ...base, kind: method === 'PATCH' ? 'document-merge' : 'document-replace', documentTool: r.name };
    }
    return null;
  }
  const type = (await servedTypes(ctx)).find((t) => t.root_path === tool.root_path);
  if (!type) return null;
  // The entity's place in bodies: the item plan of the same type, when there is one.
  let itemTool: ManifestTool | undefined;
  let pointer = '';
  for (const r of reads) {
    const plan = await state.plan(r.name);
    if (plan?.kind === 'item' && plan.collection === type.collection) {
      if (!itemTool || r.template === tool.template) {
        itemTool = r;
        pointer = plan.entity_pointer;
      }
    }
  }
  const entity = { ...base, collection: type.collection, identity: type.identity, pointer, itemTool: itemTool?.name ?? null };
  if (method === 'POST') {
    // A create posts to the type's collection path (`/posts`, `/issues.json`), not below an
    // item; or to a nested collection's path whose list plan learned the parent field (issue 18).
    if (params.length > 0) {
      for (const r of reads) {
        if (r.template !== tool.template) continue;
        const plan = await state.plan(r.name);
        // A parent inside an object member (`project: {id, name}`) is the server's to fill in: no model.
        if (plan?.kind === 'list' && plan.collection === type.collection && plan.parent && !plan.parent.field.includes('.')) {
          return { ...entity, kind: 'create', parent: plan.parent };
        }
      }
      return null;
    }
    return { ...entity, kind: 'create' };
  }
  // PATCH, PUT and DELETE name the entity by the item path's last parameter.
  if (params.length === 0) return null;
  if (itemTool ? itemTool.template !== tool.template : tool.template !== `${tool.root_path}/{${params[0]}}`) return null;
  return { ...entity, kind: method === 'PATCH' ? 'merge' : method === 'PUT' ? 'replace' : 'remove', idParam: params.at(-1)! };
}

/**
 * The effects to try for a write model, in order: a PUT that the capture shows acting as a
 * merge (Ghost answers members the body left out) is tried as one when replacing fails, and
 * a create is tried with its type's defaults (typeDefaults) when creating without fails.
 */
export function effectsToTry(wm: WriteModel): WriteKind[] {
  if (wm.kind === 'replace') return ['replace', 'merge'];
  // A create whose answer is a projection of the entity later reads show (Redmine answers a
  // POST without `spent_hours`, which every issue read shows as 0.0).
  if (wm.kind === 'create') return ['create', 'create-with-defaults'];
  if (wm.kind === 'document-replace') return ['document-replace', 'document-merge'];
  return [wm.kind];
}

/** The tool's latest 2xx record: the shape its answers take. */
async function answerRecord(
  ctx: ServeContext,
  tool: string,
): Promise<{ record: ToolRecord; value: JsonValue | undefined; request: JsonValue | undefined } | null> {
  const record = await latestRecord(ctx, tool, '2xx');
  if (!record) return null;
  return {
    record,
    value: jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type)),
    request: record.request_kind === 'json' ? jsonValueOf(await readBody(ctx, record.request_body_id)) : undefined,
  };
}

/**
 * Values the server set in the recorded answer (members its recorded request did not give)
 * that this request does not give either: clocks stamped now, the rest as held, or for a
 * new entity as recorded (a server default).
 */
function serverFields(
  recorded: JsonValue | undefined,
  recordedRequest: JsonValue | undefined,
  request: JsonValue,
  current: JsonValue | undefined,
  skip: string,
  before?: JsonValue,
): [string, JsonValue][] {
  const out: [string, JsonValue][] = [];
  for (const [k, v] of entriesOf(recorded)) {
    // A member the recorded request gave, itself or by its reference form (`assigned_to_id`), is the request's.
    if (k === skip || member(request, k) !== undefined || requestGave(recordedRequest, k)) continue;
    const clock = readClock(k, v);
    const held = member(current, k);
    // Issue 45 (server-kept fields): a clock the recorded update left as its entity held it
    // before (`createdAt`) is the entity's own and stays; one it changed (`updatedAt`) is stamped.
    if (clock && before !== undefined && member(before, k) !== undefined && String(member(before, k)) === String(v)) continue;
    if (clock && (held === undefined || readClock(k, held) === undefined || String(held) !== String(v)))
      out.push([k, clockNow(k, clock.format)]);
    else if (current === undefined) out.push([k, v]);
  }
  return out;
}

/**
 * A request member the server turns into something else: the recorded request gave it and
 * the recorded answer's entity does not hold it (Redmine takes `project_id` and answers
 * `project: {id, name}`). Such a member is input, not a field of the entity.
 */
function transformed(recordedRequest: JsonValue | undefined, recordedEntity: JsonValue | undefined, key: string): boolean {
  if (recordedEntity === undefined || member(recordedRequest, key) === undefined || member(recordedEntity, key) !== undefined) return false;
  // Only where the answer echoes the entity (it shares a request member): a wrapper such as
  // Grafana's `{"id": 17, "message": "Annotation added"}` shows nothing of what was stored.
  return keysOf(recordedRequest).some((k) => member(recordedEntity, k) !== undefined);
}

/**
 * Members a create names by id and the server answers as an object (Redmine takes
 * `tracker_id: 2` and answers `tracker: {"id": 2, "name": "Feature"}`): learned from the
 * recorded request and answer (`X_id` or `XId` given, `X` answered with that `id`). The
 * object is the one an entity of the type holds with that id, else the recorded one when
 * its id is the one given, else just `{"id": …}`.
 */
function referencedObjects(
  held: StateEntity[],
  recordedRequest: JsonValue | undefined,
  recordedEntity: JsonValue | undefined,
  request: JsonValue,
): [string, JsonValue][] {
  const out: [string, JsonValue][] = [];
  for (const k of keysOf(recordedRequest)) {
    const base = referenceBase(k);
    const recordedObject = base === undefined ? undefined : member(recordedEntity, base);
    if (base === undefined || !isObject(recordedObject) || member(recordedEntity, k) !== undefined) continue;
    if (!jsonEqual(member(recordedObject, 'id'), member(recordedRequest, k))) continue;
    const v = member(request, k);
    if (v === undefined) continue;
    const object = held.map((e) => member(e.value, base)).find((o) => isObject(o) && jsonEqual(member(o, 'id'), v));
    out.push([base, object ?? (jsonEqual(member(recordedObject, 'id'), v) ? recordedObject : objectFrom([['id', v]]))]);
  }
  return out;
}

/**
 * A created entity's members in the order the server answers them, when the recorded
 * answer shows the server imposing one (a member the request did not give comes before
 * one it gave: Redmine's `id, project, …, subject`); else as given (json-server echoes the
 * request, then adds `id`). Members the recorded answer lacks keep their order, after it.
 */
function inServerOrder(
  entries: [string, JsonValue][],
  recordedEntity: JsonValue | undefined,
  recordedRequest: JsonValue | undefined,
): JsonValue {
  const order = keysOf(recordedEntity);
  const gave = (k: string) => member(recordedRequest, k) !== undefined;
  const imposed = order.some((k, i) => !gave(k) && order.slice(i + 1).some(gave));
  if (!imposed) return objectFrom(entries);
  const rank = (k: string) => {
    const i = order.indexOf(k);
    return i < 0 ? order.length : i;
  };
  return objectFrom(
    entries
      .map((e, i) => ({ e, i }))
      .sort((a, b) => rank(a.e[0]) - rank(b.e[0]) || a.i - b.i)
      .map(({ e }) => e),
  );
}

/** The recorded answer with the written entity in it: at the entity's place, or as the id a wrapper answers with (`{"silenceID": …}`). */
function shapedAnswer(recorded: JsonValue | undefined, wm: WriteModel, value: JsonValue, id: JsonValue): JsonValue | undefined {
  if (recorded === undefined) return undefined;
  const placed = at(recorded, wm.pointer);
  if (isObject(placed) && member(placed, wm.identity!) !== undefined) return replaceAt(recorded, wm.pointer, value);
  if (isObject(recorded) && member(recorded, wm.identity!) !== undefined) return value;
  if (isCreate(wm.kind) && isObject(recorded)) {
    const keys = keysOf(recorded);
    const idKey = keys.length === 1 ? keys[0] : keys.find((k) => /id$/i.test(k));
    if (idKey !== undefined)
      return replaceAt(recorded, childPointer('', idKey), typeof member(recorded, idKey) === 'string' ? String(id) : id);
  }
  return recorded;
}

/**
 * Issue 18: a create under a parent carries the parent's path value in the parent field, in
 * its place among the members (the request's, else where the server put it in the recorded
 * answer, else last), spelled as the recorded answer spells it (json-server 0.17 answers the
 * path's text, `"postId": "1"`; a number where the server answers one).
 */
function withParent(
  entries: [string, JsonValue][],
  field: string,
  pathValue: string,
  recorded: JsonValue | undefined,
): [string, JsonValue][] {
  const value: JsonValue =
    (typeof recorded === 'number' || typeof recorded === 'bigint') && /^-?(0|[1-9][0-9]{0,14})$/.test(pathValue)
      ? Number(pathValue)
      : pathValue;
  return entries.some(([k]) => k === field)
    ? entries.map(([k, v]): [string, JsonValue] => [k, k === field ? value : v])
    : [...entries, [field, value]];
}

const written = (e: StateEntity, keys: string[]): StateEntity['view_values'] =>
  Object.fromEntries(
    Object.entries(e.view_values).map(([tool, vals]) => [
      tool,
      Object.fromEntries(Object.entries(vals).filter(([k]) => !keys.includes(k))),
    ]),
  );

/**
 * Applies a write call to the model and answers it; null when the call cannot be modelled
 * (no JSON object body where one is needed), so it replays instead.
 */
/**
 * `chosenId`: while check-effects replays a recorded create, the id the server chose. When
 * the allocated id differs from it but has its shape (a server's counter that jumped, a
 * random UUID), the server's is taken, so later recorded reads of it can be compared.
 */
export interface WriteOptions {
  chosenId?: JsonValue;
  /**
   * Where a new random id's bytes come from: crypto's (serving), or check-effects' own fixed
   * stream, so a check's words (stored with the state) are the same on every load of a capture.
   */
  random?: RandomBytes;
  /**
   * check-effects verifying write models: the session's write log is not kept, so a read is
   * answered from the model the candidate writes made (what is being verified), never sent to
   * replay by write-log.ts's rules.
   */
  verifying?: boolean;
  /**
   * Issue 45: the write is another collection's, by the API's write convention (write-route.ts):
   * what the proving tool's record shows of its own collection (server fields, references,
   * transformed members) is not this collection's, so only the request and the model decide.
   */
  borrowed?: boolean;
  /** The session's log entry of this very write (answer.ts logs it before applying): not one of the earlier writes held-whole.ts weighs. */
  inFlight?: SessionWrite;
}

export async function applyWrite(
  ctx: ServeContext,
  tool: ManifestTool,
  wm: WriteModel,
  call: CallRequest,
  model: ServedModel,
  opts: WriteOptions = {},
): Promise<StateAnswer | null> {
  const asked = callLine(tool, call);
  const shape = await answerRecord(ctx, tool.name);
  const status = shape?.record.status ?? (isCreate(wm.kind) ? 201 : 200);
  const ordinal = shape?.record.ordinal ?? 0;
  const asRecorded = (why: string): StateAnswer =>
    shape && shape.value === undefined
      ? { status, value: null, record_ordinal: ordinal, request_line: asked, why, record: shape.record }
      : { status, value: shape?.value ?? null, record_ordinal: ordinal, request_line: asked, why };
  /** The written entity in the recorded answer's shape (shapedAnswer), else the recorded answer. */
  const answered = (answer: JsonValue | undefined, why: string): StateAnswer =>
    answer === undefined ? asRecorded(why) : { status, value: answer, record_ordinal: ordinal, request_line: asked, why };
  const body = call.body as JsonValue | undefined;

  if (wm.kind === 'document-merge' || wm.kind === 'document-replace') {
    const doc = await model.document(wm.documentTool!);
    if (!doc || !isObject(body)) return null;
    const value =
      wm.kind === 'document-replace'
        ? body
        : objectFrom([...entriesOf(doc.value).filter(([k]) => member(body, k) === undefined), ...entriesOf(body)]);
    model.putDocument({ ...doc, value });
    const why = `write took effect: the document ${doc.path} ${wm.kind === 'document-merge' ? 'merged with' : 'replaced by'} the request body`;
    return isObject(shape?.value) ? { status, value, record_ordinal: ordinal, request_line: asked, why } : asRecorded(why);
  }

  const collection = wm.collection!,
    identity = wm.identity!;
  const part = body === undefined ? undefined : wm.pointer === '' ? body : at(body, wm.pointer);
  if (wm.kind !== 'remove' && !isObject(part)) return null;
  // Issue 45: a PUT of this tool without a member all its recorded ones sent (sent-members.ts).
  if (!opts.borrowed && tool.method.toUpperCase() === 'PUT') await requireSentMembers(ctx, tool, wm.pointer, part!, asked);
  // The entity in the recorded answer: at the entity's place, else the whole answer, if it holds the identity member.
  const holdsIdentity = (v: JsonValue | undefined) => isObject(v) && member(v, identity) !== undefined;
  const recordedEntity =
    shape?.value === undefined
      ? undefined
      : holdsIdentity(at(shape.value, wm.pointer))
        ? at(shape.value, wm.pointer)
        : holdsIdentity(shape.value)
          ? shape.value
          : undefined;
  const recordedRequest = shape?.request === undefined ? undefined : wm.pointer === '' ? shape.request : at(shape.request, wm.pointer);

  if (isCreate(wm.kind)) {
    let id = await allocateId(model, wm, createdIdOf(wm, shape?.value), scalarId(member(part, identity)), opts.random);
    const chosen = scalarId(opts.chosenId);
    if (chosen === undefined && !opts.verifying) {
      await refuseReusedTop(model, collection, id, asked);
      if (isInt(id) && scalarId(member(part, identity)) === undefined)
        await refuseUnknownTop(ctx, model, collection, identity, asked, opts.inFlight);
    }
    let adopted = '';
    if (
      chosen !== undefined &&
      chosen !== null &&
      String(chosen) !== String(id) &&
      idShape(chosen) === idShape(id) &&
      !(await model.entity(collection, String(chosen)))
    ) {
      adopted = ` (the id the server chose in the record, of the allocated id's shape ${idShape(id)})`;
      id = chosen;
    }
    const own = !opts.borrowed;
    if (own && omitsRecorded(recordedRequest, recordedEntity, part!, identity)) return null;
    const given = entriesOf(part).filter(([k]) => k !== identity && !(own && transformed(recordedRequest, recordedEntity, k)));
    // The type's entities before this create: what references, defaults and order are read from.
    const held = await model.collection(collection);
    // A recorded create check-effects verifies is the app's own: it took the value.
    if (!opts.verifying) {
      refuseLikelyDuplicate(held, part!, collection, asked);
      await refuseDanglingReference(ctx, model, tool, call, collection, part!, undefined, asked);
    }
    const referenced = own ? referencedObjects(held, recordedRequest, recordedEntity, part!) : [];
    const server = own
      ? serverFields(recordedEntity, recordedRequest, part!, undefined, identity).filter(([k]) => !referenced.some(([r]) => r === k))
      : [];
    let entries: [string, JsonValue][] = [...given, ...referenced, ...server];
    if (wm.parent)
      entries = withParent(entries, wm.parent.field, call.params.get(wm.parent.param)!, member(recordedEntity, wm.parent.field));
    const value = inServerOrder([...entries, [identity, id]], recordedEntity, recordedRequest);
    const stored = wm.kind === 'create-with-defaults' ? withDefaults(entriesOf(value), typeDefaults(held)) : value;
    const e = await model.put({
      collection,
      id: String(id),
      value: stored,
      view_values: {},
      record_ordinals: [],
      ...placeCreated(model, collection, held, identity, id, { value: stored, orders: (await collectionOrders(ctx)).get(collection) }),
    });
    // The answer shows what the recorded answer shows; the defaults are the later reads'.
    const answer = shapedAnswer(shape?.value, wm, value, id);
    const why = `write took effect: created ${collection} entity ${e.id}${adopted || ' (id allocated as the capture shows)'}`;
    return answered(answer, why);
  }

  const id = call.params.get(wm.idParam!)!;
  const current = await model.entity(collection, id);
  if (!current) {
    // Issue 45: not held is not found only where the model knows it absent (held-whole.ts); else replay decides.
    if (!opts.verifying && !(await knownAbsent(ctx, model, collection, id, opts.inFlight))) return null;
    const own = (await latestRecord(ctx, tool.name, '404')) !== null;
    return notFound(ctx, own || !wm.itemTool ? tool.name : wm.itemTool, asked, `${collection} holds no entity ${id}`, [], id);
  }
  if (wm.kind === 'remove') {
    model.remove(collection, id);
    // Issue 45 (kind 5): the entities naming it, as the capture's deletes showed (delete-cascade.ts).
    const cascade = await cascadeAfterRemove(ctx, model, collection, id);
    const why = `write took effect: removed ${collection} entity ${id} from its type and every list${cascade.note}`;
    // An app that answers a delete with the entity (json-server 1.0) answers the one removed.
    const answer = recordedEntity === undefined ? undefined : shapedAnswer(shape?.value, wm, current.value, id);
    return { ...answered(answer, why), ...cascade.mark };
  }
  if (!opts.verifying) await refuseDanglingReference(ctx, model, tool, call, collection, part!, current.value, asked);
  // Issue 45: reference forms resolved as the API's create showed them (update-effects.ts).
  const refs = await resolvedReferences(ctx, model, collection, current.value, part!);
  if (!refs) return null;
  const sent = refs.part;
  if (!opts.verifying && (await unshownUpdate(ctx, tool, wm, call, current.value, sent, asked)) === 'replay') return null;
  const requested = entriesOf(sent);
  // The entity the recorded update wrote, as the stored state (before the capture's writes) holds it
  // (not read for a borrowed write: the record is another collection's).
  const recordedId = opts.borrowed ? undefined : shape?.record.params.get(wm.idParam!);
  const before = recordedId === undefined ? undefined : (await (await servedState(ctx))?.entity(collection, recordedId))?.value;
  const server = opts.borrowed ? [] : serverFields(recordedEntity, recordedRequest, sent, current.value, identity, before);
  // A member the body gives (null included: `??` would keep the old value), else the server's, else as held.
  const taken = (k: string, v: JsonValue): JsonValue => {
    const given = member(sent, k);
    return given !== undefined ? given : (server.find(([s]) => s === k)?.[1] ?? v);
  };
  let value: JsonValue =
    wm.kind === 'merge'
      ? objectFrom([
          ...entriesOf(current.value).map(([k, v]): [string, JsonValue] => [k, taken(k, v)]),
          ...requested.filter(([k]) => member(current.value, k) === undefined),
        ])
      : objectFrom([
          ...requested.filter(([k]) => k !== identity),
          ...server,
          [identity, member(sent, identity) ?? member(current.value, identity) ?? id],
        ]);
  // Issue 45: clocks the capture's own updates show the server stamping, where no answer shows them.
  const stamps = recordedEntity === undefined && !opts.borrowed ? ((await updateStamps(ctx, tool, wm, current.value, value)) ?? []) : [];
  if (stamps.length)
    value = objectFrom([
      ...entriesOf(value).map(([k, v]): [string, JsonValue] => [k, stamps.find(([s]) => s === k)?.[1] ?? v]),
      ...stamps.filter(([k]) => member(value, k) === undefined),
    ]);
  const e = await model.put({
    ...current,
    value,
    view_values: written(
      current,
      [...requested, ...server, ...stamps].map(([k]) => k),
    ),
  });
  const answer = shapedAnswer(shape?.value, wm, e.value, member(e.value, identity) ?? id);
  const why = `write took effect: ${collection} entity ${id} ${wm.kind === 'merge' ? 'merged with' : 'replaced by'} the request body`;
  return answered(answer, why);
}
