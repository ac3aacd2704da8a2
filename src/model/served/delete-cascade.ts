/**
 * Issue 45 (kind 5, deletes): what a delete does to the entities naming the deleted one, learned
 * from the capture and applied to every delete of the API (`api-delete-cascade`). After
 * `DELETE /posts/5` the comments naming post 5 (`postId`) may be deleted with it (json-server
 * 0.17), keep the reference (many SQL apps) or have it cleared (json-server 1.0, `postId: null`).
 * The capture shows which where it read such an entity after one of its deletes: shown with the
 * reference null, it was cleared; shown with it unchanged, kept; left out of a later read of the
 * whole collection, deleted. One habit shown, and no other, is the API's until the capture shows
 * otherwise; none shown, the model does not pick one (cascade.ts answers only the reads all three
 * answer alike; write-log.ts declines the rest).
 */
import { childPointer } from '../../json/pointer.js';
import { isObject, member, replaceAt } from '../plan/json.js';
import { singular } from '../plan/relations.js';
import type { StateEntity } from '../plan/types.js';
import { perContext, type ServeContext } from './context.js';
import { idIn, scalarId } from './ids.js';
import { shownAt } from '../plan/render.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { itemValue, itemWritesOf, jsonValueOf, readBody, toolRecords, type ToolRecord } from './records.js';
import type { ManifestTool } from '../../manifest/read.js';

export type Cascade = 'kept' | 'deleted' | 'cleared';

/** The API's delete cascade and the reads (record ordinals) that showed it. */
export interface LearnedCascade {
  cascade: Cascade;
  proof: number[];
}

/**
 * The fields by which an entity names one of `collection` (`postId`, `post_id` for posts, and
 * WordPress's bare `post` holding the id), as write-log.ts's orphans are found. Only a scalar
 * value names an entity (idIn), so json-server's expanded `post` object does not.
 */
export function referenceFields(collection: string): string[] {
  const word = singular(collection.split('/').pop() ?? collection);
  return [`${word}Id`, `${word}_id`, word];
}

/**
 * The array members by which an entity names several of `collection` (`tags: [1, 5]`,
 * `tag_ids`, `tagIds`: Django REST framework's many-to-many, WordPress's categories). No cascade
 * the capture shows says what a delete does to them (the app may drop the id, as Django does,
 * or keep it), so write-log.ts leaves every delete's holders in doubt, applied or not.
 */
export function referenceLists(collection: string): string[] {
  const plural = collection.split('/').pop() ?? collection;
  const word = singular(plural);
  return [...new Set([plural, `${word}_ids`, `${word}Ids`])];
}

/** The API's delete cascade as the capture shows it, learned once per served store; null when it shows none, or more than one. */
export const deleteCascade = perContext(learn);

