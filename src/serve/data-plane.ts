/**
 * The data plane (issue 16): `reset_state`, `get_state` and `load_state` act on the
 * session's own model (src/model/served/model.ts); the store's initial state is never changed.
 * MCP serves them as tools, HTTP under `/__capstate/` (src/http/server.ts); both call here.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { CapstateError } from '../errors.js';
import { MAX_JSON_DEPTH, type JsonValue } from '../json/exact.js';
import { firstTooDeep, pathText } from '../json/depth.js';
import { isObject, member } from '../model/plan/json.js';
import type { StateDocument, StateEntity } from '../model/plan/types.js';
import type { ServeContext } from '../model/served/context.js';
import { servedState } from '../model/served/from-state.js';
import { hintsFor } from './hints.js';
import { servedTypes, stateText, type ServedModel, type ServedStateDocument } from '../model/served/model.js';
import { inputSchemaOf, parseToolArguments } from './tool-arguments.js';

export const DATA_PLANE_TOOLS: Tool[] = [
  {
    name: 'reset_state',
    description:
      "Puts the served state back to the capture's initial state (the state stored at load), dropping every write and load_state of this session.",
    inputSchema: inputSchemaOf('reset_state'),
    annotations: { ...hintsFor('PUT', false, false), destructiveHint: true },
  },
  {
    name: 'get_state',
    description:
      'The state this session serves now: its entities and documents in the shape of `capstate state --json`, as exact JSON text (byte-stable; the second text content) with its SHA-256. Give it, edited or not, to load_state.',
    inputSchema: inputSchemaOf('get_state'),
    annotations: hintsFor('GET', false, true),
  },
  {
    name: 'load_state',
    description:
      'Serves the given state from now on in this session (a document get_state produced, edited by hand or not). Checked first: every entity names a served type, an id and an object value whose identity member, if present, is that id; documents name a document tool. Documents not given keep their current value.',
    inputSchema: inputSchemaOf('load_state'),
    annotations: { ...hintsFor('PUT', false, false), destructiveHint: true },
  },
];

export const DATA_PLANE_TOOL_NAMES = new Set(DATA_PLANE_TOOLS.map((t) => t.name));

/** `get_state`'s document: the exact text, its SHA-256 and the state. */
export async function getState(model: ServedModel): Promise<{ sha256: string; bytes: number; text: string; state: ServedStateDocument }> {
  const state = await model.snapshot();
  const { text, sha256 } = stateText(state);
  return { sha256, bytes: Buffer.byteLength(text, 'utf8'), text, state };
}

const bad = (message: string, field: string) =>
  new CapstateError('bad-state', `load_state: ${message}; give a document get_state produced (edited or not)`, { field });
const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);

/**
 * The deepest nesting a state given to load_state may have: the same as any JSON capstate
 * reads exactly (ES-4, `MAX_JSON_DEPTH`), so a state refused over MCP is refused over HTTP
 * too, where the body goes through the exact parser with that limit.
 */
export const STATE_MAX_DEPTH = MAX_JSON_DEPTH;

/**
 * Refuses a state nested deeper than STATE_MAX_DEPTH, naming the path where it passes the
 * limit. Measured without recursion, before anything recursive walks the document: 100,000
 * levels once overflowed the stack and came back as an internal error.
 */
export function checkStateDepth(given: unknown): void {
  const path = firstTooDeep(given, STATE_MAX_DEPTH);
  if (path) {
    const at = pathText('state', path);
    throw new CapstateError(
      'bad-state',
      `load_state: ${at} nests deeper than ${STATE_MAX_DEPTH} levels (the limit of any JSON capstate reads); give a document get_state produced (edited or not), nested less deeply`,
      { field: at, max_depth: STATE_MAX_DEPTH },
    );
  }
}

/**
 * The same check on a state sent as a request body (HTTP PUT /__capstate/state), before the
 * exact parser refuses it as JSON without saying where. A body that is not JSON is left to
 * the caller's JSON check; V8's JSON.parse reads any depth without recursion.
 */
export function checkStateBodyDepth(body: Buffer): void {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return;
  }
  checkStateDepth(value);
}

