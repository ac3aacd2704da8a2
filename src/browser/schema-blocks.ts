/**
 * The building blocks of the scenario's zod declaration (src/browser/schema.ts and
 * action-schema.ts), each with the message a user reads when a value fails it (BS-8):
 * strings, booleans, bounded integers and timeouts (BS-14), enums, arrays, strict objects
 * that name their allowed fields, tagged unions, refinements, sets of names, and absolute
 * http(s) URLs (BS-2). Apart from schema.ts (issue 43) so the scenario and its actions,
 * declared in two modules, share one wording.
 */
import { z } from 'zod';
import { describe } from '../load/fields.js';

/** BS-14: the timer representation's maximum. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A string; by default a non-empty one. */
export function str(opts: { nonEmpty?: boolean } = { nonEmpty: true }) {
  const s = z.string({ error: (iss) => `must be a string, got ${describe(iss.input)}` });
  return opts.nonEmpty ? s.min(1, { error: 'must not be empty' }) : s;
}

export const bool = () => z.boolean({ error: (iss) => `must be true or false, got ${describe(iss.input)}` });

export function int(min: number, max: number) {
  return z
    .int({
      error: (iss) =>
        typeof iss.input === 'number' && Number.isInteger(iss.input)
          ? `must be between ${min} and ${max}, got ${iss.input}`
          : `must be an integer, got ${describe(iss.input)}`,
    })
    .min(min)
    .max(max);
}

export const timeout = () => int(1, MAX_TIMEOUT_MS);

export function oneOf<const T extends readonly [string, ...string[]]>(values: T, what: string) {
  return z.enum(values, { error: (iss) => `unsupported ${what} ${JSON.stringify(iss.input)}; use one of ${values.join(', ')}` });
}

export function arr<T extends z.ZodType>(item: T, opts: { nonEmpty?: boolean } = {}) {
  const a = z.array(item, { error: (iss) => `must be an array, got ${describe(iss.input)}` });
  return opts.nonEmpty ? a.min(1, { error: 'must hold at least one entry' }) : a;
}

/** A strict object: an unknown field names the ones allowed here, required ones first. */
export function obj<S extends z.ZodRawShape>(shape: S) {
  const keys = Object.keys(shape);
  const optional = (k: string) => (shape[k] as z.ZodType)._zod.optin === 'optional';
  const allowed = [...keys.filter((k) => !optional(k)), ...keys.filter(optional)].join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown field ${JSON.stringify(iss.keys[0])}; allowed here: ${allowed}`
        : `must be an object, got ${describe(iss.input)}`,
  });
}

/** The error of a union told apart by `tag`; a missing tag is reported as a missing field. */
export function unionError(tag: string, tags: readonly string[], what: string) {
  return (iss: z.core.$ZodRawIssue) =>
    iss.code === 'invalid_type'
      ? `must be an object, got ${describe(iss.input)}`
      : `unsupported ${what} ${JSON.stringify((iss.input as Record<string, unknown>)[tag])}; use one of ${tags.join(', ')}`;
}

/** A check on a value that passed its type: the message, or nothing when fine. */
export function rule<T>(problem: (v: T) => string | undefined) {
  return (v: T, ctx: z.RefinementCtx<T>) => {
    const message = problem(v);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message, input: v });
  };
}

/** A list of distinct names from `values`. */
export function set<const T extends readonly [string, ...string[]]>(values: T, what: string) {
  return arr(oneOf(values, what)).superRefine((list, ctx) => {
    list.forEach((t, i) => {
      if (list.indexOf(t) !== i)
        ctx.addIssue({ code: 'custom', message: `${what} ${JSON.stringify(t)} is listed twice`, path: [i], input: t });
    });
  });
}

// ---- URLs (BS-2). ----

function httpUrlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `not an absolute URL: ${JSON.stringify(raw)}`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `only http and https URLs are supported, got ${u.protocol}`;
  return undefined;
}

/** An absolute http(s) URL, with `more` checked once it is one. */
export const httpUrl = (more: (u: URL, raw: string) => string | undefined = () => undefined) =>
  str().superRefine(rule((raw: string) => httpUrlProblem(raw) ?? more(new URL(raw), raw)));
