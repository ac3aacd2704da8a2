/** Canonical JSON (RFC 8785, OQ-43): the one form values are digested and compared in. */

/**
 * Canonical JSON (RFC 8785, OQ-43), for digests and for comparing values by content: object members sorted by their UTF-16 code units, no whitespace, numbers in
 * ECMAScript's shortest round-trip form (what JSON.stringify writes), strings escaped as
 * JSON.stringify escapes them. Integers held as bigint keep their digits. `undefined`
 * members are left out, as JSON leaves them out.
 */
export function canonicalJson(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return JSON.stringify(v);
    case 'bigint':
      return v.toString();
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`canonical JSON has no form for ${v}`);
      return JSON.stringify(v);
    case 'object': {
      if (Array.isArray(v)) return '[' + v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',') + ']';
      const entries =
        v instanceof Map
          ? ([...v] as [string, unknown][])
          : Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]] as [string, unknown]);
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      const kept = entries.filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return '{' + kept.map(([k, x]) => JSON.stringify(k) + ':' + canonicalJson(x)).join(',') + '}';
    }
    default:
      throw new Error(`canonical JSON has no form for a ${typeof v}`);
  }
}
