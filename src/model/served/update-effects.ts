/**
 * Issue 45 (kinds 2, 3 and 4): what an update does beyond the members its body names, learned
 * from the capture, for an API whose update answers show no entity (Redmine's `PUT
 * /issues/1.json` answers 204, so writes.ts's serverFields has no recorded answer to read).
 *
 * - **References**: a body member `X_id` (or `XId`) where the entity holds `X`
 *   as an object with an `id` sets `X` to the object another entity of the type holds with that
 *   id (`priority_id: 4` → `"priority": {"id": 4, "name": "Urgent"}`), as the API's create showed
 *   (a recorded create gave `X_id` and answered `X` with that id). No entity holds one: the
 *   update is not modelled (its answer would be a guess).
 * - **Server-kept fields**: the entity as the stored state held it before each of the capture's
 *   updates against the first read of it after: a clock every such update changed (`updated_on`)
 *   is stamped now; a clock an update set from null exactly when a boolean member became true
 *   (`closed_on`, when `status.is_closed` did) is stamped when that happens; a clock no update
 *   changed stays. Any other change no body member names leaves the tool without learned effects
 *   (its write is then not verified, as before).
 */
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { clockNow, readClock, type ClockFormat } from '../plan/clocks.js';
import { at, isObject, jsonEqual, keysOf, member, objectFrom } from '../plan/json.js';
import { perContext, perContextKey, type ServeContext } from './context.js';
import { isInt } from './ids.js';
import { servedLookups, type ServedModel } from './model.js';
import { isWriteTool, itemWritesOf, jsonValueOf, readBody, toolRecords, type ToolRecord } from './records.js';
import type { WriteModel } from './writes.js';
import { referenceBase } from './create-members.js';
import { shownAt } from '../plan/render.js';
import type { ItemPlan, ListPlan } from '../plan/types.js';

/** Whether a recorded write of the API gave `X_id` and answered `X` as an object with that id (the API's reference habit). */
const referenceHabit = perContext(async (ctx): Promise<boolean> => {
  for (const tool of ctx.manifest.tools) {
    if (!isWriteTool(ctx, tool)) continue;
    for (const r of await toolRecords(ctx, tool.name)) {
      if (r.status < 200 || r.status > 299 || r.request_kind !== 'json') continue;
      const request = jsonValueOf(await readBody(ctx, r.request_body_id));
      const answer = jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type));
      if (showsReference(request, answer)) return true;
    }
  }
  return false;
});

/** Whether some object level of `request` gives `X_id` that the same level of `answer` shows as `X: {id}` (one envelope deep). */
function showsReference(request: JsonValue | undefined, answer: JsonValue | undefined): boolean {
  if (!isObject(request) || !isObject(answer)) return false;
  for (const k of keysOf(request)) {
    const base = referenceBase(k);
    const shown = base === undefined ? undefined : member(answer, base);
    if (isObject(shown) && jsonEqual(member(shown, 'id'), member(request, k))) return true;
    if (isObject(member(request, k)) && showsReference(member(request, k), member(answer, k))) return true;
  }
  return false;
}

/**
 * The update's body part with each reference form the entity holds as an object resolved
 * (`priority_id: 4` → `priority: {…}`), or null when a reference names an id no entity of the
 * type shows (the update is not modelled). Unchanged where the API shows no reference habit.
 */
export async function resolvedReferences(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  current: JsonValue,
  part: JsonValue,
): Promise<{ part: JsonValue; resolved: string[] } | null> {
  const forms = keysOf(part).filter((k) => {
    const base = referenceBase(k);
    return base !== undefined && member(current, k) === undefined && isObject(member(current, base));
  });
  if (forms.length === 0 || !(await referenceHabit(ctx))) return { part, resolved: [] };
  const held = await model.collection(collection);
  const out: [string, JsonValue][] = [];
  for (const k of keysOf(part)) {
    const base = referenceBase(k)!;
    if (!forms.includes(k)) out.push([k, member(part, k)!]);
    else {
      const v = member(part, k);
      const same = (o: JsonValue | undefined) =>
        isObject(o) && String(member(o, 'id')) === String(v) && (isInt(v) || typeof v === 'string');
      const object = held.map((e) => member(e.value, base)).find(same);
      if (object === undefined) return null;
      out.push([base, object]);
    }
  }
  return { part: objectFrom(out), resolved: forms };
}