async function learn(ctx: ServeContext): Promise<LearnedCascade | null> {
  const state = await servedLookups(ctx);
  if (!state) return null;
  const types = await servedTypes(ctx);
  const shown = new Map<Cascade, Set<number>>();
  const saw = (c: Cascade, ordinal: number) => shown.set(c, (shown.get(c) ?? new Set()).add(ordinal));
  const gets = ctx.manifest.tools.filter((t) => t.method.toUpperCase() === 'GET');
  // Each type's stored entities, read once however many deletes ask.
  const held = new Map<string, Promise<StateEntity[]>>();
  const collection = (c: string) => held.get(c) ?? held.set(c, state.collection(c)).get(c)!;
  // Each type's stored entities, each root's item writes and each read tool's records in
  // timeline order, read once however many deletes ask.
  const writesUnder = new Map<string, Promise<Map<string, ToolRecord[]>>>();
  const itemWrites = (root: string) => writesUnder.get(root) ?? writesUnder.set(root, itemWritesOf(ctx, root)).get(root)!;
  const inOrder = new Map<string, ToolRecord[]>();
  const readsOf = async (tool: string) =>
    inOrder.get(tool) ??
    inOrder
      .set(
        tool,
        [...(await toolRecords(ctx, tool))].sort((a, b) => a.timeline_position - b.timeline_position),
      )
      .get(tool)!;
  // A delete's evidence is the reads before the capture's next delete: each read is looked at for
  // one delete only, so a capture of thousands of deletes (a session repeated) costs one pass.
  const deletes: { tool: ManifestTool; d: ToolRecord }[] = [];
  for (const tool of ctx.manifest.tools)
    if (tool.method.toUpperCase() === 'DELETE') for (const d of await toolRecords(ctx, tool.name)) deletes.push({ tool, d });
  deletes.sort((a, b) => a.d.timeline_position - b.d.timeline_position);
  for (const [i, { tool, d }] of deletes.entries()) {
    const deleted = types.find((t) => t.root_path === tool.root_path);
    const id = itemValue(tool, d);
    if (!deleted || d.status < 200 || d.status > 299 || id === undefined) continue;
    const until = deletes[i + 1]?.d.timeline_position ?? Infinity;
    for (const other of types) {
      if (other.collection === deleted.collection) continue;
      // The entities that named the deleted one before the capture's writes (the stored state).
      const naming = new Map<string, string>();
      for (const e of await collection(other.collection))
        for (const f of referenceFields(deleted.collection)) if (idIn(e.value, f) === id) naming.set(e.id, f);
      if (naming.size === 0) continue;
      // An entity a later write named may have been changed by that write, not the delete.
      const writes = await itemWrites(other.root_path);
      const rewritten = (oid: string, at: number) =>
        (writes.get(oid) ?? []).some((w) => w.timeline_position > d.timeline_position && w.timeline_position < at);
      for (const read of gets.filter((t) => t.root_path === other.root_path)) {
        const plan = await state.plan(read.name);
        if (plan?.kind !== 'item' && plan?.kind !== 'list') continue;
        const whole = plan.kind === 'list' && plan.lines.some((l) => l.query === null && l.membership === 'all');
        const records = await readsOf(read.name);
        for (let j = firstAfter(records, d.timeline_position); j < records.length && records[j].timeline_position < until; j++) {
          const r = records[j];
          if (r.status < 200 || r.status > 299) continue;
          const objects = shownAt(plan, jsonValueOf(await readBody(ctx, r.response_body_id, r.response_media_type))) ?? [];
          const ids = new Set<string>();
          for (const o of objects) {
            const oid = isObject(o) ? scalarId(member(o, other.identity)) : undefined;
            if (oid === undefined) continue;
            ids.add(String(oid));
            const field = naming.get(String(oid));
            if (field === undefined || rewritten(String(oid), r.timeline_position)) continue;
            const v = member(o, field);
            if (v === null) saw('cleared', r.ordinal);
            else if (v !== undefined && String(scalarId(v)) === id) saw('kept', r.ordinal);
          }
          // A read of the whole collection that leaves one out shows it deleted.
          if (whole && r.query_pairs.length === 0 && [...naming.keys()].some((n) => !ids.has(n) && !rewritten(n, r.timeline_position)))
            saw('deleted', r.ordinal);
        }
      }
    }
  }
  if (shown.size !== 1) return null;
  const [[cascade, proof]] = [...shown];
  return { cascade, proof: [...proof].sort((a, b) => a - b) };
}

/** The index of the first of `records` (in timeline order) made after `position`. */
function firstAfter(records: readonly ToolRecord[], position: number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (records[mid].timeline_position <= position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * After the model removed `id` from `collection`: the API's learned cascade applied to the
 * entities of other collections naming it. Returns the learned cascade and the entities it
 * changed (none for `kept`), or null when the capture shows no cascade.
 */
export async function applyDeleteCascade(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  id: string,
): Promise<(LearnedCascade & { changed: StateEntity[] }) | null> {
  const learnedCascade = await deleteCascade(ctx);
  if (!learnedCascade) return null;
  const changed: StateEntity[] = [];
  for (const other of await servedTypes(ctx)) {
    if (other.collection === collection) continue;
    for (const e of await model.collection(other.collection)) {
      const field = referenceFields(collection).find((f) => idIn(e.value, f) === id);
      if (field === undefined) continue;
      if (learnedCascade.cascade === 'deleted') model.remove(e.collection, e.id);
      if (learnedCascade.cascade === 'cleared') await model.put({ ...e, value: replaceAt(e.value, childPointer('', field), null) });
      if (learnedCascade.cascade !== 'kept') changed.push(e);
    }
  }
  return { ...learnedCascade, changed };
}

/**
 * After the model removed `id` from `collection`: the API's learned cascade applied
 * (applyDeleteCascade), as a note for the delete's `why` and the convention to mark it with,
 * both empty where it changed nothing.
 */
export async function cascadeAfterRemove(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  id: string,
): Promise<{ note: string; mark: { convention?: 'api-delete-cascade' } }> {
  const c = await applyDeleteCascade(ctx, model, collection, id);
  if (!c?.changed.length) return { note: '', mark: {} };
  const named = [...new Set(c.changed.map((e) => e.collection))].join(', ');
  const did = c.cascade === 'deleted' ? 'deleted with it' : 'had the reference cleared (null)';
  const proof = `record${c.proof.length > 1 ? 's' : ''} #${c.proof.join(', #')}`;
  return {
    note: `; the ${named} naming it (${c.changed.map((e) => e.id).join(', ')}) ${did}, as the capture showed after its own delete (${proof}: the API's api-delete-cascade convention)`,
    mark: { convention: 'api-delete-cascade' },
  };
}
