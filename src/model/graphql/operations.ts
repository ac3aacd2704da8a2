/**
 * Issue 48: each operation a GraphQL endpoint's capture recorded, as a tool of its own. An
 * agent handed one `post_graphql` tool has to write GraphQL documents against a schema it
 * never sees; the capture already holds the documents the app itself sent. So each one (by
 * its stable name, the latest recorded document) becomes a tool whose arguments are the
 * operation's variables, typed by their declarations in the document, and a call sends that
 * document through the endpoint's own answer path (operation-call.ts): the model, replay
 * and declines stay those of the endpoint.
 */
import { Kind, print, type TypeNode, type VariableDefinitionNode } from 'graphql';
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from '../served/context.js';
import type { JsonSchema } from '../served/input-schema.js';
import { NAME_MAX, sampleName } from '../served/sample-names.js';
import type { GqlRecord, Learned } from './learn.js';
import { graphqlModel, isGraphqlEndpoint } from './model.js';
import { fieldsOf, valueOf } from './request.js';
import { isPlainObject } from './normalize.js';

/** One recorded operation of a GraphQL endpoint, as a tool. */
export interface GraphqlOperation {
  /** The tool name: `graphql_` + the stable name in snake_case, unique among the served tools. */
  name: string;
  /** The endpoint tool whose answer path a call goes through. */
  endpoint: ManifestTool;
  kind: 'query' | 'mutation';
  /** The operation's own name, else `query_post_author` from its root fields. */
  stableName: string;
  /** The operation's own name, sent as `operationName`; null when anonymous. */
  operationName: string | null;
  /** The latest recorded document text, sent as it was recorded. */
  document: string;
  /** The records of the endpoint that sent this operation. */
  records: number[];
  inputSchema: JsonSchema;
  description: string;
  /** The mutation conventions its root fields follow (`delete` makes it destructive). */
  effects: ('create' | 'update' | 'delete' | 'unknown')[];
}

/** Tool names are at most 64 characters, as the manifest's (OQ-1). */
const NAME_LIMIT = 64;
/** A description is at most this many characters, as the catalog's others. */
const DESCRIPTION_MAX = 1024;
const SAMPLE_VALUES = 3;
const SAMPLE_RECORDS = 8;
/** A GraphQL name (the parser allows no other), safe to show without quotes. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

const cache = new WeakMap<ServeContext, Promise<GraphqlOperation[]>>();

/** The operation tools of endpoint `tool`, in the order the capture first sent each. */
export async function graphqlOperations(ctx: ServeContext, tool: ManifestTool): Promise<GraphqlOperation[]> {
  return (await allOperations(ctx)).filter((o) => o.endpoint.name === tool.name);
}

/** The operation tool named `name`, on any endpoint, or undefined. */
export async function graphqlOperationTool(ctx: ServeContext, name: string): Promise<GraphqlOperation | undefined> {
  if (!name.startsWith('graphql_')) return undefined;
  return (await allOperations(ctx)).find((o) => o.name === name);
}

/** Every endpoint's operations at once: names are made unique across all of them and the manifest's tools. */
function allOperations(ctx: ServeContext): Promise<GraphqlOperation[]> {
  let hit = cache.get(ctx);
  if (!hit) cache.set(ctx, (hit = readOperations(ctx)));
  return hit;
}

async function readOperations(ctx: ServeContext): Promise<GraphqlOperation[]> {
  const used = new Set(ctx.manifest.tools.map((t) => t.name));
  const out: GraphqlOperation[] = [];
  for (const tool of ctx.manifest.tools) {
    if (!(await isGraphqlEndpoint(ctx, tool))) continue;
    const l = await graphqlModel(ctx, tool);
    const byName = new Map<string, GqlRecord[]>();
    for (const r of l.records) {
      if (r.req.kind === 'subscription') continue; // one answer per request: the model declines them, and so would a tool
      byName.set(r.req.stableName, [...(byName.get(r.req.stableName) ?? []), r]);
    }
    for (const [stableName, records] of byName) {
      const latest = records[records.length - 1];
      const name = uniqueName(`graphql_${snakeCase(stableName) || 'operation'}`, used);
      used.add(name);
      const kind = latest.req.kind as 'query' | 'mutation';
      const effects = kind === 'mutation' ? rootFields(latest).map((f) => l.mutations.get(f)?.kind ?? 'unknown') : [];
      out.push({
        name,
        endpoint: tool,
        kind,
        stableName,
        operationName: latest.req.name,
        document: latest.req.query,
        records: records.map((r) => r.ordinal),
        inputSchema: inputSchemaOf(latest.req.operation.variableDefinitions ?? [], records),
        description: describe(tool, l, latest, records),
        effects,
      });
    }
  }
  return out;
}

