/**
 * Issue 45 (kind 5, deletes): reads that a delete's unknown cascade does not change.
 * After this session deletes a post, the comments naming it are in a state the capture does
 * not show: the app may have deleted them (json-server 0.17), cleared the reference (1.0,
 * `postId: null`) or left them. A read is answered from state only when it answers the same
 * under all three — `/comments?userId=2` does when no orphan has userId 2, `/comments` (which
 * lists them or not) does not — so the model never picks one of the apps' habits in silence.
 * A read that filters on the reference itself is not answered: how the app's filter treats a
 * cleared (null) reference is not known either (json-server 1.0 lists a comment whose `postId`
 * is null under `?postId=2`, recorded in bench/fidelity/json-server-1.0/capture.har) — unless
 * the capture's own reads after the same delete refute that habit (nullListingRefuted).
 */
import { canonicalJson } from '../../json/canonical.js';
import { childPointer } from '../../json/pointer.js';
import type { StateAnswer } from './read-index.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { perContextKey, type ServeContext } from './context.js';
import { at, entriesOf, isObject, member, objectFrom, replaceAt } from '../plan/json.js';
import type { JsonValue } from '../../json/exact.js';
import { idIn } from './ids.js';
import { itemWritesOf, jsonValueOf, readBody, toolRecords } from './records.js';
import type { Orphan, SessionWrite } from './write-log.js';

/** The cascades a delete may have had on the entities naming the deleted one. */
const CASCADES = ['kept', 'deleted', 'cleared'] as const;

/** The answer as compared across cascades: everything a client sees. */
function seen(a: StateAnswer): string {
  return canonicalJson({
    status: a.status,
    value: a.value,
    headers: a.headers ?? {},
    record: a.record?.ordinal ?? null,
  });
}

/**
 * Whether the capture refutes that the app cleared `o`'s reference and lists a null reference
 * under any value of a filter on it (json-server 1.0's habit, which would put a cleared orphan
 * in every filtered read): a read of `o`'s collection recorded after the capture's own delete of
 * the same entity, filtering on that reference by another value, that does not list `o`. Then,
 * whatever the delete did to `o` (deleted, kept, cleared), a filter by another value leaves it out.
 */
const nullListingRefuted = (ctx: ServeContext, o: Orphan): Promise<boolean> =>
  nullListingRefutedFor(ctx, o.collection, o.id, o.field, o.deleted, o.deletedId);

/** `nullListingRefuted` once per served store and orphan: it reads the capture's records, the same for every call. */
const nullListingRefutedFor = perContextKey(
  async (ctx, collection: string, id: string, field: string, deleted: string, deletedId: string) => {
    const o: Orphan = { collection, id, field, deleted, deletedId };
    const types = await servedTypes(ctx);
    const deletedRoot = types.find((t) => t.collection === o.deleted)?.root_path;
    const identity = types.find((t) => t.collection === o.collection)?.identity;
    if (deletedRoot === undefined || identity === undefined) return false;
    const deletes = ((await itemWritesOf(ctx, deletedRoot)).get(o.deletedId) ?? []).filter(
      (r) => ctx.tools.get(r.tool)?.method.toUpperCase() === 'DELETE' && r.status >= 200 && r.status <= 299,
    );
    if (deletes.length === 0) return false;
    const after = deletes[0].timeline_position;
    const state = await servedLookups(ctx);
    for (const tool of ctx.manifest.tools) {
      if (tool.method.toUpperCase() !== 'GET') continue;
      const plan = await state?.plan(tool.name);
      if (plan?.kind !== 'list' || plan.collection !== o.collection) continue;
      for (const r of await toolRecords(ctx, tool.name)) {
        if (r.timeline_position <= after || r.status < 200 || r.status > 299) continue;
        if (!r.query_pairs.some((q) => q.name === o.field && q.value !== o.deletedId)) continue;
        const body = jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type));
        const list = body === undefined ? undefined : at(body, plan.list_pointer);
        if (!Array.isArray(list)) continue;
        if (!list.some((x) => idIn(x, identity) === o.id)) return true;
      }
    }
    return false;
  },
);

/**
 * The answer `answer()` gives under every cascade of `orphans`, when it is the same under all
 * (its `why` saying so), else null. Where `queryKeys` filter on an orphan's reference, only
 * where the capture refutes that a cleared reference is listed under any value
 * (nullListingRefuted): how the app's filter treats a cleared reference is otherwise not known.
 * The model is left as it was.
 */
