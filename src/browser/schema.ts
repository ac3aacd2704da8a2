/**
 * `browserScenarioSchema` (BS-1 to BS-9, BS-14, BS-26, BS-27, BS-37, BS-47 to BS-53,
 * OQ-39, OQ-45): one strict validation of the whole request before any browser starts,
 * declared once with zod (issue 19): the declaration gives the TypeScript types below, the
 * JSON Schema the MCP tool publishes, and the check. Every failure is a CapstateError
 * `invalid-scenario` naming the JSON path of the offending field (BS-8).
 */
import { z } from 'zod';
import { CapstateError } from '../errors.js';
import { describe } from '../load/fields.js';
import { formatPath, type JsonPath } from '../load/split.js';
import { firstIssue } from '../json/zod-issue.js';

export const ARTIFACTS = ['screenshot', 'dom', 'accessibility', 'url', 'history', 'storage'] as const;
export type Artifact = typeof ARTIFACTS[number];
export const EVENT_FAMILIES = ['console', 'page-errors', 'network', 'websockets', 'frames', 'workers', 'popups', 'downloads'] as const;
export type EventFamily = typeof EVENT_FAMILIES[number];
export const ACTIONS = ['goto', 'click', 'fill', 'press', 'select_option', 'check', 'uncheck', 'wait_for', 'wait_for_timeout', 'request'] as const;
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** BS-11: the default command deadline. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 20_000;
/** BS-14: the timer representation's maximum. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** OQ-45: the Fetch standard's forbidden request-header names, plus User-Agent (BS-53). */
const FORBIDDEN_HEADERS = new Set([
  'accept-charset', 'accept-encoding', 'access-control-request-headers', 'access-control-request-method',
  'connection', 'content-length', 'cookie', 'cookie2', 'date', 'dnt', 'expect', 'host', 'keep-alive', 'origin',
  'referer', 'set-cookie', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'via', 'user-agent',
  'x-http-method', 'x-http-method-override', 'x-method-override',
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** BS-53: newlines and other ASCII control characters (tab is allowed inside a value). */
export const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

// ---- The building blocks, each with the message a user reads (BS-8). ----

/** A string; by default a non-empty one. */
function str(opts: { nonEmpty?: boolean } = { nonEmpty: true }) {
  const s = z.string({ error: (iss) => `must be a string, got ${describe(iss.input)}` });
  return opts.nonEmpty ? s.min(1, { error: 'must not be empty' }) : s;
}

const bool = () => z.boolean({ error: (iss) => `must be true or false, got ${describe(iss.input)}` });

function int(min: number, max: number) {
  return z.int({
    error: (iss) => (typeof iss.input === 'number' && Number.isInteger(iss.input)
      ? `must be between ${min} and ${max}, got ${iss.input}` : `must be an integer, got ${describe(iss.input)}`),
  }).min(min).max(max);
}

const timeout = () => int(1, MAX_TIMEOUT_MS);

function oneOf<const T extends readonly [string, ...string[]]>(values: T, what: string) {
  return z.enum(values, { error: (iss) => `unsupported ${what} ${JSON.stringify(iss.input)}; use one of ${values.join(', ')}` });
}

function arr<T extends z.ZodType>(item: T, opts: { nonEmpty?: boolean } = {}) {
  const a = z.array(item, { error: (iss) => `must be an array, got ${describe(iss.input)}` });
  return opts.nonEmpty ? a.min(1, { error: 'must hold at least one entry' }) : a;
}

/** A strict object: an unknown field names the ones allowed here, required ones first. */
function obj<S extends z.ZodRawShape>(shape: S) {
  const keys = Object.keys(shape);
  const optional = (k: string) => (shape[k] as z.ZodType)._zod.optin === 'optional';
  const allowed = [...keys.filter((k) => !optional(k)), ...keys.filter(optional)].join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${JSON.stringify(iss.keys[0])}; allowed here: ${allowed}` : `must be an object, got ${describe(iss.input)}`),
  });
}

/** The error of a union told apart by `tag`; a missing tag is reported as a missing field. */
function unionError(tag: string, tags: readonly string[], what: string) {
  return (iss: z.core.$ZodRawIssue) => (iss.code === 'invalid_type' ? `must be an object, got ${describe(iss.input)}`
    : `unsupported ${what} ${JSON.stringify((iss.input as Record<string, unknown>)[tag])}; use one of ${tags.join(', ')}`);
}

/** A check on a value that passed its type: the message, or nothing when fine. */
function rule<T>(problem: (v: T) => string | undefined) {
  return (v: T, ctx: z.RefinementCtx<T>) => {
    const message = problem(v);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message, input: v });
  };
}

/** A list of distinct names from `values`. */
function set<const T extends readonly [string, ...string[]]>(values: T, what: string) {
  return arr(oneOf(values, what)).superRefine((list, ctx) => {
    list.forEach((t, i) => {
      if (list.indexOf(t) !== i) ctx.addIssue({ code: 'custom', message: `${what} ${JSON.stringify(t)} is listed twice`, path: [i], input: t });
    });
  });
}

// ---- URLs (BS-2, BS-22, BS-26). ----

function httpUrlProblem(raw: string): string | undefined {
  let u: URL;
  try { u = new URL(raw); } catch { return `not an absolute URL: ${JSON.stringify(raw)}`; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `only http and https URLs are supported, got ${u.protocol}`;
  return undefined;
}

/** An absolute http(s) URL, with `more` checked once it is one. */
const httpUrl = (more: (u: URL, raw: string) => string | undefined = () => undefined) =>
  str().superRefine(rule((raw: string) => httpUrlProblem(raw) ?? more(new URL(raw), raw)));

/** BS-22: loopback host and an explicit port only. */
function endpointProblem(u: URL, ep: string): string | undefined {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return `connect mode accepts only a loopback CDP endpoint (127.0.0.1, localhost or [::1]), got host ${u.hostname}`;
  if (!/^https?:\/\/[^/]+:\d+(\/|$)/.test(ep) || u.port === '') return 'the CDP endpoint needs an explicit port, e.g. http://127.0.0.1:9222';
  if (u.pathname !== '/' || u.search || u.hash || u.username) return 'give the endpoint as http://127.0.0.1:<port> without a path';
  return undefined;
}

// ---- Values (BS-27, BS-51). ----

const literal = obj({ source: z.literal('literal'), value: str({}) });
const secretRef = obj({ source: z.literal('secret'), secret_id: str() });
export const valueSourceSchema = z.discriminatedUnion('source', [literal, secretRef], { error: unionError('source', ['literal', 'secret'], 'value source') })
  .meta({ id: 'ValueSource', description: '{"source": "literal", "value": "…"} or {"source": "secret", "secret_id": "…"} (a declared secret)' });

const headerSources = ['literal', 'secret', 'cookie', 'local_storage'] as const;
const headerSourceSchema = z.discriminatedUnion('source', [
  obj({ source: z.literal('literal'), value: str({}).superRefine(rule((v: string) => (CONTROL.test(v) ? 'a header value must not contain newlines or other control characters' : undefined))) }),
  secretRef,
  obj({ source: z.literal('cookie'), name: str() }),
  obj({
    source: z.literal('local_storage'), key: str(),
    json_pointer: str({}).superRefine(rule((p: string) => (p !== '' && !p.startsWith('/') ? 'a JSON pointer (RFC 6901) is empty or starts with "/"' : undefined))).optional(),
  }),
], { error: unionError('source', headerSources, 'value source') })
  .meta({ id: 'HeaderSource', description: 'A value source, or a value the page holds: {"source": "cookie", "name": "…"} or {"source": "local_storage", "key": "…", "json_pointer"?: "/…"}' });

const queryEntries = arr(obj({ name: str(), value: valueSourceSchema }));

/** BS-26: an http(s) URL without userinfo, with optional structured query entries. */
export const urlSpecSchema = obj({
  url: httpUrl((u) => (u.username || u.password ? 'userinfo credentials in a URL are rejected; declare a secret and use a structured query entry or a storage seed' : undefined)),
  query: queryEntries.optional(),
}).meta({ id: 'UrlSpec', description: 'An http(s) URL without user name or password: {"url": "…", "query"?: [{"name": "…", "value": {…}}]}' });

// ---- Locators and actions (OQ-39, BS-14, BS-47 to BS-53). ----

export const locatorSchema = z.discriminatedUnion('kind', [
  obj({ kind: z.literal('css'), selector: str() }),
  obj({ kind: z.literal('role'), role: str(), name: str({}).optional(), exact: bool().optional() }),
  obj({ kind: z.literal('test_id'), test_id: str() }),
], { error: unionError('kind', ['css', 'role', 'test_id'], 'locator kind') })
  .meta({ id: 'Locator', description: '{"kind": "css", "selector": "…"}, {"kind": "role", "role": "button", "name"?: "…", "exact"?: true} or {"kind": "test_id", "test_id": "…"}' });

const stepId = () => str();
const withLocator = <A extends string>(action: A) => obj({ step_id: stepId(), action: z.literal(action), locator: locatorSchema, timeout_ms: timeout().optional() });

/** BS-53: a header a page fetch may set. */
function headerNameProblem(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name)) return `${JSON.stringify(name)} is not a valid header name`;
  if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('sec-') || lower.startsWith('proxy-')) {
    return `a page fetch cannot set ${JSON.stringify(name)} (forbidden request header${lower === 'user-agent' ? '; Chrome drops User-Agent' : ''})`;
  }
  return undefined;
}

const headers = arr(obj({
  name: str().superRefine(rule(headerNameProblem)),
  value: headerSourceSchema,
  prefix: str({}).superRefine(rule((p: string) => (CONTROL.test(p) ? 'a header prefix must not contain newlines or other control characters' : undefined))).optional(),
})).superRefine((list, ctx) => {
  const seen = new Map<string, number>();
  list.forEach((h, i) => {
    const lower = h.name.toLowerCase();
    if (seen.has(lower)) ctx.addIssue({ code: 'custom', path: [i, 'name'], input: h.name, message: `header ${JSON.stringify(h.name)} is given twice (also headers[${seen.get(lower)}]); names compare case-insensitively` });
    else seen.set(lower, i);
  });
});

/** BS-49: the request path's own form; that it stays on the start URL's origin is checked with the whole scenario. */
function requestPathProblem(path: string): string | undefined {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return 'must begin with a single "/" (a path on the start URL\'s origin)';
  if (CONTROL.test(path)) return 'must not contain control characters';
  return undefined;
}

/** BS-48 to BS-50, BS-53. */
const requestAction = obj({
  step_id: stepId(), action: z.literal('request'),
  method: oneOf(METHODS, 'method'),
  path: str().superRefine(rule(requestPathProblem)).describe('A path on the start URL\'s origin, beginning with a single "/"'),
  query: queryEntries.optional(),
  headers: headers.optional(),
  json: z.unknown().optional().describe('A JSON request body (not with GET or HEAD)'),
  expected_status: arr(int(100, 599).superRefine(rule((n: number) => (n >= 300 && n < 400
    ? `${n} is a redirect; a request step does not follow redirects (BS-50): set "path" to the redirect's target instead` : undefined))), { nonEmpty: true }).optional(),
  timeout_ms: timeout().optional(),
}).superRefine((a, ctx) => {
  if (a.json !== undefined && (a.method === 'GET' || a.method === 'HEAD')) ctx.addIssue({ code: 'custom', path: ['json'], input: a.json, message: `a ${a.method} request cannot carry a body` });
});

export const actionSchema = z.discriminatedUnion('action', [
  obj({ step_id: stepId(), action: z.literal('goto'), destination: urlSpecSchema, wait_until: oneOf(['load', 'domcontentloaded', 'networkidle', 'commit'], 'wait_until').optional(), timeout_ms: timeout().optional() }),
  withLocator('click'),
  obj({ step_id: stepId(), action: z.literal('fill'), locator: locatorSchema, value: valueSourceSchema, timeout_ms: timeout().optional() }),
  obj({ step_id: stepId(), action: z.literal('press'), locator: locatorSchema, key: str(), timeout_ms: timeout().optional() }),
  obj({ step_id: stepId(), action: z.literal('select_option'), locator: locatorSchema, values: arr(valueSourceSchema, { nonEmpty: true }), timeout_ms: timeout().optional() }),
  withLocator('check'),
  withLocator('uncheck'),
  obj({ step_id: stepId(), action: z.literal('wait_for'), locator: locatorSchema, state: oneOf(['attached', 'detached', 'visible', 'hidden'], 'state').optional(), timeout_ms: timeout().optional() }),
  obj({ step_id: stepId(), action: z.literal('wait_for_timeout'), duration_ms: timeout() }),
  requestAction,
], { error: unionError('action', ACTIONS, 'action') });

// ---- The browser (BS-4, BS-22). ----

const launchBrowser = obj({ mode: z.literal('launch'), executable_path: str(), headless: bool().optional() });
const connectBrowser = obj({
  mode: z.literal('connect'),
  cdp_endpoint: httpUrl(endpointProblem),
  target: obj({ url_prefix: str().optional() }).optional(),
});
const browserModeError = unionError('mode', ['launch', 'connect'], 'browser mode');

// ---- Seeds and capture settings (BS-27, BS-37, BS-57). ----

const secretDeclarations = arr(obj({
  secret_id: str().superRefine(rule((id: string) => (/^[A-Za-z0-9_.-]+$/.test(id) ? undefined : 'a secret id uses letters, digits, "_", "-" and "." only (it appears in redaction markers)'))),
  environment_variable: str(),
})).superRefine((list, ctx) => {
  list.forEach((s, i) => {
    const first = list.findIndex((t) => t.secret_id === s.secret_id);
    if (first !== i) ctx.addIssue({ code: 'custom', path: [i, 'secret_id'], input: s.secret_id, message: `secret ${JSON.stringify(s.secret_id)} is declared twice (first at secrets[${first}])` });
  });
});

/** A storage-seed origin: scheme, host and port only (a trailing "/" is dropped). */
const originOf = (raw: string) => new URL(raw).origin;
const storageArea = (area: 'local_storage' | 'session_storage') => arr(obj({
  origin: httpUrl((u, raw) => (u.origin !== raw.replace(/\/$/, '') ? `must be an origin (scheme, host and port only), e.g. ${JSON.stringify(u.origin)}` : undefined)),
  entries: arr(obj({ key: str({}), value: valueSourceSchema })),
}).superRefine((o, ctx) => {
  if (ctx.issues.length > 0) return;
  o.entries.forEach((e, j) => {
    if (o.entries.findIndex((f) => f.key === e.key) !== j) ctx.addIssue({ code: 'custom', path: ['entries', j, 'key'], input: e.key, message: `key ${JSON.stringify(e.key)} is seeded twice for ${originOf(o.origin)}` });
  });
})).superRefine((list, ctx) => {
  if (ctx.issues.length > 0) return;
  list.forEach((o, i) => {
    const origin = originOf(o.origin);
    if (list.findIndex((p) => originOf(p.origin) === origin) !== i) ctx.addIssue({ code: 'custom', path: [i, 'origin'], input: o.origin, message: `origin ${origin} is listed twice in ${area}` });
  });
});

const limit = () => int(1, Number.MAX_SAFE_INTEGER).optional();
/** BS-37: every supplied value is a positive safe integer. */
const limitsSchema = obj({
  max_events: limit(), max_event_bytes: limit(), max_retained_event_bytes: limit(), max_network_transactions: limit(),
  max_network_body_bytes: limit(), max_network_body_allocation_bytes: limit(), max_header_value_bytes: limit(), max_network_metadata_bytes: limit(),
});

// ---- The scenario. ----

const scenarioShape = {
  browser: z.discriminatedUnion('mode', [launchBrowser, connectBrowser], { error: browserModeError })
    .describe('{"mode": "launch", "executable_path": "…", "headless"?: false} or {"mode": "connect", "cdp_endpoint": "http://127.0.0.1:9222"}'),
  start_url: urlSpecSchema.describe('Where the browser starts: {"url": "http://127.0.0.1:3000/", "query"?: [{"name", "value"}]}'),
  actions: arr(actionSchema, { nonEmpty: true }).superRefine((list, ctx) => {
    const ids = new Map<string, number>();
    list.forEach((a, i) => {
      if (ids.has(a.step_id)) ctx.addIssue({ code: 'custom', path: [i, 'step_id'], input: a.step_id, message: `duplicate step_id ${JSON.stringify(a.step_id)} (also actions[${ids.get(a.step_id)}]); step ids must be unique` });
      else ids.set(a.step_id, i);
    });
  }).describe(`Steps, each with a unique step_id and an action (${ACTIONS.join(', ')})`),
  environment: obj({
    locale: str().optional(),
    timezone: str().optional(),
    viewport: obj({ width: int(1, 16384), height: int(1, 16384) }).optional(),
    service_workers: oneOf(['block', 'allow'], 'service-worker policy').optional(),
  }).optional(),
  secrets: secretDeclarations.optional().describe('Secrets the scenario may use: [{"secret_id": "…", "environment_variable": "…"}]'),
  storage: obj({
    cookies: arr(obj({ name: str(), value: valueSourceSchema, url: httpUrl() })).optional(),
    local_storage: storageArea('local_storage').optional(),
    session_storage: storageArea('session_storage').optional(),
  }).optional().describe('Cookies and web storage seeded before the first step'),
  capture: obj({
    after_each_step: set(ARTIFACTS, 'artifact').optional(),
    at_end: set(ARTIFACTS, 'artifact').optional(),
    events: set(EVENT_FAMILIES, 'event family').optional(),
    network: obj({ request_body: bool().optional(), response_body: bool().optional(), header_values: bool().optional() }).optional(),
    limits: limitsSchema.optional(),
  }).optional().describe('What to record: artifacts after each step and at the end, event families, network content, limits'),
  command_timeout_ms: timeout().optional().describe('The deadline of each browser command, in milliseconds (default 20000)'),
};

/** Every secret reference outside request bodies, in the order the scenario is read (BS-28). */
function secretRefs(s: z.infer<typeof scenarioObject>): { id: string; path: JsonPath }[] {
  const out: { id: string; path: JsonPath }[] = [];
  const walk = (v: unknown, path: JsonPath): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.source === 'secret' && typeof o.secret_id === 'string') out.push({ id: o.secret_id, path: [...path, 'secret_id'] });
      else for (const [k, x] of Object.entries(o)) if (k !== 'json') walk(x, [...path, k]);
    }
  };
  walk(s.start_url, ['start_url']);
  walk(s.storage, ['storage']);
  walk(s.actions, ['actions']);
  return out;
}

