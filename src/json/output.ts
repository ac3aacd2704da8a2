/**
 * The JSON documents capstate prints and serves: their format version and the one writer
 * that keeps 64-bit integers exact and turns blobs into `{"base64": …}`.
 */

/** The version of every `--json` document's shape (STYLE.md §12: keys are never renamed). */
export const JSON_FORMAT_VERSION = 1;

/** JSON with bigint digits kept exact (64-bit integers from the store) and blobs as `{"base64": "…"}`. */
export function toJson(value: unknown, indent = 2): string {
  const marker = '\u0000bigint:';
  const s = JSON.stringify(
    value,
    function (this: Record<string, unknown>, key: string, v: unknown) {
      // `v` has already been through toJSON (a Buffer arrives as {type:'Buffer',data}); the
      // holder still has the original value.
      const raw = this[key];
      if (Buffer.isBuffer(raw) || raw instanceof Uint8Array) return { base64: Buffer.from(raw).toString('base64') };
      if (typeof v === 'bigint') return marker + v.toString();
      return v;
    },
    indent,
  );
  return s.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
