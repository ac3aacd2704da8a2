/**
 * The state the capture's own writes left, where the capture shows it (issues 44 and 45: "held-out
 * requests sent from the state the capture left"). A write the model cannot apply (Redmine's
 * `PUT /issues/1.json`, answered 204: its effect was not verified) leaves the state standing
 * before it, so every read of its type is declined (write-log.ts). But when this session's writes
 * under a type are the capture's own first k writes, in order, the app stands where the capture
 * stood after its k-th write, and the reads the capture made then (before its next write) show
 * that state: each entity they show, as they show it.
 *
 * So, after such a write, the model catches up: when every write of the session under the type
 * that the model did not apply is seen done in those reads — the entity a `PUT` or `PATCH` named
 * is shown, the entity a `POST` created (the id its recorded answer names) is shown — the shown
 * entities take the values shown (members a list leaves out kept as held), new ones in the
 * type's order, and those writes count as applied: reads of the type answer from state again.
 * A `DELETE` the model did not apply is caught up only where those reads still show its entity
 * (a soft delete: Alertmanager expires a silence and lists it so); one they do not show is not
 * shown gone, and is never caught up.
 * Entities the reads do not show are taken as the writes left them: unchanged.
 */
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import { isObject, keysOf, member, objectFrom } from '../plan/json.js';
import { shownAt } from '../plan/render.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ItemPlan, ListPlan, StateEntity } from '../plan/types.js';
import type { ServeContext } from './context.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { captureWrites, itemValue, jsonValueOf, readBody, toolRecords, type ToolRecord } from './records.js';
import { createdIdOf, idIn, scalarId } from './ids.js';
import { currentWindow, inWindow } from './write-log.js';
import { collectionOrders, newestFirst, placeByOrders } from './placement.js';
import { answerFromState } from './from-state.js';
import { sameValue } from './same-value.js';

/** One read the capture made under a type: its tool, plan, record and parsed answer. */
interface WindowRead {
  tool: ManifestTool;
  plan: ItemPlan | ListPlan | undefined;
  record: ToolRecord;
  body: JsonValue | undefined;
}

/** The capture's GET records under `root` within `window`, each answer read once (what `shownIn` and `windowAgrees` both read). */
async function windowReads(ctx: ServeContext, root: string, window: { after: number; before: number }): Promise<WindowRead[]> {
  const state = await servedLookups(ctx);
  const out: WindowRead[] = [];
  if (!state) return out;
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET' || tool.root_path !== root) continue;
    const p = await state.plan(tool.name);
    const plan = p?.kind === 'item' || p?.kind === 'list' ? p : undefined;
    for (const record of await toolRecords(ctx, tool.name)) {
      if (!inWindow(record, window)) continue;
      out.push({ tool, plan, record, body: jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type)) });
    }
  }
  return out;
}

/** The entities `reads` show, latest per id, in the order first shown. */
function shownIn(reads: readonly WindowRead[], identity: string): Map<string, JsonValue> {
  const shown = new Map<string, { value: JsonValue; at: number }>();
  for (const { plan, record: r, body } of reads) {
    // A read naming query keys may show a projection or a variant; the plain reads show the entity.
    if (!plan || r.status < 200 || r.status > 299 || (r.query_pairs.length > 0 && plan.kind === 'item')) continue;
    for (const o of shownAt(plan, body) ?? []) {
      const id = idIn(o, identity);
      if (id === undefined) continue;
      const prev = shown.get(id);
      if (!prev || prev.at <= r.timeline_position) shown.set(id, { value: o!, at: r.timeline_position });
    }
  }
  return new Map([...shown].map(([id, s]) => [id, s.value]));
}

/**
 * The ids whose latest item read in `reads` answered not found (404 or 410, the path naming the
 * id), with no read after it showing the entity: a `DELETE` of one is shown done (WordPress's
 * `DELETE /posts/8?force=true`, then `GET /posts/8` 404).
 */
function goneIn(reads: readonly WindowRead[], shown: ReadonlySet<string>): Set<string> {
  const latest = new Map<string, number>();
  for (const { tool, plan, record: r } of reads) {
    if (plan?.kind !== 'item' || r.query_pairs.length > 0) continue;
    const id = itemValue(tool, r);
    if (id === undefined) continue;
    if (r.status === 404 || r.status === 410) latest.set(id, r.timeline_position);
    else if (r.status >= 200 && r.status <= 299) latest.delete(id);
  }
  return new Set([...latest.keys()].filter((id) => !shown.has(id)));
}

/**
 * After this session's write under `root`: catches the model up to what the capture's reads
 * show after the same writes, when they show every write the model did not apply done.
 * Returns the number of writes caught up (0: nothing changed).
 */
