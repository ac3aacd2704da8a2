/**
 * Issue 47: OpenAPI 3.1 of the inferred API, read from what the load stored — the manifest's
 * tools (paths from templates, recorded statuses), the stored state's plans and entities
 * (entity schemas as `components`, shared by list and item answers), the read conventions
 * (each query key's role) and the write effects check-effects verified. Nothing is inferred
 * again here, and nothing is claimed that the capture does not show: schemas fit every
 * recorded value (json-schema.ts), parameters are the recorded ones with recorded examples,
 * and each operation says how capstate answers it (`x-capstate`). A GraphQL endpoint is left
 * out of `paths` and named in `x-capstate-left-out` (issue 48): its one POST stands for every
 * operation, which OpenAPI cannot tell apart; capstate serves them as MCP tools instead.
 */
import type { JsonValue } from '../json/exact.js';
import type { ManifestTool } from '../manifest/read.js';
import { templateParams } from '../manifest/paths.js';
import type { Plan } from '../model/plan/types.js';
import type { ReadConventions } from '../model/plan/conventions.js';
import { at, replaceAt } from '../model/plan/json.js';
import { matcherKeyParts } from '../model/plan/label-matchers.js';
import type { ServeContext } from '../model/served/context.js';
import { verifiedWrites } from '../model/served/effects.js';
import { servedTypes } from '../model/served/model.js';
import { apiNotFoundRecord, embeddedOf, readConventions, servedState } from '../model/served/from-state.js';
import { jsonValueOf, readBody, toolRecords, type ToolRecord } from '../model/served/records.js';
import { toolInput } from '../model/served/input-schema.js';
import { schemaOf, type Schema } from './json-schema.js';
import { isGraphqlEndpoint } from '../model/graphql/model.js';
import { graphqlOperations } from '../model/graphql/operations.js';

type Doc = Record<string, JsonValue>;

/** A components key for a collection (OpenAPI allows `[A-Za-z0-9._-]` only). */
const componentName = (collection: string) => collection.replace(/[^A-Za-z0-9._-]+/g, '_');
const ref = (collection: string): Schema => ({ $ref: `#/components/schemas/${componentName(collection)}` });

/** A path parameter's or query key's schema from its recorded values (integer when every one is, else string), with the first as its example. */
function valueSchema(values: string[]): { schema: Schema; example?: JsonValue } {
  if (values.length === 0) return { schema: { type: 'string' } };
  const integers = values.every((v) => /^-?(0|[1-9]\d{0,14})$/.test(v));
  return integers ? { schema: { type: 'integer' }, example: Number(values[0]) } : { schema: { type: 'string' }, example: values[0] };
}

/**
 * The role a query key plays (issue 44): the list plan's own learned keys, the API's conventions
 * (which serving applies to every list), or an embed key of the plan; null for the others.
 */
function roleOf(plan: Plan | undefined, key: string, conventions: ReadConventions | null, embeds: Set<string>): string | null {
  if (embeds.has(key)) return 'embed';
  if (plan?.kind !== 'list') return null;
  const q = plan.list_queries;
  // A label matcher key is learned as the key, its operator and the member it reads (`filter = labels`).
  const matcher = q?.filter.some((k) => matcherKeyParts(k)?.key === key);
  if (q?.filter.includes(key) || matcher || plan.default_filter?.lifted_by.includes(key) || conventions?.filter.includes(key))
    return 'filter';
  if (q?.sort.includes(key) || conventions?.sort.has(key)) return 'sort';
  if (q?.window.includes(key) || conventions?.window.has(key)) return 'page';
  return null;
}

async function jsonBodies(ctx: ServeContext, records: ToolRecord[]): Promise<JsonValue[]> {
  const out: JsonValue[] = [];
  for (const r of records) {
    if (r.response_kind !== 'json') continue;
    const v = jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type));
    if (v !== undefined) out.push(v);
  }
  return out;
}

/** The 2xx answer's schema: the entity for an item plan, its list (in its envelope) for a list plan, else what was recorded. */
async function answerSchema(plan: Plan | undefined, bodies: JsonValue[]): Promise<Schema> {
  if (plan?.kind === 'item' && plan.entity_pointer === '') return ref(plan.collection);
  if (plan?.kind === 'list') {
    const list: Schema = { type: 'array', items: ref(plan.collection) };
    if (plan.list_pointer === '') return list;
    // The envelope: what the records show, with the list member the entities.
    const envelopes = bodies.filter((b) => at(b, plan.list_pointer) !== undefined).map((b) => replaceAt(b, plan.list_pointer, []));
    const schema = schemaOf(envelopes);
    const tokens = plan.list_pointer.split('/').slice(1);
    let node: Schema = schema;
    for (const t of tokens.slice(0, -1)) node = (node.properties as Record<string, Schema>)[t];
    (node.properties as Record<string, Schema>)[tokens[tokens.length - 1]] = list;
    return schema;
  }
  return schemaOf(bodies);
}

