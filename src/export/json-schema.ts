/**
 * Issue 47: a JSON Schema (2020-12, OpenAPI 3.1's dialect) that every recorded value fits —
 * nothing more is claimed. Members present in every object are `required` (ES-21's reading:
 * a member an entity lacks is not one the app always sends); a format (date-time, date, a
 * UUID's) only where every string fits it; integers and numbers merge to `number`.
 */
import { objectEntries, type JsonValue } from '../json/exact.js';
import { isObject } from '../model/plan/json.js';

export type Schema = Record<string, JsonValue>;

/** JSON Schema's formats a capture's strings may all fit, by their JSON Schema names. */
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

/** Nested objects deeper than this are described as objects only (a capture's bodies may nest without end). */
const MAX_DEPTH = 12;

function typeOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (isObject(v)) return 'object';
  return typeof v;
}

/** The schema every one of `values` fits (an empty list of values: `{}`, anything). */
export function schemaOf(values: readonly JsonValue[], depth = 0): Schema {
  if (values.length === 0) return {};
  const types = [...new Set(values.map(typeOf))];
  if (types.includes('integer') && types.includes('number')) types.splice(types.indexOf('integer'), 1);
  const schema: Schema = { type: types.length === 1 ? types[0] : types.sort() };
  const strings = values.filter((v): v is string => typeof v === 'string');
  if (strings.length && strings.length === values.filter((v) => v !== null).length) {
    const format = Object.entries(FORMATS).find(([, re]) => strings.every((s) => re.test(s)))?.[0];
    if (format) schema.format = format;
  }
  const objects = values.filter(isObject);
  if (objects.length && depth < MAX_DEPTH) {
    const byKey = new Map<string, JsonValue[]>();
    for (const o of objects)
      for (const [k, v] of objectEntries(o)) {
        let seen = byKey.get(k);
        if (!seen) byKey.set(k, (seen = []));
        seen.push(v);
      }
    const properties: Schema = Object.create(null);
    for (const [k, vs] of byKey) properties[k] = schemaOf(vs, depth + 1);
    schema.properties = properties;
    const required = [...byKey].filter(([, vs]) => vs.length === objects.length).map(([k]) => k);
    if (required.length) schema.required = required;
  }
  const arrays = values.filter((v): v is JsonValue[] => Array.isArray(v));
  const elements = arrays.flat();
  if (elements.length && depth < MAX_DEPTH) schema.items = schemaOf(elements, depth + 1);
  return schema;
}
