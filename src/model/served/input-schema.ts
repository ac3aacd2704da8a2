/**
 * A tool's inputSchema and the check of a call's arguments against it. Path parameters of
 * the template are required strings; the query keys the capture shows go under `query`,
 * and the request-body shape it shows under `body` (both optional and described). Every
 * value in the schema comes from recorded traffic, so it is sampled like descriptions
 * (DESC-5) and counts against the catalog reserve.
 */
import { CapstateError } from '../../errors.js';
import { objectEntries, type JsonValue } from '../../json/exact.js';
import { templateParams } from '../../manifest/paths.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from './context.js';
import { jsonValueOf, readBody, toolRecords } from './records.js';
import { servedLookups } from './model.js';
import { widenQueries } from '../plan/conventions.js';
import { embeddedOf, readConventions, referenceMembers } from './from-state.js';
import { pageEnvelopes } from './page-envelope.js';
import { relationWords } from '../plan/relations.js';
import { sampleName } from './sample-names.js';
import { cacheBusterTest, isIgnorable, onlyCacheBusters, type QueryPair } from './cache-busters.js';

export type JsonSchema = Record<string, unknown>;

export interface ToolInput {
  schema: JsonSchema;
  /** Template parameter names in template order. */
  pathParams: string[];
  /** The argument that carries query keys (`query`, or `_query` when a path parameter is named so). */
  queryArg: string | null;
  /**
   * The argument a call's query comes under: `queryArg`, or the same name where the capture
   * shows no query key (then it may carry cache-busters only; the schema does not publish it).
   */
  callQueryArg: string;
  queryKeys: Map<string, { repeated: boolean }>;
  /**
   * Issue 44: whether a query key the schema does not know is one a call may name only to defeat
   * caches, and is ignored (cache-busters.ts); null where none is (a write).
   */
  cacheBuster: ((name: string) => boolean) | null;
  bodyArg: string | null;
  /** The body argument's schema (a top-level type, and member types for an object). */
  bodyShape: JsonSchema | null;
}

/** A call's arguments after the check: what replay matches records against. */
export interface CallRequest {
  params: Map<string, string>;
  query: { name: string; value: string }[];
  /** Issue 44: the cache-busters the call named, taken out of `query` (cache-busters.ts); absent when none. */
  ignored?: QueryPair[];
  /** With `ignored`: every pair as the call named them, in its order — what the app builds page links from (list-answer.ts). */
  asked?: QueryPair[];
  /** The request body the call gives, if any. */
  body?: unknown;
}

const SAMPLE_VALUES = 3;

function sampleValues(values: Iterable<string>): string {
  const seen: string[] = [];
  for (const v of values) {
    if (!seen.includes(v)) seen.push(v);
    if (seen.length > SAMPLE_VALUES) break;
  }
  const shown = seen.slice(0, SAMPLE_VALUES).map(sampleName);
  return shown.join(', ') + (seen.length > SAMPLE_VALUES ? ', …' : '');
}

