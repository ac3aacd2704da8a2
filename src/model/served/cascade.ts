/**
 * Issue 45 (kind 5, deletes): reads that a delete's unknown cascade does not change.
 * After this session deletes a post, the comments naming it are in a state the capture does
 * not show: the app may have deleted them (json-server 0.17), cleared the reference (1.0,
 * `postId: null`) or left them. A read is answered from state only when it answers the same
 * under all three — `/comments?userId=2` does when no orphan has userId 2, `/comments` (which
 * lists them or not) does not — so the model never picks one of the apps' habits in silence.
 * A read that filters on the reference itself is not answered: how the app's filter treats a
 * cleared (null) reference is not known either (json-server 1.0 lists a comment whose `postId`
 * is null under `?postId=2`, recorded in bench/fidelity/json-server-1.0/capture.har).
 */
import { canonicalJson } from '../../json/canonical.js';
import { childPointer } from '../../json/pointer.js';
import { replaceAt } from '../plan/json.js';
import type { StateAnswer } from './read-index.js';
import type { ServedModel } from './model.js';
import type { Orphan } from './write-log.js';

/** The cascades a delete may have had on the entities naming the deleted one. */
const CASCADES = ['kept', 'deleted', 'cleared'] as const;

/** The answer as compared across cascades: everything a client sees. */
function seen(a: StateAnswer): string {
  return canonicalJson({
    status: a.status,
    value: a.value,
    headers: a.headers ?? {},
    record: a.record?.ordinal ?? null,
  });
}

/**
 * The answer `answer()` gives under every cascade of `orphans`, when it is the same under all
 * (its `why` saying so) and none of `queryKeys` filters on an orphan's reference, else null.
 * The model is left as it was.
 */
export async function cascadeFreeAnswer(
  model: ServedModel,
  orphans: readonly Orphan[],
  queryKeys: readonly string[],
  answer: () => Promise<StateAnswer | null>,
): Promise<StateAnswer | null> {
  if (orphans.some((o) => queryKeys.some((k) => k.startsWith(o.field)))) return null;
  const saved = model.writtenEntities();
  let first: StateAnswer | null = null;
  try {
    for (const cascade of CASCADES) {
      model.restore(new Map([...saved].map(([c, m]) => [c, new Map(m)])));
      for (const o of orphans) {
        if (cascade === 'deleted') model.remove(o.collection, o.id);
        const e = await model.entity(o.collection, o.id);
        if (cascade === 'cleared' && e) await model.put({ ...e, value: replaceAt(e.value, childPointer('', o.field), null) });
      }
      const a = await answer();
      if (a === null) return null;
      if (first === null) first = a;
      else if (seen(a) !== seen(first)) return null;
    }
  } catch {
    // A cascade under which the state cannot answer is one the answer may depend on.
    return null;
  } finally {
    model.restore(saved);
  }
  if (first === null) return null;
  const named = [...new Set(orphans.map((o) => `${o.collection} naming ${o.deleted} ${o.deletedId}`))].join(', ');
  return {
    ...first,
    why: `${first.why}; the answer is the same whether the app deleted, kept or cleared the ${named}, which the capture does not show`,
  };
}
