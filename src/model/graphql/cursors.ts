/**
 * @rule GQL-6
 * Issue 48 (GQL-6, Relay cursors): a connection's cursors are opaque to clients, but many
 * servers make them from the edge's offset (graphql-relay: base64 of `arrayconnection:3`).
 * The scheme is taken only when every recorded cursor of the field fits it — each first page's
 * edges number 0, 1, 2…, each later page starts one past its `after` — so the model can name
 * the cursor of an edge it never saw and read an `after` it never recorded. Otherwise a cursor
 * the capture never showed is declined.
 */
import type { JsonValue } from '../../json/exact.js';
import type { GqlRecord } from './learn.js';
import { isPlainObject, isRef, type NValue } from './normalize.js';
import { fieldsOf } from './request.js';

export interface CursorScheme {
  /** `base64` or `plain` text, then the prefix before the offset. */
  encoding: 'base64' | 'plain';
  prefix: string;
  encode(offset: number): string;
  /** The offset a cursor names, or null when it is not one of this scheme. */
  decode(cursor: JsonValue): number | null;
}

/** A cursor's text under base64 (cursors are short ASCII; not a body, which src/load/bodies.ts decodes), or null. */
const fromBase64 = (c: string): string | null => {
  try {
    return atob(c);
  } catch {
    return null;
  }
};
const toBase64 = (t: string): string | null => {
  try {
    return btoa(t);
  } catch {
    return null;
  }
};

function scheme(encoding: 'base64' | 'plain', prefix: string): CursorScheme {
  const text = (c: string) => (encoding === 'base64' ? (fromBase64(c) ?? '') : c);
  return {
    encoding,
    prefix,
    encode: (n) => (encoding === 'base64' ? (toBase64(prefix + n) ?? '') : prefix + n),
    decode(c) {
      if (typeof c !== 'string') return null;
      const t = text(c);
      if (!t.startsWith(prefix)) return null;
      const rest = t.slice(prefix.length);
      if (!/^(0|[1-9]\d*)$/.test(rest)) return null;
      const n = Number(rest);
      return this.encode(n) === c ? n : null;
    },
  };
}

/** The offset scheme every recorded cursor of root field `name` fits, or null. */
export function offsetCursor(records: GqlRecord[], name: string): CursorScheme | null {
  const pages: { after: JsonValue | undefined; cursors: string[] }[] = [];
  for (const r of records) {
    if (!r.root) continue;
    for (const f of fieldsOf(r.req, r.req.operation.selectionSet, null)) {
      if (f.name !== name || !(f.storeKey in r.root)) continue;
      const edges = edgesOf(r.root[f.storeKey]);
      if (!edges || edges.some((e) => e.cursor === null)) continue;
      if (f.args.before != null || f.args.last != null) continue;
      pages.push({ after: f.args.after ?? undefined, cursors: edges.map((e) => e.cursor!) });
    }
  }
  const sample = pages.flatMap((p) => p.cursors)[0];
  if (sample === undefined || !pages.some((p) => p.after === undefined && p.cursors.length > 0)) return null;
  for (const encoding of ['base64', 'plain'] as const) {
    const t = encoding === 'base64' ? fromBase64(sample) : sample;
    if (t === null) continue;
    const m = /^(.*?)(0|[1-9]\d*)$/s.exec(t);
    if (!m) continue;
    const s = scheme(encoding, m[1]);
    const fits = pages.every((p) => {
      const start = p.after === undefined ? 0 : (s.decode(p.after) ?? -2) + 1;
      return start >= 0 && p.cursors.every((c, i) => s.decode(c) === start + i);
    });
    if (fits) return s;
  }
  return null;
}

/** A connection's edges as stored: the node reference and cursor of each, or null when the value is not one. */
export function edgesOf(v: NValue): { ref: string; cursor: string | null }[] | null {
  if (!v || typeof v !== 'object' || Array.isArray(v) || isRef(v)) return null;
  const edges = (v as Record<string, NValue>).edges;
  if (!Array.isArray(edges)) return null;
  const out: { ref: string; cursor: string | null }[] = [];
  for (const e of edges) {
    if (!isPlainObject(e)) return null;
    const node = (e as Record<string, NValue>).node;
    if (!isRef(node)) return null;
    const cursor = (e as Record<string, NValue>).cursor;
    out.push({ ref: node.__ref, cursor: typeof cursor === 'string' ? cursor : null });
  }
  return out;
}
