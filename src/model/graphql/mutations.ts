/**
 * @rule GQL-5
 * Issue 48 (GQL-5, mutations): what each mutation field of the capture does, read from its
 * recorded answers — a create (a new entity whose fields are the arguments' and the app's own
 * defaults, its id the next integer), an update (the named entity with the given fields
 * merged), a delete (the named entity gone; the answer its id or `true`). The capture's later
 * reads then check each one (verify.ts): only a checked mutation changes the model.
 */
import { canonicalJson } from '../../json/canonical.js';
import type { JsonValue } from '../../json/exact.js';
import type { GqlRecord } from './learn.js';
import {
  entityKey,
  idText,
  isIdArg,
  isPlainObject,
  isRef,
  referenceOf,
  refNames,
  typeOfKey,
  type Entity,
  type NValue,
} from './normalize.js';
import { fieldsOf } from './request.js';

export interface MutationConvention {
  name: string;
  kind: 'create' | 'update' | 'delete';
  typename: string;
  /** Update and delete: the argument naming the entity. */
  idArg?: string;
  /** The object argument that holds the fields (`input`), or null when they are arguments of their own. */
  inputArg: string | null;
  /** A given key → the entity field it sets (`authorId` → the `author` reference). */
  fieldMap: Record<string, { field: string; refType?: string }>;
  /** Create: the fields the app set itself, as its answers gave them. */
  defaults: Record<string, JsonValue>;
  /** What the field answers: the entity, the id asked, or `true`. */
  result: 'entity' | 'id' | 'boolean';
  /** What the field answered for an id the app does not hold, when the capture shows it. */
  missing?: JsonValue;
  /** Set by verify.ts: the capture's answers after it agree with the model's. */
  verified: boolean;
  /** Why it is not verified, in plain words. */
  refuted?: string;
}

/** A date-time the app stamped: a clock, which the model cannot know for a new write (ES-29). */
const CLOCK = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

const same = (a: NValue | undefined, b: JsonValue) => a !== undefined && canonicalJson(a as JsonValue) === canonicalJson(b);

/** The fields a call gives: its input object's members and its other arguments, the id argument aside. */
export function givenFields(
  args: Record<string, JsonValue>,
  idArg: string | undefined,
): { inputArg: string | null; given: Record<string, JsonValue> } {
  const rest = Object.entries(args).filter(([k]) => k !== idArg);
  const objects = rest.filter(([, v]) => isPlainObject(v));
  if (objects.length === 1) {
    const [name, value] = objects[0];
    return { inputArg: name, given: { ...Object.fromEntries(rest.filter(([k]) => k !== name)), ...(value as Record<string, JsonValue>) } };
  }
  return { inputArg: null, given: Object.fromEntries(rest) };
}

/** Maps each given key to the entity field it set in `e`, where the answer shows it. */
function mapFields(given: Record<string, JsonValue>, e: Entity): Record<string, { field: string; refType?: string }> {
  const out: Record<string, { field: string; refType?: string }> = {};
  for (const [k, v] of Object.entries(given)) {
    if (same(e.fields[k], v)) out[k] = { field: k };
    else {
      const field = referenceOf(k);
      const ref = field ? e.fields[field] : undefined;
      if (field && isRef(ref) && refNames(ref, v)) out[k] = { field, refType: typeOfKey(ref.__ref) };
    }
  }
  return out;
}

/** GQL-3: the type a mutation field names by its verb (`deletePost` → Post), when the answers know it. */
export function namedType(field: string, types: Set<string>): string | null {
  const m = /^(?:create|add|insert|new|update|edit|set|patch|upsert|delete|remove|destroy)_?(.+)$/i.exec(field);
  if (!m) return null;
  const name = m[1].charAt(0).toUpperCase() + m[1].slice(1);
  return types.has(name) ? name : null;
}

export function learnMutations(records: GqlRecord[], initial: Map<string, Entity>, types: Set<string>): Map<string, MutationConvention> {
  const out = new Map<string, MutationConvention>();
  const known = new Set(initial.keys());
  const missing = new Map<string, JsonValue>();
  for (const r of records) {
    for (const key of r.shown.keys()) if (r.req.kind === 'query') known.add(key);
    if (r.req.kind !== 'mutation' || !r.root) continue;
    for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
      if (!(f.storeKey in r.root)) continue;
      const v = r.root[f.storeKey];
      const had = out.get(f.name);
      if (isRef(v)) {
        const e = r.shown.get(v.__ref)!;
        const idArg = Object.entries(f.args).find(([k, a]) => isIdArg(k) && idText(a) === e.id)?.[0];
        const kind = idArg && known.has(v.__ref) ? 'update' : idArg ? null : 'create';
        if (!kind || (had && (had.kind !== kind || had.typename !== e.typename))) {
          out.delete(f.name);
          continue;
        }
        const { inputArg, given } = givenFields(f.args, idArg);
        const fieldMap = { ...had?.fieldMap, ...mapFields(given, e) };
        const mapped = new Set(Object.values(fieldMap).map((m) => m.field));
        const defaults: Record<string, JsonValue> = { ...had?.defaults };
        if (kind === 'create')
          for (const [k, x] of Object.entries(e.fields)) {
            if (k === 'id' || k === '__typename' || mapped.has(k) || k.includes('(')) continue;
            if (x === null || typeof x !== 'object') {
              if (typeof x === 'string' && CLOCK.test(x)) continue;
              defaults[k] = x as JsonValue;
            }
          }
        out.set(f.name, {
          name: f.name,
          kind,
          typename: e.typename,
          idArg,
          inputArg,
          fieldMap,
          defaults,
          result: 'entity',
          verified: false,
        });
        known.add(v.__ref);
      } else {
        const idEntry = Object.entries(f.args).find(([k, a]) => isIdArg(k) && idText(a) !== null);
        const typename = namedType(f.name, types);
        if (!idEntry || !typename) continue;
        const key = entityKey(typename, idText(idEntry[1])!);
        if (!known.has(key)) {
          // The app's answer for an id it does not hold (null, false).
          missing.set(f.name, v as JsonValue);
          continue;
        }
        if (!/^(delete|remove|destroy)/i.test(f.name)) continue;
        const result = v === true ? 'boolean' : idText(v) === idText(idEntry[1]) ? 'id' : null;
        if (!result) continue;
        out.set(f.name, {
          name: f.name,
          kind: 'delete',
          typename,
          idArg: idEntry[0],
          inputArg: null,
          fieldMap: {},
          defaults: {},
          result,
          verified: false,
        });
      }
    }
  }
  for (const [name, v] of missing) {
    const c = out.get(name);
    if (c) c.missing = v;
  }
  return out;
}
