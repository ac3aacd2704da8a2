/**
 * @rule GQL-9
 * Issue 48: a call of a GraphQL endpoint tool, answered by the GraphQL model (answer.ts) on
 * the session's entities. Where the model declines, the capture's own answer to the same
 * request stands only where the app stood the same way (GQL-9): this session's mutations are
 * the capture's first ones, in order, and the record was made after them and before the next.
 * A mutation the model does not apply is replayed so, and makes the reads of the types it may
 * have changed decline from then on.
 */
import { CapstateError } from '../../errors.js';
import { canonicalJson } from '../../json/canonical.js';
import { stringifyExact, type JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { answerBody, type CallAnswer } from '../served/answer.js';
import type { ServeContext } from '../served/context.js';
import type { CallRequest } from '../served/input-schema.js';
import type { ServedModel } from '../served/model.js';
import { answerGraphql, GqlDecline } from './answer.js';
import type { GqlRecord } from './learn.js';
import { namedType } from './mutations.js';
import { graphqlSession } from './model.js';
import { fieldsOf, readRequest, type GqlRequest } from './request.js';
import type { GqlSession } from './session.js';

/** The GQL rules an answer from the GraphQL model relies on (docs/rules.md). */
const RULES = ['GQL-2', 'GQL-3', 'GQL-4'];

/**
 * Answers `call` on the endpoint. Throws a CapstateError (`no-convention`, with
 * `context.graphql`) when neither the model nor a record made where the app stood answers.
 */
export async function answerGraphqlCall(ctx: ServeContext, tool: ManifestTool, call: CallRequest, model: ServedModel): Promise<CallAnswer> {
  const req = readRequest(call.body);
  if (!req)
    throw new CapstateError(
      'bad-arguments',
      `${tool.name}: the body is not a GraphQL request: send {"query": "<document>", "variables": {…}, "operationName": "…"} with a document that parses`,
      { tool: tool.name, graphql: true },
    );
  const session = await graphqlSession(ctx, tool, model);
  const key = canonicalJson(call.body as JsonValue);
  // Where the session stands among the capture's mutations, before this call.
  const window = captureWindow(session);
  if (req.kind === 'mutation') session.log.push(key);
  try {
    const a = answerGraphql(session, req);
    if (req.kind === 'mutation' && window && recordIn(session, window, key, true)) session.catchUp(window.k + 1);
    const text = stringifyExact(a.value);
    const same = session.learned.records.filter((r) => r.req.stableName === req.stableName);
    const shaped = same[same.length - 1] ?? session.learned.records[0];
    return {
      tool: tool.name,
      status: a.status,
      body: { kind: 'json', bytes: Buffer.byteLength(text), value: a.value, text },
      record_ordinal: shaped.ordinal,
      request_line: `POST ${tool.template} ${req.stableName}`,
      source: 'state',
      why: `GraphQL ${req.kind} ${req.stableName} from the model: ${a.why.join('; ')}`,
      rules: RULES,
      ...(a.convention ? { convention: a.convention } : {}),
      media_type: 'application/json',
    };
  } catch (e) {
    if (!(e instanceof GqlDecline)) throw e;
    // A mutation whose effect was taken leaves the model current; only its answer needs a record.
    if (req.kind === 'mutation' && !e.effectTaken) markStale(session, req);
    const record = window && recordIn(session, window, key, req.kind === 'mutation');
    if (record && req.kind === 'mutation') session.catchUp(window!.k + 1);
    if (record) return replayed(ctx, tool, record, req, window!.k);
    throw new CapstateError('no-convention', `${tool.name}: GraphQL ${req.kind} ${req.stableName}: ${e.message}`, {
      tool: tool.name,
      operation: req.stableName,
      field: e.field,
      graphql: true,
    });
  }
}

/** A mutation the model did not apply: the types it names (or, not knowing them, every type) are no longer known. */
function markStale(session: GqlSession, req: GqlRequest): void {
  session.mutations++;
  for (const f of fieldsOf(req, req.operation.selectionSet, null))
    session.stale.add(session.learned.mutations.get(f.name)?.typename ?? namedType(f.name, session.learned.types) ?? '*');
}

/** The span of the capture between its k-th and (k+1)-th mutations, when this session's k mutations are its first k, in order; else null. */
function captureWindow(session: GqlSession): { k: number; from: number; to: number } | null {
  const mutations = session.learned.mutationRecords;
  const k = session.log.length;
  if (k > mutations.length || session.log.some((b, i) => mutations[i].bodyKey !== b)) return null;
  // Writes through the capture's other tools (REST beside GraphQL) bound the track too: after
  // one of this session's, no record is known to stand; before the capture's first, records do.
  const from = k === 0 ? -Infinity : mutations[k - 1].ordinal;
  if (session.otherWrites() > 0 || session.learned.firstOtherWrite < from) return null;
  return { k, from, to: Math.min(k < mutations.length ? mutations[k].ordinal : Infinity, session.learned.firstOtherWrite) };
}

/** GQL-9: the latest record of the same request in the window (a mutation: the capture's next one, if it is this). */
function recordIn(session: GqlSession, w: { from: number; to: number }, key: string, mutation: boolean): GqlRecord | null {
  const rs = session.learned.records;
  if (mutation) return rs.find((r) => r.ordinal === w.to && r.bodyKey === key) ?? null;
  const inside = rs.filter((r) => r.ordinal > w.from && r.ordinal < w.to && r.bodyKey === key);
  return inside[inside.length - 1] ?? null;
}

async function replayed(ctx: ServeContext, tool: ManifestTool, r: GqlRecord, req: GqlRequest, k: number): Promise<CallAnswer> {
  return {
    tool: tool.name,
    status: r.status,
    body: await answerBody(ctx, { response_body_id: r.responseBodyId, response_media_type: r.mediaType }),
    record_ordinal: r.ordinal,
    request_line: `POST ${tool.template} ${req.stableName}`,
    source: 'replay',
    why:
      `the capture's answer to the same GraphQL ${req.kind} (record #${r.ordinal}), made ` +
      (k === 0 ? 'before its first mutation' : `after its mutation #${k}: this session's mutations are the capture's first ${k}, in order`),
    rules: ['GQL-9'],
    media_type: r.mediaType,
  };
}