function jsonType(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

/** Builds the inputSchema of one manifest tool from its template and recorded requests. */
export async function toolInput(ctx: ServeContext, tool: ManifestTool): Promise<ToolInput> {
  const records = await toolRecords(ctx, tool.name);
  const pathParams = templateParams(tool.template);
  const properties: Record<string, JsonSchema> = {};
  for (const p of pathParams) {
    properties[p] = {
      type: 'string',
      // The check refuses an empty value (no path has an empty segment); the schema says so.
      minLength: 1,
      description: `path parameter {${p}} of ${tool.template}; recorded values: ${sampleValues(records.flatMap((r) => (r.params.has(p) ? [r.params.get(p)!] : [])))}`,
    };
  }
  const queryKeys = new Map<string, { repeated: boolean; records: number; values: string[]; convention?: string; embeds?: string[] }>();
  for (const r of records) {
    const counts = new Map<string, number>();
    for (const q of r.query_pairs) counts.set(q.name, (counts.get(q.name) ?? 0) + 1);
    for (const [name, n] of counts) {
      const k = queryKeys.get(name) ?? { repeated: false, records: 0, values: [] };
      k.repeated ||= n > 1;
      k.records++;
      for (const q of r.query_pairs) if (q.name === name) k.values.push(q.value);
      queryKeys.set(name, k);
    }
  }
  const free = (name: string) => (pathParams.includes(name) ? `_${name}` : name);
  // Issue 16/44: a list plan answers any value of the filter, sort and window keys it learned,
  // and of those the API's conventions give it (conventions.ts), recorded on this tool or not.
  const plan = tool.method.toUpperCase() === 'GET' ? await (await servedLookups(ctx))?.plan(tool.name) : undefined;
  const widened =
    plan?.kind === 'list' ? widenQueries(plan, await readConventions(ctx), await referenceMembers(ctx, plan.collection)) : undefined;
  const learned = widened ? [...widened.queries.filter, ...widened.queries.sort, ...widened.queries.window] : [];
  // A filter key is answered for several values too where a recorded line proved a repeated key is OR (list-queries.ts `filter:any`).
  const anyOf = widened?.queries.any_of === true;
  for (const name of anyOf ? widened!.queries.filter : []) {
    const k = queryKeys.get(name);
    if (k) k.repeated = true;
  }
  for (const name of learned)
    if (!queryKeys.has(name))
      queryKeys.set(name, {
        repeated: anyOf && widened!.queries.filter.includes(name),
        records: 0,
        values: [],
        convention: widened!.borrowed.get(name)?.convention,
      });
  // Issue 44: a list pages by the window keys of a page envelope another list proved (page-envelope.ts).
  if (plan?.kind === 'list')
    for (const r of await pageEnvelopes(ctx))
      for (const name of r.tool === tool.name ? [] : r.keys)
        if (!queryKeys.has(name)) queryKeys.set(name, { repeated: false, records: 0, values: [], convention: 'api-page-envelope' });
  // Issue 44: an item or list plan embeds the members the API's embed conventions give it
  // (embed-conventions.ts), under the convention's param, recorded on this tool or not.
  const embedded = plan?.kind === 'item' || plan?.kind === 'list' ? await embeddedOf(ctx, plan) : undefined;
  const embeds: string[] = [];
  for (const m of embedded?.members ?? []) {
    if (!m.relation || !embedded!.borrowed.has(`${m.param}=${m.member}`)) continue;
    const k = queryKeys.get(m.param) ?? { repeated: false, records: 0, values: [], convention: 'api-embed' };
    k.embeds = [...(k.embeds ?? []), `${m.member} (${relationWords(m.relation)})`];
    queryKeys.set(m.param, k);
    embeds.push(`${m.param}=${m.member}`);
  }
  let queryArg: string | null = null;
  if (queryKeys.size > 0) {
    queryArg = free('query');
    const qp: Record<string, JsonSchema> = {};
    for (const [name, k] of queryKeys) {
      const one = { type: 'string' };
      qp[name] = {
        ...(k.repeated ? { anyOf: [one, { type: 'array', items: one }] } : one),
        description:
          (k.records
            ? `recorded in ${k.records} of ${records.length} records; values: ${sampleValues(k.values)}`
            : `not recorded here; the API's ${k.convention} convention`) +
          (k.embeds ? `${k.records ? "; also by the API's api-embed convention" : ''}: ${k.embeds.join(', ')}` : ''),
      };
    }
    properties[queryArg] = {
      type: 'object',
      properties: qp,
      additionalProperties: false,
      description:
        (learned.length
          ? `Query keys the capture shows. Any values of ${learned.join(', ')} are answered from state (filters, sort, pages); another combination is answered by a record with exactly the keys and values given, else an error that lists the recorded request lines.`
          : 'Query keys the capture shows. A call is answered by a record with exactly the keys and values given; a combination never recorded is an error that lists the recorded request lines.') +
        (embeds.length ? ` ${embeds.join(', ')} embeds related entities from state (the API's api-embed convention).` : ''),
    };
  }
  let bodyArg: string | null = null;
  const withBody = records.find((r) => r.request_kind !== 'none');
  if (withBody) {
    bodyArg = free('body');
    const firstJson = records.find((r) => r.request_kind === 'json');
    const value = firstJson ? jsonValueOf(await readBody(ctx, firstJson.request_body_id)) : undefined;
    let shape: JsonSchema = { description: 'Request body (the capture shows a non-JSON body)', type: 'string' };
    if (value !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const fields: Record<string, JsonSchema> = {};
      for (const [key, v] of objectEntries(value)) fields[key] = { type: jsonType(v) };
      shape = { type: 'object', properties: fields, description: `Request body; shape of record #${firstJson!.ordinal}` };
    } else if (value !== undefined) {
      shape = { type: jsonType(value), description: `Request body; shape of record #${firstJson!.ordinal}` };
    }
    properties[bodyArg] = shape;
  }
  return {
    schema: { type: 'object', properties, ...(pathParams.length ? { required: pathParams } : {}), additionalProperties: false },
    pathParams,
    queryArg,
    callQueryArg: queryArg ?? free('query'),
    bodyArg,
    bodyShape: bodyArg ? properties[bodyArg] : null,
    queryKeys: new Map([...queryKeys].map(([n, k]) => [n, { repeated: k.repeated }])),
    cacheBuster: await cacheBusterTest(ctx, tool, new Set(queryKeys.keys())),
  };
}

/** Whether `v` has the JSON Schema `type` (the types toolInput publishes). */
export function hasType(v: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
    case 'number':
      return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint';
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    default:
      return true;
  }
}

