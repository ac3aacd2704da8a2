/**
 * Issue 48: the GraphQL model of a served capture's endpoint — learned from its records once
 * (learn.ts) with its mutations checked (verify.ts) — and each served session's copy of its
 * entities, kept beside the session's REST model and reset with it.
 */
import { isGraphqlTemplate } from '../../manifest/graphql.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from '../served/context.js';
import type { ServedModel } from '../served/model.js';
import { learn, type Learned } from './learn.js';
import { GqlSession } from './session.js';
import { verifyMutations } from './verify.js';

const cache = new WeakMap<ServeContext, Map<string, Promise<Learned>>>();

/** The endpoint's learned model (cached per served capture and tool: the store is read-only). */
export function graphqlModel(ctx: ServeContext, tool: ManifestTool): Promise<Learned> {
  let per = cache.get(ctx);
  if (!per) cache.set(ctx, (per = new Map()));
  let hit = per.get(tool.name);
  if (!hit) per.set(tool.name, (hit = learn(ctx, tool).then(verifyMutations)));
  return hit;
}

/** Whether a tool is a GraphQL endpoint the model reads: a POST the manifest calls GraphQL (OQ-7) whose every recorded body is a GraphQL request. */
export async function isGraphqlEndpoint(ctx: ServeContext, tool: ManifestTool): Promise<boolean> {
  if (tool.method.toUpperCase() !== 'POST' || !isGraphqlTemplate(tool.template)) return false;
  return (await graphqlModel(ctx, tool)).records.length > 0;
}

/** This session's GraphQL entities for the endpoint (made on first use; `reset_state` and `load_state` drop them). */
export async function graphqlSession(ctx: ServeContext, tool: ManifestTool, model: ServedModel): Promise<GqlSession> {
  const l = await graphqlModel(ctx, tool);
  // The session's writes through other tools: logged ones, and (check-effects logs none) whether the model changed at all.
  const otherWrites = () => model.writes.filter((w) => w.tool !== tool.name).length + (model.isChanged ? 1 : 0);
  return model.part(`graphql:${tool.name}`, () => new GqlSession(l, otherWrites));
}

/** What a GraphQL endpoint's mutations do, in plain words (check-effects' line for the endpoint). */
export async function graphqlWritesWords(ctx: ServeContext, tool: ManifestTool): Promise<string> {
  const l = await graphqlModel(ctx, tool);
  const all = [...l.mutations.values()];
  const taken = all.filter((c) => c.verified).map((c) => `${c.name} (${c.kind} ${c.typename})`);
  const not = all.filter((c) => !c.verified).map((c) => `${c.name}${c.refuted ? `: ${c.refuted}` : ''}`);
  return (
    'a GraphQL endpoint, answered by its own model: ' +
    (taken.length ? `the mutations ${taken.join(', ')} take effect, checked by the capture's later answers` : 'no mutation takes effect') +
    (not.length ? `; ${not.join('; ')} replay` : '')
  );
}

/** How a GraphQL endpoint's tool answers, for its description (DESC-1..5): its model, its mutations, replay. */
export async function graphqlEndpointWords(ctx: ServeContext, tool: ManifestTool): Promise<string> {
  const l = await graphqlModel(ctx, tool);
  const taken = [...l.mutations.values()].filter((c) => c.verified).map((c) => c.name);
  return (
    "a GraphQL endpoint: answers any query from its model of the app's entities, exactly the fields asked, and declines what the capture never showed" +
    (taken.length ? `; the mutations ${taken.join(', ')} take effect (the capture's later answers check them)` : '') +
    '; other mutations replay their recorded answers; each recorded operation is also a tool of its own'
  );
}