export async function cascadeFreeAnswer(
  ctx: ServeContext,
  model: ServedModel,
  orphans: readonly Orphan[],
  queryKeys: readonly string[],
  answer: () => Promise<StateAnswer | null>,
): Promise<StateAnswer | null> {
  for (const o of orphans) if (queryKeys.some((k) => k.startsWith(o.field)) && !(await nullListingRefuted(ctx, o))) return null;
  const worlds = CASCADES.map((cascade) => async () => {
    for (const o of orphans) {
      if (cascade === 'deleted') model.remove(o.collection, o.id);
      const e = await model.entity(o.collection, o.id);
      // A list of ids loses the deleted one (Django's many-to-many); a scalar reference becomes null.
      if (cascade !== 'cleared' || !e) continue;
      const ids = member(e.value, o.field);
      const cleared = o.list && Array.isArray(ids) ? ids.filter((x) => String(x) !== o.deletedId) : null;
      await model.put({ ...e, value: replaceAt(e.value, childPointer('', o.field), cleared) });
    }
  });
  const same = await sameUnderAll(model, worlds, answer);
  if (same === null) return null;
  const named = [...new Set(orphans.map((o) => `${o.collection} naming ${o.deleted} ${o.deletedId}`))].join(', ');
  return {
    ...same,
    why: `${same.why}; the answer is the same whether the app deleted, kept or cleared the ${named}, which the capture does not show`,
  };
}

/**
 * Issue 45: the answer `answer()` gives whatever the session's writes the model did not apply
 * did — an update it declined (no `PUT` of the API took effect in the capture) may have replaced
 * the entity, merged into it, or not been made; a delete removed it or not — when it is the same
 * under every combination (at most three such writes), else null. `/posts?userId=2` after a
 * declined `PUT /posts/4` that keeps its `userId: 3` answers; `/posts` and `/posts/4` do not.
 * A create the model did not apply may have made any entity: never answered past.
 */
export async function writeFreeAnswer(
  ctx: ServeContext,
  model: ServedModel,
  writes: readonly SessionWrite[],
  answer: () => Promise<StateAnswer | null>,
): Promise<StateAnswer | null> {
  const types = await servedTypes(ctx);
  const effects: { collection: string; identity: string; id: string; kinds: string[]; body: JsonValue | undefined }[] = [];
  for (const w of writes) {
    const type = types.find((t) => t.root_path === w.root);
    const body = w.call.body as JsonValue | undefined;
    if (!type || w.entity === undefined) return null;
    if (w.method === 'DELETE') effects.push({ ...type, id: w.entity, kinds: ['none', 'remove'], body });
    else if ((w.method === 'PUT' || w.method === 'PATCH') && isObject(body))
      effects.push({ ...type, id: w.entity, kinds: ['none', 'replace', 'merge'], body });
    else return null;
  }
  if (effects.length === 0 || effects.length > 3) return null;
  // Every combination of the writes' possible effects, in the order the session made them.
  let combos: string[][] = [[]];
  for (const e of effects) combos = combos.flatMap((c) => e.kinds.map((k) => [...c, k]));
  const worlds = combos.map((kinds) => async () => {
    for (const [i, e] of effects.entries()) {
      const current = await model.entity(e.collection, e.id);
      if (kinds[i] === 'remove') model.remove(e.collection, e.id);
      else if (current && kinds[i] === 'replace')
        await model.put({ ...current, value: objectFrom([...entriesOf(e.body), [e.identity, member(current.value, e.identity)!]]) });
      else if (current && kinds[i] === 'merge')
        await model.put({
          ...current,
          value: objectFrom([...entriesOf(current.value).filter(([k]) => member(e.body, k) === undefined), ...entriesOf(e.body)]),
        });
    }
  });
  const same = await sameUnderAll(model, worlds, answer);
  if (same === null) return null;
  const named = writes.map((w) => `${w.method} ${w.root}/${w.entity}`).join(', ');
  return {
    ...same,
    why: `${same.why}; the answer is the same whatever ${named} did (the model did not apply ${writes.length === 1 ? 'it' : 'them'}: replaced, merged or not made)`,
  };
}

/** The answer `answer()` gives in every world (each changes the model from where it is), when it is the same in all; the model is left as it was. */
async function sameUnderAll(
  model: ServedModel,
  worlds: readonly (() => Promise<void>)[],
  answer: () => Promise<StateAnswer | null>,
): Promise<StateAnswer | null> {
  const saved = model.writtenEntities();
  let first: StateAnswer | null = null;
  try {
    for (const world of worlds) {
      model.restore(new Map([...saved].map(([c, m]) => [c, new Map(m)])));
      await world();
      const a = await answer();
      if (a === null) return null;
      if (first === null) first = a;
      else if (seen(a) !== seen(first)) return null;
    }
  } catch {
    // A world in which the state cannot answer is one the answer may depend on.
    return null;
  } finally {
    model.restore(saved);
  }
  return first;
}