/** What the capture's updates of one tool did by themselves (see the header). */
interface Stamps {
  always: { field: string; format: ClockFormat }[];
  when: { field: string; format: ClockFormat; path: string }[];
}

const learned = new WeakMap<ServeContext, Map<string, Promise<Stamps | null>>>();

/**
 * The clocks an update of `tool` stamps by itself, learned from the capture's own updates and
 * the reads after them; null when those reads show a change the model cannot explain.
 */
function stampsOf(ctx: ServeContext, tool: ManifestTool, wm: WriteModel): Promise<Stamps | null> {
  let perCtx = learned.get(ctx);
  if (!perCtx) learned.set(ctx, (perCtx = new Map()));
  let hit = perCtx.get(tool.name);
  if (!hit) perCtx.set(tool.name, (hit = learnStamps(ctx, tool, wm)));
  return hit;
}

/** One of the capture's updates: the entity before it, the body part it sent, the entity a later read showed. */
interface Seen {
  before: JsonValue;
  part: JsonValue;
  after: JsonValue;
}

async function learnStamps(ctx: ServeContext, tool: ManifestTool, wm: WriteModel): Promise<Stamps | null> {
  const state = await servedLookups(ctx);
  if (!state || !wm.collection || !wm.identity || !wm.idParam) return null;
  const seen: Seen[] = [];
  const writes = await itemWritesOf(ctx, tool.root_path);
  for (const r of await toolRecords(ctx, tool.name)) {
    const id = r.params.get(wm.idParam);
    if (r.status < 200 || r.status > 299 || id === undefined || r.request_kind !== 'json') continue;
    // Only an entity's first write of the capture: the stored state holds it as it was before,
    // and the read counts only before the next write naming it (which would show both).
    const naming = writes.get(id) ?? [];
    if (naming.some((w) => w.timeline_position < r.timeline_position)) continue;
    const next = naming.find((w) => w.timeline_position > r.timeline_position)?.timeline_position ?? Infinity;
    const before = (await state.entity(wm.collection, id))?.value;
    const body = jsonValueOf(await readBody(ctx, r.request_body_id));
    const part = body === undefined ? undefined : wm.pointer === '' ? body : at(body, wm.pointer);
    const after = await firstReadAfter(ctx, tool.root_path, wm.identity, id, r.timeline_position, next);
    if (before === undefined || !isObject(part) || after === undefined) continue;
    seen.push({ before, part, after });
  }
  if (seen.length === 0) return null;
  const changed = new Map<string, { format: ClockFormat; in: Seen[] }>();
  for (const s of seen) {
    for (const k of keysOf(s.after)) {
      const [was, now] = [member(s.before, k), member(s.after, k)];
      if (was === undefined || jsonEqual(was, now) || member(s.part, k) !== undefined) continue;
      if (keysOf(s.part).some((p) => referenceBase(p) === k)) continue;
      const clock = readClock(k, now);
      if (!clock || (was !== null && !readClock(k, was))) return null;
      const c = changed.get(k) ?? { format: clock.format, in: [] };
      c.in.push(s);
      changed.set(k, c);
    }
  }
  const out: Stamps = { always: [], when: [] };
  for (const [field, c] of changed) {
    if (c.in.length === seen.length) {
      out.always.push({ field, format: c.format });
      continue;
    }
    // Set from null by some updates only: by the one boolean member those (and only those) turned true.
    const rest = seen.filter((s) => !c.in.includes(s));
    if (c.in.some((s) => member(s.before, field) !== null) || rest.some((s) => member(s.after, field) !== null)) return null;
    const paths = booleanPaths(c.in[0].after).filter(
      (p) => c.in.every((s) => turnedTrue(s, p)) && rest.every((s) => pathValue(s.after, p) !== true),
    );
    if (paths.length !== 1) return null;
    out.when.push({ field, format: c.format, path: paths[0] });
  }
  return out;
}

/**
 * The first entity `id` a read under `root` showed after `after` and before `before` (an item
 * read, or a list listing it). Which reads show which ids is read once per root (readsShowing):
 * searching the reads after each update parsed every body after the write, to the capture's
 * end when no read showed the entity, for every update (h500: 44 s of its state pass).
 */
