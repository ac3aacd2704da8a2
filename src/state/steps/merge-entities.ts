/**
 * @rule ES-26, OQ-19
 * @reads kept_observations, collection_order, initial_reads, first_write_per_root
 * Merging entities, a step of the state pass: one entity per collection and identity, merged
 * from the observations the `kept_observations` view lists (already limited to initial reads,
 * ES-8/ES-9/ES-27), in timeline order — item views' latest value first, list views filling
 * the rest (ES-26) — with each view's own values where they differ (`view_values`, OQ-19).
 * The type's bound is the views' (initial_reads, first_write_per_root), not decided here.
 */ import type { JsonValue } from '../../json/exact.js';
import type { StateFacts } from '../facts.js';
import { at, isObject, jsonEqual, keysOf, member, objectFrom } from '../../model/plan/json.js';
import type { StateEntity, StateType } from '../../model/plan/types.js';

/** The collection name of a type root: its last segment, or the whole root when two roots share it. */
export function collectionNames(roots: string[]): Map<string, string> {
  const last = (r: string) => r.split('/').filter(Boolean).pop() ?? r;
  const counts = new Map<string, number>();
  for (const r of roots) counts.set(last(r), (counts.get(last(r)) ?? 0) + 1);
  return new Map(roots.map((r) => [r, counts.get(last(r))! > 1 ? r.replace(/^\//, '') : last(r)]));
}

export interface Observation {
  tool: string;
  entity_id: string;
  view_kind: 'list' | 'item';
  ordinal: number;
  record_id: number;
  object: JsonValue;
}

export interface MergedTypes {
  types: StateType[];
  entities: StateEntity[];
  /** Per root path: the entities by id. */
  byRoot: Map<string, Map<string, StateEntity>>;
  /** Per tool: its observations of entities, in timeline order. */
  observationsByTool: Map<string, Observation[]>;
}

/**
 * The object an observation shows, as the entity owns it: ES-25, an entity at the body root
 * does not own the members generated per response. Undefined when the body shows no object there.
 */
export function observedObject(facts: StateFacts, o: StateFacts['observations'][number], path: string | undefined): JsonValue | undefined {
  const body = facts.bodyValue(o.body_id);
  const shown = body === undefined ? undefined : at(body, o.entity_pointer);
  if (!isObject(shown)) return undefined;
  // Issue 16: members the read's query embeds (`?_embed=comments`) are the relation's, not the entity's.
  const object = facts.ownObject(o.record_id, shown);
  const generated = o.entity_pointer === '' ? facts.perResponse.get(path ?? '') : undefined;
  return generated
    ? objectFrom(
        keysOf(object)
          .filter((k) => !generated.has(k))
          .map((k) => [k, member(object, k)!]),
      )
    : object;
}

/** One type's entities (a unit of work, OQ-32): `facts` covers one root. */
export function mergeEntities(facts: StateFacts): MergedTypes {
  const names = facts.names;
  const obsByEntity = new Map<string, { root: string; id: string; obs: Observation[] }>();
  const pathOf = new Map(facts.reads.map((r) => [r.record_id, r.path]));
  const observationsByTool = new Map<string, Observation[]>();
  for (const o of facts.observations) {
    const object = observedObject(facts, o, pathOf.get(o.record_id));
    if (object === undefined) continue;
    const key = `${o.root_path}\u0000${o.entity_id}`;
    const entry = obsByEntity.get(key) ?? { root: o.root_path, id: o.entity_id, obs: [] };
    const ob: Observation = {
      tool: o.tool,
      entity_id: o.entity_id,
      view_kind: o.view_kind,
      ordinal: o.ordinal,
      record_id: o.record_id,
      object,
    };
    entry.obs.push(ob);
    obsByEntity.set(key, entry);
    const list = observationsByTool.get(o.tool) ?? [];
    list.push(ob);
    observationsByTool.set(o.tool, list);
  }

  const stateOrder = new Map(facts.order.map((r) => [`${r.root_path}\u0000${r.entity_id}`, r.state_order]));
  const byRoot = new Map<string, Map<string, StateEntity>>();
  const entities: StateEntity[] = [];
  for (const [key, { root, id, obs }] of obsByEntity) {
    const collection = names.get(root);
    if (collection === undefined) continue;
    const value = merge(obs);
    const entity: StateEntity = {
      collection,
      id,
      value,
      view_values: viewValues(obs, value),
      state_order: stateOrder.get(key) ?? 0,
      record_ordinals: [...new Set(obs.map((o) => o.ordinal))],
    };
    entities.push(entity);
    const m = byRoot.get(root) ?? new Map<string, StateEntity>();
    m.set(id, entity);
    byRoot.set(root, m);
  }
  // One root per unit; the units come in root order (facts.ts), so this is the view's entity order.
  entities.sort((a, b) => a.state_order - b.state_order);

  const types: StateType[] = facts.identities.map((t) => {
    const held = byRoot.get(t.root_path);
    const order = facts.order.filter((o) => o.root_path === t.root_path && held?.has(o.entity_id));
    return {
      collection: names.get(t.root_path)!,
      root_path: t.root_path,
      identity: t.identity_field,
      identity_source: t.identity_source,
      order_source: order[0]?.order_source ?? 'appearance',
      bound: boundOf(facts, t.root_path),
      initial_order: order.map((o) => o.entity_id),
    };
  });
  return { types, entities, byRoot, observationsByTool };
}

/** The type's bound: what its initial reads say (`initial_reads`), else its first write (ES-8, `first_write_per_root`). */
function boundOf(facts: StateFacts, root: string): StateType['bound'] {
  const r = facts.reads.find((x) => x.root_path === root && x.is_initial);
  if (r) return r.bound === null ? null : { rule: r.bound.rule, write_ordinal: r.bound.ordinal };
  const w = facts.firstWrites.get(root);
  return w === undefined ? null : { rule: 'ES-8', write_ordinal: w };
}

/**
 * The entity's value: item views first — the latest item observation in timeline order wins
 * field by field — and list views fill only the fields no item view shows (their latest
 * value). A value that changed between repeats with no write between is volatile and keeps
 * its latest value, which this latest-wins merge gives (ES-26).
 */
function merge(obs: Observation[]): JsonValue {
  const fields = new Map<string, JsonValue>();
  const take = (kind: 'item' | 'list', overwrite: boolean) => {
    for (const o of obs) {
      if (o.view_kind !== kind) continue;
      for (const k of keysOf(o.object)) {
        if (overwrite || !fields.has(k)) fields.set(k, member(o.object, k)!);
      }
    }
  };
  take('item', true);
  const itemFields = new Set(fields.keys());
  for (const o of obs) {
    if (o.view_kind !== 'list') continue;
    for (const k of keysOf(o.object)) if (!itemFields.has(k)) fields.set(k, member(o.object, k)!);
  }
  return objectFrom([...fields]);
}

/** OQ-19: per tool, the fields whose latest value in that view differs from the entity's. */
function viewValues(obs: Observation[], value: JsonValue): Record<string, Record<string, JsonValue>> {
  const out: Record<string, Record<string, JsonValue>> = {};
  const latest = new Map<string, Observation>();
  for (const o of obs) latest.set(o.tool, o);
  for (const [tool, o] of [...latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const k of keysOf(o.object)) {
      const v = member(o.object, k)!;
      if (!jsonEqual(v, member(value, k))) (out[tool] ??= {})[k] = v;
    }
  }
  return out;
}
