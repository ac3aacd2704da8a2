/**
 * Issue 45 kind 2 ("update semantics guessed, not learned"): whether a PUT or PATCH leaves the
 * members it does not send (merge) or drops them (replace) is verified by check-effects only where
 * the capture shows it — and a write nothing contradicts passes. Served with its later reads left
 * out, Redmine's `PUT /issues/6.json` (answered 204) was taken for a replace, and the issue read
 * after it showed only the members the PUT sent: a plausible wrong answer.
 *
 * The capture shows what a tool's update leaves of unsent members where one of its recorded 2xx
 * requests left some of the entity's members out and then either its own answer showed the entity
 * (Feathers' PATCH answers the merged message), or a later read of the capture showed that entity
 * (Redmine's `GET /issues/1.json` after its PUT). Where none did, an update that leaves members out
 * is declined; one that sends every member is the same under either reading, and is applied.
 */
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { at, isObject, jsonEqual, keysOf, member } from '../plan/json.js';
import { perContextKey, type ServeContext } from './context.js';
import { scalarId } from './ids.js';
import { servedLookups, servedTypes } from './model.js';
import { itemValue, jsonValueOf, readBody, recordedTaken, timeline, toolRecords } from './records.js';
import type { CallRequest } from './input-schema.js';
import type { WriteModel } from './writes.js';

/**
 * The entity `body` shows with `identity` `id`, where answers hold entities: the body itself, a
 * list, or a member of an envelope (`{"issue": {…}}`, `{"issues": […]}`) — never an object
 * inside an entity (an issue's `"tracker": {"id": 1, …}` is no issue 1).
 */
function shown(body: JsonValue | undefined, identity: string, id: string): JsonValue | undefined {
  const is = (o: JsonValue | undefined) => {
    const v = isObject(o) ? scalarId(member(o, identity)) : undefined;
    return v !== undefined && v !== null && String(v) === id;
  };
  const places = Array.isArray(body)
    ? body
    : isObject(body) && member(body, identity) === undefined
      ? keysOf(body).flatMap((k) => {
          const v = member(body, k);
          return Array.isArray(v) ? v : [v!];
        })
      : [body];
  return places.find(is);
}

/** What the capture shows of a tool's updates: its effect on unsent members, and the members the server changed itself. */
interface Shown {
  kind: 'merge' | 'replace' | undefined;
  /** Unsent members an update's answer or later read showed changed (a clock the server stamps): no evidence either way. */
  server: string[];
}

/**
 * What the capture shows `tool`'s updates do to the members they do not send: `merge` where the
 * entity is shown after one still holding them as they were, `replace` where shown without any
 * of them; undefined where no update left members out and was followed by an answer or read
 * showing it. Members shown changed (the server's clock) are the server's, evidence of neither.
 */
export const updateShown = perContextKey(async (ctx, toolName: string, pointer: string): Promise<Shown> => {
  const tool = ctx.manifest.tools.find((t) => t.name === toolName);
  const state = await servedLookups(ctx);
  // The tool's own collection (a borrowed write's proof is another collection's tool).
  const type = tool && (await servedTypes(ctx)).find((t) => t.root_path === tool.root_path);
  const server = new Set<string>();
  if (!tool || !state || !type) return { kind: undefined, server: [] };
  const { collection, identity } = type;
  const reads = (await timeline(ctx)).filter(({ tool: t }) => t.method.toUpperCase() === 'GET' && t.root_path === tool.root_path);
  let kind: Shown['kind'];
  for (const r of await toolRecords(ctx, toolName)) {
    if (r.status < 200 || r.status > 299 || r.request_kind !== 'json') continue;
    const id = itemValue(tool, r);
    const sent = jsonValueOf(await readBody(ctx, r.request_body_id));
    const part = sent === undefined ? undefined : pointer === '' ? sent : at(sent, pointer);
    if (id === undefined || !isObject(part)) continue;
    const unsent = (o: JsonValue | undefined) => keysOf(o).filter((k) => k !== identity && member(part, k) === undefined);
    // The members the request left out: of the entity before it, where the state holds it.
    const before = (await state.entity(collection, id))?.value;
    const verdict = (after: JsonValue | undefined): Shown['kind'] => {
      if (after === undefined) return undefined;
      if (!isObject(before)) return unsent(after).length ? 'merge' : undefined;
      const left = unsent(before);
      for (const k of left) if (member(after, k) !== undefined && !jsonEqual(member(after, k), member(before, k))) server.add(k);
      const kept = left.filter((k) => !server.has(k));
      if (kept.length === 0) return undefined;
      if (kept.every((k) => member(after, k) !== undefined)) return 'merge';
      return kept.every((k) => member(after, k) === undefined) ? 'replace' : undefined;
    };
    kind ??= verdict(shown(jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type)), identity, id));
    for (const { record } of reads) {
      if (kind) break;
      if (record.timeline_position <= r.timeline_position || record.status < 200 || record.status > 299) continue;
      kind = verdict(shown(jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type)), identity, id));
    }
  }
  return { kind, server: [...server] };
});

/**
 * Where an update leaves out members of `current` and the capture never showed what `tool`'s
 * updates do to those: `replay` when the capture recorded this very request answered 2xx (its
 * record answers, and the model leaves the entity as it was: the write is logged unapplied), else
 * throws `no-convention`. `apply` otherwise.
 */
export async function unshownUpdate(
  ctx: ServeContext,
  tool: ManifestTool,
  wm: WriteModel,
  call: CallRequest,
  current: JsonValue,
  part: JsonValue,
  asked: string,
): Promise<'apply' | 'replay'> {
  const identity = wm.identity!;
  const shownEffect = await updateShown(ctx, tool.name, wm.pointer);
  const left = keysOf(current).filter((k) => k !== identity && member(part, k) === undefined && !shownEffect.server.includes(k));
  if (left.length === 0 || shownEffect.kind === wm.kind) return 'apply';
  if (await recordedTaken(ctx, tool, call)) return 'replay';
  throw new CapstateError(
    'no-convention',
    `${asked}: it leaves out ${left.join(', ')}, and no update of the capture by ${tool.method.toUpperCase()} ${tool.template} that left members out was followed by an answer or a read showing them ${wm.kind === 'merge' ? 'kept' : 'dropped'}, as the model would`,
    {
      tool: tool.name,
      request_line: asked,
      nearest_tool: tool.name,
      did_not_match: 'an update whose effect on unsent members the capture shows',
    },
  );
}