/** `a string`, `an object`, `null`: a value's JSON type in a message. */
export const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * Checks a call's arguments as strictly as the published inputSchema says; a bad argument
 * is a `bad-arguments` error naming the tool and the argument (answered with `isError:
 * true`). A number where the schema says string is refused, not spelled out: a caller
 * told `uid: 123` works would believe the schema is loose everywhere.
 */
export function checkArguments(toolName: string, input: ToolInput, args: unknown): CallRequest {
  const bad = (message: string, argument?: string) =>
    new CapstateError('bad-arguments', `${toolName}: ${message}`, { tool: toolName, ...(argument !== undefined ? { argument } : {}) });
  const a = args === undefined || args === null ? {} : args;
  if (typeof a !== 'object' || Array.isArray(a)) throw bad('arguments must be an object');
  const given = a as Record<string, unknown>;
  const known = new Set([...input.pathParams, ...(input.queryArg ? [input.queryArg] : []), ...(input.bodyArg ? [input.bodyArg] : [])]);
  // Issue 44: a tool whose capture shows no query key still takes a query of cache-busters only.
  const bustersOnly = (q: unknown) =>
    typeof q === 'object' && q !== null && !Array.isArray(q) && onlyCacheBusters(input.cacheBuster, Object.entries(q));
  for (const key of Object.keys(given)) {
    if (!known.has(key) && !(key === input.callQueryArg && bustersOnly(given[key])))
      throw bad(`unknown argument ${JSON.stringify(key)}; arguments: ${[...known].join(', ') || 'none'}`, key);
  }
  const params = new Map<string, string>();
  for (const p of input.pathParams) {
    if (!(p in given)) throw bad(`missing required path parameter ${JSON.stringify(p)}`, p);
    const s = given[p];
    if (typeof s !== 'string' || s === '')
      throw bad(`path parameter ${JSON.stringify(p)} must be a non-empty string, not ${s === '' ? 'an empty one' : typeName(s)}`, p);
    params.set(p, s);
  }
  const query: { name: string; value: string }[] = [];
  const ignored: QueryPair[] = [];
  const asked: QueryPair[] = [];
  const queryArg = input.callQueryArg;
  if (given[queryArg] !== undefined) {
    const q = given[queryArg];
    if (typeof q !== 'object' || q === null || Array.isArray(q)) throw bad(`${queryArg} must be an object of query keys`, queryArg);
    for (const [name, v] of Object.entries(q)) {
      const key = input.queryKeys.get(name);
      // Issue 44: a cache-buster no learned key explains is taken out here, once: every answer
      // path sees the call without it, and the answer says it was ignored (call.ts).
      if (!key && isIgnorable(input.cacheBuster, name, v)) {
        ignored.push({ name, value: v as string });
        asked.push({ name, value: v as string });
        continue;
      }
      if (!key)
        throw bad(
          `unknown query key ${JSON.stringify(name)}; recorded keys: ${[...input.queryKeys.keys()].join(', ')}` +
            (input.cacheBuster?.(name) ? ' (a cache-buster is ignored only with one value, a whole number or empty)' : ''),
          `${queryArg}.${name}`,
        );
      const values = Array.isArray(v) && key.repeated ? v : [v];
      for (const x of values) {
        const s = x;
        if (typeof s !== 'string')
          throw bad(
            `query key ${JSON.stringify(name)} must be a string${key.repeated ? ' or an array of strings' : ''}`,
            `${queryArg}.${name}`,
          );
        query.push({ name, value: s });
        asked.push({ name, value: s });
      }
    }
  }
  const out: CallRequest = { params, query, ...(ignored.length ? { ignored, asked } : {}) };
  if (input.bodyArg && given[input.bodyArg] !== undefined) {
    const body = given[input.bodyArg];
    const shape = input.bodyShape ?? {};
    if (!hasType(body, shape.type))
      throw bad(
        `${input.bodyArg} must be ${shape.type === 'object' || shape.type === 'array' || shape.type === 'integer' ? 'an' : 'a'} ${shape.type}, not ${typeName(body)}`,
        input.bodyArg,
      );
    const fields = shape.type === 'object' ? (shape.properties as Record<string, JsonSchema> | undefined) : undefined;
    for (const [k, f] of Object.entries(fields ?? {})) {
      const v = (body as Record<string, unknown>)[k];
      if (Object.hasOwn(body as object, k) && !hasType(v, f.type))
        throw bad(`${input.bodyArg}.${k} must be of type ${f.type}, not ${typeName(v)}`, `${input.bodyArg}.${k}`);
    }
    out.body = body;
  }
  return out;
}
