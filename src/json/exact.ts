/**
 * Exact JSON (ES-4, OQ-30): the one parser and the one writer every layer uses. Integers
 * beyond 2^53 stay `bigint`, objects keep their key order (a `Map` when a key looks like
 * an array index), and whatever the parser accepts survives SQLite and comes back the same.
 * The ground floor: this module imports nothing of capstate.
 */
import JSONbig from 'json-bigint';
import BigNumber from 'bignumber.js';

/** Why a text is not exact JSON (each is also a body's unusable reason, ES-4). */
export type ExactJsonFailure = 'too-deep' | 'invalid-json' | 'duplicate-key' | 'proto-member' | 'inexact-number';

/** Nesting deeper than this is refused; it also bounds the recursive parser's stack. */
export const MAX_JSON_DEPTH = 512;

/**
 * An exact JSON value: integers beyond 2^53 are `bigint`; objects have no prototype. An
 * object with an array-index-like key (`"2"`) is a `Map`, because JavaScript objects list
 * such keys first and the body's key order matters (IDN-1).
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject | Map<string, JsonValue>;
export type JsonObject = { [key: string]: JsonValue };

const INDEX_LIKE = /^(0|[1-9]\d{0,9})$/;

/** The entries of an object in body order, whichever representation it has. */
export function objectEntries(v: JsonObject | Map<string, JsonValue>): [string, JsonValue][] {
  return v instanceof Map ? [...v] : Object.keys(v).map((k) => [k, v[k]]);
}

/** The integers SQLite stores exactly. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const exactParser = JSONbig({ strict: true, protoAction: 'preserve', constructorAction: 'preserve' });

/** Deepest nesting of `{`/`[` outside strings; stops counting past `limit`. */
function nestingDepth(bytes: Buffer, limit: number): number {
  let depth = 0,
    max = 0,
    inStr = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inStr) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inStr = false;
    } else if (c === 0x22) inStr = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

export type ExactJsonResult = { ok: true; value: JsonValue } | { ok: false; reason: ExactJsonFailure; detail: string };

/**
 * Parses exact JSON (ES-4): duplicate keys, `__proto__` members at any depth, integers
 * outside 64 bits and decimals a double cannot hold digit for digit are rejected, so
 * whatever is accepted survives SQLite and comes back the same.
 */
