/**
 * Issue 45 (references): a write that names, by a field named for another collection (`author`,
 * `userId`, `post_id`; `tags: [1, 5]`), an entity that collection does not hold, where the model
 * knows every entity of it (a list of the capture shows it whole). Django REST framework answers
 * `PATCH /api/posts/3/ {"author": 99}` with `400 {"author": ["Invalid pk \"99\" - object does not
 * exist."]}`; json-server takes it. Merging it and answering 200 was a plausible wrong answer:
 * the capture does not show which the app does, so the write is declined — unless the capture
 * recorded this very request answered 2xx (the app took it).
 */
import { CapstateError } from '../../errors.js';
import { canonicalJson } from '../../json/canonical.js';
import type { JsonValue } from '../../json/exact.js';
import { entriesOf, isObject, member } from '../plan/json.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from './context.js';
import { referenceFields, referenceLists } from './delete-cascade.js';
import type { CallRequest } from './input-schema.js';
import { servedTypes, type ServedModel } from './model.js';
import { knownCollections } from './read-index.js';
import { recordedTaken } from './records.js';
import { scalarId } from './ids.js';

/** The first member of `part` naming an entity a collection known whole does not hold, with that collection and id. */
async function danglingIn(
  ctx: ServeContext,
  model: ServedModel,
  collection: string,
  part: JsonValue,
  current: JsonValue | undefined,
): Promise<{ field: string; collection: string; id: string } | undefined> {
  const whole = await knownCollections(ctx);
  for (const t of await servedTypes(ctx)) {
    if (t.collection === collection || !whole.has(t.collection)) continue;
    for (const [k, v] of entriesOf(part)) {
      // A value the entity already holds there is not this write's.
      if (current !== undefined && canonicalJson(v) === canonicalJson(member(current, k) ?? null)) continue;
      const ids = referenceFields(t.collection).includes(k) ? [v] : referenceLists(t.collection).includes(k) && Array.isArray(v) ? v : [];
      for (const x of ids) {
        const id = scalarId(x);
        if (id === undefined || id === null) continue;
        if (!(await model.entity(t.collection, String(id)))) return { field: k, collection: t.collection, id: String(id) };
      }
    }
  }
  return undefined;
}

/** Throws `no-convention` where the write's body names an entity a collection known whole lacks, and no record shows the app taking this request. */
export async function refuseDanglingReference(
  ctx: ServeContext,
  model: ServedModel,
  tool: ManifestTool,
  call: CallRequest,
  collection: string,
  part: JsonValue,
  current: JsonValue | undefined,
  asked: string,
): Promise<void> {
  if (!isObject(part)) return;
  const found = await danglingIn(ctx, model, collection, part, current);
  if (!found) return;
  if (await recordedTaken(ctx, tool, call)) return;
  throw new CapstateError(
    'no-convention',
    `${asked}: ${found.field} names ${found.collection} ${found.id}, which the model does not hold, and it holds every ${found.collection} entity the app does; the capture does not show what the app answers a reference to no entity (it may refuse it, or take it)`,
    {
      tool: tool.name,
      request_line: asked,
      nearest_tool: tool.name,
      did_not_match: `${found.field}: an existing ${found.collection} entity`,
    },
  );
}
