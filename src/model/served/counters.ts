/**
 * Issue 45 (kind 3, server-kept fields): a count an entity shows of the entities that name it —
 * WordPress's category `count` of its posts, a `comments_count`, a `num_members` — changes when
 * this session creates or deletes one that names it (or moves one to it), and the model keeps
 * no such count: it would answer the count from before the write, a plausible wrong answer. So
 * a read that shows such an entity after such a write is declined, unless the capture read it
 * after the same writes (answer.ts replays that record). Found by WordPress's held-out reads:
 * `/categories/3` answered `count: 5` after the session deleted a post of category 3 (the app: 4).
 */
import type { JsonValue } from '../../json/exact.js';
import { isObject, member } from '../plan/json.js';
import type { ServeContext } from './context.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { collectionFields } from './read-index.js';
import { referenceFields, referenceLists } from './delete-cascade.js';
import { scalarId } from './ids.js';

/** Member names of a count: `count`, `…_count`, `…Count`, `num_…`. */
const COUNTER = /^count$|^num_|[a-z0-9](_count|Count)$/;

/**
 * Why a read of `collection` (or of its entity `id`) cannot be answered from the state after this
 * session's writes, in words; null when no write may have changed a count it shows.
 */
export async function countInDoubt(ctx: ServeContext, model: ServedModel, collection: string, id?: string): Promise<string | null> {
  if (model.writes.length === 0) return null;
  const counters = (await collectionFields(ctx, collection)).filter((f) => COUNTER.test(f));
  if (counters.length === 0) return null;
  const types = await servedTypes(ctx);
  const own = types.find((t) => t.collection === collection)?.root_path;
  const scalars = referenceFields(collection);
  const lists = referenceLists(collection);
  for (const w of model.writes) {
    if (w.root === own) continue;
    // A create names what its body names; a delete what its entity named; an update what its body moves it to.
    const named: JsonValue[] = [];
    if (w.method === 'DELETE') {
      const of = types.find((t) => t.root_path === w.root)?.collection;
      const e =
        of === undefined || w.entity === undefined
          ? undefined
          : ((await model.entity(of, w.entity)) ?? (await (await servedLookups(ctx))?.entity(of, w.entity)));
      if (e) named.push(e.value);
    } else if (w.call.body !== undefined) named.push(w.call.body as JsonValue);
    for (const v of named) {
      const ids = idsNamed(v, scalars, lists);
      const hit = id === undefined ? ids[0] : ids.find((x) => x === id);
      if (hit !== undefined) {
        const did = w.method === 'DELETE' ? 'deleted' : w.entity === undefined ? 'created' : 'changed';
        return `${collection} ${hit} shows ${counters.join(', ')}, which may count the entity this session ${did} by ${w.method} ${w.root}${w.entity !== undefined ? `/${w.entity}` : ''}; the model keeps no such count`;
      }
    }
  }
  return null;
}

/** The ids `v` names by a scalar member of `scalars` or an array member of `lists`. */
function idsNamed(v: JsonValue, scalars: readonly string[], lists: readonly string[]): string[] {
  if (!isObject(v)) return [];
  const out: string[] = [];
  const scalar = (x: JsonValue | undefined) => {
    const id = scalarId(x);
    if (id !== undefined) out.push(String(id));
  };
  for (const s of scalars) scalar(member(v, s));
  for (const l of lists) {
    const a = member(v, l);
    if (Array.isArray(a)) for (const x of a) scalar(x);
  }
  return out;
}
