/**
 * `browserScenarioSchema` (BS-1 to BS-9, BS-14, BS-26, BS-27, BS-37, BS-47 to BS-53,
 * OQ-39, OQ-45): one strict validation of the whole request before any browser starts,
 * declared once with zod (issue 19): the declaration gives the TypeScript types below, the
 * JSON Schema the MCP tool publishes, and the check. Every failure is a CapstateError
 * `invalid-scenario` naming the JSON path of the offending field (BS-8). The steps and the
 * values they take are declared in action-schema.ts and the building blocks in
 * schema-blocks.ts (issue 43); this module re-exports what they export, so importers keep
 * importing the scenario's declaration from here.
 */
import { z } from 'zod';
import { CapstateError } from '../errors.js';
import { formatPath, type JsonPath } from '../load/split.js';
import { firstIssue } from '../json/zod-issue.js';
import { arr, bool, httpUrl, int, obj, oneOf, rule, set, str, timeout, unionError } from './schema-blocks.js';
import { ACTIONS, actionSchema, urlSpecSchema, valueSourceSchema } from './action-schema.js';

export { MAX_TIMEOUT_MS } from './schema-blocks.js';
export {
  ACTIONS,
  METHODS,
  CONTROL,
  valueSourceSchema,
  urlSpecSchema,
  locatorSchema,
  actionSchema,
  type Action,
  type RequestAction,
  type Locator,
  type ValueSource,
  type HeaderSource,
  type UrlSpec,
} from './action-schema.js';

export const ARTIFACTS = ['screenshot', 'dom', 'accessibility', 'url', 'history', 'storage'] as const;
export type Artifact = (typeof ARTIFACTS)[number];
export const EVENT_FAMILIES = ['console', 'page-errors', 'network', 'websockets', 'frames', 'workers', 'popups', 'downloads'] as const;
export type EventFamily = (typeof EVENT_FAMILIES)[number];

/** BS-11: the default command deadline. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 20_000;

// ---- The browser (BS-4, BS-22). ----

/** BS-22: loopback host and an explicit port only. */
function endpointProblem(u: URL, ep: string): string | undefined {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
    return `connect mode accepts only a loopback CDP endpoint (127.0.0.1, localhost or [::1]), got host ${u.hostname}`;
  if (!/^https?:\/\/[^/]+:\d+(\/|$)/.test(ep) || u.port === '')
    return 'the CDP endpoint needs an explicit port, e.g. http://127.0.0.1:9222';
  if (u.pathname !== '/' || u.search || u.hash || u.username) return 'give the endpoint as http://127.0.0.1:<port> without a path';
  return undefined;
}

const launchBrowser = obj({ mode: z.literal('launch'), executable_path: str(), headless: bool().optional() });
const connectBrowser = obj({
  mode: z.literal('connect'),
  cdp_endpoint: httpUrl(endpointProblem),
  target: obj({ url_prefix: str().optional() }).optional(),
});
const browserModeError = unionError('mode', ['launch', 'connect'], 'browser mode');

// ---- Seeds and capture settings (BS-27, BS-37, BS-57). ----

const secretDeclarations = arr(
  obj({
    secret_id: str().superRefine(
      rule((id: string) =>
        /^[A-Za-z0-9_.-]+$/.test(id)
          ? undefined
          : 'a secret id uses letters, digits, "_", "-" and "." only (it appears in redaction markers)',
      ),
    ),
    environment_variable: str(),
  }),
).superRefine((list, ctx) => {
  list.forEach((s, i) => {
    const first = list.findIndex((t) => t.secret_id === s.secret_id);
    if (first !== i)
      ctx.addIssue({
        code: 'custom',
        path: [i, 'secret_id'],
        input: s.secret_id,
        message: `secret ${JSON.stringify(s.secret_id)} is declared twice (first at secrets[${first}])`,
      });
  });
});

/** A storage-seed origin: scheme, host and port only (a trailing "/" is dropped). */
const originOf = (raw: string) => new URL(raw).origin;
const storageArea = (area: 'local_storage' | 'session_storage') =>
  arr(
    obj({
      origin: httpUrl((u, raw) =>
        u.origin !== raw.replace(/\/$/, '')
          ? `must be an origin (scheme, host and port only), e.g. ${JSON.stringify(u.origin)}`
          : undefined,
      ),
      entries: arr(obj({ key: str({}), value: valueSourceSchema })),
    }).superRefine((o, ctx) => {
      if (ctx.issues.length > 0) return;
      o.entries.forEach((e, j) => {
        if (o.entries.findIndex((f) => f.key === e.key) !== j)
          ctx.addIssue({
            code: 'custom',
            path: ['entries', j, 'key'],
            input: e.key,
            message: `key ${JSON.stringify(e.key)} is seeded twice for ${originOf(o.origin)}`,
          });
      });
    }),
  ).superRefine((list, ctx) => {
    if (ctx.issues.length > 0) return;
    list.forEach((o, i) => {
      const origin = originOf(o.origin);
      if (list.findIndex((p) => originOf(p.origin) === origin) !== i)
        ctx.addIssue({ code: 'custom', path: [i, 'origin'], input: o.origin, message: `origin ${origin} is listed twice in ${area}` });
    });
  });

