/**
 * New ids the way the capture shows them (issue 16): the next integer after the largest, a
 * UUID, the next counter after a shared prefix (`note-1005`), or a random value of the
 * recorded id's shape; and the id a recorded create answer shows. check-effects draws its
 * random ids from a fixed stream (`RandomBytes`), so its words are the same on every load.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import { at, isObject, keysOf, member } from '../plan/json.js';
import type { ServedModel } from './model.js';
import type { WriteModel } from './writes.js';

/** `n` random bytes. */
export type RandomBytes = (n: number) => Uint8Array;

/** An RFC 4122 version 4 UUID from `random`'s bytes. */
function uuidFrom(random: RandomBytes): string {
  const b = Buffer.from(random(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An integer id (a number or a 64-bit bigint). */
export const isInt = (v: JsonValue | undefined): v is number | bigint =>
  (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';

/** An id's shape: an integer, a UUID, a prefix and a counter (`note-2001`: `note-` + digits), or its length and alphabet. */
export function idShape(v: JsonValue | undefined): string {
  if (isInt(v)) return 'integer';
  if (typeof v !== 'string') return `other:${typeof v}`;
  if (UUID.test(v)) return 'rfc-4122';
  const counter = /^(.*?)(\d+)$/.exec(v);
  if (counter) return `counter:${counter[1]}`;
  return `chars:${v.length}:${/^[0-9a-f]+$/.test(v) ? 'hex' : 'any'}`;
}

/**
 * A new id the way the capture shows them: the body's own, the next integer after the
 * largest, a UUID, the next counter after a shared prefix (`note-1005`), or a random value
 * of the recorded id's length and alphabet.
 */
export async function allocateId(
  model: ServedModel,
  wm: WriteModel,
  recordedId: JsonValue | undefined,
  given: JsonValue | undefined,
  random?: RandomBytes,
): Promise<JsonValue> {
  if (given !== undefined && given !== null) return given;
  if (typeof recordedId === 'string' && UUID.test(recordedId)) return random ? uuidFrom(random) : randomUUID();
  if (recordedId === undefined || isInt(recordedId)) {
    // The model keeps the top as writes change the collection (a long session creates thousands).
    const { allInt, top } = await model.intIds(wm.collection!, wm.identity!);
    if (allInt) {
      const next = BigInt(top) + 1n;
      return next <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(next) : next;
    }
  }
  const ids = (await model.collection(wm.collection!)).map((e) => member(e.value, wm.identity!)).filter((v) => v !== undefined);
  const max = (xs: bigint[]) => xs.reduce((m, v) => (v > m ? v : m), 0n);
  const counter = typeof recordedId === 'string' ? /^(.*?)(\d+)$/.exec(recordedId) : null;
  if (counter) {
    const [, prefix, digits] = counter;
    const held = ids.map((v) =>
      typeof v === 'string' && v.startsWith(prefix) && /^\d+$/.test(v.slice(prefix.length)) ? BigInt(v.slice(prefix.length)) : null,
    );
    if (held.every((v) => v !== null)) {
      const next = String(max(held as bigint[]) + 1n);
      return prefix + (digits.startsWith('0') ? next.padStart(digits.length, '0') : next);
    }
  }
  return randomLike(typeof recordedId === 'string' ? recordedId : 'xxxxxxxxxxxxxxxxxxxxxxxx', random);
}

/**
 * Issue 45 (id allocation): the next integer after the highest held is the capture's evidence for
 * a create's id, but once this session removed the entity holding the highest, apps part ways:
 * json-server 0.17 gives the next create that id again (the highest held plus one), Feathers'
 * memory service and a database sequence the one after it (a counter). The capture shows neither,
 * so such a create is declined (`no-convention`) rather than answered with an id that may be wrong.
 */
export async function refuseReusedTop(model: ServedModel, collection: string, id: JsonValue, asked: string): Promise<void> {
  if (!isInt(id)) return;
  const removed = model.removedTop(collection);
  if (removed === undefined || removed < BigInt(id)) return;
  throw new CapstateError(
    'no-convention',
    `${asked}: this session removed ${collection} ${removed}, the highest id it held; the capture does not show whether the app gives the next one ${String(id)} (the highest held plus one) or a number past every id it gave (a counter)`,
    { request_line: asked, did_not_match: 'a create after the highest id was removed' },
  );
}

/**
 * A random id of the recorded one's shape (idShape): its prefix up to the last separator kept
 * (`itm_`), then a digit for a digit and a letter of the same case for a letter (hex ids stay
 * hex). Drawing from one alphabet, a value could end in a digit and read as a counter, so a
 * create's answer and check-effects depended on the draw (graphql-mixed, ~1 run in 6).
 */
export function randomLike(shape: string, random: RandomBytes = randomBytes): string {
  const cut = Math.max(...['_', '-', '.', ':', '/'].map((c) => shape.lastIndexOf(c))) + 1;
  const hex = /^[0-9a-f]+$/.test(shape);
  const pick = (set: string, b: number) => set[b % set.length];
  const draw = () =>
    shape.slice(0, cut) +
    [...random(shape.length - cut)]
      .map((b, i) => {
        const c = shape[cut + i];
        if (c >= '0' && c <= '9') return pick('0123456789', b);
        if (hex) return pick('abcdef', b);
        if (c >= 'a' && c <= 'z') return pick('abcdefghijklmnopqrstuvwxyz', b);
        if (c >= 'A' && c <= 'Z') return pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ', b);
        return c;
      })
      .join('');
  // A draw of only a-f letters and digits from a non-hex shape would read as hex: draw again.
  let id = draw();
  for (let i = 0; i < 32 && idShape(id) !== idShape(shape); i++) id = draw();
  return id;
}

/** The id a recorded create answer shows: the entity's identity member, or the value of a wrapper holding only an id. */
export function createdIdOf(wm: Pick<WriteModel, 'pointer' | 'identity'>, answer: JsonValue | undefined): JsonValue | undefined {
  if (answer === undefined) return undefined;
  const held = entityIdIn(answer, wm.pointer, wm.identity!);
  if (held.found) return held.id;
  const keys = keysOf(answer);
  // A wrapper's id member: its only member, or one named like an id whose value is an id (`grid` is not).
  const idKey = keys.length === 1 ? keys[0] : keys.find((k) => /id$/i.test(k) && scalarId(member(answer, k)) !== undefined);
  return idKey === undefined ? undefined : scalarId(member(answer, idKey));
}

/**
 * The identity an answer's entity holds: the object at `pointer`, else the whole answer, when it
 * has the identity member (`found`); `id` is that member as an id (undefined when it is no scalar).
 */
export function entityIdIn(answer: JsonValue, pointer: string, identity: string): { found: boolean; id?: string | number | bigint } {
  for (const v of [at(answer, pointer), answer])
    if (isObject(v) && member(v, identity) !== undefined) return { found: true, id: scalarId(member(v, identity)) };
  return { found: false };
}

/** An id is a string or a number; any other value names no entity. */
export function scalarId(v: JsonValue | undefined): string | number | bigint | undefined {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? v : undefined;
}

/** The id an object shows in member `identity`, spelled as the model keys entities (OQ-9: `7` and `"7"` are one id); undefined for a value that is no object or names none. */
export function idIn(o: JsonValue | undefined, identity: string): string | undefined {
  const v = isObject(o) ? scalarId(member(o, identity)) : undefined;
  return v === undefined ? undefined : String(v);
}
