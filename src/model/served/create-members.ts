/**
 * A create's members beyond its body (issues 16 and 45): the type's defaults a create the
 * capture's later reads show holding more than its answer holds is tried with (Redmine answers
 * a POST without `spent_hours`, which every issue read shows as 0.0; writes.ts's
 * `create-with-defaults`), which members of the recorded answer the server added, and whether a
 * create leaves out what the recorded one gave where the app adds members of its own.
 */
import type { JsonValue } from '../../json/exact.js';
import { jsonEqual, keysOf, member, objectFrom } from '../plan/json.js';
import type { StateEntity } from '../plan/types.js';

/**
 * A type's defaults: the members every entity the model holds (at least two) holds with one
 * and the same value, with the member each follows in the first entity (null: first).
 * Only tried when a create without them does not reproduce the capture (effectsToTry).
 */
export function typeDefaults(entities: StateEntity[]): { key: string; value: JsonValue; after: string | null }[] {
  if (entities.length < 2) return [];
  const [first, ...rest] = entities;
  const keys = keysOf(first.value);
  return keys.flatMap((key, i) => {
    const value = member(first.value, key)!;
    return rest.every((e) => member(e.value, key) !== undefined && jsonEqual(member(e.value, key), value))
      ? [{ key, value, after: i === 0 ? null : keys[i - 1] }]
      : [];
  });
}

/** The entity's members with each default it lacks put after the member it follows in the type's entities (else last). */
export function withDefaults(
  entries: [string, JsonValue][],
  defaults: { key: string; value: JsonValue; after: string | null }[],
): JsonValue {
  const out = [...entries];
  for (const d of defaults) {
    if (out.some(([k]) => k === d.key)) continue;
    // After the member it follows; first when it follows none; last when that member is absent.
    const i = d.after === null ? 0 : out.findIndex(([k]) => k === d.after) + 1 || out.length;
    out.splice(i, 0, [d.key, d.value]);
  }
  return objectFrom(out);
}

/** The base of a reference form (`assigned_to` for `assigned_to_id`, `user` for `userId`), or undefined. */
export const referenceBase = (k: string) => /^(.+?)(?:_id|Id)$/.exec(k)?.[1];

/** Whether the recorded request gave `k` itself or by its reference form (`assigned_to` by `assigned_to_id`). */
export const requestGave = (recordedRequest: JsonValue | undefined, k: string) =>
  member(recordedRequest, k) !== undefined || keysOf(recordedRequest).some((r) => referenceBase(r) === k);

/**
 * Issue 45: whether `request` leaves out a member the recorded create's request gave, where the
 * recorded answer holds members the request did not give (the app adds members of its own:
 * Redmine's `status`, `author`, `start_date` when none is given): what the app does then is not
 * shown, so the create is not modelled. An app that answers the request and an id (json-server)
 * adds nothing, and a member left out is just absent.
 */
export function omitsRecorded(
  recordedRequest: JsonValue | undefined,
  recordedEntity: JsonValue | undefined,
  request: JsonValue,
  identity: string,
): boolean {
  const adds = keysOf(recordedEntity).some((k) => k !== identity && !requestGave(recordedRequest, k));
  return adds && keysOf(recordedRequest).some((k) => k !== identity && member(request, k) === undefined);
}