const scenarioObject = obj(scenarioShape);

/** The scenario (BS-8), with the rules that read more than one field. */
export const browserScenarioSchema = scenarioObject.superRefine((s, ctx) => {
  if (ctx.issues.length > 0) return;
  // BS-49: a request step's path stays on the start URL's origin.
  const startOrigin = originOf(s.start_url.url);
  s.actions.forEach((a, i) => {
    if (a.action !== 'request') return;
    let resolved: URL | undefined;
    try { resolved = new URL(a.path, startOrigin); } catch { /* reported below */ }
    const message = resolved === undefined ? 'is not a valid path'
      : resolved.origin !== startOrigin ? `resolves to ${resolved.origin}, not the start URL's origin ${startOrigin}` : undefined;
    if (message) ctx.addIssue({ code: 'custom', path: ['actions', i, 'path'], input: a.path, message });
  });
  // BS-28: every secret reference names a declared secret.
  const declared = new Set((s.secrets ?? []).map((d) => d.secret_id));
  for (const ref of secretRefs(s)) {
    if (!declared.has(ref.id)) {
      ctx.addIssue({ code: 'custom', path: ref.path, input: ref.id, message: `secret ${JSON.stringify(ref.id)} is not declared; add {"secret_id": ${JSON.stringify(ref.id)}, "environment_variable": "…"} to "secrets"` });
    }
  }
});

