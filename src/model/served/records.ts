/**
 * A tool's retained records, as replay and descriptions read them: timeline order (ES-6),
 * path values, query pairs, whether each is an initial read (ES-8, ES-9 via the
 * `initial_reads` view), and body classification from the store — decided once by the
 * single owner, src/load/bodies.ts (DESC-6, ES-5); this module only reads its verdict.
 */
import { itemParamOf } from '../../manifest/paths.js';
import { type BodyKind } from '../../load/bodies.js';
import { canonicalJson } from '../../json/canonical.js';
import { parseAcceptedJson, type JsonValue } from '../../json/exact.js';
import type { ManifestTool } from '../../manifest/read.js';
import { perContextKey, type ServeContext } from './context.js';
import { servedLookups } from './model.js';
import { BoundedCache } from '../plan/lookups.js';
import { storedContent } from '../../store/body-content.js';
import { lineBound, readRecordLines, type LineBound, type RecordLine } from '../../store/record-lines.js';

/**
 * The part of a checked call (input-schema.ts `CallRequest`) that picks a request line's
 * records; stated here so this module, which input-schema.ts reads, does not import it back.
 */
export interface LineCall {
  params: Map<string, string>;
  query: { name: string; value: string }[];
}

/** A tool's record as serving reads it: the one reader's line (src/store/record-lines.ts). */
export type ToolRecord = RecordLine;

export interface RetainedBodyView {
  kind: BodyKind;
  bytes: number;
  media_type: string | null;
  unusable_reason: string | null;
  /** The retained text (UTF-8 bodies) or bytes (base64 bodies); null when none. */
  content: string | Buffer | null;
}

const cache = new WeakMap<ServeContext, Promise<Map<string, ToolRecord[]>>>();

/**
 * Per record, what the rules decided (initial read and bound, list pointer), read once per
 * context: from the stored state's `state_records` rows when the capture's state was
 * computed (indexed, so start-up does not evaluate the rule chain), else from the views
 * `initial_reads` and `list_locations` themselves, each evaluated once for the whole capture.
 */
interface RecordDecisions {
  initial: Map<number, LineBound>;
  listPointer: Map<number, string>;
}
const decisions = new WeakMap<ServeContext, Promise<RecordDecisions>>();

function recordDecisions(ctx: ServeContext): Promise<RecordDecisions> {
  let hit = decisions.get(ctx);
  if (!hit) decisions.set(ctx, (hit = readDecisions(ctx)));
  return hit;
}

async function readDecisions(ctx: ServeContext): Promise<RecordDecisions> {
  const state = await servedLookups(ctx);
  if (state) {
    const rows = await state.records();
    return {
      initial: new Map(rows.filter((r) => r.is_initial === 1).map((r) => [r.record_id, lineBound(r)])),
      listPointer: new Map(rows.filter((r) => r.list_pointer !== null).map((r) => [r.record_id, r.list_pointer!])),
    };
  }
  const [initial, lists] = await Promise.all([
    ctx.k
      .selectFrom('initial_reads')
      .select(['record_id', 'bound_ordinal', 'bound_rule'])
      .where('capture_id', '=', ctx.captureId)
      .execute(),
    ctx.k
      .selectFrom('record as r')
      .innerJoin('list_locations as l', 'l.body_id', 'r.response_body_id')
      .select(['r.id', 'l.list_pointer'])
      .where('r.capture_id', '=', ctx.captureId)
      .execute(),
  ]);
  return {
    initial: new Map(initial.map((r) => [r.record_id, lineBound(r)])),
    listPointer: new Map(lists.map((r) => [r.id, r.list_pointer])),
  };
}

/** The capture's initial reads (record ids) and the bound of each (ES-8, ES-9, ES-27). */
export async function initialReads(ctx: ServeContext): Promise<Map<number, LineBound>> {
  return (await recordDecisions(ctx)).initial;
}

/** The tool's records in timeline order (cached per context: the store is read-only). */
export async function toolRecords(ctx: ServeContext, tool: string): Promise<ToolRecord[]> {
  return (await allToolRecords(ctx)).get(tool) ?? [];
}

const byOrdinal = new WeakMap<ToolRecord[], Map<number, ToolRecord | undefined>>();

/**
 * The record of `records` with this ordinal, each ordinal searched for once per records list:
 * answers name the few records they are shaped on again and again, and a search per answer was
 * linear in the tool's records (an index of all of them cost the long load 7 MB at its peak).
 */