/** Checks a state given to `load_state`, naming the first field that is wrong. */
export async function validateState(ctx: ServeContext, given: unknown): Promise<ServedStateDocument> {
  checkStateDepth(given);
  if (!isObject(given as JsonValue)) throw bad('state must be an object', 'state');
  const g = given as Record<string, unknown>;
  if (g.kind !== undefined && g.kind !== 'served-state')
    throw bad(`state.kind must be "served-state", not ${JSON.stringify(g.kind)}`, 'state.kind');
  if (g.capture_id !== undefined && g.capture_id !== ctx.captureId)
    throw bad(`state.capture_id is ${JSON.stringify(g.capture_id)}, but this server serves capture ${ctx.captureId}`, 'state.capture_id');
  if (!Array.isArray(g.entities)) throw bad('state.entities must be an array', 'state.entities');
  const types = new Map((await servedTypes(ctx)).map((t) => [t.collection, t]));
  const seen = new Set<string>();
  const entities: StateEntity[] = g.entities.map((raw, i): StateEntity => {
    const at = `state.entities[${i}]`;
    if (!isObject(raw as JsonValue)) throw bad(`${at} must be an object`, at);
    const e = raw as Record<string, unknown>;
    const type = typeof e.collection === 'string' ? types.get(e.collection) : undefined;
    if (!type)
      throw bad(
        `${at}.collection ${JSON.stringify(e.collection)} is not a served type (types: ${[...types.keys()].join(', ') || 'none'})`,
        `${at}.collection`,
      );
    if (typeof e.id !== 'string' || e.id === '') throw bad(`${at}.id must be a non-empty string`, `${at}.id`);
    if (!isObject(e.value as JsonValue)) throw bad(`${at}.value must be an object`, `${at}.value`);
    const identity = member(e.value as JsonValue, type.identity);
    if (identity !== undefined && String(identity) !== e.id)
      throw bad(
        `${at}.value.${type.identity} is ${JSON.stringify(identity)}, but ${at}.id is ${JSON.stringify(e.id)}`,
        `${at}.value.${type.identity}`,
      );
    const key = `${type.collection}\u0000${e.id}`;
    if (seen.has(key)) throw bad(`${at} repeats ${type.collection} entity ${e.id}`, `${at}.id`);
    seen.add(key);
    if (e.state_order !== undefined && !isInt(e.state_order)) throw bad(`${at}.state_order must be an integer`, `${at}.state_order`);
    if (e.view_values !== undefined && !isObject(e.view_values as JsonValue))
      throw bad(`${at}.view_values must be an object`, `${at}.view_values`);
    if (e.record_ordinals !== undefined && !(Array.isArray(e.record_ordinals) && e.record_ordinals.every(isInt)))
      throw bad(`${at}.record_ordinals must be an array of integers`, `${at}.record_ordinals`);
    return {
      collection: type.collection,
      id: e.id,
      value: e.value as JsonValue,
      view_values: (e.view_values ?? {}) as StateEntity['view_values'],
      state_order: (e.state_order as number | undefined) ?? i,
      record_ordinals: (e.record_ordinals ?? []) as number[],
    };
  });
  const state = await servedState(ctx);
  const documents: StateDocument[] = [];
  if (g.documents !== undefined && !Array.isArray(g.documents)) throw bad('state.documents must be an array', 'state.documents');
  const givenDocs = new Map<string, JsonValue>();
  for (const [i, raw] of ((g.documents ?? []) as unknown[]).entries()) {
    const at = `state.documents[${i}]`;
    if (!isObject(raw as JsonValue)) throw bad(`${at} must be an object`, at);
    const d = raw as Record<string, unknown>;
    const stored = typeof d.tool === 'string' ? await state?.document(d.tool) : undefined;
    if (!stored) throw bad(`${at}.tool ${JSON.stringify(d.tool)} is not a document tool of this capture`, `${at}.tool`);
    if (!('value' in d)) throw bad(`${at}.value is missing`, `${at}.value`);
    givenDocs.set(stored.tool, d.value as JsonValue);
  }
  for (const tool of ctx.manifest.tools) {
    const stored = await state?.document(tool.name);
    if (stored) documents.push(givenDocs.has(tool.name) ? { ...stored, value: givenDocs.get(tool.name)! } : stored);
  }
  return { kind: 'served-state', capture_id: ctx.captureId, entities, documents };
}

/** Answers a data-plane tool call on the session's model. */
export async function callDataPlaneTool(ctx: ServeContext, model: ServedModel, name: string, args: unknown): Promise<CallToolResult> {
  // The call's own arguments; the state document given to load_state is checked by validateState.
  const a = (args ?? {}) as Record<string, unknown>;
  if (name === 'load_state') checkStateDepth(a.state);
  parseToolArguments(name as 'reset_state' | 'get_state' | 'load_state', args, { checkedLater: 'state' });
  if (!(await model.hasState())) {
    throw new CapstateError(
      'no-state',
      `${name}: capture ${ctx.captureId} has no stored environment state (see capstate state for why); its tools replay records`,
      { tool: name },
    );
  }
  if (name === 'reset_state') {
    model.reset();
    const { sha256 } = await getState(model);
    return result({ ok: true, reset: true, sha256 }, `state reset to the capture's initial state (sha256 ${sha256})`);
  }
  if (name === 'get_state') {
    const s = await getState(model);
    // The state goes once, as its exact text (the bytes its SHA-256 is of): a plain copy in
    // structuredContent as well doubled every answer (9 MiB of values sent as 18.9 MB).
    return {
      content: [
        { type: 'text', text: `sha256 ${s.sha256} (${s.bytes} bytes)` },
        { type: 'text', text: s.text },
      ],
      structuredContent: { ok: true, sha256: s.sha256, bytes: s.bytes, state_in: 'content[1].text' },
    };
  }
  model.load(await validateState(ctx, a.state));
  const { sha256 } = await getState(model);
  return result({ ok: true, loaded: true, sha256 }, `state loaded (sha256 ${sha256})`);
}

function result(doc: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: doc };
}
