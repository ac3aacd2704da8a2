/**
 * The single owner of body classification and exact JSON (ES-4, ES-5, DESC-6, OQ-33,
 * OQ-34). Loaders hand every retained body here; nothing else decodes bodies or parses
 * JSON out of them. Replay, the state view and descriptions read the result from the
 * store (`body.kind`, `member`) or call these functions.
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import JSONbig from 'json-bigint';
import BigNumber from 'bignumber.js';

export type BodyKind = 'none' | 'base64' | 'cut' | 'json' | 'text';

/** Why a retained body is not usable for state. */
export type UnusableReason =
  | 'no-body' | 'binary' | 'cut' | 'not-json' | 'oversize' | 'invalid-utf8' | 'invalid-unicode'
  | 'too-deep' | 'invalid-json' | 'duplicate-key' | 'proto-member' | 'inexact-number';

/** ES-4: bodies larger than this (decoded bytes) are not parsed. */
export const MAX_USABLE_BODY_BYTES = 256 * 1024;
/** Nesting deeper than this is unusable; it also bounds the recursive parser's stack. */
export const MAX_BODY_DEPTH = 512;

/** What a capture retained of one body, before classification. */
export interface RetainedBody {
  /** Absent when the capture kept no body (HAR `content.text` missing). */
  text?: string;
  /** Present when the producer retained bytes (base64 already decoded). */
  bytes?: Buffer;
  mediaType: string | null;
  /** The producer says only part of the body was retained. */
  isCut: boolean;
}

export interface ClassifiedBody {
  kind: BodyKind;
  sha256: string;
  /** The stored bytes: exactly what `sha256` covers. */
  bytes: Buffer;
  /** TEXT for UTF-8 bodies, BLOB otherwise; the same bytes either way. */
  content: string | Buffer;
  isUsable: boolean;
  reason: UnusableReason | null;
  /**
   * The exact JSON value when `kind` is `json` and the body is not flattened by SQLite
   * (`treeText` absent). Either `value` or `treeText` is set for a `json` body.
   */
  value?: JsonValue;
  /**
   * ES-5: the accepted text, when `acceptsForTree` found that SQLite's `json_tree` over it
   * gives exactly the member rows `flattenMembers` gives for the exact value (the writer
   * then flattens it in SQLite, src/load/member-tree.ts).
   */
  treeText?: string;
}

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

const EMPTY = Buffer.alloc(0);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const exactParser = JSONbig({ strict: true, protoAction: 'preserve', constructorAction: 'preserve' });

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function essence(mediaType: string | null): string {
  return (mediaType ?? '').split(';')[0].trim().toLowerCase();
}

/** OQ-34: JSON media types. */
export function isJsonMediaType(mediaType: string | null): boolean {
  const m = essence(mediaType);
  return m === 'application/json' || m === 'text/json' || m.endsWith('+json');
}

const GENERIC = new Set(['', 'text/plain', 'application/octet-stream', 'binary/octet-stream']);

/** Media types whose bytes are text (kept as text when a producer base64-encoded them). */
export function isTextMediaType(mediaType: string | null): boolean {
  const m = essence(mediaType);
  return m.startsWith('text/') || isJsonMediaType(mediaType) || m.endsWith('+xml') || m.endsWith('/xml')
    || m === 'application/javascript' || m === 'application/x-www-form-urlencoded' || m === 'application/graphql';
}

function firstNonSpace(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c;
  }
  return -1;
}

/** OQ-34: JSON-like = a JSON media type, or no/generic media type and a body starting `{` or `[`. */
export function isJsonLike(mediaType: string | null, bytes: Buffer): boolean {
  if (isJsonMediaType(mediaType)) return true;
  if (!GENERIC.has(essence(mediaType))) return false;
  const c = firstNonSpace(bytes);
  return c === 0x7b || c === 0x5b;
}

/** Strict base64 (RFC 4648 alphabet, padding, line breaks allowed); null when invalid. */
export function decodeBase64Strict(text: string): Buffer | null {
  const s = /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, '') : text;
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  return Buffer.from(s, 'base64');
}

