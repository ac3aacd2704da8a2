/**
 * Issue 45: what a write may conclude from the entities the model does not hold. Found by serving
 * the fidelity captures with some of their reads left out (the app's answers unchanged, since reads
 * change nothing): the model answered
 * - `PATCH /api/posts/2/` with Django's 404 where the capture never showed post 2 and no list of
 *   posts read whole (the app answered 200), and `DELETE /messages/15` with Feathers' 404 after the
 *   capture's create of message 15, which the model did not apply, had made it;
 * - `POST /comments` with id 4, the next after the comments it held, where json-server holds ten.
 * An id the model lacks is the app's not-found only where the model holds every entity of the
 * collection (a list read whole, knownCollections) and no write of this session it did not apply
 * may have made one. The next integer after the highest id held is the app's next only there too,
 * or where the capture's own first create of the collection answered exactly that id (the top the
 * model holds is the app's: Django's post 13 after 12, though post 1 was never shown).
 */
import { CapstateError } from '../../errors.js';
import { templateParams } from '../../manifest/paths.js';
import { isObject, keysOf, member } from '../plan/json.js';
import { perContextKey, type ServeContext } from './context.js';
import { createdIdOf, isInt } from './ids.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { heldWhole, recordedAbsent } from './read-index.js';
import { jsonValueOf, readBody, toolRecords } from './records.js';
import type { SessionWrite } from './write-log.js';

/**
 * Whether `id` is no entity of the app's, as far as the model can tell: this session removed it; or
 * no write of this session the model did not apply may have made it (a create, a PUT of it: an upsert)
 * and a recorded item read answered it not found, or a list of the capture holds the collection
 * whole (read whole, or counted whole with no default filter hiding some).
 */
export async function knownAbsent(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  id: string,
  inFlight?: SessionWrite,
): Promise<boolean> {
  if (model.removedHere(collection, id)) return true;
  if (await unappliedUnder(ctx, model, collection, ['POST'], inFlight, id)) return false;
  return (await recordedAbsent(ctx, collection, id)) || (await heldWhole(ctx, collection));
}

/**
 * Whether the session made a write of `methods` under the collection's root the model did not
 * apply (the one in flight aside), or, given `id`, a PUT naming that id (an upsert may create it).
 */
async function unappliedUnder(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  methods: readonly string[],
  inFlight?: SessionWrite,
  id?: string,
): Promise<boolean> {
  const root = (await servedTypes(ctx)).find((t) => t.collection === collection)?.root_path;
  return model.writes.some(
    (w) =>
      w !== inFlight &&
      !w.applied &&
      w.root === root &&
      (methods.includes(w.method) || (id !== undefined && w.method === 'PUT' && w.entity === id)),
  );
}

/**
 * Whether the capture's first successful create of `collection` (a POST on its root) answered the
 * next integer after the highest id the stored state holds: the state's top is then the app's.
 */
export const nextIdShown = perContextKey(async (ctx, collection: string, identity: string): Promise<boolean> => {
  const type = (await servedTypes(ctx)).find((t) => t.collection === collection);
  const held = await (await servedLookups(ctx))?.collection(collection);
  if (!type || !held) return false;
  let top = 0n;
  for (const e of held) {
    const v = member(e.value, identity);
    if (isInt(v) && BigInt(v) > top) top = BigInt(v);
  }
  const creates = ctx.manifest.tools.filter(
    (t) => t.method.toUpperCase() === 'POST' && t.root_path === type.root_path && templateParams(t.template).length === 0,
  );
  const first = (await Promise.all(creates.map((t) => toolRecords(ctx, t.name))))
    .flat()
    .filter((r) => r.status >= 200 && r.status <= 299)
    .sort((a, b) => a.timeline_position - b.timeline_position)[0];
  const answer = first && jsonValueOf(await readBody(ctx, first.response_body_id, first.response_media_type));
  // The entity at the answer's root, or inside a one-member wrapper (Redmine's `{"issue": {…}}`).
  const wrapper = keysOf(answer).length === 1 && isObject(member(answer, keysOf(answer)[0])) ? `/${keysOf(answer)[0]}` : '';
  const id =
    answer === undefined ? undefined : createdIdOf({ pointer: member(answer, identity) === undefined ? wrapper : '', identity }, answer);
  return isInt(id) && BigInt(id) === top + 1n;
});

/** Throws `no-convention` where the next integer id is not known to be the app's next (see above). */
export async function refuseUnknownTop(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  identity: string,
  asked: string,
  inFlight?: SessionWrite,
): Promise<void> {
  const root = (await servedTypes(ctx)).find((t) => t.collection === collection)?.root_path;
  const unapplied = await unappliedUnder(ctx, model, collection, ['POST'], inFlight);
  if (!unapplied && ((await heldWhole(ctx, collection)) || (await nextIdShown(ctx, collection, identity)))) return;
  throw new CapstateError(
    'no-convention',
    unapplied
      ? `${asked}: this session made a create under ${root} the model did not apply, so the ids ${collection} holds, and the one the app gives a new entity, are not known`
      : `${asked}: no list of the capture shows every ${collection} entity and no create of the capture showed the next id after the highest it held, so the id the app gives a new one is not known`,
    { request_line: asked, did_not_match: `a ${collection} list read whole, or a recorded create` },
  );
}
