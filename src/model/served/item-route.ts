/**
 * Item reads by the API's own item route (issue 44, kind 3: "items of a collection never read
 * by item"). A capture often lists a collection (`GET /comments`) without reading any of its
 * items, while another collection of the same API proves how the API reads an item: `GET
 * /posts/{id}` answering the bare entity. That is the API's habit until the capture shows
 * otherwise, so `GET /comments/2` is answered from the model's comments as `/posts/{id}`
 * answers posts — marked `convention: item-route` — and an id the collection does not hold
 * (its whole membership known, ES-35) gets the API's not-found.
 *
 * Only where the evidence is plain: the collection has no item route of its own elsewhere, a
 * line of the list's plan is the whole collection
 * (membership `all`), and every item route the capture proves answers the entity itself (its plan's
 * entity pointer is the root), with the same suffix shape (`/{id}`). Anything else is left to
 * the caller's decline. A query is answered only when it names cache-busters alone (`?_=1712`,
 * cache-busters.ts), which the answer ignores and says so.
 */
import { CapstateError } from '../../errors.js';
import { itemReadsLinkHabit, withHabitLink } from './link-habit.js';
import { countInDoubt } from './counters.js';
import { stringifyExact } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ItemPlan } from '../plan/types.js';
import { isItemTemplate } from '../../manifest/paths.js';
import type { CallAnswer } from './answer.js';
import type { ServeContext } from './context.js';
import { servedLookups, type ServedModel } from './model.js';
import { toolRecords } from './records.js';
import { notFound } from './from-state.js';
import { namesByAnotherKey, wholeListAt } from './read-index.js';
import { orphanedBy } from './write-log.js';
import { stateAnswer, toolInputCached } from './answer.js';
import { answerIgnoring, onlyCacheBusters, type QueryPair } from './cache-busters.js';

/** The item routes the capture proves: `PREFIX/{param}` GET tools with an item plan over the whole entity. */
async function provenItemRoutes(ctx: ServeContext): Promise<{ tool: ManifestTool; plan: ItemPlan }[]> {
  const state = await servedLookups(ctx);
  if (!state) return [];
  const routes: { tool: ManifestTool; plan: ItemPlan }[] = [];
  for (const tool of ctx.manifest.tools) {
    if (tool.method.toUpperCase() !== 'GET' || !isItemTemplate(tool.template)) continue;
    const plan = await state.plan(tool.name);
    if (plan?.kind === 'item') routes.push({ tool, plan });
  }
  return routes;
}

/**
 * The answer to `GET path?query` by the API's item route, or null when the convention does not
 * apply (no list of the collection, no proven item route, routes of another shape, or a query
 * naming any key but a cache-buster: no record shows how the route reads one).
 */
export async function answerByItemRoute(
  ctx: ServeContext,
  model: ServedModel,
  method: string,
  path: string,
  query: readonly QueryPair[] = [],
): Promise<CallAnswer | null> {
  if (method !== 'GET' && method !== 'HEAD') return null;
  const cut = path.lastIndexOf('/');
  const prefix = path.slice(0, cut);
  const raw = path.slice(cut + 1);
  if (cut <= 0 || raw === '') return null;
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const whole = await wholeListAt(ctx, prefix);
  if (!whole) return null;
  const { tool: list, plan } = whole;
  // Issue 44: cache-busters as a call of the list tool would take them (the list's entities are the item's).
  if (
    query.length &&
    !onlyCacheBusters(
      (await toolInputCached(ctx, list)).cacheBuster,
      query.map((p) => [p.name, p.value]),
    )
  )
    return null;
  const routes = await provenItemRoutes(ctx);
  if (routes.length === 0 || routes.some((r) => r.plan.entity_pointer !== '')) return null;
  // A collection the capture reads by an item route of its own at another path (Alertmanager's
  // silences at `/api/v2/silence/{id}`, listed at `/api/v2/silences`) is read there: what the app
  // answers under the list's path is not known (Alertmanager: an unrouted 404).
  if (routes.some((r) => r.plan.collection === plan.collection)) return null;
  const media =
    (await toolRecords(ctx, list.name)).find((r) => r.status >= 200 && r.status <= 299)?.response_media_type ?? 'application/json';
  const proof = routes.map((r) => `${r.tool.method} ${r.tool.template}`).join(', ');
  const asked = `GET ${path}`;
  const rules = ['ES-35'];
  const entity = await model.entity(plan.collection, id);
  if (!entity && (await namesByAnotherKey(model, plan.collection, id))) return null;
  // Issue 44 (kind 7): an entity naming one this session deleted may be gone or changed in the app;
  // issue 45: so may one a write the model did not apply named; and after such a create, an id
  // the model lacks may be the created one, so its absence is not claimed.
  const doubt = (await orphanedBy(ctx, model, plan.collection, id)) ?? (await countInDoubt(ctx, model, plan.collection, id));
  if (doubt)
    throw new CapstateError(
      'stale-record',
      `${list.name}: ${doubt}; the capture does not show what the app answers ${asked} after that, so the model does not answer it`,
      { tool: list.name, request_line: asked },
    );
  const unapplied = model.writes.filter((w) => w.root === list.root_path && !w.applied);
  if (unapplied.some((w) => w.entity === id) || (!entity && unapplied.some((w) => w.entity === undefined))) return null;
  if (!entity) {
    const nf = await notFound(
      ctx,
      list.name,
      asked,
      `${plan.collection} holds no entity ${id} (its whole membership is known); read by the item route the API proves (${proof})`,
      rules,
      id,
    );
    return answerIgnoring(query, () => stateAnswer(ctx, list, nf));
  }
  const text = stringifyExact(entity.value);
  // Issue 44 (kind 8): the Link the API's item reads send, where they agree on one.
  const headers = withHabitLink(undefined, await itemReadsLinkHabit(ctx), entity.value, list.name, asked);
  return answerIgnoring(query, async () => ({
    ...(headers ? { headers } : {}),
    tool: list.name,
    status: 200,
    body: { kind: 'json', bytes: Buffer.byteLength(text), value: entity.value, text },
    record_ordinal: 0,
    request_line: asked,
    source: 'state',
    convention: 'item-route',
    rules,
    media_type: media,
    why: `${plan.collection} ${id} from the model, read by the item route the API proves for its other collections (${proof})`,
  }));
}