/** `PostsPage` → `posts_page`, `getHTTPStatus` → `get_http_status`; `query_post_author` stays. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** `base`, cut at whole words to the limit, then `_2`, `_3`… until no served tool has it. */
function uniqueName(base: string, used: Set<string>): string {
  const cut = (s: string, max: number) => {
    let out = '';
    for (const w of s.split('_')) {
      const next = out ? `${out}_${w}` : w;
      if (next.length > max) break;
      out = next;
    }
    return out || s.slice(0, max);
  };
  let name = cut(base, NAME_LIMIT);
  for (let n = 2; used.has(name); n++) name = `${cut(base, NAME_LIMIT - String(n).length - 1)}_${n}`;
  return name;
}

const rootFields = (r: GqlRecord): string[] => [...new Set(fieldsOf(r.req, r.req.operation.selectionSet, null).map((f) => f.name))];

/** The variables' values as sent (the body's own, before the document's defaults fill in). */
function sentVariables(r: GqlRecord): Record<string, JsonValue> {
  const body = JSON.parse(r.bodyKey) as { variables?: unknown };
  const v = body.variables;
  return isPlainObject(v) ? v : {};
}

/**
 * The operation's arguments: one per variable definition, typed by its declared type (the
 * built-in scalars by the GraphQL spec's input coercion; an input object or enum by what the
 * recorded values show), required when non-null without a default, and nothing else.
 */
