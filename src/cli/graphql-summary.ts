/**
 * Issue 48: what `capstate load` says of a capture's GraphQL endpoints — the entities its
 * answers showed and the mutations that take effect (src/model/graphql) — for the load's
 * summary line. Only a capture with a `POST …/graphql` tool opens a serve context for it.
 */
import type { Kysely } from 'kysely';
import { isGraphqlTemplate } from '../manifest/graphql.js';
import { graphqlModel, isGraphqlEndpoint } from '../model/graphql/model.js';
import { serveContextOn } from '../model/served/context.js';
import { isWriteTool, toolRecords } from '../model/served/records.js';
import type { Sqlite } from '../store/open.js';
import type { DB } from '../store/types.js';
import type { GraphqlSummary } from './load-summary.js';

/** The capture's tools at a GraphQL endpoint's path (OQ-7; the GraphQL model answers them when served). */
export async function graphqlEndpointTools(k: Kysely<DB>, captureId: number): Promise<{ name: string; template: string }[]> {
  const posts = await k
    .selectFrom('tool')
    .select(['name', 'template'])
    .where('capture_id', '=', captureId)
    .where('method', '=', 'POST')
    .orderBy('name')
    .execute();
  return posts.filter((t) => isGraphqlTemplate(t.template));
}

export async function graphqlSummary(db: Sqlite, k: Kysely<DB>, file: string, captureId: number): Promise<GraphqlSummary | null> {
  const candidates = await graphqlEndpointTools(k, captureId);
  if (candidates.length === 0) return null;
  const ctx = await serveContextOn(db, k, file, captureId);
  const out: GraphqlSummary = { entities: 0, types: 0, records: 0, mutations: { verified: 0, all: 0 } };
  for (const { name } of candidates) {
    const tool = ctx.tools.get(name);
    if (!tool || !(await isGraphqlEndpoint(ctx, tool))) continue;
    const l = await graphqlModel(ctx, tool);
    out.entities += l.initial.size;
    out.types += new Set([...l.initial.values()].map((e) => e.typename)).size;
    // The endpoint's records counted as writes by the summary (all of a write tool's, a query POST's none).
    if (isWriteTool(ctx, tool)) out.records += (await toolRecords(ctx, name)).length;
    for (const r of l.records) {
      if (r.req.kind !== 'mutation') continue;
      out.mutations.all++;
      const fields = r.req.operation.selectionSet.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : []));
      if (fields.every((f) => l.mutations.get(f)?.verified)) out.mutations.verified++;
    }
  }
  return out.entities > 0 || out.mutations.all > 0 ? out : null;
}
