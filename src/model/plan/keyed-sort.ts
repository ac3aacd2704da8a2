/**
 * OQ-13 (issue 44): a sort spelled with its field in the key — Feathers' `$sort[createdAt]=-1`
 * (its adapters' shared query syntax), also `sort[name]=asc` — read by list-queries.ts, and the
 * key another field is sorted by in the same spelling, which conventions.ts gives every list of
 * the API once one list's recorded lines proved the spelling.
 */
/** A direction as a value of a keyed sort: a word, or MongoDB's and Feathers' 1 and -1. */
const KEYED_DIRECTIONS: Record<string, 'asc' | 'desc'> = {
  asc: 'asc',
  desc: 'desc',
  ascending: 'asc',
  descending: 'desc',
  '1': 'asc',
  '-1': 'desc',
};

/**
 * A sort spelled with its field in the key and its direction as the value (Feathers'
 * `$sort[createdAt]=-1`, also `sort[name]=asc`): the field and direction, or undefined for any
 * other spelling. A number in the brackets is a position (`sort[0]=title:asc`), not a field.
 */
export function keyedSort(name: string, value: string): { field: string; direction: 'asc' | 'desc' } | undefined {
  const m = /^[^[\]]+\[([^[\]]+)\]$/.exec(name);
  const direction = KEYED_DIRECTIONS[value.toLowerCase()];
  return m && direction && !/^[0-9]+$/.test(m[1]) ? { field: m[1], direction } : undefined;
}

/** The key that sorts by `field` in the spelling of keyed sort key `key` (`$sort[id]` → `$sort[views]`), or undefined if `key` is no keyed sort. */
export function keyedSortKey(key: string, field: string): string | undefined {
  const m = /^([^[\]]+)\[([^[\]]+)\]$/.exec(key);
  return m && !/^[0-9]+$/.test(m[2]) ? `${m[1]}[${field}]` : undefined;
}
