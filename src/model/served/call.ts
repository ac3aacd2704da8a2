/**
 * Answering one tool call: the single function every consumer (MCP server, HTTP server,
 * tests, bench) goes through. It checks the arguments and answers through answer.ts, with
 * the write effects check-effects verified (effects.ts, stored with the state) when the tool writes; it sits
 * above both, because verifying effects answers calls itself.
 */
import { CapstateError } from '../../errors.js';
import { MAX_JSON_DEPTH } from '../../json/exact.js';
import { firstTooDeep, pathText } from '../../json/depth.js';
import { answerRequest, toolInputCached, type CallAnswer } from './answer.js';
import type { ServeContext } from './context.js';
import { verifiedWrites } from './effects.js';
import { checkArguments } from './input-schema.js';
import { defaultModel, type ServedModel } from './model.js';
import type { WriteKind } from './writes.js';
import { isWriteTool } from './records.js';
import { answerIgnoring } from './cache-busters.js';
import { isGraphqlEndpoint } from '../graphql/model.js';
import { answerGraphqlCall } from '../graphql/call.js';
import { graphqlOperationTool } from '../graphql/operations.js';
import { answerOperationCall } from '../graphql/operation-call.js';

const NO_WRITES: ReadonlyMap<string, WriteKind> = new Map();

/** The arguments object around a value nested as deeply as any JSON capstate reads (ES-4). */
export const MAX_ARGUMENT_DEPTH = MAX_JSON_DEPTH + 1;

/**
 * Refuses a call whose arguments nest deeper than MAX_ARGUMENT_DEPTH as `bad-arguments`,
 * naming the path. Measured without recursion before any check walks them: a body 100,000
 * levels deep overflowed the stack and came back as an internal error.
 */
export function checkArgumentDepth(toolName: string, args: unknown): void {
  const path = firstTooDeep(args, MAX_ARGUMENT_DEPTH);
  if (path) {
    const at = pathText('arguments', path);
    throw new CapstateError(
      'bad-arguments',
      `${toolName}: ${at} nests deeper than ${MAX_ARGUMENT_DEPTH} levels (a value may nest ${MAX_JSON_DEPTH}, as any JSON capstate reads); send a value nested less deeply`,
      { tool: toolName, argument: at, max_depth: MAX_ARGUMENT_DEPTH },
    );
  }
}

/**
 * Answers a call of manifest tool `toolName` with `args` (or of a GraphQL endpoint's operation tool, issue 48). Replay picks, among the records
 * of the same request line (path values and query pairs equal, order aside), the latest
 * initial record (ES-8/ES-9, before its type's bound), else the latest record. Throws a
 * CapstateError (`unknown-tool`, `bad-arguments`, `no-record`) that the server returns
 * with `isError: true`.
 *
 * @example await answerCall(ctx, 'get_api_folders_by_uid', { uid: 'nErXDvCkzz' })
 */
export async function answerCall(
  ctx: ServeContext,
  toolName: string,
  args: unknown,
  model: ServedModel = defaultModel(ctx),
): Promise<CallAnswer> {
  const tool = ctx.tools.get(toolName);
  if (!tool) {
    // Issue 48: a recorded GraphQL operation is a tool of its own, answered through its endpoint.
    const op = await graphqlOperationTool(ctx, toolName);
    if (op) return answerOperationCall(ctx, op, args, model);
  }
  if (!tool)
    throw new CapstateError('unknown-tool', `no tool ${JSON.stringify(toolName)} in this environment; list the tools to see the names`, {
      tool: toolName,
    });
  const input = await toolInputCached(ctx, tool);
  const call = checkArguments(tool.name, input, args);
  // Only a write needs the verified set (stored by the load; read once, at the first write call).
  const isWrite = isWriteTool(ctx, tool);
  const writes = isWrite ? await verifiedWrites(ctx) : NO_WRITES;
  // Issue 48: a GraphQL endpoint answers from its own model of entities, replay behind it.
  if (call.body !== undefined && (await isGraphqlEndpoint(ctx, tool))) return answerGraphqlCall(ctx, tool, call, model);
  // Issue 44: the call is answered without the cache-busters it named, and says it ignored them.
  return answerIgnoring(call.ignored, () => answerRequest(ctx, tool, call, model, writes));
}
