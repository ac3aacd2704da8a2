/**
 * Issue 45: the members every recorded request of a write tool sent. A `PUT` that leaves one
 * out asks something the capture never showed the app answering — json-server drops the member,
 * Redmine keeps it, Django REST framework answers `400 {"author": ["This field is required."]}`
 * — where the model would have merged the rest and answered 200: a plausible wrong answer. So
 * such a PUT is declined (writes.ts), not applied. A create is not held to it: a create that
 * leaves members to the server's defaults is the common case (json-server takes any).
 */
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import { at, isObject, keysOf, member } from '../plan/json.js';
import { perContextKey, type ServeContext } from './context.js';
import { jsonValueOf, readBody, toolRecords } from './records.js';

/** The members (at `pointer` of the body) every 2xx JSON request of `tool` sent, sorted; empty when none was recorded. */
export const alwaysSent = perContextKey(async (ctx, tool: string, pointer: string): Promise<string[]> => {
  let common = null as Set<string> | null;
  for (const r of await toolRecords(ctx, tool)) {
    if (r.status < 200 || r.status > 299 || r.request_kind !== 'json') continue;
    const body = jsonValueOf(await readBody(ctx, r.request_body_id));
    const part = body === undefined ? undefined : pointer === '' ? body : at(body, pointer);
    if (!isObject(part)) return [];
    const keys = new Set(keysOf(part));
    common = common === null ? keys : new Set([...common].filter((k) => keys.has(k)));
  }
  return [...(common ?? [])].sort();
});

/** Throws `no-convention` where `part` lacks a member every recorded request of `tool` (its `method` on `template`) sent. */
export async function requireSentMembers(
  ctx: ServeContext,
  tool: { name: string; method: string; template: string },
  pointer: string,
  part: JsonValue,
  asked: string,
): Promise<void> {
  const always = await alwaysSent(ctx, tool.name, pointer);
  const missing = always.filter((k) => member(part, k) === undefined);
  if (missing.length === 0) return;
  throw new CapstateError(
    'no-convention',
    `${asked}: every ${tool.method.toUpperCase()} the capture recorded on ${tool.template} sent ${always.join(', ')}; this one lacks ${missing.join(', ')}, and the capture does not show what the app answers then (it may require them)`,
    { tool: tool.name, request_line: asked, nearest_tool: tool.name, did_not_match: `a request body with ${missing.join(', ')}` },
  );
}

/** Entities a type must hold, each with its own word in a member, before that member is taken for a key. */
const KEY_EVIDENCE = 5;
/** A word as keys are spelled (a tag, a slug, a login, an email): short, no spaces. */
const KEY_WORD = /^\S{1,64}$/;

/**
 * Throws `no-convention` where a create gives a member a word an entity of its type already
 * holds there, and the type's entities (at least five) all hold different words there: the
 * member may be unique (Django's tag `name`: `400 {"name": ["tag with this name already
 * exists."]}`), and the capture does not show whether the app takes a second one. Three silences
 * by three people (Alertmanager's `createdBy`) are not evidence enough; a title (spaces) is no key.
 */
export function refuseLikelyDuplicate(held: readonly { value: JsonValue }[], part: JsonValue, collection: string, asked: string): void {
  if (held.length < KEY_EVIDENCE || !isObject(part)) return;
  for (const k of keysOf(part)) {
    const v = member(part, k);
    if (typeof v !== 'string' || !KEY_WORD.test(v)) continue;
    const values = held.map((e) => member(e.value, k));
    if (!values.includes(v) || !values.every((x) => typeof x === 'string' && KEY_WORD.test(x)) || new Set(values).size !== values.length)
      continue;
    throw new CapstateError(
      'no-convention',
      `${asked}: ${collection} already holds ${k} ${JSON.stringify(v)}, and every one of its ${held.length} entities holds a different ${k}: it may be unique, and the capture does not show whether the app takes a second one`,
      { request_line: asked, did_not_match: `a ${k} no entity holds` },
    );
  }
}
