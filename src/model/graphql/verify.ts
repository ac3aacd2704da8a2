/**
 * @rule GQL-8
 * Issue 48 (GQL-8, check-effects for GraphQL): a mutation convention changes the model only
 * when the capture agrees with it. The capture is run again on a fresh session from its
 * initial entities: each recorded mutation is applied by its convention and its answer
 * compared with the recorded one, and each later read the model can answer is compared with
 * the app's. A disagreement refutes the conventions of the types that read shows.
 */
import { canonicalJson } from '../../json/canonical.js';
import type { JsonValue } from '../../json/exact.js';
import { answerGraphql, GqlDecline } from './answer.js';
import type { Learned } from './learn.js';
import { GqlSession } from './session.js';
import { isPlainObject } from './normalize.js';

const dataOf = (v: JsonValue | null | undefined): string | null => (isPlainObject(v) ? canonicalJson(v.data ?? null) : null);

/** Marks each mutation convention of `l` verified or refuted (with why); returns `l`. */
export function verifyMutations(l: Learned): Learned {
  const session = new GqlSession(l);
  const applied = new Set<string>();
  for (const r of l.records) {
    if (r.req.kind === 'mutation') {
      const names = new Set(r.req.operation.selectionSet.selections.flatMap((s) => (s.kind === 'Field' ? [s.name.value] : [])));
      const conventions = [...names].map((n) => l.mutations.get(n)).filter((c) => c !== undefined);
      try {
        const a = answerGraphql(session, r.req, true);
        if (dataOf(a.value) !== dataOf(r.answer))
          for (const c of conventions) c.refuted ??= `its answer to record #${r.ordinal} differs from the app's`;
        for (const c of conventions) applied.add(c.name);
      } catch (e) {
        if (!(e instanceof GqlDecline)) throw e;
        // A field the model does not hold is no evidence against the convention; an effect it cannot take is.
        if (e.effectTaken) for (const c of conventions) applied.add(c.name);
        else {
          for (const c of conventions) c.refuted ??= `record #${r.ordinal}: ${e.message}`;
          session.stale.add('*');
        }
      }
      // The app's own answer shows the entities as they stand (serving takes it in on the capture's track).
      session.absorb(r);
      continue;
    }
    const types = new Set([...r.shown.values()].map((e) => e.typename));
    const after = [...types].some((t) => session.touched(t));
    if (!after || !r.answer) {
      session.absorb(r);
      continue;
    }
    try {
      // Compared before catchUp took this read in: the session answers from the mutations alone.
      const a = answerGraphql(session, r.req);
      if (dataOf(a.value) !== dataOf(r.answer))
        for (const c of l.mutations.values())
          if (types.has(c.typename) && applied.has(c.name))
            c.refuted ??= `the app's later read, record #${r.ordinal}, differs from the model's`;
    } catch (e) {
      if (!(e instanceof GqlDecline)) throw e;
    }
    session.absorb(r);
  }
  for (const c of l.mutations.values()) c.verified = !c.refuted && applied.has(c.name);
  return l;
}
