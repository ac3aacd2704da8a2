/**
 * JSON work the state pass needs and SQL cannot do: reading and replacing a value at an
 * RFC 6901 pointer (IDN-6 `at` / `replaceAt`), and comparing values the way ES-37 does.
 * Values are the body owner's exact values (src/load/bodies.ts): objects may be Maps
 * (index-like keys keep their order) and 64-bit integers may be bigints.
 */
import { objectEntries, type JsonObject, type JsonValue } from '../../json/exact.js';
import { pointerTokens as tokens } from '../../json/pointer.js';

export function isObject(v: JsonValue | undefined): v is JsonObject | Map<string, JsonValue> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function child(v: JsonValue, token: string): JsonValue | undefined {
  if (Array.isArray(v)) return /^(0|[1-9]\d*)$/.test(token) ? v[Number(token)] : undefined;
  if (v instanceof Map) return v.get(token);
  if (isObject(v)) return Object.hasOwn(v, token) ? (v as JsonObject)[token] : undefined;
  return undefined;
}

/** IDN-6 `at`: the value at `pointer` (the root, a member, `/0`, `/<member>/0`, …), or undefined. */
export function at(v: JsonValue, pointer: string): JsonValue | undefined {
  let cur: JsonValue | undefined = v;
  for (const t of tokens(pointer)) {
    if (cur === undefined) return undefined;
    cur = child(cur, t);
  }
  return cur;
}

/** IDN-6 `replaceAt`: a copy of `v` with the value at `pointer` replaced (the path must exist). */
export function replaceAt(v: JsonValue, pointer: string, value: JsonValue): JsonValue {
  const ts = tokens(pointer);
  const go = (cur: JsonValue, i: number): JsonValue => {
    if (i === ts.length) return value;
    const t = ts[i];
    const next = child(cur, t);
    if (next === undefined) throw new Error(`replaceAt: nothing at ${pointer}`);
    if (Array.isArray(cur)) return cur.map((x, j) => (j === Number(t) ? go(x, i + 1) : x));
    if (cur instanceof Map) return new Map([...cur].map(([k, x]) => [k, k === t ? go(x, i + 1) : x]));
    const out: JsonObject = Object.create(null);
    for (const [k, x] of objectEntries(cur as JsonObject)) out[k] = k === t ? go(x, i + 1) : x;
    return out;
  };
  return go(v, 0);
}

/** The keys of an object value in their order. */
export function keysOf(v: JsonValue | undefined): string[] {
  return isObject(v) ? objectEntries(v).map(([k]) => k) : [];
}

/** An object's members as [name, value] pairs, in order (none for another value). */
export const entriesOf = (v: JsonValue | undefined): [string, JsonValue][] => keysOf(v).map((k) => [k, member(v, k)!]);

/** The member `key` of an object value, or undefined. */
export function member(v: JsonValue | undefined, key: string): JsonValue | undefined {
  return v === undefined ? undefined : isObject(v) ? child(v, key) : undefined;
}

/** Builds an object value from entries, keeping their order (a Map when keys are index-like). */
export function objectFrom(entries: [string, JsonValue][]): JsonObject | Map<string, JsonValue> {
  if (entries.some(([k]) => /^(0|[1-9]\d*)$/.test(k))) return new Map(entries);
  const out: JsonObject = Object.create(null);
  for (const [k, x] of entries) out[k] = x;
  return out;
}

/**
 * ES-37 equality: object members compared without regard to order, arrays in order,
 * numbers by value whatever their JavaScript type (number or bigint).
 */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    return typeof a === typeof b ? a === b : String(a) === String(b);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ea = objectEntries(a),
    eb = new Map(objectEntries(b));
  return ea.length === eb.size && ea.every(([k, x]) => eb.has(k) && jsonEqual(x, eb.get(k)));
}

/** OQ-23: code-point order (not UTF-16 code units). */
export function codePointSorted(xs: string[]): string[] {
  const cmp = (a: string, b: string) => {
    const [x, y] = [Array.from(a), Array.from(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
      if (d !== 0) return d;
    }
    return x.length - y.length;
  };
  return [...xs].sort(cmp);
}