const limit = () => int(1, Number.MAX_SAFE_INTEGER).optional();
/** BS-37: every supplied value is a positive safe integer. */
const limitsSchema = obj({
  max_events: limit(),
  max_event_bytes: limit(),
  max_retained_event_bytes: limit(),
  max_network_transactions: limit(),
  max_network_body_bytes: limit(),
  max_network_body_allocation_bytes: limit(),
  max_header_value_bytes: limit(),
  max_network_metadata_bytes: limit(),
});

// ---- The scenario. ----

const scenarioShape = {
  browser: z
    .discriminatedUnion('mode', [launchBrowser, connectBrowser], { error: browserModeError })
    .describe(
      '{"mode": "launch", "executable_path": "…", "headless"?: false} or {"mode": "connect", "cdp_endpoint": "http://127.0.0.1:9222"}',
    ),
  start_url: urlSpecSchema.describe('Where the browser starts: {"url": "http://127.0.0.1:3000/", "query"?: [{"name", "value"}]}'),
  actions: arr(actionSchema, { nonEmpty: true })
    .superRefine((list, ctx) => {
      const ids = new Map<string, number>();
      list.forEach((a, i) => {
        if (ids.has(a.step_id))
          ctx.addIssue({
            code: 'custom',
            path: [i, 'step_id'],
            input: a.step_id,
            message: `duplicate step_id ${JSON.stringify(a.step_id)} (also actions[${ids.get(a.step_id)}]); step ids must be unique`,
          });
        else ids.set(a.step_id, i);
      });
    })
    .describe(`Steps, each with a unique step_id and an action (${ACTIONS.join(', ')})`),
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
  })
    .optional()
    .describe('Cookies and web storage seeded before the first step'),
  capture: obj({
    after_each_step: set(ARTIFACTS, 'artifact').optional(),
    at_end: set(ARTIFACTS, 'artifact').optional(),
    events: set(EVENT_FAMILIES, 'event family').optional(),
    network: obj({ request_body: bool().optional(), response_body: bool().optional(), header_values: bool().optional() }).optional(),
    limits: limitsSchema.optional(),
  })
    .optional()
    .describe('What to record: artifacts after each step and at the end, event families, network content, limits'),
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
    try {
      resolved = new URL(a.path, startOrigin);
    } catch {
      /* reported below */
    }
    const message =
      resolved === undefined
        ? 'is not a valid path'
        : resolved.origin !== startOrigin
          ? `resolves to ${resolved.origin}, not the start URL's origin ${startOrigin}`
          : undefined;
    if (message) ctx.addIssue({ code: 'custom', path: ['actions', i, 'path'], input: a.path, message });
  });
  // BS-28: every secret reference names a declared secret.
  const declared = new Set((s.secrets ?? []).map((d) => d.secret_id));
  for (const ref of secretRefs(s)) {
    if (!declared.has(ref.id)) {
      ctx.addIssue({
        code: 'custom',
        path: ref.path,
        input: ref.id,
        message: `secret ${JSON.stringify(ref.id)} is not declared; add {"secret_id": ${JSON.stringify(ref.id)}, "environment_variable": "…"} to "secrets"`,
      });
    }
  }
});

/**
 * What an MCP caller sends capture_browser_scenario: the same declaration, except that the
 * browser's executable and endpoint may be left out (the server puts the operator's in,
 * src/serve/browser-policy.ts, before the scenario is validated).
 */
export const mcpScenarioSchema = scenarioObject.extend({
  browser: z
    .discriminatedUnion('mode', [launchBrowser.partial({ executable_path: true }), connectBrowser.partial({ cdp_endpoint: true })], {
      error: browserModeError,
    })
    .describe(
      '{"mode": "launch"} starts the browser this server was configured with (executable_path may be left out); {"mode": "connect"} attaches only to the endpoint the server was started with',
    ),
});

export type Scenario = z.infer<typeof browserScenarioSchema>;
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
