/**
 * Which recorded reads still tell the truth after this session's writes (issue 44, kind 7:
 * "after the capture's own writes, replayed lists still show the members from before them").
 * A replayed read is the app's answer at the moment it was recorded; once a session has
 * written under the read's type, that answer is the app's only if the session's writes so far
 * are the capture's own first writes under that type, in order (same request line, same body):
 * then the app stood where the capture stood after its k-th write, and a record made between
 * that write and the next tells what the app answered. Otherwise no record does, and the read
 * is declined (`stale-record`) rather than answered with members from before the writes.
 */
import { canonicalJson } from '../../json/canonical.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from './context.js';
import { isObject, member } from '../plan/json.js';
import { deleteCascade, referenceFields, referenceLists } from './delete-cascade.js';
import { idIn, scalarId } from './ids.js';
import { servedTypes, type ServedModel } from './model.js';
import type { CallRequest } from './input-schema.js';
import { captureWrites, itemValue, lineRecords, requestBodyKey } from './records.js';

/** One write this session sent: its type, tool, request (path values and query) and body (canonical JSON, or null). */
export interface SessionWrite {
  root: string;
  tool: string;
  call: CallRequest;
  body: string | null;
  /** Whether the model applied it (a verified write model); else it was replayed and the state stands before it. */
  applied?: boolean;
  /** The entity an item write names (its template's last path value), or undefined for a collection write. */
  entity?: string;
  method: string;
}

/**
 * Whether an unapplied write may have changed what a read of `tool` answers: every list of its
 * type (an entity may have come, gone or moved), but of item reads only the entity the write
 * named (a write to /issues/1.json leaves issue 2 as it was; a collection write such as a POST
 * adds an entity and changes none).
 */
export function touches(w: SessionWrite, tool: ManifestTool, call: CallRequest): boolean {
  const id = itemValue(tool, call);
  return id === undefined || w.entity === id;
}

/** A write as the log keeps it: its body as canonical JSON, the entity only where it names one. */
export function loggedWrite(w: Omit<SessionWrite, 'body' | 'entity'> & { entity?: string }): SessionWrite {
  const { entity, ...rest } = w;
  return { ...rest, body: w.call.body === undefined ? null : canonicalJson(w.call.body), ...(entity !== undefined ? { entity } : {}) };
}

/** The write `call` on `tool` as the log keeps it. */
export function sessionWrite(tool: ManifestTool, call: CallRequest): SessionWrite {
  return loggedWrite({ root: tool.root_path, tool: tool.name, method: tool.method.toUpperCase(), call, entity: itemValue(tool, call) });
}

/** Whether a record was made inside a window of currentWindow's: after the capture's k-th write, before its next. */
export function inWindow(r: { timeline_position: number }, window: { after: number; before: number }): boolean {
  return r.timeline_position > window.after && r.timeline_position < window.before;
}

/**
 * The timeline window whose recorded reads of `root` are current after the session's
 * `writes`: null when the session wrote nothing under it (the stored bounds decide, ES-8);
 * `stale` when its writes are not the capture's first ones under it; else the positions
 * between the capture's k-th write and its next (exclusive). With no `root`, every write of
 * the session against every write of the capture: the window in which a record shows the
 * app after exactly this session's writes, whatever they touched.
 */
export async function currentWindow(
  ctx: ServeContext,
  writes: readonly SessionWrite[],
  root?: string,
): Promise<{ after: number; before: number; k: number } | 'stale' | null> {
  const mine = root === undefined ? writes : writes.filter((w) => w.root === root);
  if (mine.length === 0) return null;
  const recorded = await captureWrites(ctx, root);
  if (mine.length > recorded.length) return 'stale';
  for (let i = 0; i < mine.length; i++) {
    const r = recorded[i];
    const same = r.tool === mine[i].tool && lineRecords([r], mine[i].call).length === 1;
    if (!same || mine[i].body !== (await requestBodyKey(ctx, r))) return 'stale';
  }
  return {
    after: recorded[mine.length - 1].timeline_position,
    before: recorded[mine.length]?.timeline_position ?? Number.POSITIVE_INFINITY,
    k: mine.length,
  };
}

/** An entity that still names, by `field`, an entity of `deleted` this session deleted. */
export interface Orphan {
  collection: string;
  id: string;
  field: string;
  deleted: string;
  deletedId: string;
  /** Named inside an array of ids (`tags: [1, 5]`), not by a scalar field. */
  list?: true;
}

/**
 * Issue 44 (kind 7): the entities of `collection` (or only `id` in it) that still name an entity
 * this session deleted by a field named for its type (`postId` for posts; `post_id`). What the
 * app did with them — deleted them too (json-server 0.17), cleared the field (json-server 1.0),
 * left them — the capture does not show, so a read whose answer depends on it is not answered
 * from a state that kept them (cascade.ts answers the reads it does not change).
 */
export async function orphansOf(ctx: ServeContext, model: ServedModel, collection: string, id?: string): Promise<Orphan[]> {
  const named = model.writes.filter((w) => w.entity !== undefined && w.method === 'DELETE');
  if (named.length === 0) return [];
  // An applied delete took the API's learned cascade with it (delete-cascade.ts): no orphan is
  // left in doubt. One the model did not apply (replayed: WordPress's `?force=true`) took
  // nothing with it, so what names its entity is in doubt whatever the API's cascade.
  const learned = named.some((w) => w.applied) && (await deleteCascade(ctx)) !== null;
  const types = await servedTypes(ctx);
  const out: Orphan[] = [];
  for (const w of named) {
    // A root no type of the state names (its reads left out) is still named by its last segment (`tags`).
    const deleted = types.find((t) => t.root_path === w.root)?.collection ?? w.root.split('/').filter(Boolean).pop();
    if (deleted === undefined || deleted === collection) continue;
    const fields = w.applied && learned ? [] : referenceFields(deleted);
    const lists = referenceLists(deleted);
    const entities =
      id === undefined ? await model.collection(collection) : [await model.entity(collection, id)].filter((e) => e !== undefined);
    for (const e of entities) {
      if (!isObject(e.value)) continue;
      for (const f of fields)
        if (idIn(e.value, f) === w.entity) out.push({ collection, id: e.id, field: f, deleted, deletedId: w.entity! });
      for (const f of lists) {
        const v = member(e.value, f);
        if (Array.isArray(v) && v.some((x) => scalarId(x) !== undefined && String(x) === w.entity))
          out.push({ collection, id: e.id, field: f, deleted, deletedId: w.entity!, list: true });
      }
    }
  }
  return out;
}

/** An orphan in words. */
export function orphanWords(o: Orphan): string {
  return `${o.collection} ${o.id} names ${o.deleted} ${o.deletedId} (${o.field}), which this session deleted`;
}

/** The first of `collection`'s orphans (or `id`'s) in words, or null. */
export async function orphanedBy(ctx: ServeContext, model: ServedModel, collection: string, id?: string): Promise<string | null> {
  const [first] = await orphansOf(ctx, model, collection, id);
  return first ? orphanWords(first) : null;
}