/**
 * What an MCP caller sends capture_browser_scenario: the same declaration, except that the
 * browser's executable and endpoint may be left out (the server puts the operator's in,
 * src/serve/browser-policy.ts, before the scenario is validated).
 */
export const mcpScenarioSchema = scenarioObject.extend({
  browser: z.discriminatedUnion('mode', [launchBrowser.partial({ executable_path: true }), connectBrowser.partial({ cdp_endpoint: true })], { error: browserModeError })
    .describe('{"mode": "launch"} starts the browser this server was configured with (executable_path may be left out); {"mode": "connect"} attaches only to the endpoint the server was started with'),
});

export type Scenario = z.infer<typeof browserScenarioSchema>;
export type Action = z.infer<typeof actionSchema>;
export type RequestAction = Extract<Action, { action: 'request' }>;
export type Locator = z.infer<typeof locatorSchema>;
export type ValueSource = z.infer<typeof valueSourceSchema>;
export type HeaderSource = z.infer<typeof headerSourceSchema>;
export type UrlSpec = z.infer<typeof urlSpecSchema>;
export type Limits = Required<z.infer<typeof limitsSchema>>;

/** BS-38 defaults. */
export const DEFAULT_LIMITS: Limits = {
  max_events: 10_000,
  max_event_bytes: 4 * 1024 * 1024,
  max_retained_event_bytes: 16 * 1024 * 1024,
  max_network_transactions: 1024,
  max_network_body_bytes: 64 * 1024,
  max_network_body_allocation_bytes: 1024 * 1024,
  max_header_value_bytes: 1024 * 1024,
  max_network_metadata_bytes: 1024 * 1024,
};

