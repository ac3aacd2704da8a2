/**
 * The one problem to report out of a zod parse's issues, in the order a hand-written
 * check would meet them: at each object, an unknown field first, then a missing required
 * field, then the fields in the declaration's order (issue 19; zod itself lists an
 * object's unknown keys after its fields).
 */
import type { z } from 'zod';

export type Issue = z.core.$ZodIssue;

/** The value at `path` in `input`, or undefined where there is none. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), input);
}

/** An issue for a required member the input does not have (its parent is an object without it). */
export function isMissing(issue: Issue, input: unknown): boolean {
  if (issue.path.length === 0 || !['invalid_type', 'invalid_union', 'invalid_value'].includes(issue.code)) return false;
  const parent = valueAt(input, issue.path.slice(0, -1));
  return parent !== null && typeof parent === 'object' && !Array.isArray(parent) && valueAt(input, issue.path) === undefined;
}

/**
 * The first problem and the path it names: an unknown field's path ends with the
 * field's name (zod puts it on the object).
 */
export function firstIssue(issues: readonly Issue[], input: unknown): { issue: Issue; path: PropertyKey[]; missing: boolean } {
  let pool = [...issues];
  for (let depth = 0; ; depth++) {
    const here = (i: Issue) => i.path.length === depth;
    const unknown = pool.find((i) => here(i) && i.code === 'unrecognized_keys');
    if (unknown && unknown.code === 'unrecognized_keys')
      return { issue: unknown, path: [...unknown.path, unknown.keys[0]], missing: false };
    const missing = pool.find((i) => i.path.length === depth + 1 && isMissing(i, input));
    if (missing) return { issue: missing, path: [...missing.path], missing: true };
    const first = pool[0];
    if (here(first)) return { issue: first, path: [...first.path], missing: false };
    const seg = first.path[depth];
    pool = pool.filter((i) => i.path.length > depth && i.path[depth] === seg);
  }
}