export function parseExactJson(text: string): ExactJsonResult {
  const bytes = Buffer.from(text, 'utf8');
  if (nestingDepth(bytes, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    return { ok: false, reason: 'too-deep', detail: `nesting deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let raw: unknown;
  try {
    raw = exactParser.parse(text);
  } catch (e) {
    const msg = (e as { message?: string }).message ?? String(e);
    if (/Duplicate key/.test(msg)) return { ok: false, reason: 'duplicate-key', detail: msg };
    if (/Bad number/.test(msg)) return { ok: false, reason: 'inexact-number', detail: msg };
    return { ok: false, reason: 'invalid-json', detail: msg };
  }
  try {
    const needsOrder = { found: false };
    const value = toExact(raw, needsOrder);
    // Objects with index-like keys lost their order in the parser: rebuild them in body order.
    return { ok: true, value: needsOrder.found ? reorder(value, objectKeyOrders(text)) : value };
  } catch (e) {
    if (e instanceof Unusable) return { ok: false, reason: e.reason, detail: e.message };
    throw e;
  }
}

class Unusable extends Error {
  constructor(
    readonly reason: ExactJsonFailure,
    message: string,
  ) {
    super(message);
  }
}

function toExact(v: unknown, needsOrder: { found: boolean }): JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    // json-bigint hands number tokens of up to 15 characters over as doubles, so `1e20` or
    // `1.5e300` arrive as integral doubles beyond 2^53: exact only within 64 bits and when
    // the double is the decimal the token spells (ES-4).
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) {
      const big = BigInt(v);
      if (big < INT64_MIN || big > INT64_MAX) throw new Unusable('inexact-number', `integer ${String(v)} is outside 64 bits`);
      if (big.toString() !== new BigNumber(String(v)).toFixed())
        throw new Unusable('inexact-number', `number ${String(v)} has more digits than a double keeps`);
      return big;
    }
    return v;
  }
  if (BigNumber.isBigNumber(v)) {
    const bn = v as BigNumber;
    if (bn.isInteger()) {
      const big = BigInt(bn.toFixed());
      if (big < INT64_MIN || big > INT64_MAX) throw new Unusable('inexact-number', `integer ${bn.toFixed()} is outside 64 bits`);
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    }
    const n = bn.toNumber();
    if (!new BigNumber(String(n)).eq(bn))
      throw new Unusable('inexact-number', `number ${bn.toString()} has more digits than a double keeps`);
    return n;
  }
  if (Array.isArray(v)) return v.map((x) => toExact(x, needsOrder));
  const out: JsonObject = Object.create(null);
  for (const k of Object.keys(v as object)) {
    if (k === '__proto__') throw new Unusable('proto-member', 'the body has a "__proto__" member');
    if (INDEX_LIKE.test(k)) needsOrder.found = true;
    out[k] = toExact((v as Record<string, unknown>)[k], needsOrder);
  }
  return out;
}

/** The key sequence of every object in `text`, in the order the objects open. */
function objectKeyOrders(text: string): string[][] {
  const orders: string[][] = [];
  const stack: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i++;
      while (text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      let j = i;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === ':' && stack.length) orders[stack[stack.length - 1]].push(JSON.parse(text.slice(start, i)));
      continue;
    }
    if (c === 0x7b) {
      stack.push(orders.length);
      orders.push([]);
    } else if (c === 0x7d) stack.pop();
    i++;
  }
  return orders;
}

/** Rebuilds objects in body order; those with index-like keys become Maps. */
function reorder(v: JsonValue, orders: string[][]): JsonValue {
  let next = 0;
  const walk = (x: JsonValue): JsonValue => {
    if (Array.isArray(x)) return x.map(walk);
    if (x === null || typeof x !== 'object' || x instanceof Map) return x;
    const keys = orders[next++];
    const obj = x as JsonObject;
    if (!keys.some((k) => INDEX_LIKE.test(k))) {
      for (const k of keys) obj[k] = walk(obj[k]);
      return obj;
    }
    return new Map(keys.map((k) => [k, walk(obj[k])]));
  };
  return walk(v);
}

/**
 * ES-5: a text the owner has already accepted as exact (a body stored `json` and usable, a
 * stored state value), parsed by the engine's JSON.parse where that gives the very value
 * `parseExactJson` gives: no integer beyond 2^53, no array-index-like key (whose order
 * JSON.parse would change), no -0. Anything else — or a text that was not accepted after
 * all — takes `parseExactJson`, which decides. Several times faster on ordinary bodies.
 */
export function parseAcceptedJson(text: string): ExactJsonResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return parseExactJson(text);
  }
  const out = fromPlain(raw);
  return out === FALLBACK ? parseExactJson(text) : { ok: true, value: out };
}

const FALLBACK = Symbol('fallback');

function fromPlain(v: unknown): JsonValue | typeof FALLBACK {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number')
    return Number.isSafeInteger(v) || (!Number.isInteger(v) && Number.isFinite(v)) ? (Object.is(v, -0) ? FALLBACK : v) : FALLBACK;
  if (Array.isArray(v)) {
    const a: JsonValue[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = fromPlain(v[i]);
      if (x === FALLBACK) return FALLBACK;
      a[i] = x;
    }
    return a;
  }
  const o: JsonObject = Object.create(null);
  for (const k of Object.keys(v as object)) {
    if (k === '__proto__' || INDEX_LIKE.test(k)) return FALLBACK;
    const x = fromPlain((v as Record<string, unknown>)[k]);
    if (x === FALLBACK) return FALLBACK;
    o[k] = x;
  }
  return o;
}

/** Exact JSON → plain objects (objects with index-like keys arrive from `parseExactJson` as Maps); bigints stay. */
export function plainJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plainJson);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plainJson(x)]));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x)]));
  return v;
}

/**
 * JSON with exact integers (OQ-30): bigint digits as written, key order kept. Compact (no
 * whitespace) by default, which is what sizes and digests are taken of; `indent` pretty-prints.
 */
export function stringifyExact(v: JsonValue, indent = 0): string {
  const go = (x: JsonValue, pad: string): string => {
    if (x === null) return 'null';
    if (typeof x === 'bigint') return x.toString();
    if (typeof x === 'number' || typeof x === 'boolean' || typeof x === 'string') return JSON.stringify(x);
    const inner = indent ? pad + ' '.repeat(indent) : '';
    const [open, sep, close] = indent ? ['\n' + inner, ',\n' + inner, '\n' + pad] : ['', ',', ''];
    if (Array.isArray(x)) return x.length === 0 ? '[]' : '[' + open + x.map((y) => go(y, inner)).join(sep) + close + ']';
    const entries = objectEntries(x);
    if (entries.length === 0) return '{}';
    return '{' + open + entries.map(([k, y]) => JSON.stringify(k) + (indent ? ': ' : ':') + go(y, inner)).join(sep) + close + '}';
  };
  return go(v, '');
}