export function recordAt(records: ToolRecord[], ordinal: number): ToolRecord | undefined {
  let found = byOrdinal.get(records);
  if (!found) byOrdinal.set(records, (found = new Map()));
  if (!found.has(ordinal))
    found.set(
      ordinal,
      records.find((r) => r.ordinal === ordinal),
    );
  return found.get(ordinal);
}

/** Which of a tool's records `latestRecord` looks for: its answers (2xx) or its not-founds. */
export type RecordClass = '2xx' | '404';

/**
 * The tool's latest record of the class, remembered per context: a write's answer shape and a
 * read's not-found are asked for on every call, and searching the tool's records each time made
 * the load's write check quadratic in a long single-app capture (7,000 POSTs of one tool).
 */
export async function latestRecord(ctx: ServeContext, tool: string, cls: RecordClass): Promise<ToolRecord | null> {
  return (await latestOf(ctx, tool))[cls];
}

/** A tool's latest 2xx and 404 records, from one walk back from its last record. */
const latestOf = perContextKey(async (ctx, tool): Promise<Record<RecordClass, ToolRecord | null>> => {
  const out: Record<RecordClass, ToolRecord | null> = { '2xx': null, '404': null };
  const records = await toolRecords(ctx, tool);
  for (let i = records.length - 1; i >= 0 && (out['2xx'] === null || out['404'] === null); i--) {
    const r = records[i];
    if (r.status === 404) out['404'] ??= r;
    else if (r.status >= 200 && r.status <= 299) out['2xx'] ??= r;
  }
  return out;
});

/**
 * Every tool's records, read in one query the first time any tool's are needed: start-up
 * describes every tool, and each query of its own evaluated the timeline (ES-6, a window
 * over the whole capture) again (100 tools: 3 s at 500 MB). The promise is cached, like the
 * other lookups here: concurrent first calls share one read.
 */
function allToolRecords(ctx: ServeContext): Promise<Map<string, ToolRecord[]>> {
  let hit = cache.get(ctx);
  if (!hit) cache.set(ctx, (hit = readAllToolRecords(ctx)));
  return hit;
}

async function readAllToolRecords(ctx: ServeContext): Promise<Map<string, ToolRecord[]>> {
  const tools = [...ctx.toolIds]
    .filter(([name]) => ctx.tools.has(name))
    .map(([name, id]) => ({ id, name, root_path: ctx.tools.get(name)!.root_path }));
  const byTool = new Map<string, ToolRecord[]>(tools.map((t) => [t.name, []]));
  for (const line of await readRecordLines(ctx.k, { captureId: ctx.captureId, tools, readsOnly: false, initial: await initialReads(ctx) }))
    byTool.get(line.tool)!.push(line);
  return byTool;
}

/** The list pointer the state's list rules (OQ-11, `list_locations`) find in a record's response body, or null. */
export async function listPointerOf(ctx: ServeContext, recordId: number): Promise<string | null> {
  return (await recordDecisions(ctx)).listPointer.get(recordId) ?? null;
}

const firstWrites = new WeakMap<ServeContext, Promise<Map<string, number>>>();

/** The ordinal of the first write under each type root (ES-8, `first_write_per_root`). */
export async function firstWriteOrdinal(ctx: ServeContext, rootPath: string): Promise<number | null> {
  let hit = firstWrites.get(ctx);
  if (!hit) {
    hit = ctx.k
      .selectFrom('first_write_per_root')
      .select(['root_path', 'write_ordinal'])
      .where('capture_id', '=', ctx.captureId)
      .execute()
      .then((rows) => new Map(rows.map((r) => [r.root_path, r.write_ordinal])));
    firstWrites.set(ctx, hit);
  }
  return (await hit).get(rootPath) ?? null;
}

/** Issue 18: whether record `ordinal` (an ES-27 bound) is a read: an absence bound sits at a read, every other at a write. */
export async function boundIsRead(ctx: ServeContext, ordinal: number): Promise<boolean> {
  const r = await ctx.k
    .selectFrom('record as r')
    .innerJoin('tool as t', 't.id', 'r.tool_id')
    .select(['r.method', 't.is_query_post'])
    .where('r.capture_id', '=', ctx.captureId)
    .where('r.ordinal', '=', ordinal)
    .executeTakeFirst();
  return !!r && (ctx.vocabulary.isSafeMethod(r.method) || r.is_query_post === 1);
}

