/**
 * The single owner of body classification (ES-4, ES-5, DESC-6, OQ-33, OQ-34). Loaders
 * hand every retained body here; nothing else decodes bodies. JSON out of them is parsed
 * by the exact parser of the ground floor (src/json/exact.ts). Replay, the state view and
 * descriptions read the result from the store (`body.kind`, `member`) or call these
 * functions.
 */
import { isUtf8 } from 'node:buffer';
import {
  INT64_MAX,
  INT64_MIN,
  MAX_JSON_DEPTH,
  objectEntries,
  parseExactJson,
  type ExactJsonFailure,
  type JsonValue,
} from '../json/exact.js';
import { childPointer } from '../json/pointer.js';
import { sha256Hex } from '../json/sha256.js';

export type BodyKind = 'none' | 'base64' | 'cut' | 'json' | 'text';

/** Why a retained body is not usable for state. */
export type UnusableReason = 'no-body' | 'binary' | 'cut' | 'not-json' | 'oversize' | 'invalid-utf8' | 'invalid-unicode' | ExactJsonFailure;

/** ES-4: bodies larger than this (decoded bytes) are not parsed. */
export const MAX_USABLE_BODY_BYTES = 256 * 1024;

/** What a capture retained of one body, before classification. */
export interface RetainedBody {
  /** Absent when the capture kept no body (HAR `content.text` missing). */
  text?: string;
  /** Present when the producer retained bytes (base64 already decoded). */
  bytes?: Buffer;
  mediaType: string | null;
  /** The producer says only part of the body was retained (a truncation comment or flag). */
  isCut: boolean;
  /**
   * The producer's `size` is larger than what it retained, both as written and decoded.
   * Producers disagree on what `size` counts (Optic: the base64 text; mitmproxy: the encoded
   * bytes; Fiddler: before line endings were normalised), so this only explains a body that
   * fails to parse: complete JSON is complete whatever the size says.
   */
  sizeExceeds?: boolean;
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

const EMPTY = Buffer.alloc(0);

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
  return (
    m.startsWith('text/') ||
    isJsonMediaType(mediaType) ||
    m.endsWith('+xml') ||
    m.endsWith('/xml') ||
    m === 'application/javascript' ||
    m === 'application/x-www-form-urlencoded' ||
    m === 'application/graphql'
  );
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
      kind,
      sha256: sha256Hex(bytes),
      bytes,
      content: treeText ?? (kind !== 'base64' && utf8 ? bytes.toString('utf8') : bytes),
      isUsable: kind === 'json',
      reason,
      value,
      treeText,
    };
  };

  const sizeCut = body.sizeExceeds === true;
  if (bytes.length === 0 && !body.isCut && !sizeCut) return make('none', 'no-body');
  if (body.isCut || bytes.length === 0) return make('cut', 'cut');
  const jsonLike = isJsonLike(body.mediaType, bytes);
  // A size larger than the retained body explains a body that does not parse (or any body that is not JSON).
  const failed = (kind: BodyKind, reason: UnusableReason) => (sizeCut ? make('cut', 'cut') : make(kind, reason));
  if (fromText && !body.text!.isWellFormed()) return failed('text', 'invalid-unicode');
  if (!fromText && !jsonLike && !isTextMediaType(body.mediaType)) return failed('base64', 'binary');
  if (!fromText && !isUtf8(bytes)) return failed(jsonLike ? 'text' : 'base64', jsonLike ? 'invalid-utf8' : 'binary');
  if (!jsonLike) return failed('text', 'not-json');
  if (bytes.length > MAX_USABLE_BODY_BYTES) return make('text', 'oversize');
  const text = fromText ? body.text! : bytes.toString('utf8');
  // Most bodies take the fast road; the rest (and every body refused) go through the exact
  // parser, which also names the reason a body is unusable.
  if (acceptsForTree(text)) return make('json', null, undefined, text);
  const parsed = parseExactJson(text);
  if (!parsed.ok) return failed('text', parsed.reason);
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
 * writes: no duplicate keys, no `__proto__`, nesting within MAX_JSON_DEPTH; integers written
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
      while (k < n) {
        const w = text.charCodeAt(k);
        if (w !== 0x20 && w !== 0x0a && w !== 0x0d && w !== 0x09) break;
        k++;
      }
      if (text.charCodeAt(k) === 0x3a) {
        if (escaped || !plainName(text, start, q)) return false;
        names++;
        i = k + 1;
      }
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return false;
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

