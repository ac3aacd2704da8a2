/**
 * Write effects verified, not assumed (issue 16): the capture's recorded requests replayed
 * in timeline order (ES-6) against a fresh model, each recorded response compared with the
 * model's answer. A write tool's model is used for serving only when its own answers and
 * every later read of what it wrote reproduce; a tool blamed for a difference is dropped
 * and the run repeated until no candidate is blamed. `capstate check-effects` prints the
 * last run.
 */
import { answerKind, type AnswerKind } from './provenance.js';
import { createHash } from 'node:crypto';
import { CapstateError } from '../../errors.js';
import { objectEntries, type JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { storedWriteEffects } from '../plan/stored.js';
import type { WriteEffectsMark } from '../plan/types.js';
import { at, isObject, member } from '../plan/json.js';
import { answerRequest, type CallAnswer } from './answer.js';
import type { ServeContext } from './context.js';
import { servedState } from './from-state.js';
import type { CallRequest } from './input-schema.js';
import { ServedModel, servedTypes } from './model.js';
import { isWriteTool, itemValue, jsonValueOf, readBody, requestLine, timeline, type ToolRecord } from './records.js';
import { effectsToTry, writeModelOf, type WriteKind, type WriteModel } from './writes.js';
import { createdIdOf, entityIdIn, type RandomBytes } from './ids.js';
import { childPointer } from '../../json/pointer.js';
import { sameValue } from './same-value.js';
import { graphqlWritesWords, isGraphqlEndpoint } from '../graphql/model.js';
import { LaterQueryLearning, type LaterQueries } from './later-queries.js';
import { answerGraphqlCall } from '../graphql/call.js';

export { sameValue };

export interface EffectCheck {
  ordinal: number;
  tool: string;
  request_line: string;
  recorded_status: number;
  answered_status: number;
  /** `state`: answered from (or written to) the model; `replay`: a retained record. */
  source: 'state' | 'replay' | 'error';
  /** How the answer was made (provenance.ts): `state`, `convention`, `replay`, or `declined` when the model could not answer. */
  answer: AnswerKind;
  reproduced: boolean;
  /** Why a response was not reproduced, in words. */
  detail?: string;
}

export interface EffectsReport {
  checks: EffectCheck[];
  /** Write tools whose model was used (verified), with the effect, and those that replay, each with why. */
  verified: { tool: string; effect: WriteKind }[];
  replayed: { tool: string; reason: string }[];
  /** Issue 44: list keys the reads after the capture's verified writes reproduced (later-queries.ts). */
  later_queries: LaterQueries[];
}

const shown = (v: JsonValue | undefined) => {
  if (v === undefined) return 'nothing';
  const t = JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? x.toString() : x instanceof Map ? Object.fromEntries(x) : x));
  return t.length > 60 ? t.slice(0, 59) + '…' : t;
};

/** Where two values first differ (RFC 6901 pointer), with both sides shortened. */
export function firstDifference(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  pointer = '',
  field = '',
): { pointer: string; answered: string; recorded: string } {
  // Shown only where the walk stops: stringifying each level's whole subtree on the way down
  // cost more than the comparison (5 of 43 s of a run at 500 MB).
  const here = () => ({ pointer, answered: shown(a), recorded: shown(b) });
  if (a === undefined || b === undefined || a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return here();
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return { pointer, answered: `${a.length} items`, recorded: `${b.length} items` };
    const i = a.findIndex((x, j) => !sameValue(x, b[j], field));
    return i < 0 ? here() : firstDifference(a[i], b[i], `${pointer}/${i}`, field);
  }
  if (!isObject(a) || !isObject(b)) return here();
  const ma = new Map(objectEntries(a)),
    mb = new Map(objectEntries(b));
  for (const k of new Set([...ma.keys(), ...mb.keys()])) {
    if (!sameValue(ma.get(k), mb.get(k), k)) return firstDifference(ma.get(k), mb.get(k), childPointer(pointer, k), k);
  }
  return here();
}

/** Whether the model's answer is the recorded response: same status, equal JSON (sameValue), or the same bytes. */
async function compare(ctx: ServeContext, r: ToolRecord, a: CallAnswer): Promise<string | null> {
  if (a.status !== r.status) return `status ${a.status}, recorded ${r.status}`;
  const body = await readBody(ctx, r.response_body_id, r.response_media_type);
  const recorded = jsonValueOf(body);
  if (recorded !== undefined) {
    if (a.body.value === undefined) return 'answered a body that is not JSON; the recorded one is';
    if (sameValue(a.body.value, recorded)) return null;
    const d = firstDifference(a.body.value, recorded);
    return `the JSON body differs at ${d.pointer || 'the root'} (answered ${d.answered}, recorded ${d.recorded})`;
  }
  const text = body.content === null ? '' : typeof body.content === 'string' ? body.content : body.content.toString('base64');
  const answered = a.body.text ?? a.body.base64 ?? '';
  return text === answered ? null : 'the body differs';
}