/**
 * Bodies read, kept per context up to this many characters (bytes for binary ones): a long
 * single-app session answers the same few bodies tens of thousands of times (r200's write
 * check read 154,751 bodies, of a few hundred rows), and a query per read was a fifth of its
 * state pass. A body is never changed once stored.
 */
const BODY_CACHE_CHARS = 512 * 1024;
type StoredBody = Omit<RetainedBodyView, 'media_type'>;
const bodies = new WeakMap<ServeContext, BoundedCache<StoredBody>>();

/** One retained body as the store keeps it (kind decided by src/load/bodies.ts). */
export async function readBody(ctx: ServeContext, bodyId: number, mediaType: string | null = null): Promise<RetainedBodyView> {
  let cache = bodies.get(ctx);
  if (!cache) bodies.set(ctx, (cache = new BoundedCache<StoredBody>(BODY_CACHE_CHARS)));
  const b = await cache.read(String(bodyId), async () => {
    const row = await ctx.k
      .selectFrom('body')
      .select(['kind', 'bytes', 'unusable_reason', 'content', 'coding'])
      .where('id', '=', bodyId)
      .executeTakeFirstOrThrow();
    const content = storedContent(row.content, row.coding);
    return { value: { kind: row.kind, bytes: row.bytes, unusable_reason: row.unusable_reason, content }, chars: content?.length ?? 0 };
  });
  return { ...b, media_type: mediaType };
}

/**
 * Gives context `to` the records and bodies `from` read, for contexts on one transaction's
 * facts one after another (the load's write-check steps, src/ingest/store-state.ts): neither
 * changes under them (state_records is written before the steps), and reading a long
 * session's records again for each step cost seconds.
 */
export function shareFacts(from: ServeContext, to: ServeContext): ServeContext {
  const records = cache.get(from);
  if (records) cache.set(to, records);
  const held = bodies.get(from);
  if (held) bodies.set(to, held);
  const keys = bodyKeys.get(from);
  if (keys) bodyKeys.set(to, keys);
  return to;
}

/**
 * The exact JSON value of a body the owner classified `json`, parsed by the owner's exact
 * parser (ES-5); null for every other kind (DESC-6: only the JSON case is read).
 */
export function jsonValueOf(body: RetainedBodyView): JsonValue | undefined {
  if (body.kind !== 'json' || body.content === null) return undefined;
  const text = typeof body.content === 'string' ? body.content : body.content.toString('utf8');
  // The owner classified it `json` (ES-4 passed): the accepted-text parse gives the exact value.
  const parsed = parseAcceptedJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/** The tool arguments that ask for a record's request line: its path parameters, and its query with a repeated key as an array. */
export function recordArguments(r: ToolRecord): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(r.params);
  if (r.query_pairs.length) {
    const q: Record<string, string | string[]> = {};
    for (const p of r.query_pairs) {
      const had = q[p.name];
      q[p.name] = had === undefined ? p.value : ([] as string[]).concat(had, p.value);
    }
    args.query = q;
  }
  return args;
}

/** `GET /api/annotations?from=1&to=2`: a record's request line (method + path + query). */
export function requestLine(r: { method: string; path: string; query: string | null }): string {
  return `${r.method} ${r.path}${r.query !== null && r.query !== '' ? '?' + r.query : ''}`;
}

/** The records of the request line a call asks for: the same path values and the same query pairs (order aside). */
export function lineRecords(records: ToolRecord[], call: LineCall): ToolRecord[] {
  return (byQuery(records).get(pairKey(call.query)) ?? []).filter((r) => sameParams(r, call));
}

/**
 * A tool's records by their query pairs' key, made once per records array (toolRecords'
 * arrays live as long as their context): checking effects asks for a line once per replayed
 * record, and keying every record of the tool each time was most of a run (12 of 43 s at 500 MB).
 */
const queryIndex = new WeakMap<ToolRecord[], Map<string, ToolRecord[]>>();

function byQuery(records: ToolRecord[]): Map<string, ToolRecord[]> {
  let index = queryIndex.get(records);
  if (!index) {
    index = new Map();
    for (const r of records) {
      const key = pairKey(r.query_pairs);
      const list = index.get(key);
      if (list) list.push(r);
      else index.set(key, [r]);
    }
    queryIndex.set(records, index);
  }
  return index;
}

function sameParams(r: ToolRecord, call: LineCall): boolean {
  for (const [name, value] of call.params) if (r.params.get(name) !== value) return false;
  return true;
}

