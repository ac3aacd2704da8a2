/**
 * Whether a model's answer equals a recorded one as check-effects compares them (effects.ts),
 * apart from effects.ts so the session's catch-up (catch-up.ts) compares the same way without
 * importing the checker that answers calls.
 */
import { objectEntries, type JsonValue } from '../../json/exact.js';
import { readClock } from '../plan/clocks.js';
import { isObject } from '../plan/json.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * JSON equality (member order aside, numbers by value), except values the capture shows to
 * be server-chosen: two clocks in the same spelling, or two UUIDs, compare by shape.
 */
export function sameValue(a: JsonValue | undefined, b: JsonValue | undefined, field = ''): boolean {
  if (a === undefined || b === undefined) return a === b;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    if (String(a) === String(b)) return true;
    const ca = readClock(field, a),
      cb = readClock(field, b);
    return ca !== undefined && cb !== undefined && JSON.stringify(ca.format) === JSON.stringify(cb.format);
  }
  if (typeof a === 'string' && typeof b === 'string') {
    if (a === b) return true;
    if (UUID.test(a) && UUID.test(b)) return true;
    const ca = readClock(field, a),
      cb = readClock(field, b);
    return ca !== undefined && cb !== undefined && JSON.stringify(ca.format) === JSON.stringify(cb.format);
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i], field));
  if (!isObject(a) || !isObject(b)) return false;
  const ea = objectEntries(a),
    eb = new Map(objectEntries(b));
  return ea.length === eb.size && ea.every(([k, x]) => eb.has(k) && sameValue(x, eb.get(k), k));
}