export async function firstReadAfter(
  ctx: ServeContext,
  root: string,
  identity: string,
  id: string,
  after: number,
  before: number,
): Promise<JsonValue | undefined> {
  const index = await readsShowing(ctx, root, identity);
  const at = index.showing.get(id);
  const read = (at === undefined ? [] : typeof at === 'number' ? [at] : at)
    .map((i) => index.reads[i])
    .find((x) => x.r.timeline_position > after);
  if (!read || read.r.timeline_position >= before) return undefined;
  const objects = shownAt(read.plan, jsonValueOf(await readBody(ctx, read.r.response_body_id, read.r.response_media_type))) ?? [];
  return objects.find((x) => isObject(x) && String(member(x, identity)) === id);
}

type ShowingRead = { r: ToolRecord; plan: ItemPlan | ListPlan };

/**
 * The 2xx reads under a root (item reads without a query, and lists) in timeline order, and per
 * id the ones that show it at their plan's place, by their index in `reads`: one number for an id
 * one read shows (most ids of a long capture), an array only for several. An array per id was
 * the write check's largest live set at 500 MB (92,000 ids: 25 MB of arrays and their objects).
 */
interface ReadsIndex {
  reads: ShowingRead[];
  showing: Map<string, number | number[]>;
}

/** Per root, which reads show which ids; each body parsed once. */
const readsShowing = perContextKey(indexReads);

async function indexReads(ctx: ServeContext, root: string, identity: string): Promise<ReadsIndex> {
  const state = await servedLookups(ctx);
  const reads: ShowingRead[] = [];
  for (const t of ctx.manifest.tools) {
    if (t.method.toUpperCase() !== 'GET' || t.root_path !== root) continue;
    const plan = await state?.plan(t.name);
    if (plan?.kind !== 'item' && plan?.kind !== 'list') continue;
    for (const r of await toolRecords(ctx, t.name)) {
      if (r.status < 200 || r.status > 299 || (plan.kind === 'item' && r.query_pairs.length > 0)) continue;
      reads.push({ r, plan });
    }
  }
  reads.sort((a, b) => a.r.timeline_position - b.r.timeline_position);
  const showing = new Map<string, number | number[]>();
  for (const [i, read] of reads.entries()) {
    const objects = shownAt(read.plan, jsonValueOf(await readBody(ctx, read.r.response_body_id, read.r.response_media_type))) ?? [];
    for (const o of objects) {
      if (!isObject(o)) continue;
      const id = String(member(o, identity));
      const had = showing.get(id);
      // A read listing the same id twice counts once (its first showing is the one returned).
      if (had === undefined) showing.set(id, i);
      else if (typeof had === 'number') {
        if (had !== i) showing.set(id, [had, i]);
      } else if (had.at(-1) !== i) had.push(i);
    }
  }
  return { reads, showing };
}

/** The boolean members of an entity, one object level down included (`status.is_closed`). */
function booleanPaths(v: JsonValue): string[] {
  const out: string[] = [];
  for (const k of keysOf(v)) {
    const m = member(v, k);
    if (typeof m === 'boolean') out.push(k);
    else if (isObject(m)) for (const s of keysOf(m)) if (typeof member(m, s) === 'boolean') out.push(`${k}.${s}`);
  }
  return out;
}

const pathValue = (v: JsonValue, path: string) => path.split('.').reduce<JsonValue | undefined>((x, k) => member(x, k), v);
const turnedTrue = (s: Seen, p: string) => pathValue(s.after, p) === true && pathValue(s.before, p) !== true;

/**
 * The clocks this update stamps by itself (stampsOf), given the entity before it and the value
 * the body made: `[field, now]` pairs, or null when the tool's effects are not learned.
 */
export async function updateStamps(
  ctx: ServeContext,
  tool: ManifestTool,
  wm: WriteModel,
  before: JsonValue,
  after: JsonValue,
): Promise<[string, JsonValue][] | null> {
  const stamps = await stampsOf(ctx, tool, wm);
  if (!stamps) return null;
  const out: [string, JsonValue][] = stamps.always.map((s) => [s.field, clockNow(s.field, s.format)]);
  for (const s of stamps.when)
    if (member(after, s.field) === null && pathValue(after, s.path) === true && pathValue(before, s.path) !== true)
      out.push([s.field, clockNow(s.field, s.format)]);
  return out;
}