export function inputSchemaOf(defs: readonly VariableDefinitionNode[], records: GqlRecord[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const d of defs) {
    const name = d.variable.name.value;
    const values = records.map(sentVariables).flatMap((v) => (name in v ? [v[name]] : []));
    const schema = typeSchema(d.type, values, true);
    const seen = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
    const fieldsShown = [...new Set(values.flatMap((v) => (isPlainObject(v) ? Object.keys(v) : [])))];
    const notes = [`GraphQL type ${print(d.type)}`];
    if (fieldsShown.length) notes.push(`the capture gave it with ${fieldsShown.slice(0, 12).map(shown).join(', ')}`);
    else if (seen.length)
      notes.push(`recorded ${seen.slice(0, SAMPLE_VALUES).map(sampleValue).join(', ')}${seen.length > SAMPLE_VALUES ? ', …' : ''}`);
    else notes.push('never given in the capture');
    if (d.defaultValue) {
      const dv = valueOf(d.defaultValue, {});
      schema.default = dv;
      notes.push(`default ${sampleValue(dv)}`);
    }
    schema.description = notes.join('; ');
    properties[name] = schema;
    if (d.type.kind === Kind.NON_NULL_TYPE && !d.defaultValue) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** A recorded value as a description shows it: a string quoted and cut as names are, anything else as short JSON. */
function sampleValue(v: JsonValue): string {
  if (typeof v === 'string') return sampleName(v);
  const text = JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  return text.length > NAME_MAX ? `${text.slice(0, NAME_MAX - 1)}…` : text;
}

/** A declared type's schema; a nullable type also takes null, as GraphQL's does. */
function typeSchema(t: TypeNode, values: JsonValue[], nullable: boolean): JsonSchema {
  if (t.kind === Kind.NON_NULL_TYPE) return typeSchema(t.type, values, false);
  const of = (types: string[]): JsonSchema => {
    const all = nullable ? [...types, 'null'] : types;
    return { type: all.length === 1 ? all[0] : all };
  };
  if (t.kind === Kind.LIST_TYPE) {
    const items = values.flatMap((v) => (Array.isArray(v) ? v : []));
    return { ...of(['array']), items: typeSchema(t.type, items, true) };
  }
  switch (t.name.value) {
    case 'Int':
      return of(['integer']);
    case 'Float':
      return of(['number']);
    case 'String':
      return of(['string']);
    case 'Boolean':
      return of(['boolean']);
    // The spec's ID takes a string or an integer as input.
    case 'ID':
      return of(['string', 'integer']);
  }
  // An input object or an enum (or a custom scalar): the capture's values say which; never given, no type is claimed.
  const given = values.filter((v) => v !== null);
  if (given.length && given.every(isPlainObject)) return of(['object']);
  if (given.length && given.every((v) => typeof v === 'string')) return of(['string']);
  return {};
}

/** A name from the capture as a description shows it: bare when it is a GraphQL name, quoted and cut otherwise. */
function shown(name: string): string {
  return GRAPHQL_NAME.test(name) && name.length <= NAME_MAX ? name : sampleName(name);
}

/** What the operation does, in plain words: what each root field reads or changes, as the capture shows it, and how a call is answered. */
function describe(tool: ManifestTool, l: Learned, latest: GqlRecord, records: GqlRecord[]): string {
  const op = latest.req;
  const head = `GraphQL ${op.kind} ${op.name ?? '(anonymous)'}, sent to ${tool.method.toUpperCase()} ${tool.template}`;
  const ordinals = records.map((r) => r.ordinal);
  const seen = `recorded in ${ordinals.length === 1 ? 'record' : 'records'} ${ordinals.slice(0, SAMPLE_RECORDS).join(', ')}${ordinals.length > SAMPLE_RECORDS ? ', …' : ''}`;
  const parts: string[] = [];
  if (op.kind === 'query') {
    const asked = fieldsOf(op, op.operation.selectionSet, null);
    const reads = [...new Set(asked.map((f) => f.name))].map((f) => {
      const c = l.roots.get(f);
      const t = c?.typename ? shown(c.typename) : null;
      // An argument written into the document is not the caller's: say which value the tool always sends.
      const fixed = asked
        .filter((x) => x.name === f)
        .flatMap((x) => (x.node.arguments ?? []).filter((a) => a.value.kind !== Kind.VARIABLE))
        .map((a) => `${a.name.value} ${sampleValue(valueOf(a.value, {}))}`);
      const own = fixed.length ? `, with ${fixed.join(', ')} fixed in the document` : '';
      if (c?.kind === 'item' && t) return `${f} (one ${t} by its ${c.idArg ? shown(c.idArg) : 'id'}${own})`;
      if (c?.kind === 'list' && t) return `${f} (the list of ${t}${own})`;
      if (c?.kind === 'connection' && t) return `${f} (pages of ${t}, a connection with cursors${own})`;
      return `${f} (as the capture recorded it${own})`;
    });
    parts.push(`reads ${reads.length > 1 ? `${reads.slice(0, -1).join(', ')} and ${reads[reads.length - 1]}` : reads[0]}`);
    parts.push(
      "answered from the model of the app's entities (this session's mutations included), else by the capture's own answer to the same request where the app stood the same way, else declined",
    );
  } else {
    for (const f of rootFields(latest)) {
      const c = l.mutations.get(f);
      if (!c) {
        parts.push(
          `${f} changes what the capture does not show; answered only by the capture's own answer while this session's mutations are the capture's first ones, in order`,
        );
        continue;
      }
      const t = shown(c.typename);
      const by = c.idArg ? shown(c.idArg) : 'id';
      const what =
        c.kind === 'create'
          ? `creates a ${t}`
          : c.kind === 'update'
            ? `updates the ${t} its ${by} names`
            : `deletes the ${t} its ${by} names`;
      parts.push(
        c.verified
          ? `${f} ${what}; the capture's later reads check this, so a call changes this session's entities and later reads show it`
          : `${f} ${what}, as far as the capture shows, but its later reads do not check it${c.refuted ? ` (${c.refuted})` : ''}; answered only by the capture's own answer while this session's mutations are the capture's first ones, in order`,
      );
    }
  }
  const text = `${head}; ${parts.join('; ')}; ${seen}`;
  return text.length > DESCRIPTION_MAX ? `${text.slice(0, DESCRIPTION_MAX - 1)}…` : text;
}