export async function catchUp(ctx: ServeContext, model: ServedModel, root: string): Promise<number> {
  const pending = model.writes.filter((w) => w.root === root && !w.applied);
  if (pending.length === 0) return 0;
  const window = await currentWindow(ctx, model.writes, root);
  if (window === null || window === 'stale') return 0;
  const type = (await servedTypes(ctx)).find((t) => t.root_path === root);
  if (!type) return 0;
  const reads = await windowReads(ctx, root, window);
  const shown = shownIn(reads, type.identity);
  if (shown.size === 0) return 0;
  const gone = goneIn(reads, new Set(shown.keys()));
  // The item plan's place of the entity in a create's answer (`/issue`), as the write model reads it.
  const state = await servedLookups(ctx);
  let pointer = '';
  for (const t of ctx.manifest.tools)
    if (t.method.toUpperCase() === 'GET' && t.root_path === root) {
      const p = await state?.plan(t.name);
      if (p?.kind === 'item') pointer = p.entity_pointer;
    }
  const recorded = await captureWrites(ctx, root);
  for (const w of pending) {
    const k = model.writes.filter((x) => x.root === root).indexOf(w);
    const record = recorded[k];
    if (!record) return 0;
    const answer = w.method === 'POST' ? jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type)) : undefined;
    // The id a create's answer names: the entity's identity, or a wrapper's only member (Alertmanager's `{"silenceID": …}`).
    const created = scalarId(createdIdOf({ pointer, identity: type.identity }, answer));
    const id = w.entity ?? (created === undefined ? undefined : String(created));
    // A DELETE whose entity the reads after it still show left it changed (Alertmanager expires a
    // silence): caught up to what they show. One an item read after it answered not found is
    // gone; one they neither show nor miss is not shown gone: not caught up.
    if (id === undefined || (!shown.has(id) && !(w.method === 'DELETE' && gone.has(id)))) return 0;
  }
  const saved = model.writtenEntities();
  for (const w of pending)
    if (w.method === 'DELETE' && w.entity !== undefined && gone.has(w.entity)) model.remove(type.collection, w.entity);
  for (const [id, value] of shown) {
    const current = await model.entity(type.collection, id);
    // A list may leave members out: those keep the value held.
    const merged =
      current && isObject(current.value) && isObject(value)
        ? objectFrom([
            ...keysOf(value).map((k): [string, JsonValue] => [k, member(value, k)!]),
            ...keysOf(current.value)
              .filter((k) => member(value, k) === undefined)
              .map((k): [string, JsonValue] => [k, member(current.value, k)!]),
          ])
        : value;
    const base: Omit<StateEntity, 'state_order'> = current ?? {
      collection: type.collection,
      id,
      value,
      view_values: {},
      record_ordinals: [],
    };
    await model.put({
      ...base,
      value: merged,
      view_values: {},
      ...(current ? {} : await placeShown(ctx, model, type.collection, type.identity, value)),
    });
  }
  // Kept only where the capture's reads in the window agree with the state (what answers from
  // state answers as they recorded): json-server 1.0 lists a comment whose `postId` it cleared
  // under any `postId`, which the model's filters do not; such a state is not caught up to.
  if (!(await windowAgrees(ctx, model, reads))) {
    model.restore(saved);
    return 0;
  }
  for (const w of pending) w.applied = true;
  return pending.length;
}

/** Whether every one of `reads` that the state answers, it answers as recorded. */
async function windowAgrees(ctx: ServeContext, model: ServedModel, reads: readonly WindowRead[]): Promise<boolean> {
  for (const { tool, record: r, body } of reads) {
    // A read the model declines (a status the default filter hides, issue 44) is no answer to compare.
    const a = await answerFromState(ctx, tool, { params: new Map(r.params), query: r.query_pairs.map((q) => ({ ...q })) }, model).catch(
      (e: unknown) => {
        if (e instanceof CapstateError && e.code === 'no-convention') return null;
        throw e;
      },
    );
    if (a && (a.status !== r.status || (!a.record && !sameValue(a.value, body)))) return false;
  }
  return true;
}

/** Where an entity the window's reads show, and the model did not hold, goes: by the list's default orders where learned, else newest first or last. */
async function placeShown(ctx: ServeContext, model: ServedModel, collection: string, identity: string, value: JsonValue) {
  const held = await model.collection(collection);
  const orders = (await collectionOrders(ctx)).get(collection);
  return (orders && placeByOrders(held, value, orders)) ?? newestFirst(held, identity, member(value, identity)!);
}
