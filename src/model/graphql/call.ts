/**
 * Issue 48: a call of a GraphQL endpoint tool, answered by the GraphQL model (answer.ts) on
 * the session's entities; where the model declines, the capture's own answer to the same
 * request still stands while this session changed nothing (replay, as for any query POST).
 * A mutation the model does not apply is replayed where recorded and makes the reads of the
 * types it may have changed decline from then on.
 */
import { CapstateError } from '../../errors.js';
import { stringifyExact } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { CallAnswer } from '../served/answer.js';
import type { ServeContext } from '../served/context.js';
import type { CallRequest } from '../served/input-schema.js';
import type { ServedModel } from '../served/model.js';
import { answerGraphql, GqlDecline } from './answer.js';
import { namedType } from './mutations.js';
import { graphqlSession } from './model.js';
import { fieldsOf, readRequest } from './request.js';
import { isWriteTool } from '../served/records.js';
import { sessionWrite } from '../served/write-log.js';

/** The GQL rules an answer from the GraphQL model relies on (docs/rules.md). */
const RULES = ['GQL-2', 'GQL-3', 'GQL-4'];

/**
 * Answers `call` on the endpoint; `replay` answers it from the capture's records when the
 * model declines and nothing this session did stands in the way. Throws a CapstateError
 * (`no-convention`, with `context.graphql`) when neither answers.
 */
export async function answerGraphqlCall(
  ctx: ServeContext,
  tool: ManifestTool,
  call: CallRequest,
  model: ServedModel,
  replay: () => Promise<CallAnswer>,
): Promise<CallAnswer> {
  const req = readRequest(call.body);
  if (!req)
    throw new CapstateError(
      'bad-arguments',
      `${tool.name}: the body is not a GraphQL request: send {"query": "<document>", "variables": {…}, "operationName": "…"} with a document that parses`,
      { tool: tool.name, graphql: true },
    );
  const session = await graphqlSession(ctx, tool, model);
  const before = session.mutations;
  try {
    const a = answerGraphql(session, req);
    // An applied mutation is logged as the session's write, so a replay after it picks only
    // records the capture made after the same writes (write-log.ts), as for REST.
    if (req.kind === 'mutation' && isWriteTool(ctx, tool)) model.writes.push({ ...sessionWrite(tool, call), applied: true });
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
    if (req.kind === 'mutation') {
      // Its effect is not modelled: the types it names (or, not knowing them, every type) are no longer known.
      session.mutations = before + 1;
      const types = fieldsOf(req, req.operation.selectionSet, null).map((f) => session.learned.mutations.get(f.name)?.typename ?? namedType(f.name, session.learned.types));
      for (const t of types) session.stale.add(t ?? '*');
    }
    // A replay after this session's mutations is safe only where the write log windows it (a write tool).
    if (session.mutations === 0 || isWriteTool(ctx, tool)) {
      try {
        return await replay();
      } catch (r) {
        if (!(r instanceof CapstateError)) throw r;
      }
    }
    throw new CapstateError('no-convention', `${tool.name}: GraphQL ${req.kind} ${req.stableName}: ${e.message}`, {
      tool: tool.name,
      operation: req.stableName,
      field: e.field,
      graphql: true,
    });
  }
}