function pairKey(pairs: { name: string; value: string }[]): string {
  return pairs
    .map((p) => JSON.stringify([p.name, p.value]))
    .sort()
    .join(',');
}

/** The request line a call asks for: the template filled with its values, then its query. */
export function callLine(tool: ManifestTool, call: LineCall): string {
  const path = tool.template.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(call.params.get(n) ?? ''));
  const q = call.query.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p.value)}`).join('&');
  return `${tool.method} ${path}${q ? '?' + q : ''}`;
}

/** Whether `tool` writes: a method that is not safe, and not a query POST (MCP-1, OQ-7). */
export const isWriteTool = (ctx: ServeContext, tool: ManifestTool): boolean =>
  !ctx.vocabulary.isSafeMethod(tool.method) && !tool.is_query_post;

/**
 * Whether the capture recorded this very call (its request line and body) answered 2xx: the app
 * took it, so a refusal the model would make of it for want of evidence does not hold.
 */
export async function recordedTaken(ctx: ServeContext, tool: ManifestTool, call: LineCall & { body?: unknown }): Promise<boolean> {
  const key = call.body === undefined ? null : canonicalJson(call.body);
  for (const r of lineRecords(await toolRecords(ctx, tool.name), call))
    if (r.status >= 200 && r.status <= 299 && (await requestBodyKey(ctx, r)) === key) return true;
  return false;
}

/** A recorded request body's canonical JSON: equal values, member order aside, give equal keys. */
export async function requestBodyKey(ctx: ServeContext, r: ToolRecord): Promise<string | null> {
  if (r.request_kind === 'none') return null;
  let cache = bodyKeys.get(ctx);
  if (!cache) bodyKeys.set(ctx, (cache = new BoundedCache<string | null>(BODY_CACHE_CHARS)));
  return cache.read(String(r.request_body_id), async () => {
    const body = await readBody(ctx, r.request_body_id);
    const value = jsonValueOf(body);
    const key = value !== undefined ? canonicalJson(value) : typeof body.content === 'string' ? canonicalJson(body.content) : null;
    return { value: key, chars: key?.length ?? 0 };
  });
}

/**
 * Issue 49: request-body keys, kept per context as the bodies are. A replayed write is matched
 * by its body against each record of its request line, and the write check replays every write
 * of the capture: parsing and canonicalising the same bodies again was 3.3 s of a 500 MB
 * capture's state pass. A body never changes once stored, so neither does its key.
 */
const bodyKeys = new WeakMap<ServeContext, BoundedCache<string | null>>();

/** The value of the template's last parameter when the template ends in one (an item route), else undefined. */
export function itemValue(tool: ManifestTool, call: Pick<LineCall, 'params'>): string | undefined {
  const param = itemParamOf(tool.template);
  return param === undefined ? undefined : call.params.get(param);
}

/** The capture's writes under `root` (or under every root) that got a response, in timeline order. */
export async function captureWrites(ctx: ServeContext, root?: string): Promise<ToolRecord[]> {
  const out: ToolRecord[] = [];
  for (const tool of ctx.manifest.tools)
    if ((root === undefined || tool.root_path === root) && isWriteTool(ctx, tool))
      out.push(...(await toolRecords(ctx, tool.name)).filter((r) => r.status > 0));
  return out.sort((a, b) => a.timeline_position - b.timeline_position);
}

/**
 * The capture's writes under `root` that name an entity by path (`PUT /issues/1.json`,
 * `DELETE /posts/5`), by that entity's id, each list in timeline order: an entity's own writes.
 */
export async function itemWritesOf(ctx: ServeContext, root: string): Promise<Map<string, ToolRecord[]>> {
  const out = new Map<string, ToolRecord[]>();
  for (const w of await captureWrites(ctx, root)) {
    const id = itemValue(ctx.tools.get(w.tool)!, w);
    if (id !== undefined) out.set(id, [...(out.get(id) ?? []), w]);
  }
  return out;
}

/** Every admitted record in timeline order, with its tool. */
export async function timeline(ctx: ServeContext): Promise<{ tool: ManifestTool; record: ToolRecord }[]> {
  const all: { tool: ManifestTool; record: ToolRecord }[] = [];
  for (const tool of ctx.manifest.tools) for (const record of await toolRecords(ctx, tool.name)) all.push({ tool, record });
  return all.sort((a, b) => a.record.timeline_position - b.record.timeline_position);
}
