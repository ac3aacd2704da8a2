/**
 * Issue 48: a call of an operation tool (operations.ts). Its arguments are checked against
 * the tool's inputSchema — MCP keeps the published schema as the contract, so an argument
 * the operation does not declare is refused rather than sent to a model that would ignore
 * it — and then the operation's recorded document goes, with the arguments as its variables,
 * through the endpoint's own GraphQL answer path: the answer, its provenance and any decline
 * are the ones the same request over HTTP gets.
 */
import { hasType, typeName } from '../served/input-schema.js';
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import type { CallAnswer } from '../served/answer.js';
import type { ServeContext } from '../served/context.js';
import type { JsonSchema } from '../served/input-schema.js';
import type { ServedModel } from '../served/model.js';
import { answerGraphqlCall } from './call.js';
import type { GraphqlOperation } from './operations.js';

/** Answers a call of operation tool `op` with `args`; throws `bad-arguments` before anything is sent. */
export async function answerOperationCall(ctx: ServeContext, op: GraphqlOperation, args: unknown, model: ServedModel): Promise<CallAnswer> {
  const variables = checkOperationArguments(op, args);
  // The body the app's own client sent: the recorded document, the variables, and the name only when the operation has one.
  const body: Record<string, JsonValue> = {
    query: op.document,
    variables,
    ...(op.operationName ? { operationName: op.operationName } : {}),
  };
  return answerGraphqlCall(ctx, op.endpoint, { params: new Map(), query: [], body }, model);
}

/** The arguments as the operation's variables, checked as strictly as its inputSchema says. */
export function checkOperationArguments(op: GraphqlOperation, args: unknown): Record<string, JsonValue> {
  const bad = (message: string, argument?: string) =>
    new CapstateError('bad-arguments', `${op.name}: ${message}`, {
      tool: op.name,
      graphql: true,
      ...(argument !== undefined ? { argument } : {}),
    });
  const a = args === undefined || args === null ? {} : args;
  if (typeof a !== 'object' || Array.isArray(a)) throw bad('arguments must be an object of the operation’s variables');
  const given = a as Record<string, unknown>;
  const properties = (op.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const names = Object.keys(properties);
  for (const key of Object.keys(given))
    if (!Object.hasOwn(properties, key))
      throw bad(`unknown argument ${JSON.stringify(key)}; the operation's variables: ${names.join(', ') || 'none'}`, key);
  for (const key of (op.inputSchema.required ?? []) as string[])
    if (given[key] === undefined) throw bad(`missing required argument ${JSON.stringify(key)} (a non-null variable of the operation)`, key);
  const check = (schema: JsonSchema, v: unknown, at: string) => {
    const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (types.length && !types.some((t) => hasType(v, t)))
      throw bad(
        `${at} must be ${types.map((t) => (t === 'null' ? 'null' : `${/^[aeio]/.test(t) ? 'an' : 'a'} ${t}`)).join(' or ')}, not ${typeName(v)}`,
        at,
      );
    if (Array.isArray(v) && schema.items) v.forEach((x, i) => check(schema.items as JsonSchema, x, `${at}[${i}]`));
  };
  const out: Record<string, JsonValue> = {};
  for (const [key, v] of Object.entries(given)) {
    if (v === undefined) continue;
    check(properties[key], v, key);
    out[key] = v as JsonValue;
  }
  return out;
}
