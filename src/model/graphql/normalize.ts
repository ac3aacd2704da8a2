/**
 * @rule GQL-2
 * Issue 48 (GQL-2, entities normalized across operations): an answer's objects that carry
 * `__typename` and an `id` are entities of that type, stored once by `Type:id` and merged
 * across every operation that shows them, as a GraphQL client cache does (Apollo, urql). Each
 * field is kept under its store key (`posts({"first":2})`), so an operation selecting fewer
 * fields reads a projection of the same entity. Rendering walks a selection set over the
 * store and answers exactly the fields asked, or says which one it does not hold.
 */
import type { SelectionSetNode } from 'graphql';
import type { JsonValue } from '../../json/exact.js';
import { fieldsOf, type GqlRequest } from './request.js';

/** A reference to a stored entity. */
export interface Ref {
  __ref: string;
}
/** A value as stored: JSON, a reference, or a list or object of them (objects keyed by store key). */
export type NValue = JsonValue | Ref | NValue[] | { [storeKey: string]: NValue };

export interface Entity {
  typename: string;
  id: string;
  fields: Record<string, NValue>;
}

export const isRef = (v: unknown): v is Ref => isPlainObject(v) && typeof v.__ref === 'string' && Object.keys(v).length === 1;

export const entityKey = (typename: string, id: string): string => `${typename}:${id}`;
/** A key's type (`Post` of `Post:3`; GraphQL type names hold no colon). */
export const typeOfKey = (key: string): string => key.slice(0, key.indexOf(':'));
/** A key's id (`3` of `Post:3`). */
export const idOfKey = (key: string): string => key.slice(key.indexOf(':') + 1);

/** An argument that names an entity by its id: `id`, `postId`, `post_id`, `postID`. */
export const isIdArg = (arg: string): boolean => /^(id|.*[a-z]Id|.*_id|.*ID)$/.test(arg);

/** The reference an id argument names (`authorId`, `author_id`, `authorID` → `author`), or null. */
export function referenceOf(arg: string): string | null {
  return /^(.+?)(Id|_id|ID)$/.exec(arg)?.[1] ?? null;
}

/** Whether reference `ref` names the entity whose id is `value`. */
export const refNames = (ref: Ref, value: unknown): boolean => idText(value) !== null && idOfKey(ref.__ref) === idText(value);

/** An object, not an array or null: a GraphQL answer's object or a request body's. */
export const isPlainObject = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An identity value as the store keys it: ids are strings or integers in GraphQL answers. */
export function idText(v: unknown): string | null {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  if (typeof v === 'bigint') return v.toString();
  return null;
}

/**
 * Normalizes `value` (the answer to `set`) into `sink`, returning it with entities replaced by
 * references. An entity seen again gets the fields of this answer added (the latest answer
 * wins for a field asked twice).
 */
export function normalize(req: GqlRequest, set: SelectionSetNode, value: JsonValue, sink: Map<string, Entity>): NValue {
  if (Array.isArray(value)) return value.map((v) => normalize(req, set, v, sink));
  if (!isPlainObject(value)) return value;
  const fields = fieldsOf(req, set, typeof value.__typename === 'string' ? value.__typename : null);
  const typeField = fields.find((f) => f.name === '__typename');
  const idField = fields.find((f) => f.name === 'id' && Object.keys(f.args).length === 0);
  const typename = typeField ? value[typeField.responseKey] : undefined;
  const id = idField ? idText(value[idField.responseKey]) : null;
  const out: Record<string, NValue> = {};
  for (const f of fields) {
    if (!(f.responseKey in value)) continue;
    const v = value[f.responseKey];
    out[f.storeKey] = f.node.selectionSet && v !== null ? normalize(req, f.node.selectionSet, v, sink) : v;
  }
  if (typeof typename !== 'string' || id === null) return out;
  const key = entityKey(typename, id);
  const had = sink.get(key);
  if (had) Object.assign(had.fields, out);
  else sink.set(key, { typename, id, fields: out });
  return { __ref: key };
}

/** Why a rendering stopped: the field the store does not hold, on which object. */
export class Missing extends Error {
  constructor(
    readonly where: string,
    readonly field: string,
  ) {
    super(`the model holds no ${field} of ${where}`);
  }
}

/** How rendering reads the store: an entity by key (undefined when unknown). */
export type EntityLookup = (key: string) => Entity | undefined;

/**
 * The answer to `set` over the stored `value`, exactly the fields asked in the order asked
 * (aliases as response keys); throws Missing for a field the store does not hold.
 */
export function render(
  req: GqlRequest,
  set: SelectionSetNode,
  value: NValue,
  lookup: EntityLookup,
  isType: (n: string) => boolean,
): JsonValue {
  if (Array.isArray(value)) return value.map((v) => render(req, set, v, lookup, isType));
  if (value === null || typeof value !== 'object') return value as JsonValue;
  let where = 'an object';
  let stored = value as Record<string, NValue>;
  let typename: string | null = typeof stored.__typename === 'string' ? (stored.__typename as string) : null;
  if (isRef(value)) {
    const e = lookup(value.__ref);
    if (!e) throw new Missing(value.__ref, 'entity');
    stored = e.fields;
    typename = e.typename;
    where = value.__ref;
  }
  const out: Record<string, JsonValue> = {};
  for (const f of fieldsOf(req, set, typename, isType)) {
    if (f.name === '__typename' && typename !== null) {
      out[f.responseKey] = typename;
      continue;
    }
    if (!(f.storeKey in stored)) throw new Missing(where, f.storeKey);
    const v = stored[f.storeKey];
    out[f.responseKey] = f.node.selectionSet && v !== null ? render(req, f.node.selectionSet, v, lookup, isType) : (v as JsonValue);
  }
  return out;
}