/** The call a record made: its path values, query pairs and request body. */
async function recordCall(ctx: ServeContext, r: ToolRecord): Promise<CallRequest> {
  const call: CallRequest = { params: new Map(r.params), query: r.query_pairs.map((q) => ({ ...q })) };
  if (r.request_kind !== 'none') {
    const b = await readBody(ctx, r.request_body_id);
    const value = jsonValueOf(b);
    call.body = value !== undefined ? value : typeof b.content === 'string' ? b.content : undefined;
  }
  return call;
}

/** What a read tool renders from: its collection or its document (null: a record view). */
async function readTarget(ctx: ServeContext, tool: ManifestTool): Promise<string | null> {
  const plan = await (await servedState(ctx))?.plan(tool.name);
  if (!plan || plan.kind === 'record') return null;
  return plan.kind === 'document' ? `document:${plan.tool}` : `collection:${plan.collection}`;
}

/** One run: every recorded response against a fresh model with `writes` modelled; which write tools a difference blames. */
/** Why a write tool is blamed, and the record whose difference blamed it. */
interface Blame {
  why: string;
  ordinal: number;
  target: string;
}

/**
 * check-effects' random bytes: a SHA-256 stream from a fixed seed, restarted per run. An id a
 * create allocates appears in a difference's words (`answered "qoreird…"`), which the load
 * stores with the state: drawn from crypto, two loads of one capture stored different bytes.
 */
function fixedRandom(): RandomBytes {
  let block = 0;
  return (n) => {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i += 32) createHash('sha256').update(`capstate check-effects ${block++}`).digest().copy(out, i);
    return out;
  };
}

async function run(
  ctx: ServeContext,
  writes: ReadonlyMap<string, WriteKind>,
  everyRecord: boolean,
): Promise<{ checks: EffectCheck[]; blamed: Map<string, Blame>; later: LaterQueries[] }> {
  const model = new ServedModel(ctx);
  const learning = new LaterQueryLearning();
  // A write the model did not apply: its type's later reads teach no key (later-queries.ts), and
  // a create may have made any id of its type (from-state.ts claims none absent).
  const replayedWrite = (tool: ManifestTool, call: CallRequest) => {
    learning.write(tool, false);
    if (tool.method.toUpperCase() === 'POST' && itemValue(tool, call) === undefined) model.replayedCreates.add(tool.root_path);
  };
  const random = fixedRandom();
  const touched = new Map<string, Set<string>>();
  // Per entity (`collection\u0000id`), the write tools that wrote it, latest last.
  const wrote = new Map<string, string[]>();
  const blamed = new Map<string, Blame>();
  const checks: EffectCheck[] = [];
  for (const { tool, record } of await timeline(ctx)) {
    // Only to decide which writes to use, a read can blame nothing before a write touched what it renders: skipped.
    if (!everyRecord && !writes.has(tool.name)) {
      // A write with no model replays.
      if (isWriteTool(ctx, tool)) replayedWrite(tool, await recordCall(ctx, record));
      const target = await readTarget(ctx, tool);
      if (target === null || !touched.has(target)) continue;
      // Nor can it once every write that touched what it renders is blamed (the run's blame is the same).
      if ([...touched.get(target)!].every((w) => blamed.has(w))) continue;
    }
    const call = await recordCall(ctx, record);
    let answer: CallAnswer | null = null;
    let detail: string | null;
    const wm = writes.has(tool.name) ? await writeModelOf(ctx, tool) : null;
    // A create is told the id the server chose: taken when the allocated one has its shape.
    const chosenId =
      wm?.kind === 'create'
        ? createdIdOf(wm, jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type)))
        : undefined;
    try {
      // Issue 48: a GraphQL endpoint is answered by its own model, whose mutations it checks itself (GQL-8).
      answer =
        call.body !== undefined && (await isGraphqlEndpoint(ctx, tool))
          ? await answerGraphqlCall(ctx, tool, call, model)
          : await answerRequest(ctx, tool, call, model, writes, { chosenId, random, verifying: true });
      // A blamed write is still applied (later reads see its effect); its answer can blame nothing more.
      if (!everyRecord && wm && blamed.has(tool.name)) {
        learning.write(tool, false);
        continue;
      }
      detail = await compare(ctx, record, answer);
    } catch (e) {
      if (!(e instanceof CapstateError)) throw e;
      detail = `${e.code}: ${e.message}`;
    }
    const line = requestLine(record);
    checks.push({
      ordinal: record.ordinal,
      tool: tool.name,
      request_line: line,
      recorded_status: record.status,
      answered_status: answer?.status ?? 0,
      source: answer?.source ?? 'error',
      answer: answer ? answerKind(answer) : 'declined',
      reproduced: detail === null,
      ...(detail !== null ? { detail } : {}),
    });
    if (isWriteTool(ctx, tool)) {
      if (answer?.source === 'state') learning.write(tool, true);
      else replayedWrite(tool, call);
    } else if (answer?.source === 'replay' || (answer?.convention !== undefined && detail === null)) {
      // A replayed read, or one an API convention (a key another list proved) answered as recorded: its keys may be the list's own.
      await learning.observe(ctx, tool, record, model);
    }
    if (wm) {
      const target = wm.collection !== null ? `collection:${wm.collection}` : `document:${wm.documentTool}`;
      if (!touched.has(target)) touched.set(target, new Set());
      // Kept in the order of their latest write: the last is the latest.
      touched.get(target)!.delete(tool.name);
      touched.get(target)!.add(tool.name);
      const id = wm.collection === null ? undefined : writtenId(wm, call, answer);
      if (id !== undefined) {
        const key = `${wm.collection}\u0000${id}`;
        wrote.set(key, [...(wrote.get(key) ?? []).filter((t) => t !== tool.name), tool.name]);
      }
      if (detail !== null && !blamed.has(tool.name))
        blamed.set(tool.name, { why: `its own answer to #${record.ordinal} (${line}): ${detail}`, ordinal: record.ordinal, target });
    } else if (detail !== null) {
      const target = await readTarget(ctx, tool);
      // The latest write to what the read renders is blamed: if it was not the cause, the
      // difference stays once it replays, and the next run blames the one before it.
      // Where the difference is in one entity (or the lists differ by some), the latest write of
      // those is blamed first: a create's missing default is the create's, not a later update's.
      const ids = answer && target ? await differingEntities(ctx, target, record, answer) : [];
      const byEntity = ids.flatMap((id) => wrote.get(`${target!.slice('collection:'.length)}\u0000${id}`) ?? []);
      const candidates = [...((target && touched.get(target)) ?? [])].filter((w) => !blamed.has(w));
      const latest = candidates.filter((w) => byEntity.includes(w)).at(-1) ?? candidates.at(-1);
      if (latest !== undefined)
        blamed.set(latest, { why: `a later read #${record.ordinal} (${line}): ${detail}`, ordinal: record.ordinal, target: target! });
    }
  }
  return { checks, blamed, later: learning.result() };
}

