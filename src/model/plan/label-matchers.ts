/**
 * Issue 44: label matchers, a filter spelled in a query value (`filter=alertname="DiskFull"`,
 * Alertmanager's and Prometheus's matchers) on a label one object member of the listed entities
 * holds (`labels`); list-queries.ts reads them as filters (decisions: "Issue 44 / label matchers").
 */
import { entriesOf, isObject, member } from './json.js';
import type { StateEntity } from './types.js';

/**
 * A label matcher's operator (issue 44): a key whose value is `name="value"`, `name!="value"`,
 * `name=~"regex"` or `name!~"regex"` (Alertmanager's `filter`, Prometheus's matchers) filters on
 * `name` in one object member of the entities (an alert's `labels`). An absent label matches as
 * the empty string; a regular expression matches the whole value.
 */
export type MatchOp = '=' | '!=' | '=~' | '!~';
const MATCHER = /^([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"$/;

/**
 * A key learned as label matchers is kept as the key, the operator and the member it reads,
 * spaced (`filter = labels`): a query key cannot hold `=`, so no other key is spelled so, and
 * each operator is learned, and answered, on its own.
 */
export const matcherKey = (key: string, op: MatchOp, container: string) => `${key} ${op} ${container}`;
/** The parts of a key `matcherKey` spelled, or undefined for any other key. */
export function matcherKeyParts(name: string): { key: string; op: MatchOp; container: string } | undefined {
  const m = /^(.+) (=~|!~|!=|=) ([^ ]+)$/.exec(name);
  return m ? { key: m[1], op: m[2] as MatchOp, container: m[3] } : undefined;
}

/** A query value read as one label matcher (its value unescaped), or undefined. */
export function matcherOf(value: string): { label: string; op: MatchOp; value: string } | undefined {
  const m = MATCHER.exec(value.trim());
  if (!m) return undefined;
  const text = m[3].replace(/\\(.)/g, '$1');
  if (m[2] === '=~' || m[2] === '!~') {
    if (!isPattern(text)) return undefined;
  }
  return { label: m[1], op: m[2] as MatchOp, value: text };
}

/** Whether a `_like` value is a pattern JavaScript's RegExp reads (json-server builds `new RegExp(value, 'i')`). */
export function isPattern(value: string): boolean {
  try {
    new RegExp(value, 'i');
    return true;
  } catch {
    return false;
  }
}

/** A label matcher on a label's spelled value (null: an object or a list, which no matcher passes); a pattern matches the whole value (RE2's anchoring). */
export function matchesLabel(s: string | null, op: MatchOp, value: string): boolean {
  if (s === null) return false;
  switch (op) {
    case '=':
      return s === value;
    case '!=':
      return s !== value;
    case '=~':
      return new RegExp(`^(?:${value})$`).test(s);
    case '!~':
      return !new RegExp(`^(?:${value})$`).test(s);
  }
}

/**
 * Issue 44: the object member of the listed entities that holds label `label` (an alert's
 * `labels` holds `alertname`), when exactly one shown member does: an object of plain values
 * (no reference, no list) with `label` on some entity. Undefined when none or several do.
 */
export function labelReader(fields: ReadonlySet<string>, all: readonly StateEntity[]): (label: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  let maps: string[] | undefined;
  return (label) => {
    if (!cache.has(label)) {
      maps ??= [...fields].filter((f) => isLabelMap(all, f));
      const holding = maps.filter((f) => all.some((e) => isObject(e.value) && member(member(e.value, f), label) !== undefined));
      cache.set(label, holding.length === 1 ? holding[0] : undefined);
    }
    return cache.get(label);
  };
}

/** Whether `field` is, on every entity showing it, an object of scalars (labels, not a reference or a record). */
function isLabelMap(all: readonly StateEntity[], field: string): boolean {
  let seen = false;
  for (const e of all) {
    const v = isObject(e.value) ? member(e.value, field) : undefined;
    if (v === undefined) continue;
    if (!isObject(v) || member(v, 'id') !== undefined) return false;
    if (!entriesOf(v).every(([, x]) => x === null || typeof x !== 'object')) return false;
    seen = true;
  }
  return seen;
}
