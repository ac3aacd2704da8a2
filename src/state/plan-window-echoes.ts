/**
 * Issue 44, kind 1 (with ES-25, ES-36): envelope members that echo the request's window. A list
 * envelope such as Redmine's `{"issues": […], "total_count": 9, "offset": 0, "limit": 25}`
 * carries the page it was asked for: `offset` and `limit` are the request's own window, not
 * data, and two lines of the same list differ there only because they asked for different pages.
 * A top-level integer member named as a window key is such an echo when every recorded line
 * that names a key of the same role (OQ-13's window vocabulary: offset, size, page) shows that
 * key's value there, every other line shows one default, and at least one line names such a
 * key. ES-25 then compares envelopes without it, and the renderer writes it from the line's
 * window (src/model/plan/render.ts). Called by steps/plans.ts (listPlan), which holds ES-25.
 */
import type { JsonValue } from '../json/exact.js';
import { isObject, keysOf, member } from '../model/plan/json.js';
import type { WindowEcho } from '../model/plan/types.js';
import { count } from '../model/plan/list-queries.js';
import type { ReadLine } from './facts.js';
import { ok, type Ctx } from './plan-context.js';

/** The echo members of a list whose list sits at the top-level member `listPointer` (`/issues`). */
export function windowEchoes(ctx: Ctx, lines: readonly ReadLine[], listPointer: string): WindowEcho[] {
  const vocabulary = ctx.facts.vocabulary;
  const bodies = envelopeBodies(ctx, lines, listPointer);
  if (bodies.length === 0) return [];
  const out: WindowEcho[] = [];
  for (const key of keysOf(bodies[0].body)) {
    const role = vocabulary.windowRole(key);
    if (role === null || role === 'end' || `/${key}` === listPointer) continue;
    let fallback: number | undefined;
    let named = 0;
    const keys = new Set<string>();
    const echoes = bodies.every(({ r, body }) => {
      const v = member(body, key);
      if (typeof v !== 'number' || !Number.isInteger(v)) return false;
      const asked = r.query_pairs.filter((p) => vocabulary.windowRole(p.name) === role);
      if (asked.length > 1) return false;
      if (asked.length === 1) {
        named++;
        keys.add(asked[0].name);
        return count(asked[0].value) === v;
      }
      fallback ??= v;
      return v === fallback;
    });
    if (echoes && named > 0)
      out.push({ member: `/${key}`, role, keys: [...keys].sort(), ...(fallback !== undefined ? { default: fallback } : {}) });
  }
  return out;
}

/** The 2xx lines' object bodies of a list whose list sits at a top-level member (`/issues`): where its envelope's members are. */
export function envelopeBodies(ctx: Ctx, lines: readonly ReadLine[], listPointer: string): { r: ReadLine; body: JsonValue }[] {
  if (!/^\/[^/]+$/.test(listPointer)) return [];
  const bodies: { r: ReadLine; body: JsonValue }[] = [];
  for (const r of lines) {
    const body = ok(r.status) ? ctx.facts.bodyValue(r.response_body_id) : undefined;
    if (body !== undefined && isObject(body)) bodies.push({ r, body });
  }
  return bodies;
}