/** Deepest nesting of `{`/`[` outside strings; stops counting past `limit`. */
function nestingDepth(bytes: Buffer, limit: number): number {
  let depth = 0, max = 0, inStr = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inStr) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inStr = false;
    } else if (c === 0x22) inStr = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) { max = depth; if (max > limit) return max; }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

type ParseResult = { ok: true; value: JsonValue } | { ok: false; reason: UnusableReason; detail: string };

/**
 * Parses exact JSON (ES-4): duplicate keys, `__proto__` members at any depth, integers
 * outside 64 bits and decimals a double cannot hold digit for digit are rejected, so
 * whatever is accepted survives SQLite and comes back the same.
 */
export function parseExactJson(text: string): ParseResult {
  const bytes = Buffer.from(text, 'utf8');
  if (nestingDepth(bytes, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    return { ok: false, reason: 'too-deep', detail: `nesting deeper than ${MAX_BODY_DEPTH} levels` };
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
  constructor(readonly reason: UnusableReason, message: string) { super(message); }
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
      if (big.toString() !== new BigNumber(String(v)).toFixed()) throw new Unusable('inexact-number', `number ${String(v)} has more digits than a double keeps`);
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
    if (!new BigNumber(String(n)).eq(bn)) throw new Unusable('inexact-number', `number ${bn.toString()} has more digits than a double keeps`);
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
    if (c === 0x7b) { stack.push(orders.length); orders.push([]); } else if (c === 0x7d) stack.pop();
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

/** Classifies one retained body (OQ-33) and, for JSON, parses it exactly (ES-4). */
export function classifyRetainedBody(body: RetainedBody): ClassifiedBody {
  let bytes: Buffer;
  let fromText = false;
  if (body.bytes !== undefined) bytes = body.bytes;
  else if (body.text !== undefined) {
    bytes = Buffer.from(body.text, 'utf8');
    fromText = true;
  } else bytes = EMPTY;

  const make = (kind: BodyKind, reason: UnusableReason | null, value?: JsonValue, treeText?: string): ClassifiedBody => {
    const utf8 = fromText || isUtf8(bytes);
    return {
      kind, sha256: sha256Hex(bytes), bytes,
      content: treeText ?? (kind !== 'base64' && utf8 ? bytes.toString('utf8') : bytes),
      isUsable: kind === 'json', reason, value, treeText,
    };
  };

  if (bytes.length === 0 && !body.isCut) return make('none', 'no-body');
  if (body.isCut) return make('cut', 'cut');
  if (fromText && !body.text!.isWellFormed()) return make('text', 'invalid-unicode');
  const jsonLike = isJsonLike(body.mediaType, bytes);
  if (!fromText && !jsonLike && !isTextMediaType(body.mediaType)) return make('base64', 'binary');
  if (!fromText && !isUtf8(bytes)) return make(jsonLike ? 'text' : 'base64', jsonLike ? 'invalid-utf8' : 'binary');
  if (!jsonLike) return make('text', 'not-json');
  if (bytes.length > MAX_USABLE_BODY_BYTES) return make('text', 'oversize');
  const text = fromText ? body.text! : bytes.toString('utf8');
  // Most bodies take the fast road; the rest (and every body refused) go through the exact
  // parser, which also names the reason a body is unusable.
  if (acceptsForTree(text)) return make('json', null, undefined, text);
  const parsed = parseExactJson(text);
  if (!parsed.ok) return make('text', parsed.reason);
  return make('json', null, parsed.value);
}

const INT_TOKEN = /^-?(0|[1-9][0-9]*)$/;

function simpleNumber(tok: string): boolean {
  if (INT_TOKEN.test(tok)) {
    if (tok === '-0') return false;
    if (tok.length <= 16) return true; // at most 15 digits (and a sign): well inside 64 bits
    const big = BigInt(tok);
    return big >= INT64_MIN && big <= INT64_MAX;
  }
  // A decimal a double holds digit for digit, already in its shortest form, and not an
  // integer (`1.0` and `1e2` are integers to the exact parser, reals to SQLite).
  const v = Number(tok);
  return Number.isFinite(v) && !Number.isInteger(v) && String(v) === tok;
}

/**
 * ES-4/ES-5: true when `text` is JSON the exact parser accepts as it stands *and* SQLite's
 * `json_tree` over it yields the very member rows `flattenMembers(parseExactJson(text))`
 * writes: no duplicate keys, no `__proto__`, nesting within MAX_BODY_DEPTH; integers written
 * as plain integers within 64 bits (json_tree keeps them INTEGER, exact); decimals in the
 * shortest form of a non-integral double (SQLite reads them to the same double); no
 * `\u0000` or surrogate escapes (SQLite would decode them otherwise than JavaScript); member
 * names without escapes or any of `. ~ / " [ ]` (their json_tree path maps onto the RFC 6901
 * pointer by plain replacement). False means "not on the fast road", never "unusable":
 * the caller then parses with parseExactJson, which decides.
 */
export function acceptsForTree(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const n = text.length;
  // Containers open and not yet closed; and every member name in the text, counted.
  let depth = 0;
  let names = 0;
  let nextBackslash = text.indexOf('\\');
  if (nextBackslash === -1) nextBackslash = n;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i + 1;
      let j = start;
      let escaped = false;
      let q = text.indexOf('"', j);
      while (nextBackslash < q) {
        // JSON.parse accepted the text, so every escape is well formed.
        escaped = true;
        if (text.charCodeAt(nextBackslash + 1) === 0x75) {
          const unit = parseInt(text.slice(nextBackslash + 2, nextBackslash + 6), 16);
          if (unit === 0 || (unit >= 0xd800 && unit <= 0xdfff)) return false;
          j = nextBackslash + 6;
        } else j = nextBackslash + 2;
        nextBackslash = text.indexOf('\\', j);
        if (nextBackslash === -1) nextBackslash = n;
        if (q < j) q = text.indexOf('"', j);
      }
      i = q + 1;
      // In JSON text that parsed, a string followed by `:` is a member name.
      let k = i;
      while (k < n) { const w = text.charCodeAt(k); if (w !== 0x20 && w !== 0x0a && w !== 0x0d && w !== 0x09) break; k++; }
      if (text.charCodeAt(k) === 0x3a) {
        if (escaped || !plainName(text, start, q)) return false;
        names++;
        i = k + 1;
      }
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_BODY_DEPTH) return false;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d)) break;
      }
      if (!simpleNumber(text.slice(i, j))) return false;
      i = j;
      continue;
    }
    i++;
  }
  // JSON.parse keeps one member per distinct name in an object (the last): fewer members
  // in the value than names in the text means a name appears twice in one object. Names
  // are unescaped here, so equal texts are equal names.
  return countMembers(value) === names;
}