/** The id of the entity a modelled write wrote: its path value, or the id its answer shows a create made. */
function writtenId(wm: WriteModel, call: CallRequest, answer: CallAnswer | null): string | undefined {
  if (wm.idParam) return call.params.get(wm.idParam);
  const id = answer?.body.value !== undefined && wm.identity ? entityIdIn(answer.body.value, wm.pointer, wm.identity).id : undefined;
  return id === undefined ? undefined : String(id);
}

/**
 * The ids of the entities a read's answer and record first differ in: the object holding the
 * type's identity around the first difference, or, where a list differs in length, the
 * entities one side lists and the other does not. Empty when the difference is in no entity.
 */
async function differingEntities(ctx: ServeContext, target: string, record: ToolRecord, answer: CallAnswer): Promise<string[]> {
  if (!target.startsWith('collection:') || answer.body.value === undefined) return [];
  const identity = (await servedTypes(ctx)).find((t) => `collection:${t.collection}` === target)?.identity;
  const recorded = jsonValueOf(await readBody(ctx, record.response_body_id, record.response_media_type));
  if (identity === undefined || recorded === undefined) return [];
  const idOf = (o: JsonValue | undefined) => {
    const v = isObject(o) ? member(o, identity) : undefined;
    return v === undefined || v === null || typeof v === 'object' ? undefined : String(v);
  };
  const d = firstDifference(answer.body.value, recorded);
  const [a, b] = [at(answer.body.value, d.pointer), at(recorded, d.pointer)];
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) {
    const [ia, ib] = [new Set(a.map(idOf)), new Set(b.map(idOf))];
    return [...ia, ...ib].filter((id): id is string => id !== undefined && ia.has(id) !== ib.has(id));
  }
  // The deepest object on the way to the difference that is an entity.
  const steps = d.pointer.split('/').slice(1);
  for (let n = steps.length; n >= 0; n--) {
    const p = n === 0 ? '' : `/${steps.slice(0, n).join('/')}`;
    const id = idOf(at(recorded, p)) ?? idOf(at(answer.body.value, p));
    if (id !== undefined) return [id];
  }
  return [];
}

