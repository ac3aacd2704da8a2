/**
 * @rule OQ-20, ES-31, ES-32
 * The minimal write gate (OQ-20), a step of the state pass: per type, follow the capture past
 * its initial read with a model that starts as the initial state and takes each successful
 * write's simplest effect (PUT on an item path replaces, PATCH merges top-level members, POST
 * on a list path adds the entity its answer identifies, DELETE on an item path removes). The
 * reads it counts teach two field facts — required-field relaxation (ES-21's second half;
 * its first, the required fields, is the view `view_fields`) and sorted arrays (ES-31,
 * ES-32) — and every disagreement is reported as an informational finding. `runGate` never
 * changes plans or reasons; `applyGate` narrows the plans' required fields and names their
 * sorted arrays. Which later reads overlap the type's bounding write (and so teach nothing)
 * is src/state/read-and-write.ts's (ES-8's reading, OQ-8).
 */ import type { Kysely } from 'kysely';
import type { JsonValue } from '../../json/exact.js';
import type { DB } from '../../store/types.js';
import type { MergedTypes } from './merge-entities.js';
import { lineKey, type ReadLine, type StateFacts } from '../facts.js';
import { codePointSorted, isObject, jsonEqual, keysOf, member, objectFrom } from '../../model/plan/json.js';
import type { Plan } from '../../model/plan/types.js';
import { readVersusWrite } from '../read-and-write.js';
import { valueCost, type Budget } from '../budget.js';
import { namesVariantKey, type Shaping } from '../../model/plan/variants.js';

export interface GateResult {
  /** ES-21: per type root, fields no view of the type requires any more. */
  relaxed: Map<string, Set<string>>;
  /** ES-32 less ES-31's third condition: per type root, fields learned to be listed in code-point order that no counted read lists unsorted. */
  sorted: Map<string, Set<string>>;
  findings: string[];
}

/**
 * ES-16, ES-20: the later reads the gate counts are those serving would answer from the
 * state. Serving replays a read that names a projection parameter (ES-15), names one of its
 * view's distinguishing variant keys (ES-20), or repeats a request line the view took out
 * of its checks — a projected row, a variant, a late shaping row (ES-12..ES-14, ES-19) —
 * so none of those teaches a field fact.
 */
export function countedByGate(shaping: Shaping, facts: Pick<StateFacts, 'reads' | 'vocabulary'>): (r: ReadLine) => boolean {
  const byOrdinal = new Map(facts.reads.map((r) => [r.ordinal, r]));
  const replayedLines = new Set<string>();
  for (const [tool, view] of shaping.byTool) {
    for (const o of view.projected_record_ordinals) {
      const r = byOrdinal.get(o);
      if (r) replayedLines.add(`${tool}\u0000${lineKey(r)}`);
    }
  }
  return (r) => {
    if (shaping.excluded.has(r.record_id) || r.query_pairs.some((q) => facts.vocabulary.isProjection(q.name))) return false;
    if (replayedLines.has(`${r.tool}\u0000${lineKey(r)}`)) return false;
    const keys = shaping.byTool.get(r.tool)?.projected_query_keys ?? [];
    return !namesVariantKey(keys, r.query_pairs);
  };
}

/** ES-31's third condition: fields a counted object lists as two or more distinct strings out of code-point order. */
function unsortedFields(o: JsonValue): string[] {
  return keysOf(o).filter((f) => {
    const arr = stringArray(member(o, f));
    return !!arr && new Set(arr).size >= 2 && !jsonEqual(arr, codePointSorted(arr));
  });
}

const stringArray = (v: JsonValue | undefined): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;

/** ES-31: the fields a view's initial entities all show as sorted string arrays (or null), one with two distinct strings. */
export function sortedCandidates(objects: JsonValue[]): string[] {
  const fields = new Set(objects.flatMap((o) => keysOf(o)));
  return [...fields]
    .filter((f) => {
      let distinct = false;
      for (const o of objects) {
        const v = member(o, f);
        if (v === undefined || v === null) continue;
        const arr = stringArray(v);
        if (!arr || !jsonEqual(arr, codePointSorted(arr))) return false;
        if (new Set(arr).size >= 2) distinct = true;
      }
      return distinct;
    })
    .sort();
}

/** Events (later reads and writes) whose bodies the gate holds at one time. */
const GATE_STRETCH = 200;

