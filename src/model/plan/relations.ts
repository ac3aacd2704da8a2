/**
 * Embedded relations (issue 16, beyond ES-17..ES-19): a read whose query asks for related
 * entities inside each object — json-server's `?_embed=comments` (a post with its comments)
 * and `?_expand=post` (a comment with its post). The query value names the member the
 * server adds, so such a member is the relation's, not the entity's: the state keeps it out
 * of the merge and out of the plan checks (decisions: "Embedded relations"), and
 * serving adds it back from the model only where the stored state learned how
 * (src/model/served/relations.ts checks each reading against the recorded reads), on that
 * tool or, by the API's embed conventions, on any read another tool's relation covers
 * (embed-conventions.ts, issue 44).
 */
import type { JsonValue } from '../../json/exact.js';
import { isObject, jsonEqual, keysOf, member, objectFrom } from './json.js';
import { asPathValue } from './render.js';
import type { StateEntity } from './types.js';

/** A member that reads name in their query and the server adds to each object: `_embed=comments`. */
export interface EmbeddedMember {
  param: string;
  member: string;
}

/**
 * How the model fills an embedded member (learned per tool, src/model/served/relations.ts):
 * `children`, the entities of `collection` whose `field` equals the object's identity value
 * (a post's comments, `postId`); `parent`, the entity of `collection` whose id the object's
 * `field` names (a comment's post, `postId`), left out when there is none.
 */
export interface Relation extends EmbeddedMember {
  kind: 'children' | 'parent';
  collection: string;
  field: string;
}

/** A plan's embedded members, each with the relation learned for it (none: calls naming it replay). */
export type EmbeddedMembers = (EmbeddedMember & { relation?: Relation })[];

/**
 * The members a read's query asks the server to embed in `object`: a query value that names
 * a member the object carries as an object or an array (a filter value that happens to be a
 * member's name names a scalar, or nothing). Pagination, ordering and projection keys never do.
 */
export function embeddedIn(
  object: JsonValue | undefined,
  pairs: readonly { name: string; value: string }[],
  isShaping: (name: string) => boolean,
): EmbeddedMember[] {
  if (!isObject(object)) return [];
  const out: EmbeddedMember[] = [];
  for (const { name, value } of pairs) {
    if (!isShaping(name) || value === '') continue;
    const v = member(object, value);
    if ((isObject(v) || Array.isArray(v)) && !out.some((e) => e.member === value)) out.push({ param: name, member: value });
  }
  return out;
}

/** The object without the embedded members (the entity's own members, in order). */
export function withoutEmbedded(object: JsonValue, embedded: readonly EmbeddedMember[]): JsonValue {
  if (!isObject(object) || embedded.length === 0) return object;
  const drop = new Set(embedded.map((e) => e.member));
  return objectFrom(
    keysOf(object)
      .filter((k) => !drop.has(k))
      .map((k) => [k, member(object, k)!]),
  );
}

/** What a relation reads from the model: a collection's entities in state order, or one by id. */
export interface RelationSource {
  all(collection: string): Promise<StateEntity[]> | StateEntity[];
  entity(collection: string, id: string): Promise<StateEntity | undefined> | StateEntity | undefined;
}

/** `posts` → `post`, `policies` → `policy`, `boxes` → `box` (a collection's word for one of its entities). */
export function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/** The spellings of a field that names one `word` entity, most likely first: `postId`, `post_id`. */
export const namingFields = (word: string): string[] => [`${word}Id`, `${word}_id`];

/**
 * The spelling pattern of a field that names one `word` entity: what follows the word (`Id` in
 * `postId`, an underscore and id in `post_id`), or undefined when the field does not start with the word
 * (`authorId` for a user): such a field is one relation's, not a habit of the API.
 */
export function namingSuffix(field: string, word: string): string | undefined {
  return field.length > word.length && field.startsWith(word) ? field.slice(word.length) : undefined;
}

/**
 * The readings to try for one embedded member, most likely first: children of the
 * collection the member names, by the field named for this collection (`postId`,
 * `post_id`) then any other; the parent whose collection's name for one entity is the
 * member (`post` in `posts`), by the field named for it, then any other.
 */
export function candidates(
  m: { param: string; member: string },
  collection: string,
  collections: string[],
  fieldsOf: (c: string) => string[],
): Relation[] {
  const out: Relation[] = [];
  const one = singular(collection);
  for (const c of collections.filter((c) => c === m.member)) {
    const fields = fieldsOf(c);
    for (const field of [...namingFields(one).filter((f) => fields.includes(f)), ...fields.filter((f) => !namingFields(one).includes(f))])
      out.push({ ...m, kind: 'children', collection: c, field });
  }
  for (const c of collections.filter((c) => singular(c) === m.member)) {
    const fields = fieldsOf(collection);
    for (const field of [
      ...namingFields(m.member).filter((f) => fields.includes(f)),
      ...fields.filter((f) => !namingFields(m.member).includes(f)),
    ])
      out.push({ ...m, kind: 'parent', collection: c, field });
  }
  return out;
}

/**
 * The embedded member's value for an object, or undefined when the server would leave it
 * out: children whose field equals the object's identity value (the same JSON value, as
 * json-server's filter compares it), or the parent the object's field names.
 */
export async function relatedValue(
  object: JsonValue,
  identityField: string,
  r: Relation,
  source: RelationSource,
): Promise<JsonValue | undefined> {
  if (r.kind === 'children') {
    const own = member(object, identityField);
    if (own === undefined) return undefined;
    return (await source.all(r.collection)).filter((e) => jsonEqual(member(e.value, r.field), own)).map((e) => e.value);
  }
  const id = asPathValue(member(object, r.field));
  return id === undefined ? undefined : (await source.entity(r.collection, id))?.value;
}

/** The object with each relation's member added at its end (after the entity's own members), or left out where the relation gives none. */
export async function withRelations(
  object: JsonValue,
  identityField: string,
  relations: readonly Relation[],
  source: RelationSource,
): Promise<JsonValue> {
  if (!isObject(object) || relations.length === 0) return object;
  const entries: [string, JsonValue][] = keysOf(object)
    .filter((k) => !relations.some((r) => r.member === k))
    .map((k) => [k, member(object, k)!]);
  for (const r of relations) {
    const v = await relatedValue(object, identityField, r, source);
    if (v !== undefined) entries.push([r.member, v]);
  }
  return objectFrom(entries);
}

/** A relation in words, for tool descriptions and answers: `the comments whose postId is its id`. */
export function relationWords(r: Relation): string {
  return r.kind === 'children' ? `the ${r.collection} whose ${r.field} is its id` : `the ${r.collection} entity its ${r.field} names`;
}
