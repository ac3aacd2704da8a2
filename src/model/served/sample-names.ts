/**
 * One member name as a description or an input schema shows it (DESC-5, OQ-37's sampling
 * budget): both the catalog's descriptions (src/serve/descriptions.ts) and the tools' input
 * schemas (input-schema.ts) sample recorded names this one way.
 */

/** A longer name is cut to `NAME_MAX - 1` characters + `…`. */
export const NAME_MAX = 40;
/** A name whose JSON-quoted form is longer than this shows as `…`. */
export const QUOTED_MAX = 48;

/**
 * One member name as shown: cut to 39 characters + `…` when longer than 40, JSON-quoted;
 * `…` when even the quoted cut name exceeds 48 characters (escapes can make a short name
 * long: `"\u0001"` quotes to 8 characters).
 */
export function sampleName(name: string): string {
  const chars = Array.from(name);
  const cut = chars.length > NAME_MAX ? chars.slice(0, NAME_MAX - 1).join('') + '…' : name;
  const quoted = JSON.stringify(cut);
  return Array.from(quoted).length > QUOTED_MAX ? '…' : quoted;
}