/**
 * Runs the capture against a fresh model, dropping write tools blamed for a difference
 * until none is: the last run's checks and the verified write tools.
 */
export async function checkEffects(ctx: ServeContext, opts: { everyRecord?: boolean } = {}): Promise<EffectsReport> {
  const candidates = new Map<string, WriteKind>();
  const alternatives = new Map<string, WriteKind[]>();
  const replayed: { tool: string; reason: string }[] = [];
  for (const tool of ctx.manifest.tools) {
    const method = tool.method.toUpperCase();
    if (ctx.vocabulary.isSafeMethod(method) || tool.is_query_post) continue;
    const wm = await writeModelOf(ctx, tool);
    if (await isGraphqlEndpoint(ctx, tool)) {
      replayed.push({ tool: tool.name, reason: await graphqlWritesWords(ctx, tool) });
      continue;
    }
    if (wm) {
      const [first, ...rest] = effectsToTry(wm);
      candidates.set(tool.name, first);
      alternatives.set(tool.name, rest);
    } else {
      replayed.push({
        tool: tool.name,
        reason:
          'no write model: the state shows no entity type or document this write changes the way a create, merge, replace or remove would',
      });
    }
  }
  for (;;) {
    const { checks, blamed, later } = await run(ctx, candidates, opts.everyRecord ?? true);
    // Only the first difference in what a write touched (a collection, a document) is surely
    // a write's own: a later one may follow from it (a create that did not take effect makes
    // the next delete's list read differ too). Collections are independent: each drops its own.
    const first = new Map<string, number>();
    for (const [t, b] of blamed) if (candidates.has(t)) first.set(b.target, Math.min(first.get(b.target) ?? Infinity, b.ordinal));
    const dropped = [...blamed]
      .filter(([t, b]) => candidates.has(t) && b.ordinal === first.get(b.target))
      .map(([t, b]): [string, string] => [t, b.why]);
    if (dropped.length === 0) {
      return {
        checks,
        verified: [...candidates].map(([tool, effect]) => ({ tool, effect })),
        replayed: replayed.sort((a, b) => a.tool.localeCompare(b.tool)),
        later_queries: later,
      };
    }
    for (const [tool, why] of dropped) {
      // The next effect the capture might show (a PUT that merges), else the tool replays.
      const next = alternatives.get(tool)?.shift();
      if (next) {
        candidates.set(tool, next);
        continue;
      }
      candidates.delete(tool);
      replayed.push({ tool, reason: `not reproduced: ${why}` });
    }
  }
}

const verified = new WeakMap<ServeContext, Promise<Map<string, WriteKind>>>();

/** The effects a stored marking may name (the WriteKind values). */
const WRITE_KINDS: ReadonlySet<string> = new Set<WriteKind>([
  'create',
  'create-with-defaults',
  'merge',
  'replace',
  'remove',
  'document-merge',
  'document-replace',
]);

/** A marking's verified write tools, by the effect each takes (the WriteKind values only). */
function verifiedOf(mark: WriteEffectsMark): Map<string, WriteKind> {
  return new Map(mark.verified.filter((v) => WRITE_KINDS.has(v.effect)).map((v) => [v.tool, v.effect as WriteKind]));
}

const stored = new WeakMap<ServeContext, Promise<Map<string, WriteKind> | null>>();

/**
 * The verification the load stored with the state (issue 16, ES-41 extended), read once per
 * context; null for a state computed before migration 0011, which stores none.
 */
export function storedVerifiedWrites(ctx: ServeContext): Promise<Map<string, WriteKind> | null> {
  let hit = stored.get(ctx);
  if (!hit) {
    hit = storedWriteEffects(ctx.k, ctx.captureId).then((mark) => (mark ? verifiedOf(mark) : null));
    stored.set(ctx, hit);
  }
  return hit;
}

/**
 * The write tools whose model serving uses, with the effect, read once per context: the
 * verification the load stored with the state; for a state computed before migration 0011,
 * which stores none, checked as the load now does (check-effects' verified set), at the first
 * write call.
 */
export function verifiedWrites(ctx: ServeContext): Promise<Map<string, WriteKind>> {
  let hit = verified.get(ctx);
  if (!hit) {
    hit = storedVerifiedWrites(ctx).then(async (m) => m ?? verifiedOf(await checkWrites(ctx)));
    verified.set(ctx, hit);
  }
  return hit;
}

/** The marking the load stores with the state: check-effects' verified set (read only where a write touched), and why the others replay. */
export async function checkWrites(ctx: ServeContext): Promise<WriteEffectsMark & { later_queries: LaterQueries[] }> {
  const { verified: v, replayed, later_queries } = await checkEffects(ctx, { everyRecord: false });
  return { verified: v, replayed, later_queries };
}
