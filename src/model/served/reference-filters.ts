/**
 * Issue 44: where a filter by a reference's id (`?project_id=3`, learned where a recorded line
 * reproduced it, or the API's convention: plan/conventions.ts `reference`) is not answered.
 * Plain equality on `project.id` is what the recorded line proved; two kinds of value ask for
 * more than that, and the app's answer to them is not known:
 *
 * - an id no entity of the list references — the app may read the value as another key (Redmine
 *   takes a project's identifier, `project_id=borealis`) or list nothing;
 * - an id of an entity that heads a tree — its own collection holds an entity naming it by a
 *   reference (a subproject's `"parent": {"id": 1}`): Redmine's `project_id=1` lists the
 *   subprojects' issues too (bench/fidelity/redmine), another app would not.
 *
 * Both are declined (`no-convention`), never answered with plain equality — the second unless
 * the capture proved the key lists what sits under the entity (`tree`, tree-filters.ts).
 */
import { CapstateError } from '../../errors.js';
import { fieldOf, spelling, type ListQuery } from '../plan/list-queries.js';
import type { ListPlan } from '../plan/types.js';
import type { ServeContext } from './context.js';
import type { CallRequest } from './input-schema.js';
import type { ServedModel } from './model.js';
import { namingAny, referencedCollection, type ReferenceSite } from './tree-filters.js';

/** Throws the decline for the first reference filter value the model cannot answer by equality. */
export async function knownReferences(
  ctx: ServeContext,
  model: ServedModel,
  plan: ListPlan,
  query: ListQuery,
  call: CallRequest,
  tree: ReadonlySet<string> = new Set(),
): Promise<void> {
  const refs = (query.filter ?? []).filter(
    (f) => f.op === undefined && f.field.endsWith('.id') && plan.fields.includes(f.field.slice(0, -3)),
  );
  if (!refs.length) return;
  const all = await model.collection(plan.collection);
  for (const f of refs) {
    const name = f.field.slice(0, -3);
    const key = (v: string) => `${call.query.find((p) => p.value === v)?.name ?? f.field}=${v}`;
    const decline = (v: string, words: string): never => {
      throw new CapstateError('no-convention', `${plan.tool}: ${key(v)} ${words}, and the capture does not show which`, {
        tool: plan.tool,
        did_not_match: key(v),
      });
    };
    const held = new Set(all.map((e) => spelling(fieldOf(e, plan.tool, f.field))));
    for (const v of f.values) {
      if (!held.has(v))
        decline(
          v,
          `names no ${name} that an entity of ${plan.collection} references; the app may read it as another key (an identifier) or list nothing`,
        );
      // A key learned as `tree` answers for what sits under the entity too (tree-filters.ts).
      const under = tree.has(f.field) ? null : await subEntityOf({ ctx, model, all, tool: plan.tool, field: name }, v);
      if (under) decline(v, `names ${name} ${v}, which ${under}; the app's filter may list theirs too or not`);
    }
  }
}

/** Words naming an entity under the one `field` references by `id` (tree-filters.ts: in the referenced collection, one naming it by a reference), or null. */
async function subEntityOf(site: ReferenceSite, id: string): Promise<string | null> {
  const collection = await referencedCollection(site, id);
  if (collection === null) return null;
  const [first] = await namingAny(site.model, collection, new Set([id]));
  return first ? `${collection} ${first[0]} names by its ${first[1]}` : null;
}
