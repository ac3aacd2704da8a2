/**
 * Writes by the API's write conventions (issue 45, kind 1: "writes on routes the capture never
 * wrote to are 404"). A capture writes to some collections only, while the writes it verified
 * (check-effects: a later read of the capture showed the effect) prove how the API writes: a
 * `POST /posts` that creates, a `PATCH /posts/{id}` that merges, a `DELETE /posts/{id}` that
 * removes. That is the API's habit until the capture shows otherwise, so `POST /users`,
 * `PATCH /comments/2` and `DELETE /comments/3` take effect on the model's users and comments as
 * the proving tool's write does — marked `convention: api-write` — and answer in the shape the
 * proving tool's record answers (status, the entity or the app's empty body).
 *
 * Only where the evidence is plain, as item-route.ts reads: the target is a collection a list
 * of the capture knows whole (its `GET` path, `PREFIX/{id}` below it) or a document the capture
 * read, and the proving write answers the bare entity path (`ROOT` or `ROOT/{id}`, no envelope,
 * no suffix). A write of a method the capture verified nowhere (`PUT` where only `PATCH` was
 * seen: json-server replaces, Redmine merges) is declined, and logged as a write the model did
 * not apply, so the reads it may have changed are declined too rather than answered from a
 * state the app no longer holds (write-log.ts).
 */
