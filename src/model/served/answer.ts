/**
 * Answering one checked call (src/model/served/call.ts checks the arguments and is what every
 * consumer calls; check-effects calls answerRequest directly). A read whose plan is an item, list or document
 * answers from the session's model (src/model/served/from-state.ts); a write whose model the
 * capture's own later reads verified takes effect on it (src/model/served/writes.ts,
 * src/model/served/effects.ts); every other call replays a retained record.
 */
import { CapstateError } from '../../errors.js';
import { MAX_USABLE_BODY_BYTES, type BodyKind } from '../../load/bodies.js';
import { canonicalJson } from '../../json/canonical.js';
import { stringifyExact, type JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import type { ServeContext } from './context.js';
import { recordedLink, toolLinkHabit, withHabitLink } from './link-habit.js';
import { answerFromState, replayReason, type StateAnswer } from './from-state.js';
import { embeddedOf } from './read-index.js';
import { catchUp } from './catch-up.js';
import type { ServedModel } from './model.js';
import { applyWrite, writeModelOf, type WriteKind, type WriteOptions } from './writes.js';
import { currentWindow, inWindow, orphansOf, orphanWords, sessionWrite, touches, type Orphan } from './write-log.js';
import { cascadeFreeAnswer, writeFreeAnswer } from './cascade.js';
import { countInDoubt } from './counters.js';
import { servedLookups, servedTypes } from './model.js';
import { pairedWindowAnswer } from './paired-answer.js';
import { toolInput, type CallRequest, type ToolInput } from './input-schema.js';
import {
  boundIsRead,
  callLine,
  firstWriteOrdinal,
  isWriteTool,
  itemValue,
  jsonValueOf,
  lineRecords,
  readBody,
  recordAt,
  requestBodyKey,
  requestLine,
  toolRecords,
  type ToolRecord,
} from './records.js';

export interface AnswerBody {
  /** The owner's classification of the retained body (DESC-6). */
  kind: BodyKind;
  bytes: number;
  /** The exact JSON value (kind `json` only). */
  value?: JsonValue;
  /** The retained text exactly as recorded (UTF-8 bodies, including JSON). */
  text?: string;
  /** Binary bodies, base64. */
  base64?: string;
  /** Binary bodies, the retained bytes (what HTTP serving sends). */
  raw?: Buffer;
  /** DOC-4: the value's rendered JSON exceeds 256 KiB; answer with the recorded text only. */
  is_rendered_oversize?: boolean;
}

export interface CallAnswer {
  tool: string;
  status: number;
  body: AnswerBody;
  record_ordinal: number;
  request_line: string;
  /** `state`: rendered from (or written to) the session's model; `replay`: a retained record as recorded. */
  source: 'replay' | 'state';
  /** Set when a documented default or convention decided the answer, not the capture's own evidence (provenance.ts). */
  convention?: string;
  /** The recorded response's media type (what HTTP serving sends as content-type). */
  media_type?: string | null;
  /** Why this record answered, in plain words (issue 19: no rule IDs). */
  why: string;
  /** The rules behind `why` (`ES-8`, `ES-37`, …; docs/rules.md says what each decides), in the order `why` relies on them. */
  rules: string[];
  /** Response headers a state answer recomputes (a list's `x-total-count`), lower-cased names. */
  headers?: Record<string, string>;
}

/** What a replay reason (ES-15, ES-20) means, for `why`. */
const REPLAY_REASON_WORDS = {
  variant: 'the call names a query key that picks another representation of the data, which the state does not hold',
  projection: 'the call asks for only some fields, with a value the state was not checked against',
} as const;

const inputs = new WeakMap<ServeContext, Map<string, Promise<ToolInput>>>();

/** The tool's inputSchema and argument rules (built once per context). */
export function toolInputCached(ctx: ServeContext, tool: ManifestTool): Promise<ToolInput> {
  let perCtx = inputs.get(ctx);
  if (!perCtx) inputs.set(ctx, (perCtx = new Map()));
  let hit = perCtx.get(tool.name);
  if (!hit) perCtx.set(tool.name, (hit = toolInput(ctx, tool)));
  return hit;
}

/**
 * Answers a checked call on `model`; `writes` names the tools whose write model is used,
 * with the effect used (the verified ones when serving; the candidates while check-effects
 * verifies them).
 */
export async function answerRequest(
  ctx: ServeContext,
  tool: ManifestTool,
  call: CallRequest,
  model: ServedModel,
  writes: ReadonlyMap<string, WriteKind>,
  opts: WriteOptions = {},
): Promise<CallAnswer> {
  const logged = isWriteTool(ctx, tool) ? sessionWrite(tool, call) : null;
  if (logged && !opts.verifying) model.writes.push(logged);
  // A verified write changes the session's model; an unverified one replays its record.
  const kind = writes.get(tool.name);
  if (kind) {
    const wm = await writeModelOf(ctx, tool);
    const written = wm && (await applyWrite(ctx, tool, { ...wm, kind }, call, model, { ...opts, ...(logged ? { inFlight: logged } : {}) }));
    if (written) {
      if (logged) logged.applied = true;
      return stateAnswer(ctx, tool, written);
    }
  }
  // An item, list or document plan answers from state (ES-37); a record view, or a call the
  // state cannot answer, replays. ES-15/ES-20 (projection and variant replays) come with issue 5.
  // Issue 44 (kind 7): after a write under the type that the model did not apply, the state no
  // longer stands where the app does: only a record made after the same writes answers.
  const unapplied = !isWriteTool(ctx, tool) && model.writes.some((w) => w.root === tool.root_path && !w.applied && touches(w, tool, call));
  const stale = await otherTypesStale(ctx, tool, call, model);
  if (stale) {
    const same =
      stale.orphans.length && !unapplied
        ? await cascadeFreeAnswer(
            ctx,
            model,
            stale.orphans,
            call.query.map((q) => q.name),
            () => answerFromState(ctx, tool, call, model),
          )
        : null;
    if (same) return stateAnswer(ctx, tool, same);
    const recorded = await recordedAfterSameWrites(ctx, tool, call, model);
    if (recorded) return recorded;
    const asked = callLine(tool, call);
    throw new CapstateError(
      'stale-record',
      `${tool.name}: ${stale.words}; the capture does not show what the app answers ${asked} after that, so neither the state nor a record answers it`,
      { tool: tool.name, request_line: asked },
    );
  }
  // Issue 45: past an update or delete the model did not apply, where every effect it may have had answers alike (cascade.ts).
  const fromState = unapplied
    ? await writeFreeAnswer(
        ctx,
        model,
        model.writes.filter((w) => w.root === tool.root_path && !w.applied && touches(w, tool, call)),
        () => answerFromState(ctx, tool, call, model),
      )
    : await answerFromState(ctx, tool, call, model);
  if (fromState) return stateAnswer(ctx, tool, fromState);
  // Issue 44: past writes the model did not apply, the whole list the capture read after the same writes, filtered (paired-answer.ts).
  const plan = unapplied ? await (await servedLookups(ctx))?.plan(tool.name) : undefined;
  const paired = plan?.kind === 'list' ? await pairedWindowAnswer(ctx, tool, plan, call, model, callLine(tool, call)) : null;
  if (paired) return stateAnswer(ctx, tool, paired);

  const answer = await replay(ctx, tool, call, model);
  // The capture's own write, replayed: its later reads may show the state it left (catch-up.ts).
  if (logged && !logged.applied && !opts.verifying && (await catchUp(ctx, model, tool.root_path)) > 0)
    answer.why += "; the capture's reads after the same writes show their effect, so the model took it from them";
  const reason = await replayReason(ctx, tool, call);
  if (reason) {
    answer.why = `replay reason ${reason} (${REPLAY_REASON_WORDS[reason]}): ${answer.why}`;
    answer.rules = [reason === 'variant' ? 'ES-20' : 'ES-15', ...answer.rules];
  }
  return answer;
}

/**
 * Issue 44 (kind 7): whether this session's writes leave the state unable to say what a read
 * of another type answers: it embeds entities of a type the session wrote without the model
 * applying it, or its collection (or its item) still names an entity the session deleted
 * (write-log.ts orphansOf; cascade.ts answers those reads the cascade does not change).
 */
async function otherTypesStale(
  ctx: ServeContext,
  tool: ManifestTool,
  call: CallRequest,
  model: ServedModel,
): Promise<{ words: string; orphans: Orphan[] } | null> {
  if (isWriteTool(ctx, tool) || model.writes.length === 0) return null;
  const plan = await (await servedLookups(ctx))?.plan(tool.name);
  if (!plan || (plan.kind !== 'item' && plan.kind !== 'list')) return null;
  const types = await servedTypes(ctx);
  // The members it embeds, its own and those the API's embed conventions give it.
  const embeds = (await embeddedOf(ctx, plan)).members.filter(
    (m) => m.relation && call.query.some((q) => q.name === m.param && q.value === m.member),
  );
  const written = embeds.find((m) => {
    const root = types.find((t) => t.collection === m.relation!.collection)?.root_path;
    return model.writes.some((w) => w.root === root && !w.applied);
  });
  if (written)
    return { words: `it embeds ${written.relation!.collection}, which this session wrote without the model applying it`, orphans: [] };
  const id = plan.kind === 'item' ? itemValue(tool, call) : undefined;
  const orphans = await orphansOf(ctx, model, plan.collection, id);
  if (orphans.length) return { words: orphanWords(orphans[0]), orphans };
  // Issue 45 (kind 3): a count it shows of what names it, after a write that named it (counters.ts).
  const counted = await countInDoubt(ctx, model, plan.collection, id);
  return counted ? { words: counted, orphans: [] } : null;
}

/**
 * Issue 44 (kind 7): a read the state cannot answer after this session's writes is still the
 * app's own when the session's writes, all of them, are the capture's first ones in order and
 * the capture read the same line after them (before its next write): the app stood there then.
 * So the recorded app's own page, run against the model, gets its reads after a delete.
 */
async function recordedAfterSameWrites(
  ctx: ServeContext,
  tool: ManifestTool,
  call: CallRequest,
  model: ServedModel,
): Promise<CallAnswer | null> {
  if (call.body !== undefined) return null;
  const window = await currentWindow(ctx, model.writes);
  if (window === null || window === 'stale') return null;
  const now = lineRecords(await toolRecords(ctx, tool.name), call).filter((r) => r.status > 0 && inWindow(r, window));
  const chosen = now[now.length - 1];
  if (!chosen) return null;
  return replayed(
    ctx,
    tool,
    chosen,
    `latest record of ${requestLine(chosen)} made after the capture's write #${window.k}: this session's writes are the capture's own, in order`,
    ['ES-8'],
  );
}

export async function stateAnswer(ctx: ServeContext, tool: ManifestTool, a: StateAnswer): Promise<CallAnswer> {
  const headers = await withAppLink(ctx, tool, a);
  const base = {
    tool: tool.name,
    status: a.status,
    record_ordinal: a.record_ordinal,
    request_line: a.request_line,
    source: 'state' as const,
    why: a.why,
    rules: a.rules ?? [],
    ...(a.convention ? { convention: a.convention } : {}),
    ...(headers ? { headers } : {}),
  };
  // A recorded answer that is not JSON (an empty 404, a 204) is answered as recorded.
  if (a.record) return { ...base, body: await answerBody(ctx, a.record), media_type: a.record.response_media_type };
  const text = stringifyExact(a.value);
  const bytes = Buffer.byteLength(text, 'utf8');
  return {
    ...base,
    body: { kind: 'json', bytes, value: a.value, text, is_rendered_oversize: bytes > MAX_USABLE_BODY_BYTES },
    media_type: a.media_type ?? (await mediaTypeOf(ctx, tool, a.record_ordinal)),
  };
}

/**
 * Issue 44 (kind 8): a 2xx state answer's headers with the Link the app sends with such answers
 * (link-habit.ts); a page's recomputed links and other statuses' (notFound's) stay as made. Where
 * the tool's answers show a Link the model cannot make, the app's own Link for this very request
 * line, when the capture recorded one, else a decline.
 */
async function withAppLink(ctx: ServeContext, tool: ManifestTool, a: StateAnswer): Promise<Record<string, string> | undefined> {
  if (a.headers?.link !== undefined || a.status < 200 || a.status > 299) return a.headers;
  try {
    return withHabitLink(a.headers, await toolLinkHabit(ctx, tool.name), a.value, tool.name, a.request_line);
  } catch (e) {
    const same = (await toolRecords(ctx, tool.name)).filter((r) => r.status === a.status && requestLine(r) === a.request_line).at(-1);
    const link = same && (await recordedLink(ctx, same.ordinal));
    if (link === undefined) throw e;
    return { ...a.headers, link };
  }
}

/** The media type of the record a state answer is shaped like (its own tool's, else JSON). */
async function mediaTypeOf(ctx: ServeContext, tool: ManifestTool, ordinal: number): Promise<string> {
  const records = await toolRecords(ctx, tool.name);
  const r = recordAt(records, ordinal) ?? records.find((x) => x.response_kind === 'json');
  return r?.response_media_type ?? 'application/json';
}

async function replay(ctx: ServeContext, tool: ManifestTool, call: CallRequest, model: ServedModel): Promise<CallAnswer> {
  const records = await toolRecords(ctx, tool.name);
  const sameLine = lineRecords(records, call);
  let candidates = sameLine;
  let bodyNote = '';
  if (call.body !== undefined && sameLine.some((r) => r.request_kind !== 'none')) {
    const wanted = canonicalJson(call.body as JsonValue);
    const matching: ToolRecord[] = [];
    for (const r of sameLine) if ((await requestBodyKey(ctx, r)) === wanted) matching.push(r);
    if (matching.length > 0) {
      candidates = matching;
      bodyNote = ' with the same request body';
    } else if (tool.is_query_post || isWriteTool(ctx, tool)) {
      // A query POST's body is the query: another body's answer would answer another question.
      // Issue 45: so is a write's the write — the app's answer to another body (the entity it
      // created, the fields it kept) is not its answer to this one.
      candidates = [];
    } else {
      bodyNote = '; no record of this line has the request body given, so the body is not matched';
    }
  }
  // A request that got no response (HAR status 0 or -1: failed or aborted) answers nothing.
  const answered = candidates.filter((r) => r.status > 0);
  if (answered.length === 0 && candidates.length > 0) {
    const asked = callLine(tool, call);
    throw new CapstateError(
      'no-response',
      `${tool.name}: the capture recorded ${asked} but no response to it (the request failed or was aborted, record #${candidates[candidates.length - 1].ordinal}); nothing can be replayed`,
      { tool: tool.name, request_line: asked, record_ordinals: candidates.map((r) => r.ordinal) },
    );
  }
  candidates = answered;
  // Issue 44 (kind 7): after this session's writes under the read's type, only a record made
  // where the capture stood after the same writes tells what the app answers now (write-log.ts).
  const current = candidates.length && !isWriteTool(ctx, tool) ? await currentWindow(ctx, model.writes, tool.root_path) : null;
  if (current !== null) {
    const now = current === 'stale' ? [] : candidates.filter((r) => inWindow(r, current));
    if (now.length === 0) {
      const asked = callLine(tool, call);
      throw new CapstateError(
        'stale-record',
        `${tool.name}: the capture's records of ${asked} show the app before ${current === 'stale' ? "this session's writes under" : `the ${current.k} write(s) this session made under`} ${tool.root_path}` +
          `${current === 'stale' ? ', which are not the writes the capture made' : ''}; no record tells what the app answers now, so none is replayed`,
        { tool: tool.name, request_line: asked, record_ordinals: candidates.map((r) => r.ordinal) },
      );
    }
    const chosen = now[now.length - 1];
    const k = current === 'stale' ? 0 : current.k;
    return replayed(
      ctx,
      tool,
      chosen,
      `latest record of ${requestLine(chosen)}${bodyNote} made after the capture's write #${k} under ${tool.root_path}: this session's writes under it are the capture's own, in order`,
      ['ES-8'],
    );
  }
  const initial = candidates.filter((r) => r.is_initial);
  const chosen = initial.length ? initial[initial.length - 1] : candidates[candidates.length - 1];
  if (!chosen) {
    const lines = [...new Set(records.map(requestLine))];
    const shown = lines.slice(0, 20).join('; ') + (lines.length > 20 ? `; … (${lines.length - 20} more)` : '');
    const asked = callLine(tool, call);
    throw new CapstateError(
      'no-record',
      `${tool.name}: no retained record answers ${asked}${call.body !== undefined && (tool.is_query_post || isWriteTool(ctx, tool)) ? ' with this request body' : ''}; ` +
        `recorded request lines: ${shown || 'none'}`,
      { tool: tool.name, request_line: asked, recorded_request_lines: lines.slice(0, 20) },
    );
  }
  const line = requestLine(chosen);
  const repeats = candidates.length > 1 ? ` (${candidates.length} records of this line)` : '';
  let why: string;
  let rules: string[];
  if (initial.length) {
    const b = chosen.bound;
    why =
      `latest initial record of ${line}${bodyNote}${repeats}: ` +
      (b === null
        ? `no write bounds the type ${chosen.root_path}, so every read of it is initial`
        : b.rule === 'ES-8'
          ? `recorded before #${b.ordinal}, the first write under ${chosen.root_path}`
          : b.rule === 'ES-9'
            ? `recorded before #${b.ordinal}, a POST elsewhere that created an entity of ${chosen.root_path}`
            : (await boundIsRead(ctx, b.ordinal))
              ? `recorded before #${b.ordinal}, the first read of ${chosen.root_path} showing an entity an earlier read found absent (a write the capture did not record)`
              : `recorded before #${b.ordinal}, a write elsewhere after which the reads of ${chosen.root_path} changed`);
    rules = b === null ? ['ES-8'] : [b.rule];
  } else if (isWriteTool(ctx, tool)) {
    why = `latest record of ${line}${bodyNote}${repeats}: a write is replayed as recorded; its effect on state is not modelled`;
    // No rule of the view decides this: a write changes the model only where check-effects verified its effect.
    rules = [];
  } else {
    const w = await firstWriteOrdinal(ctx, chosen.root_path);
    why =
      `latest record of ${line}${bodyNote}${repeats}: none of its records is an initial read (each came after, or overlapped, ` +
      `the bound of ${chosen.root_path}${w !== null ? `, whose first write is #${w}` : ''})`;
    rules = ['ES-8', 'ES-9'];
  }
  return replayed(ctx, tool, chosen, why, rules);
}

/** A retained record as the answer, with why it was chosen. */
async function replayed(ctx: ServeContext, tool: ManifestTool, chosen: ToolRecord, why: string, rules: string[]): Promise<CallAnswer> {
  return {
    tool: tool.name,
    status: chosen.status,
    body: await answerBody(ctx, chosen),
    record_ordinal: chosen.ordinal,
    request_line: requestLine(chosen),
    source: 'replay',
    why,
    rules,
    media_type: chosen.response_media_type,
  };
}

/** A record's retained response body as an answer carries it (text, JSON value, or bytes). */
export async function answerBody(ctx: ServeContext, r: Pick<ToolRecord, 'response_body_id' | 'response_media_type'>): Promise<AnswerBody> {
  const b = await readBody(ctx, r.response_body_id, r.response_media_type);
  const out: AnswerBody = { kind: b.kind, bytes: b.bytes };
  if (b.content === null || b.kind === 'none') return out;
  if (typeof b.content === 'string') out.text = b.content;
  else if (b.kind === 'base64') {
    out.raw = b.content;
    out.base64 = b.content.toString('base64');
  } else out.text = b.content.toString('utf8');
  const value = jsonValueOf(b);
  if (value !== undefined) {
    out.value = value;
    // DOC-4 / OQ-30: a value whose compact rendering exceeds 256 KiB is answered with the
    // recorded body (itself within the limit), not with a rendering.
    out.is_rendered_oversize = Buffer.byteLength(stringifyExact(value), 'utf8') > MAX_USABLE_BODY_BYTES;
  }
  return out;
}