/** Object members in a parsed value, at every depth (the value nests at most MAX_JSON_DEPTH deep). */
function countMembers(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  let count = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x !== null && typeof x === 'object') count += countMembers(x);
    }
    return count;
  }
  for (const k in v as object) {
    count++;
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object') count += countMembers(x);
  }
  return count;
}

/**
 * One JSON node as the `member` view shows it (queries/member.sql) and with the node
 * numbers member_node keys it by (schema/member_node.sql, issue 14).
 */
export interface MemberRow {
  /** The node's number in its body: a count in document order, the root 0. */
  node: number;
  /** The parent's node; -1 for the root. */
  parent: number;
  pointer: string;
  parentPointer: string | null;
  /** The member name in an object; null for array elements and the root. */
  key: string | null;
  position: number;
  depth: number;
  type: 'object' | 'array' | 'string' | 'integer' | 'real' | 'true' | 'false' | 'null';
  /** Integers (and true/false as 1/0) are bigint so they bind as SQLite INTEGER. */
  value: string | number | bigint | null;
}

/**
 * A row's values for MEMBER_NODE_INSERT (member-tree.ts), in its column order: the key is
 * the name, else the index (or 0 for the root) as an INTEGER; only containers keep a depth and a pointer (migration 0012).
 */
export function memberNodeParams(bodyId: number, m: MemberRow): unknown[] {
  const isContainer = m.type === 'object' || m.type === 'array';
  return [
    bodyId,
    m.parent,
    m.key ?? BigInt(m.position),
    m.node,
    isContainer ? m.depth : null,
    SHAPE[m.type] ?? null,
    m.value,
    isContainer ? m.pointer : null,
  ];
}

/** member_node.shape: the types a value cannot say (migration 0013); the others are NULL. */
const SHAPE: Partial<Record<MemberRow['type'], number>> = { object: 0, array: 1, true: 2, false: 3 };

/** Flattens an exact JSON value into member rows, the root first, in document order. */
export function flattenMembers(root: JsonValue, emit: (row: MemberRow) => void): void {
  let next = 0;
  const walk = (
    v: JsonValue,
    pointer: string,
    parentPointer: string | null,
    parent: number,
    key: string | null,
    position: number,
    depth: number,
  ) => {
    const row = (type: MemberRow['type'], value: MemberRow['value']): MemberRow => ({
      node: next++,
      parent,
      pointer,
      parentPointer,
      key,
      position,
      depth,
      type,
      value,
    });
    if (v === null) emit(row('null', null));
    else if (typeof v === 'string') emit(row('string', v));
    // Integers go to SQLite as bigint: a JS number binds as REAL, which an ANY column keeps.
    else if (typeof v === 'boolean') emit(row(v ? 'true' : 'false', v ? 1n : 0n));
    else if (typeof v === 'bigint') emit(row('integer', v));
    else if (typeof v === 'number') emit(Number.isInteger(v) ? row('integer', BigInt(v)) : row('real', v));
    else if (Array.isArray(v)) {
      const self = row('array', null);
      emit(self);
      for (let i = 0; i < v.length; i++) walk(v[i], `${pointer}/${i}`, pointer, self.node, null, i, depth + 1);
    } else {
      const self = row('object', null);
      emit(self);
      let i = 0;
      for (const [k, x] of objectEntries(v)) walk(x, childPointer(pointer, k), pointer, self.node, k, i++, depth + 1);
    }
  };
  walk(root, '', null, -1, null, 0, 0);
}
