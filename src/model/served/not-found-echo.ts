/**
 * Issue 44 (kind 6): a recorded 404 that names the id it was asked for. Feathers answers
 * `GET /messages/4` with `{"name":"NotFound","message":"No record found for id '4'",…}`, so
 * the same body for `/messages/99` would be a plausible wrong answer. Where the recorded id
 * stands in the body's strings as a word of its own, the answer for another id says that id
 * there; where the body shows it in a way the capture does not explain — as a number, or
 * more than once — no body is made up (the caller declines).
 */
import { objectEntries, type JsonValue } from '../../json/exact.js';
import { isObject } from '../plan/json.js';

export type EchoedBody = { ok: true; value: JsonValue; echoed: boolean } | { ok: false; why: string };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `value` (a 404 body recorded for id `recorded`, with `status`) as the app would answer it for
 * id `asked`: the recorded id replaced where it stands as a word in a string; `echoed` says
 * whether it stood anywhere.
 */
export function withAskedId(value: JsonValue, recorded: string, asked: string, status: number): EchoedBody {
  if (recorded === '' || recorded === asked) return { ok: true, value, echoed: false };
  // A word: not inside a longer run of letters and digits (`'4'`, `id 4.`, not `404` or `v4`).
  const word = new RegExp(`(?<![A-Za-z0-9])${escape(recorded)}(?![A-Za-z0-9])`, 'g');
  let found = 0;
  let inNumber = false;
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') {
      const n = v.match(word)?.length ?? 0;
      found += n;
      return n ? v.replace(word, () => asked) : v;
    }
    if ((typeof v === 'number' || typeof v === 'bigint') && String(v) === recorded && String(v) !== String(status)) inNumber = true;
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, walk(x)]));
    if (isObject(v)) {
      // Exact JSON objects have no prototype (json/exact.ts); the copy neither.
      const o: { [key: string]: JsonValue } = Object.create(null);
      for (const [k, x] of objectEntries(v)) o[k] = walk(x);
      return o;
    }
    return v;
  };
  const out = walk(value);
  if (inNumber) return { ok: false, why: `shows the id it was asked for (${recorded}) as a number` };
  if (found > 1) return { ok: false, why: `names ${JSON.stringify(recorded)} ${found} times, not only as the id it was asked for` };
  return { ok: true, value: out, echoed: found === 1 };
}

/** The strings of a JSON value (member names left out): what a body says, as words to look for. */
export function stringsOf(v: JsonValue): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(stringsOf);
  if (isObject(v)) return objectEntries(v).flatMap(([, x]) => stringsOf(x));
  return [];
}
