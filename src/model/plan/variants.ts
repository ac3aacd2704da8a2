/**
 * Projected rows and representation variants (ES-12 to ES-14, ES-17 to ES-19, OQ-13 to
 * OQ-17), as the views state them: `unchecked_lines` (ES-12, ES-13, ES-19), `variant_keys`
 * (ES-19, OQ-16), `late_shaping_rows` (ES-14) and `projection_values` (OQ-17). This module
 * only reads them into the shape the plans, the gate and serving use; no rule is restated.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../store/types.js';

export interface QueryKey {
  name: string;
  value?: string;
  omitted?: true;
}

export interface ViewShaping {
  projected_record_ordinals: number[];
  projected_query_keys: QueryKey[];
  /** OQ-17: projection values the checked rows and the replayed (projected, variant) rows gave. */
  projection_values: { checked: string[]; replayed: string[] };
}

export interface Shaping {
  /** Records that leave checks and observations (ES-12, ES-13, ES-19): the records of `unchecked_lines`. */
  excluded: Set<number>;
  byTool: Map<string, ViewShaping>;
}

/**
 * ES-20: whether a request's query pairs name one of a view's distinguishing keys (a name
 * only variants give, a value the base rows never give, or a name the base rows all give
 * and the request omits). Serving replays such a call; the gate does not count it.
 */
export function namesVariantKey(keys: readonly QueryKey[], pairs: readonly { name: string; value: string }[]): boolean {
  const names = new Map(pairs.map((p) => [p.name, p.value]));
  return keys.some((key) =>
    key.omitted ? !names.has(key.name) : key.value === undefined ? names.has(key.name) : names.get(key.name) === key.value,
  );
}

const emptyShaping = (): ViewShaping => ({
  projected_record_ordinals: [],
  projected_query_keys: [],
  projection_values: { checked: [], replayed: [] },
});

/** The views' answer for one capture: the records that leave checks and observations, and each view's listed rows and keys. */
export async function classifyRows(k: Kysely<DB>, captureId: number): Promise<Shaping> {
  const [excludedRows, listed, keys, values] = await Promise.all([
    k.selectFrom('unchecked_records').select('record_id').where('capture_id', '=', captureId).execute(),
    // projected_record_ordinals: each unchecked initial line's and each late shaping line's latest record.
    k
      .selectFrom('unchecked_lines')
      .select(['tool', 'latest_ordinal'])
      .where('capture_id', '=', captureId)
      .where('is_unchecked', '=', 1)
      .unionAll(k.selectFrom('late_shaping_rows').select(['tool', 'latest_ordinal']).where('capture_id', '=', captureId))
      .orderBy('latest_ordinal')
      .execute(),
    // OQ-16: one key per (name, value, omitted) per view, sorted by name, then value, then omitted.
    k
      .selectFrom('variant_keys')
      .select(['tool', 'key_name', 'key_value', 'is_omitted'])
      .distinct()
      .where('capture_id', '=', captureId)
      .orderBy('tool')
      .orderBy('key_name')
      .orderBy((e) => e.fn.coalesce('key_value', e.val('')))
      .orderBy('is_omitted')
      .execute(),
    k
      .selectFrom('projection_values')
      .select(['tool', 'projection_value', 'is_replayed'])
      .where('capture_id', '=', captureId)
      .orderBy('tool')
      .orderBy('projection_value')
      .execute(),
  ]);
  const byTool = new Map<string, ViewShaping>();
  const of = (tool: string) => byTool.get(tool) ?? byTool.set(tool, emptyShaping()).get(tool)!;
  for (const r of listed) of(r.tool).projected_record_ordinals.push(r.latest_ordinal);
  for (const r of keys) {
    of(r.tool).projected_query_keys.push(
      r.is_omitted
        ? { name: r.key_name, omitted: true }
        : r.key_value === null
          ? { name: r.key_name }
          : { name: r.key_name, value: r.key_value },
    );
  }
  for (const r of values)
    (r.is_replayed ? of(r.tool).projection_values.replayed : of(r.tool).projection_values.checked).push(r.projection_value);
  return { excluded: new Set(excludedRows.map((r) => r.record_id)), byTool };
}