/**
 * Validates a scenario (BS-8): unknown fields, unsupported actions, duplicate step ids,
 * undeclared secret references, timeouts outside 1..2^31-1 (BS-14), request-step rules
 * (BS-48 to BS-50, BS-53), limits (BS-37). The first problem is reported, its message
 * starting with its JSON path; `file` names the input in errors.
 */
export function validateScenario(input: unknown, file?: string): Scenario {
  const r = browserScenarioSchema.safeParse(input);
  if (!r.success) {
    const { issue, path, missing } = firstIssue(r.error.issues, input);
    const at = formatPath(path as JsonPath);
    const message = missing ? `required field ${JSON.stringify(String(path[path.length - 1]))} is missing` : issue.message;
    throw new CapstateError('invalid-scenario', `${at}: ${message}`, { ...(file ? { file } : {}), path: at });
  }
  const s = r.data;
  // Storage seeds name origins (BS-27): "http://host:1/" is kept as "http://host:1".
  for (const area of ['local_storage', 'session_storage'] as const) for (const o of s.storage?.[area] ?? []) o.origin = originOf(o.origin);
  return s;
}

/** The resolved content selection (BS-57, BS-62): all three default to false. */
export function networkContent(s: Scenario): { request_body: boolean; response_body: boolean; header_values: boolean } {
  const n = s.capture?.network ?? {};
  return { request_body: n.request_body ?? false, response_body: n.response_body ?? false, header_values: n.header_values ?? false };
}

/** BS-57, BS-80: the selected families, sorted and de-duplicated; content selection implies `network`. */
export function eventFamilies(s: Scenario): EventFamily[] {
  const set = new Set<EventFamily>(s.capture?.events ?? []);
  const n = networkContent(s);
  if (n.request_body || n.response_body || n.header_values) set.add('network');
  return [...set].sort();
}

export function effectiveLimits(s: Scenario): Limits {
  return { ...DEFAULT_LIMITS, ...(s.capture?.limits ?? {}) };
}