/** A member name json_tree's paths spell as its RFC 6901 token: not `__proto__`, none of `. ~ / " [ ]`. */
function plainName(text: string, start: number, end: number): boolean {
  if (end - start === 9 && text.startsWith('__proto__', start)) return false;
  for (let x = start; x < end; x++) {
    const c = text.charCodeAt(x);
    if (c === 0x2e || c === 0x7e || c === 0x2f || c === 0x22 || c === 0x5b || c === 0x5d) return false;
  }
  return true;
}

/** Object members in a parsed value, at every depth (the value nests at most MAX_BODY_DEPTH deep). */
function countMembers(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let count = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) { const x = v[i]; if (x !== null && typeof x === 'object') count += countMembers(x); }
    return count;
  }
  for (const k in v as object) {
    count++;
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object') count += countMembers(x);
  }
  return count;
}

/** One `member` row (schema/member.sql). */
export interface MemberRow {
  pointer: string;
  parentPointer: string | null;
  key: string | null;
  position: number;
  depth: number;
  type: 'object' | 'array' | 'string' | 'integer' | 'real' | 'true' | 'false' | 'null';
  /** Integers (and true/false as 1/0) are bigint so they bind as SQLite INTEGER. */
  value: string | number | bigint | null;
}

function escapePointerToken(k: string): string {
  return k.includes('~') || k.includes('/') ? k.replace(/~/g, '~0').replace(/\//g, '~1') : k;
}

/** Flattens an exact JSON value into member rows, the root first, in document order. */
export function flattenMembers(root: JsonValue, emit: (row: MemberRow) => void): void {
  const walk = (v: JsonValue, pointer: string, parent: string | null, key: string | null, position: number, depth: number) => {
    if (v === null) emit({ pointer, parentPointer: parent, key, position, depth, type: 'null', value: null });
    else if (typeof v === 'string') emit({ pointer, parentPointer: parent, key, position, depth, type: 'string', value: v });
    // Integers go to SQLite as bigint: a JS number binds as REAL, which an ANY column keeps.
    else if (typeof v === 'boolean') emit({ pointer, parentPointer: parent, key, position, depth, type: v ? 'true' : 'false', value: v ? 1n : 0n });
    else if (typeof v === 'bigint') emit({ pointer, parentPointer: parent, key, position, depth, type: 'integer', value: v });
    else if (typeof v === 'number') {
      if (Number.isInteger(v)) emit({ pointer, parentPointer: parent, key, position, depth, type: 'integer', value: BigInt(v) });
      else emit({ pointer, parentPointer: parent, key, position, depth, type: 'real', value: v });
    }
    else if (Array.isArray(v)) {
      emit({ pointer, parentPointer: parent, key, position, depth, type: 'array', value: null });
      for (let i = 0; i < v.length; i++) walk(v[i], `${pointer}/${i}`, pointer, null, i, depth + 1);
    } else {
      emit({ pointer, parentPointer: parent, key, position, depth, type: 'object', value: null });
      let i = 0;
      for (const [k, x] of objectEntries(v)) walk(x, `${pointer}/${escapePointerToken(k)}`, pointer, k, i++, depth + 1);
    }
  };
  walk(root, '', null, null, 0, 0);
}

/** Rebuilds the exact JSON value from member rows (any order); the inverse of flattenMembers. */
export function membersToValue(rows: Iterable<MemberRow>): JsonValue {
  const byPointer = new Map<string, MemberRow>();
  const children = new Map<string, MemberRow[]>();
  for (const r of rows) {
    byPointer.set(r.pointer, r);
    if (r.parentPointer !== null) {
      const list = children.get(r.parentPointer) ?? [];
      list.push(r);
      children.set(r.parentPointer, list);
    }
  }
  const build = (r: MemberRow): JsonValue => {
    switch (r.type) {
      case 'null': return null;
      case 'true': return true;
      case 'false': return false;
      case 'string': return r.value as string;
      case 'integer': {
        const v = r.value as number | bigint;
        return typeof v === 'bigint' && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      case 'real': return Number(r.value);
      case 'array': return (children.get(r.pointer) ?? []).sort((a, b) => a.position - b.position).map(build);
      case 'object': {
        const kids = (children.get(r.pointer) ?? []).sort((a, b) => a.position - b.position);
        if (kids.some((c) => INDEX_LIKE.test(c.key as string))) return new Map(kids.map((c) => [c.key as string, build(c)]));
        const out: JsonObject = Object.create(null);
        for (const c of kids) out[c.key as string] = build(c);
        return out;
      }
    }
  };
  const root = byPointer.get('');
  if (!root) throw new Error('no root member');
  return build(root);
}

/** Exact JSON → plain objects (objects with index-like keys arrive from `parseExactJson` as Maps); bigints stay. */
export function plainJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plainJson);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plainJson(x)]));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x)]));
  return v;
}

/**
 * Canonical JSON (RFC 8785, OQ-43), for digests and for comparing values by content: object members sorted by their UTF-16 code units, no whitespace, numbers in
 * ECMAScript's shortest round-trip form (what JSON.stringify writes), strings escaped as
 * JSON.stringify escapes them. Integers held as bigint keep their digits. `undefined`
 * members are left out, as JSON leaves them out.
 */
export function canonicalJson(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean': return v ? 'true' : 'false';
    case 'string': return JSON.stringify(v);
    case 'bigint': return v.toString();
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`canonical JSON has no form for ${v}`);
      return JSON.stringify(v);
    case 'object': {
      if (Array.isArray(v)) return '[' + v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',') + ']';
      const entries = v instanceof Map ? [...v] as [string, unknown][] : Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]] as [string, unknown]);
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      const kept = entries.filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return '{' + kept.map(([k, x]) => JSON.stringify(k) + ':' + canonicalJson(x)).join(',') + '}';
    }
    default:
      throw new Error(`canonical JSON has no form for a ${typeof v}`);
  }
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