import { CapstateError } from '../../errors.js';
import type { JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { isItemTemplate, isParamSegment, templateParams } from '../../manifest/paths.js';
import { stateAnswer, type CallAnswer } from './answer.js';
import type { ServeContext } from './context.js';
import { verifiedWrites } from './effects.js';
import { collectionFields, wholeListAt } from './read-index.js';
import { alwaysSent } from './sent-members.js';
import { isObject, keysOf, member } from '../plan/json.js';
import { loggedWrite } from './write-log.js';
import type { CallRequest } from './input-schema.js';
import { servedLookups, servedTypes, type ServedModel } from './model.js';
import { applyWrite, writeModelOf, type WriteKind, type WriteModel } from './writes.js';

/** What a write path names: a collection (create), one of its entities, or a document. */
type Target =
  | { kind: 'collection'; collection: string; root: string; identity: string }
  | { kind: 'entity'; collection: string; root: string; identity: string; id: string; slash: boolean; byItemRoute?: true }
  | { kind: 'document'; tool: ManifestTool; root: string };

/** The verified write kinds of the same method that prove a convention, per target (a PUT the capture verified as a merge merges). */
const UPDATES: WriteKind[] = ['merge', 'replace', 'document-merge', 'document-replace'];
const PROVED_BY: Record<string, Record<Target['kind'], WriteKind[]>> = {
  POST: { collection: ['create', 'create-with-defaults'], entity: [], document: [] },
  PATCH: { collection: [], entity: ['merge', 'replace'], document: UPDATES },
  PUT: { collection: [], entity: ['merge', 'replace'], document: UPDATES },
  DELETE: { collection: [], entity: ['remove'], document: [] },
};
const merges = (k: WriteKind) => k === 'merge' || k === 'document-merge';

async function targetOf(ctx: ServeContext, path: string): Promise<Target | null> {
  const state = await servedLookups(ctx);
  if (!state) return null;
  const types = await servedTypes(ctx);
  const listAt = async (template: string) => {
    const plan = (await wholeListAt(ctx, template))?.plan;
    const type = plan && types.find((t) => t.collection === plan.collection);
    return type ? { collection: type.collection, root: type.root_path, identity: type.identity } : null;
  };
  const same = ctx.manifest.tools.find((t) => t.method.toUpperCase() === 'GET' && t.template === path);
  if (same && (await state.plan(same.name))?.kind === 'document') return { kind: 'document', tool: same, root: same.root_path };
  const list = await listAt(path);
  if (list) return { kind: 'collection', ...list };
  // An API whose paths end in a slash (Django REST framework's `/api/tags/1/`) names the entity
  // before it, below the list at `/api/tags/`.
  const slash = path.length > 1 && path.endsWith('/') ? '/' : '';
  const bare = slash ? path.slice(0, -1) : path;
  const cut = bare.lastIndexOf('/');
  if (cut <= 0 || cut === bare.length - 1) return null;
  let id: string;
  try {
    id = decodeURIComponent(bare.slice(cut + 1));
  } catch {
    return null;
  }
  const parent = await listAt(bare.slice(0, cut + (slash ? 1 : 0)));
  if (parent) return { kind: 'entity', ...parent, id, slash: slash !== '' };
  // A collection no list holds whole, read by an item route of its own (Django REST framework's
  // `GET /api/comments/{id}/`, its list a page of 5 of 8): the route names its entities.
  const prefix = bare.slice(0, cut + 1);
  for (const t of ctx.manifest.tools) {
    const rest = t.template.startsWith(prefix) ? t.template.slice(prefix.length) : '';
    if (t.method.toUpperCase() !== 'GET' || !rest.endsWith(slash) || !isParamSegment(slash ? rest.slice(0, -1) : rest)) continue;
    const plan = await state.plan(t.name);
    const type = plan?.kind === 'item' && plan.entity_pointer === '' ? types.find((x) => x.collection === plan.collection) : undefined;
    if (type)
      return {
        kind: 'entity',
        collection: type.collection,
        root: type.root_path,
        identity: type.identity,
        id,
        slash: slash !== '',
        byItemRoute: true,
      };
  }
  return null;
}

/** A verified write of `kinds` on a bare path of the API (`ROOT`, `ROOT/{id}`): the convention's proof. */
async function proofOf(
  ctx: ServeContext,
  method: string,
  kinds: readonly WriteKind[],
  target: Target,
): Promise<{ tool: ManifestTool; wm: WriteModel; kind: WriteKind } | null> {
  const verified = await verifiedWrites(ctx);
  for (const tool of ctx.manifest.tools) {
    const kind = verified.get(tool.name);
    if (tool.method.toUpperCase() !== method || !kind || !kinds.includes(kind)) continue;
    const wm = await writeModelOf(ctx, tool);
    if (!wm || wm.parent || wm.pointer !== '') continue;
    // The bare path of the API: `ROOT` for a create, `ROOT/{id}` for an entity; a document is
    // written as the API updates anything (a verified PATCH of an entity or of another document).
    // A trailing slash is the API's spelling (`/api/posts/{id}/`), proved only for paths spelled alike.
    const slash = tool.template.length > 1 && tool.template.endsWith('/');
    if (target.kind === 'entity' && slash !== target.slash) continue;
    const template = slash ? tool.template.slice(0, -1) : tool.template;
    const last = template.split('/').at(-1)!;
    const item = isParamSegment(last) && template === `${tool.root_path.replace(/\/$/, '')}/${last}`;
    const plain = templateParams(tool.template).length === 0;
    const bare = target.kind === 'collection' ? plain : target.kind === 'entity' ? item && isItemTemplate(template) : item || plain;
    if (bare) return { tool, wm, kind };
  }
  return null;
}

/**
 * The answer to a write `method path` that no tool of the capture answers, by the API's write
 * conventions; null when the path names nothing the model holds (the caller's `no-route`).
 * Throws `no-convention` when it does but no verified write of the method proves how the API
 * writes there, after logging the write as one the model did not apply.
 */
export async function answerWriteByConvention(
  ctx: ServeContext,
  model: ServedModel,
  method: string,
  path: string,
  body: JsonValue | undefined,
): Promise<CallAnswer | null> {
  const kinds = PROVED_BY[method];
  if (!kinds) return null;
  const target = await targetOf(ctx, path);
  if (!target) return null;
  const wanted = kinds[target.kind];
  const proof = wanted.length ? await proofOf(ctx, method, wanted, target) : null;
  const entity = target.kind === 'entity' ? target.id : undefined;
  const call: CallRequest = {
    params: new Map(entity === undefined ? [] : [['id', entity]]),
    query: [],
    ...(body === undefined ? {} : { body }),
  };
  const log = (applied: boolean, tool = '') => model.writes.push(loggedWrite({ root: target.root, tool, method, call, applied, entity }));
  const what = target.kind === 'document' ? `the document ${path}` : target.collection;
  // An entity named by its item route only: where the model holds none, whether the app does is not known.
  if (target.kind === 'entity' && target.byItemRoute && !(await model.entity(target.collection, target.id))) {
    log(false);
    throw new CapstateError(
      'no-convention',
      `${method} ${path}: the model holds no ${target.collection} entity ${target.id}, and no list of the capture shows every ${target.collection} entity, so whether the app holds it is not known; reads it may change are declined from now on`,
      { method, path },
    );
  }
  if (!proof) {
    log(false);
    throw new CapstateError(
      'no-convention',
      `${method} ${path}: no tool of this capture writes here, and no ${method} of the API took effect in the capture (check-effects), so how the app writes ${what} is not known; reads it may change are declined from now on`,
      { method, path },
    );
  }
  if (method === 'PUT' && target.kind === 'entity') await requireWholeBody(ctx, model, proof, target, body, log, `${method} ${path}`);
  const wm: WriteModel =
    target.kind === 'document'
      ? {
          ...proof.wm,
          kind: merges(proof.kind) ? 'document-merge' : 'document-replace',
          collection: null,
          identity: null,
          idParam: null,
          itemTool: null,
          documentTool: target.tool.name,
        }
      : {
          ...proof.wm,
          kind: proof.kind === 'document-merge' ? 'merge' : proof.kind === 'document-replace' ? 'replace' : proof.kind,
          collection: target.collection,
          identity: target.identity,
          idParam: entity === undefined ? null : 'id',
          itemTool: null,
          documentTool: null,
        };
  const written = await applyWrite(ctx, proof.tool, wm, call, model, { borrowed: true });
  if (!written) {
    log(false);
    return null;
  }
  log(true, proof.tool.name);
  const answer = await stateAnswer(ctx, proof.tool, written);
  const proved = `${proof.tool.method} ${proof.tool.template}`;
  return {
    ...answer,
    request_line: `${method} ${path}`,
    convention: [...new Set([...(answer.convention?.split(', ') ?? []), 'api-write'])].sort().join(', '),
    why: `${written.why}, by the API's write convention: ${method} on ${what} as ${proved} took effect in the capture`,
  };
}

/**
 * Issue 45: a PUT by the API's convention sends what the proving PUTs sent — every member of the
 * entity but those they never sent (its identity, the server's own: `created_at`). Django REST
 * framework answers a PUT of a comment without its `post` with `400 {"post": ["This field is
 * required."]}`, where merging the rest would answer 200: a plausible wrong answer. One that
 * lacks a member is declined (as sent-members.ts declines the proving tool's own) and logged.
 */
async function requireWholeBody(
  ctx: ServeContext,
  model: ServedModel,
  proof: { tool: ManifestTool; wm: WriteModel },
  target: { collection: string; identity: string; id: string },
  body: JsonValue | undefined,
  log: (applied: boolean) => void,
  asked: string,
): Promise<void> {
  const always = await alwaysSent(ctx, proof.tool.name, proof.wm.pointer);
  const current = await model.entity(target.collection, target.id);
  if (always.length === 0 || !current || !isObject(body)) return;
  const unsent = (await collectionFields(ctx, proof.wm.collection ?? '')).filter((f) => !always.includes(f));
  const missing = keysOf(current.value).filter((k) => k !== target.identity && !unsent.includes(k) && member(body, k) === undefined);
  if (missing.length === 0) return;
  log(false);
  throw new CapstateError(
    'no-convention',
    `${asked}: every PUT the capture recorded on ${proof.tool.template} sent every member of its entity but ${unsent.join(', ')}; this one lacks ${missing.join(', ')} of ${target.collection} ${target.id}, and the capture does not show what the app answers then (it may require them)`,
    { request_line: asked, nearest_tool: proof.tool.name, did_not_match: `a request body with ${missing.join(', ')}` },
  );
}

/**
 * A write no tool of the capture and no convention answers (`DELETE /categories/4?force=true`
 * where the capture never wrote categories and no categories item read shows its route), logged
 * as one the model did not apply under the collection, and entity, its path names, where it
 * names one a list of the capture knows: the reads it may have changed (a post listing category
 * 4) are declined from now on rather than answered from a state the app no longer holds.
 */
export async function logUnansweredWrite(ctx: ServeContext, model: ServedModel, method: string, path: string): Promise<void> {
  const target = await targetOf(ctx, path);
  if (!target) {
    // A path of no collection the capture read (`DELETE /api/tags/1/` where no tags read was kept):
    // logged under the path before its last segment, that segment as the entity, so the entities
    // naming it (a post's `tags: [1]`) are in doubt too (write-log.ts orphansOf).
    const segments = path.split('/').filter(Boolean);
    if (segments.length < 2) return;
    let entity: string;
    try {
      entity = decodeURIComponent(segments.at(-1)!);
    } catch {
      return;
    }
    const call: CallRequest = { params: new Map([['id', entity]]), query: [] };
    model.writes.push(loggedWrite({ root: `/${segments.slice(0, -1).join('/')}`, tool: '', method, call, applied: false, entity }));
    return;
  }
  const entity = target.kind === 'entity' ? target.id : undefined;
  const call: CallRequest = { params: new Map(entity === undefined ? [] : [['id', entity]]), query: [] };
  model.writes.push(loggedWrite({ root: target.root, tool: '', method, call, applied: false, entity }));
}