/** The OpenAPI 3.1 document of the served capture. */
export async function openApiOf(ctx: ServeContext): Promise<Doc> {
  const state = await servedState(ctx);
  const conventions = state ? await readConventions(ctx) : null;
  const verified = await verifiedWrites(ctx);
  const types = state ? await servedTypes(ctx) : [];
  const schemas: Doc = Object.create(null);
  for (const t of types) {
    const values = (await state!.collection(t.collection)).map((e) => e.value);
    const schema = schemaOf(values);
    schema['x-capstate'] = { collection: t.collection, root: t.root_path, identity: t.identity, entities: values.length };
    if (values.length) schema.examples = [values[0]];
    schemas[componentName(t.collection)] = schema;
  }
  const paths: Doc = Object.create(null);
  const leftOut: JsonValue[] = [];
  for (const tool of ctx.manifest.tools) {
    // Issue 48: one POST carrying every operation is no REST operation; its operations are MCP tools instead.
    if (await isGraphqlEndpoint(ctx, tool)) {
      const tools = (await graphqlOperations(ctx, tool)).map((o) => o.name);
      leftOut.push({
        operation: `${tool.method.toUpperCase()} ${tool.template}`,
        operationId: tool.name,
        why: GRAPHQL_LEFT_OUT,
        mcp_tools: tools,
      });
      continue;
    }
    const plan = await state?.plan(tool.name);
    const records = await toolRecords(ctx, tool.name);
    const path = (paths[tool.template] ??= Object.create(null)) as Doc;
    path[tool.method.toLowerCase()] = await operationOf(ctx, tool, plan, records, conventions, verified.get(tool.name));
  }
  const server = ctx.manifest.admission.subject_origin + ctx.manifest.api_base.replace(/\/$/, '');
  return {
    openapi: '3.1.0',
    info: {
      title: `${server} (inferred by capstate)`,
      version: `capture ${ctx.captureSha256.slice(0, 12)}`,
      description:
        'Inferred from recorded traffic by capstate: paths, parameters and schemas are what the capture shows, not the app’s own contract.',
    },
    servers: [{ url: server }],
    paths,
    components: { schemas },
    ...(leftOut.length ? { 'x-capstate-left-out': leftOut } : {}),
  };
}

/** Why a GraphQL endpoint is not in `paths`, in the export and on stderr. */
export const GRAPHQL_LEFT_OUT = 'a GraphQL endpoint: its operations are MCP tools, see capstate serve';

async function operationOf(
  ctx: ServeContext,
  tool: ManifestTool,
  plan: Plan | undefined,
  records: ToolRecord[],
  conventions: ReadConventions | null,
  effect: string | undefined,
): Promise<Doc> {
  const embeds = new Set(plan?.kind === 'item' || plan?.kind === 'list' ? (await embeddedOf(ctx, plan)).members.map((m) => m.param) : []);
  const parameters: JsonValue[] = [];
  for (const name of templateParams(tool.template)) {
    const values = [...new Set(records.map((r) => r.params.get(name)).filter((v): v is string => v !== undefined))];
    parameters.push({ name, in: 'path', required: true, ...valueSchema(values) });
  }
  const keys = new Map<string, string[]>();
  for (const r of records) for (const q of r.query_pairs) (keys.get(q.name) ?? keys.set(q.name, []).get(q.name)!).push(q.value);
  for (const [name, values] of keys) {
    const role = roleOf(plan, name, conventions, embeds);
    parameters.push({
      name,
      in: 'query',
      required: false,
      ...valueSchema(values),
      ...(role ? { 'x-capstate-role': role } : {}),
    });
  }
  const responses: Doc = Object.create(null);
  for (const status of tool.statuses.filter((s) => s > 0)) {
    const mine = records.filter((r) => r.status === status);
    const media = mine.find((r) => r.response_media_type)?.response_media_type ?? null;
    const bodies = await jsonBodies(ctx, mine);
    const ok = status >= 200 && status <= 299;
    const response: Doc = { description: `recorded ${status} (${mine.length} ${mine.length === 1 ? 'record' : 'records'})` };
    const type = media?.split(';')[0].trim();
    if (type && (bodies.length || (ok && plan && plan.kind !== 'record')))
      response.content = { [type]: { schema: ok ? await answerSchema(plan, bodies) : schemaOf(bodies) } };
    else if (type) response.content = { [type]: {} };
    responses[String(status)] = response;
  }
  // The API's own not-found (issue 44): an item read the model answers from state answers an
  // unknown id as another item read of the API answered it, though this one never recorded it.
  if (plan?.kind === 'item' && tool.method.toUpperCase() === 'GET' && !responses['404']) {
    const nf = await apiNotFoundRecord(ctx, tool.name);
    if (nf) {
      const type = nf.response_media_type?.split(';')[0].trim();
      const bodies = await jsonBodies(ctx, [nf]);
      responses['404'] = {
        description: `not found, as the API answers an unknown id (record #${nf.ordinal} of ${nf.tool})`,
        ...(type ? { content: { [type]: bodies.length ? { schema: schemaOf(bodies) } : {} } } : {}),
        'x-capstate': { convention: 'api-not-found', record: nf.ordinal },
      };
    }
  }
  if (Object.keys(responses).length === 0) responses.default = { description: 'no response was recorded' };
  const input = await toolInput(ctx, tool);
  const op: Doc = {
    operationId: tool.name,
    summary: `${tool.method.toUpperCase()} ${tool.template}`,
    ...(parameters.length ? { parameters } : {}),
    ...(input.bodyShape
      ? { requestBody: { content: { 'application/json': { schema: stripDescriptions(input.bodyShape as Schema) } } } }
      : {}),
    responses,
    'x-capstate': {
      answers: plan && plan.kind !== 'record' ? 'state' : effect ? 'state' : 'replay',
      ...(plan ? { plan: plan.kind } : {}),
      ...(plan && plan.kind !== 'document' && plan.kind !== 'record' ? { collection: plan.collection } : {}),
      ...(effect ? { write_effect: effect } : {}),
      records: tool.record_ordinals.length,
    },
  };
  return op;
}

/** The tool input's body schema without its prose (record numbers belong to capstate, not to a contract). */
function stripDescriptions(s: Schema): Schema {
  const out: Schema = Object.create(null);
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description') continue;
    out[k] =
      k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([p, x]) => [p, stripDescriptions(x)]))
        : k === 'items' && v && typeof v === 'object' && !Array.isArray(v)
          ? stripDescriptions(v as Schema)
          : (v as JsonValue);
  }
  return out;
}