export async function runGate(
  k: Kysely<DB>,
  facts: StateFacts,
  merged: MergedTypes,
  shaping: Shaping,
  plans: Plan[],
  budget: Budget,
): Promise<GateResult> {
  const relaxed = new Map<string, Set<string>>();
  const sorted = new Map<string, Set<string>>();
  const findings: string[] = [];
  const tools = new Map(facts.tools.map((t) => [t.name, t]));
  // One type per unit (OQ-32): only its own writes take effect in its model.
  const writeIds = facts.writes.filter((w) => w.root_path === facts.root).map((w) => w.record_id);
  const writeBodies = new Map<number, { request: number; response: number }>();
  for (let i = 0; i < writeIds.length; i += 500) {
    for (const r of await k
      .selectFrom('record')
      .select(['id', 'request_body_id', 'response_body_id'])
      .where('id', 'in', writeIds.slice(i, i + 500))
      .execute()) {
      writeBodies.set(r.id, { request: r.request_body_id, response: r.response_body_id });
    }
  }
  // ES-8 Reading: a read overlapping its type's bounding write is neither initial nor evidence for the gate.
  const boundWrite = new Map(
    merged.types.filter((t) => t.bound).map((t) => [t.root_path, facts.writes.find((w) => w.ordinal === t.bound!.write_ordinal)]),
  );
  const overlaps = (r: ReadLine) => {
    const w = boundWrite.get(r.root_path);
    return !!w && readVersusWrite(facts.timelineOrder, r, w) === 'overlaps';
  };
  const later = facts.reads.filter((r) => !r.is_initial && r.method.toUpperCase() === 'GET' && !overlaps(r));
  const counted = countedByGate(shaping, facts);
  const unsorted = new Map<string, Set<string>>();

  const viewFields = new Map(
    plans.filter((p) => p.kind === 'item' || p.kind === 'list').map((p) => [p.tool, new Set((p as { fields: string[] }).fields)]),
  );
  for (const type of merged.types) {
    const root = type.root_path;
    const idField = type.identity;
    const typeTools = new Set(facts.tools.filter((t) => t.root_path === root).map((t) => t.name));
    const required = new Set(
      plans
        .filter((p) => typeTools.has(p.tool) && (p.kind === 'item' || p.kind === 'list'))
        .flatMap((p) => (p as { required_fields: string[] }).required_fields),
    );
    if (type.bound === null) continue;
    const model = new Map<string, JsonValue>();
    for (const e of merged.entities) if (e.collection === type.collection) model.set(e.id, e.value);
    // OQ-32: a value a write puts in the model is held (charged) until it is replaced or removed.
    const cost = new Map<string, number>();
    const put = (id: string, v: JsonValue | undefined) => {
      budget.release('planning', cost.get(id) ?? 0);
      cost.delete(id);
      if (v === undefined) {
        model.delete(id);
        return;
      }
      const c = valueCost(v);
      budget.charge('planning', c);
      cost.set(id, c);
      model.set(id, v);
    };
    const initialOf = new Map([...model].map(([id, v]) => [id, v]));
    const written = new Map<string, Map<string, string[]>>();
    const events: ({ kind: 'write'; w: StateFacts['writes'][number] } | { kind: 'read'; r: ReadLine })[] = [
      ...facts.writes.filter((w) => w.root_path === root && w.status >= 200 && w.status <= 299).map((w) => ({ kind: 'write' as const, w })),
      ...later.filter((r) => r.root_path === root).map((r) => ({ kind: 'read' as const, r })),
    ].sort(
      (a, b) =>
        (a.kind === 'write' ? a.w.timeline_position : a.r.timeline_position) -
        (b.kind === 'write' ? b.w.timeline_position : b.r.timeline_position),
    );
    const bound = boundWrite.get(root);
    // OQ-32: the later reads and writes of a type grow with the capture; their bodies are held
    // a stretch of events at a time and let go before the next.
    let held: number[] = [];
    for (const [i, ev] of events.entries()) {
      if (i % GATE_STRETCH === 0) {
        facts.dropBodies(held);
        held = await facts.loadBodies(
          events.slice(i, i + GATE_STRETCH).flatMap((e) => {
            if (e.kind === 'read') return [e.r.response_body_id];
            const b = writeBodies.get(e.w.record_id);
            return b ? [b.request, b.response] : [];
          }),
        );
      }
      if (ev.kind === 'write') {
        const w = ev.w;
        if (bound && w.timeline_position < bound.timeline_position) continue;
        const tool = tools.get(w.tool);
        const bodies = writeBodies.get(w.record_id);
        if (!tool || !bodies) continue;
        const method = w.method.toUpperCase();
        const id = facts.pathValue(w.record_id);
        const req = facts.bodyValue(bodies.request);
        if (tool.ends_in_param === 1 && id !== undefined) {
          if (method === 'DELETE') {
            put(id, undefined);
            continue;
          }
          if (!isObject(req)) continue;
          const before = model.get(id);
          const next =
            method === 'PUT'
              ? objectFrom([
                  ...keysOf(req).map((k): [string, JsonValue] => [k, member(req, k)!]),
                  ...(member(req, idField) === undefined
                    ? [[idField, before === undefined ? id : member(before, idField)!] as [string, JsonValue]]
                    : []),
                ])
              : objectFrom([
                  ...keysOf(before)
                    .filter((k) => member(req, k) === undefined)
                    .map((k): [string, JsonValue] => [k, member(before, k)!]),
                  ...keysOf(req).map((k): [string, JsonValue] => [k, member(req, k)!]),
                ]);
          put(id, next);
          for (const f of keysOf(req)) {
            const arr = stringArray(member(req, f));
            if (arr) (written.get(id) ?? written.set(id, new Map()).get(id)!).set(f, arr);
          }
        } else if (method === 'POST' && tool.ends_in_param === 0) {
          const resp = facts.bodyValue(bodies.response);
          const entity =
            isObject(resp) && member(resp, idField) !== undefined
              ? resp
              : isObject(resp) && keysOf(resp).length === 1 && isObject(member(resp, keysOf(resp)[0]))
                ? member(resp, keysOf(resp)[0])
                : undefined;
          const eid = entity === undefined ? undefined : member(entity, idField);
          if (eid !== undefined && (typeof eid === 'string' || typeof eid === 'number' || typeof eid === 'bigint'))
            put(String(eid), entity!);
        }
        continue;
      }
      const r = ev.r;
      const tool = tools.get(r.tool);
      if (!tool) continue;
      // ES-20: a 400, 404 or 410 answered to any later read, replayed or not, is a checked absence.
      if (r.status === 400 || r.status === 404 || r.status === 410) {
        const id = facts.pathValue(r.record_id);
        if (tool.ends_in_param === 1 && id !== undefined && model.has(id))
          findings.push(`#${r.ordinal} answered ${r.status} for ${type.collection} ${id}, which the state holds (checked absence)`);
        continue;
      }
      if (r.status < 200 || r.status > 299 || !counted(r)) continue;
      for (const o of facts.objectsShown(r, tool.ends_in_param === 1)) {
        for (const f of unsortedFields(o)) (unsorted.get(root) ?? unsorted.set(root, new Set()).get(root)!).add(f);
        const idv = member(o, idField);
        const id = idv === undefined || idv === null || typeof idv === 'object' ? undefined : String(idv);
        if (id === undefined || !model.has(id)) continue;
        const stored = model.get(id)!;
        // ES-21: the application omits a required field from an entity held in state.
        // A view that never shows a field (a list beside a detail view) does not omit it: only the
        // read's own view fields, or any field when its view has no plan to say, count (decisions).
        const own = viewFields.get(r.tool);
        for (const f of required)
          if (member(o, f) === undefined && (!own || own.has(f))) (relaxed.get(root) ?? relaxed.set(root, new Set()).get(root)!).add(f);
        // ES-32: a written array listed in code-point order, neither in write order nor initial-state-first.
        for (const [f, order] of written.get(id) ?? []) {
          const shown = stringArray(member(o, f));
          if (!shown || jsonEqual(shown, order) || !jsonEqual(shown, codePointSorted(order))) continue;
          const initial = stringArray(member(initialOf.get(id), f)) ?? [];
          const initialFirst = [...initial.filter((x) => order.includes(x)), ...order.filter((x) => !initial.includes(x))];
          if (!jsonEqual(shown, initialFirst)) (sorted.get(root) ?? sorted.set(root, new Set()).get(root)!).add(f);
        }
        const differs = keysOf(o).filter(
          (f) => !facts.vocabulary.isIdentityName(f) && member(stored, f) !== undefined && !jsonEqual(member(o, f), member(stored, f)),
        );
        if (differs.length)
          findings.push(`#${r.ordinal} shows ${type.collection} ${id} with ${differs.slice(0, 3).join(', ')} other than the gate's model`);
      }
    }
    facts.dropBodies(held);
    for (const c of cost.values()) budget.release('planning', c);
  }
  for (const [root, fields] of unsorted) for (const f of fields) sorted.get(root)?.delete(f);
  return { relaxed, sorted, findings };
}

/** ES-21 and ES-31/ES-32 as the gate learned them: each item and list plan of the type drops the relaxed required fields and names its sorted arrays. */
export function applyGate(gate: GateResult, root: string, merged: MergedTypes, plans: Plan[]): void {
  for (const p of plans) {
    if (p.kind !== 'item' && p.kind !== 'list') continue;
    const relaxed = gate.relaxed.get(root);
    if (relaxed) p.required_fields = p.required_fields.filter((f) => !relaxed.has(f));
    const learned = gate.sorted.get(root);
    if (learned)
      p.sorted_arrays = sortedCandidates((merged.observationsByTool.get(p.tool) ?? []).map((o) => o.object)).filter((f) => learned.has(f));
  }
}
