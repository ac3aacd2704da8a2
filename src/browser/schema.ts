/**
 * `browserScenarioSchema` (BS-1 to BS-9, BS-14, BS-26, BS-27, BS-37, BS-47 to BS-53,
 * OQ-39, OQ-45): one strict validation of the whole request before any browser starts.
 * Every failure is a CapstateError `invalid-scenario` naming the JSON path of the
 * offending field (BS-8).
 */
import { CapstateError } from '../errors.js';
import { describe } from '../load/fields.js';
import { formatPath, type JsonPath } from '../load/split.js';

export type ValueSource = { source: 'literal'; value: string } | { source: 'secret'; secret_id: string };
export type HeaderSource = ValueSource
  | { source: 'cookie'; name: string }
  | { source: 'local_storage'; key: string; json_pointer?: string };

export interface UrlSpec { url: string; query?: { name: string; value: ValueSource }[] }

export type Locator =
  | { kind: 'css'; selector: string }
  | { kind: 'role'; role: string; name?: string; exact?: boolean }
  | { kind: 'test_id'; test_id: string };

export const ARTIFACTS = ['screenshot', 'dom', 'accessibility', 'url', 'history', 'storage'] as const;
export type Artifact = typeof ARTIFACTS[number];
export const EVENT_FAMILIES = ['console', 'page-errors', 'network', 'websockets', 'frames', 'workers', 'popups', 'downloads'] as const;
export type EventFamily = typeof EVENT_FAMILIES[number];

interface Base { step_id: string; timeout_ms?: number }
export type Action =
  | Base & { action: 'goto'; destination: UrlSpec; wait_until?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit' }
  | Base & { action: 'click'; locator: Locator }
  | Base & { action: 'fill'; locator: Locator; value: ValueSource }
  | Base & { action: 'press'; locator: Locator; key: string }
  | Base & { action: 'select_option'; locator: Locator; values: ValueSource[] }
  | Base & { action: 'check' | 'uncheck'; locator: Locator }
  | Base & { action: 'wait_for'; locator: Locator; state?: 'attached' | 'detached' | 'visible' | 'hidden' }
  | { step_id: string; action: 'wait_for_timeout'; duration_ms: number }
  | RequestAction;

export interface RequestAction extends Base {
  action: 'request';
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: { name: string; value: ValueSource }[];
  headers?: { name: string; value: HeaderSource; prefix?: string }[];
  json?: unknown;
  expected_status?: number[];
}

export interface Limits {
  max_events: number;
  max_event_bytes: number;
  max_retained_event_bytes: number;
  max_network_transactions: number;
  max_network_body_bytes: number;
  max_network_body_allocation_bytes: number;
  max_header_value_bytes: number;
  max_network_metadata_bytes: number;
}

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

/** BS-11: the default command deadline. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 20_000;
/** BS-14: the timer representation's maximum. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export interface Scenario {
  browser:
    | { mode: 'launch'; executable_path: string; headless?: boolean }
    | { mode: 'connect'; cdp_endpoint: string; target?: { url_prefix?: string } };
  start_url: UrlSpec;
  actions: Action[];
  environment?: { locale?: string; timezone?: string; viewport?: { width: number; height: number }; service_workers?: 'block' | 'allow' };
  secrets?: { secret_id: string; environment_variable: string }[];
  storage?: {
    cookies?: { name: string; value: ValueSource; url: string }[];
    local_storage?: { origin: string; entries: { key: string; value: ValueSource }[] }[];
    session_storage?: { origin: string; entries: { key: string; value: ValueSource }[] }[];
  };
  capture?: {
    after_each_step?: Artifact[];
    at_end?: Artifact[];
    events?: EventFamily[];
    network?: { request_body?: boolean; response_body?: boolean; header_values?: boolean };
    limits?: Partial<Limits>;
  };
  command_timeout_ms?: number;
}

const ACTION_FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  goto: { required: ['destination'], optional: ['wait_until', 'timeout_ms'] },
  click: { required: ['locator'], optional: ['timeout_ms'] },
  fill: { required: ['locator', 'value'], optional: ['timeout_ms'] },
  press: { required: ['locator', 'key'], optional: ['timeout_ms'] },
  select_option: { required: ['locator', 'values'], optional: ['timeout_ms'] },
  check: { required: ['locator'], optional: ['timeout_ms'] },
  uncheck: { required: ['locator'], optional: ['timeout_ms'] },
  wait_for: { required: ['locator'], optional: ['state', 'timeout_ms'] },
  wait_for_timeout: { required: ['duration_ms'], optional: [] },
  request: { required: ['method', 'path'], optional: ['query', 'headers', 'json', 'expected_status', 'timeout_ms'] },
};

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

class Checker {
  readonly secretRefs: { id: string; path: JsonPath }[] = [];
  constructor(readonly file: string | undefined) {}

  fail(path: JsonPath, message: string): never {
    throw new CapstateError('invalid-scenario', `${formatPath(path)}: ${message}`, { ...(this.file ? { file: this.file } : {}), path: formatPath(path) });
  }

  obj(v: unknown, path: JsonPath, required: string[], optional: string[]): Record<string, unknown> {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `must be an object, got ${describe(v)}`);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (!required.includes(k) && !optional.includes(k)) this.fail([...path, k], `unknown field "${k}"; allowed here: ${[...required, ...optional].join(', ')}`);
    }
    for (const k of required) if (o[k] === undefined) this.fail([...path, k], `required field "${k}" is missing`);
    return o;
  }

  str(v: unknown, path: JsonPath, opts: { nonEmpty?: boolean } = { nonEmpty: true }): string {
    if (typeof v !== 'string') this.fail(path, `must be a string, got ${describe(v)}`);
    if (opts.nonEmpty && v === '') this.fail(path, 'must not be empty');
    return v;
  }

  bool(v: unknown, path: JsonPath): boolean {
    if (typeof v !== 'boolean') this.fail(path, `must be true or false, got ${describe(v)}`);
    return v;
  }

  int(v: unknown, path: JsonPath, min: number, max: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(path, `must be an integer, got ${describe(v)}`);
    if (v < min || v > max) this.fail(path, `must be between ${min} and ${max}, got ${v}`);
    return v;
  }

  oneOf<T extends string>(v: unknown, path: JsonPath, allowed: readonly T[], what = 'value'): T {
    if (typeof v !== 'string' || !allowed.includes(v as T)) this.fail(path, `unsupported ${what} ${JSON.stringify(v)}; use one of ${allowed.join(', ')}`);
    return v as T;
  }

  arr(v: unknown, path: JsonPath, opts: { nonEmpty?: boolean } = {}): unknown[] {
    if (!Array.isArray(v)) this.fail(path, `must be an array, got ${describe(v)}`);
    if (opts.nonEmpty && v.length === 0) this.fail(path, 'must hold at least one entry');
    return v;
  }

  /** A list of distinct names from `allowed`. */
  set<T extends string>(v: unknown, path: JsonPath, allowed: readonly T[], what: string): T[] {
    const out: T[] = [];
    this.arr(v, path).forEach((x, i) => {
      const t = this.oneOf(x, [...path, i], allowed, what);
      if (out.includes(t)) this.fail([...path, i], `${what} ${JSON.stringify(t)} is listed twice`);
      out.push(t);
    });
    return out;
  }

  /** BS-27: a literal or a declared secret reference. */
  value(v: unknown, path: JsonPath, extra: 'header' | null = null): HeaderSource {
    const o = this.obj(v, path, ['source'], ['value', 'secret_id', 'name', 'key', 'json_pointer']);
    const sources = extra === 'header' ? ['literal', 'secret', 'cookie', 'local_storage'] as const : ['literal', 'secret'] as const;
    const source = this.oneOf(o.source, [...path, 'source'], sources, 'value source');
    switch (source) {
      case 'literal': this.obj(o, path, ['source', 'value'], []); return { source, value: this.str(o.value, [...path, 'value'], {}) };
      case 'secret': {
        this.obj(o, path, ['source', 'secret_id'], []);
        const id = this.str(o.secret_id, [...path, 'secret_id']);
        this.secretRefs.push({ id, path: [...path, 'secret_id'] });
        return { source, secret_id: id };
      }
      case 'cookie': this.obj(o, path, ['source', 'name'], []); return { source, name: this.str(o.name, [...path, 'name']) };
      case 'local_storage': {
        this.obj(o, path, ['source', 'key'], ['json_pointer']);
        const out: HeaderSource = { source, key: this.str(o.key, [...path, 'key']) };
        if (o.json_pointer !== undefined) {
          const p = this.str(o.json_pointer, [...path, 'json_pointer'], {});
          if (p !== '' && !p.startsWith('/')) this.fail([...path, 'json_pointer'], 'a JSON pointer (RFC 6901) is empty or starts with "/"');
          out.json_pointer = p;
        }
        return out;
      }
    }
  }

  /** BS-26: an http(s) URL without userinfo, with optional structured query entries. */
  url(v: unknown, path: JsonPath): UrlSpec {
    const o = this.obj(v, path, ['url'], ['query']);
    const raw = this.str(o.url, [...path, 'url']);
    const u = this.httpUrl(raw, [...path, 'url']);
    if (u.username || u.password) this.fail([...path, 'url'], 'userinfo credentials in a URL are rejected; declare a secret and use a structured query entry or a storage seed');
    const out: UrlSpec = { url: raw };
    if (o.query !== undefined) out.query = this.query(o.query, [...path, 'query']);
    return out;
  }

  httpUrl(raw: string, path: JsonPath): URL {
    let u: URL;
    try { u = new URL(raw); } catch { this.fail(path, `not an absolute URL: ${JSON.stringify(raw)}`); }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') this.fail(path, `only http and https URLs are supported, got ${u.protocol}`);
    return u;
  }

  query(v: unknown, path: JsonPath): { name: string; value: ValueSource }[] {
    return this.arr(v, path).map((q, i) => {
      const qo = this.obj(q, [...path, i], ['name', 'value'], []);
      return { name: this.str(qo.name, [...path, i, 'name']), value: this.value(qo.value, [...path, i, 'value']) as ValueSource };
    });
  }

  locator(v: unknown, path: JsonPath): Locator {
    const o = this.obj(v, path, ['kind'], ['selector', 'role', 'name', 'exact', 'test_id']);
    const kind = this.oneOf(o.kind, [...path, 'kind'], ['css', 'role', 'test_id'] as const, 'locator kind');
    if (kind === 'css') { this.obj(o, path, ['kind', 'selector'], []); return { kind, selector: this.str(o.selector, [...path, 'selector']) }; }
    if (kind === 'test_id') { this.obj(o, path, ['kind', 'test_id'], []); return { kind, test_id: this.str(o.test_id, [...path, 'test_id']) }; }
    this.obj(o, path, ['kind', 'role'], ['name', 'exact']);
    const loc: Locator = { kind, role: this.str(o.role, [...path, 'role']) };
    if (o.name !== undefined) loc.name = this.str(o.name, [...path, 'name'], {});
    if (o.exact !== undefined) loc.exact = this.bool(o.exact, [...path, 'exact']);
    return loc;
  }
}

/**
 * Validates a scenario (BS-8): unknown fields, unsupported actions, duplicate step ids,
 * undeclared secret references, timeouts outside 1..2^31-1 (BS-14), request-step rules
 * (BS-48 to BS-50, BS-53), limits (BS-37). `file` names the input in errors.
 */
export function validateScenario(input: unknown, file?: string): Scenario {
  const c = new Checker(file);
  const root = c.obj(input, [], ['browser', 'start_url', 'actions'], ['environment', 'secrets', 'storage', 'capture', 'command_timeout_ms']);
  const out = {} as Scenario;

  const b = c.obj(root.browser, ['browser'], ['mode'], ['executable_path', 'headless', 'cdp_endpoint', 'target']);
  const mode = c.oneOf(b.mode, ['browser', 'mode'], ['launch', 'connect'] as const, 'browser mode');
  if (mode === 'launch') {
    c.obj(b, ['browser'], ['mode', 'executable_path'], ['headless']);
    out.browser = { mode, executable_path: c.str(b.executable_path, ['browser', 'executable_path']) };
    if (b.headless !== undefined) out.browser.headless = c.bool(b.headless, ['browser', 'headless']);
  } else {
    c.obj(b, ['browser'], ['mode', 'cdp_endpoint'], ['target']);
    const ep = c.str(b.cdp_endpoint, ['browser', 'cdp_endpoint']);
    checkLoopbackEndpoint(c, ep, ['browser', 'cdp_endpoint']);
    out.browser = { mode, cdp_endpoint: ep };
    if (b.target !== undefined) {
      const t = c.obj(b.target, ['browser', 'target'], [], ['url_prefix']);
      out.browser.target = t.url_prefix === undefined ? {} : { url_prefix: c.str(t.url_prefix, ['browser', 'target', 'url_prefix']) };
    }
  }

  out.start_url = c.url(root.start_url, ['start_url']);
  const startOrigin = new URL(out.start_url.url).origin;

  if (root.command_timeout_ms !== undefined) out.command_timeout_ms = c.int(root.command_timeout_ms, ['command_timeout_ms'], 1, MAX_TIMEOUT_MS);

  if (root.environment !== undefined) {
    const e = c.obj(root.environment, ['environment'], [], ['locale', 'timezone', 'viewport', 'service_workers']);
    out.environment = {};
    if (e.locale !== undefined) out.environment.locale = c.str(e.locale, ['environment', 'locale']);
    if (e.timezone !== undefined) out.environment.timezone = c.str(e.timezone, ['environment', 'timezone']);
    if (e.viewport !== undefined) {
      const v = c.obj(e.viewport, ['environment', 'viewport'], ['width', 'height'], []);
      out.environment.viewport = { width: c.int(v.width, ['environment', 'viewport', 'width'], 1, 16384), height: c.int(v.height, ['environment', 'viewport', 'height'], 1, 16384) };
    }
    if (e.service_workers !== undefined) out.environment.service_workers = c.oneOf(e.service_workers, ['environment', 'service_workers'], ['block', 'allow'] as const, 'service-worker policy');
  }

  const declared = new Map<string, JsonPath>();
  if (root.secrets !== undefined) {
    out.secrets = c.arr(root.secrets, ['secrets']).map((s, i) => {
      const so = c.obj(s, ['secrets', i], ['secret_id', 'environment_variable'], []);
      const id = c.str(so.secret_id, ['secrets', i, 'secret_id']);
      if (!/^[A-Za-z0-9_.-]+$/.test(id)) c.fail(['secrets', i, 'secret_id'], 'a secret id uses letters, digits, "_", "-" and "." only (it appears in redaction markers)');
      if (declared.has(id)) c.fail(['secrets', i, 'secret_id'], `secret ${JSON.stringify(id)} is declared twice (first at ${formatPath(declared.get(id)!)})`);
      declared.set(id, ['secrets', i]);
      return { secret_id: id, environment_variable: c.str(so.environment_variable, ['secrets', i, 'environment_variable']) };
    });
  }

  if (root.storage !== undefined) {
    const s = c.obj(root.storage, ['storage'], [], ['cookies', 'local_storage', 'session_storage']);
    out.storage = {};
    if (s.cookies !== undefined) {
      out.storage.cookies = c.arr(s.cookies, ['storage', 'cookies']).map((k, i) => {
        const p = ['storage', 'cookies', i];
        const ko = c.obj(k, p, ['name', 'value', 'url'], []);
        const url = c.str(ko.url, [...p, 'url']);
        c.httpUrl(url, [...p, 'url']);
        return { name: c.str(ko.name, [...p, 'name']), value: c.value(ko.value, [...p, 'value']) as ValueSource, url };
      });
    }
    for (const area of ['local_storage', 'session_storage'] as const) {
      if (s[area] === undefined) continue;
      const seen = new Set<string>();
      out.storage[area] = c.arr(s[area], ['storage', area]).map((o, i) => {
        const p = ['storage', area, i];
        const oo = c.obj(o, p, ['origin', 'entries'], []);
        const origin = c.str(oo.origin, [...p, 'origin']);
        const u = c.httpUrl(origin, [...p, 'origin']);
        if (u.origin !== origin.replace(/\/$/, '')) c.fail([...p, 'origin'], `must be an origin (scheme, host and port only), e.g. ${JSON.stringify(u.origin)}`);
        if (seen.has(u.origin)) c.fail([...p, 'origin'], `origin ${u.origin} is listed twice in ${area}`);
        seen.add(u.origin);
        const keys = new Set<string>();
        const entries = c.arr(oo.entries, [...p, 'entries']).map((e, j) => {
          const eo = c.obj(e, [...p, 'entries', j], ['key', 'value'], []);
          const key = c.str(eo.key, [...p, 'entries', j, 'key'], {});
          if (keys.has(key)) c.fail([...p, 'entries', j, 'key'], `key ${JSON.stringify(key)} is seeded twice for ${u.origin}`);
          keys.add(key);
          return { key, value: c.value(eo.value, [...p, 'entries', j, 'value']) as ValueSource };
        });
        return { origin: u.origin, entries };
      });
    }
  }

  if (root.capture !== undefined) {
    const cap = c.obj(root.capture, ['capture'], [], ['after_each_step', 'at_end', 'events', 'network', 'limits']);
    out.capture = {};
    if (cap.after_each_step !== undefined) out.capture.after_each_step = c.set(cap.after_each_step, ['capture', 'after_each_step'], ARTIFACTS, 'artifact');
    if (cap.at_end !== undefined) out.capture.at_end = c.set(cap.at_end, ['capture', 'at_end'], ARTIFACTS, 'artifact');
    if (cap.events !== undefined) out.capture.events = c.set(cap.events, ['capture', 'events'], EVENT_FAMILIES, 'event family');
    if (cap.network !== undefined) {
      const n = c.obj(cap.network, ['capture', 'network'], [], ['request_body', 'response_body', 'header_values']);
      out.capture.network = {};
      for (const k of ['request_body', 'response_body', 'header_values'] as const) if (n[k] !== undefined) out.capture.network[k] = c.bool(n[k], ['capture', 'network', k]);
    }
    if (cap.limits !== undefined) {
      const names = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];
      const l = c.obj(cap.limits, ['capture', 'limits'], [], names);
      out.capture.limits = {};
      // BS-37: every supplied value is a positive safe integer.
      for (const k of names) if (l[k] !== undefined) out.capture.limits[k] = c.int(l[k], ['capture', 'limits', k], 1, Number.MAX_SAFE_INTEGER);
    }
  }

  const ids = new Map<string, number>();
  out.actions = c.arr(root.actions, ['actions'], { nonEmpty: true }).map((a, i) => {
    const p: JsonPath = ['actions', i];
    const ao = c.obj(a, p, ['step_id', 'action'], Object.keys(a && typeof a === 'object' ? a : {}));
    const stepId = c.str(ao.step_id, [...p, 'step_id']);
    if (ids.has(stepId)) c.fail([...p, 'step_id'], `duplicate step_id ${JSON.stringify(stepId)} (also actions[${ids.get(stepId)}]); step ids must be unique`);
    ids.set(stepId, i);
    const kind = c.oneOf(ao.action, [...p, 'action'], Object.keys(ACTION_FIELDS), 'action');
    const f = ACTION_FIELDS[kind];
    c.obj(ao, p, ['step_id', 'action', ...f.required], f.optional);
    return action(c, ao, p, stepId, kind, startOrigin);
  });

  for (const ref of c.secretRefs) {
    if (!declared.has(ref.id)) c.fail(ref.path, `secret ${JSON.stringify(ref.id)} is not declared; add {"secret_id": ${JSON.stringify(ref.id)}, "environment_variable": "…"} to "secrets"`);
  }
  return out;
}

function checkLoopbackEndpoint(c: Checker, ep: string, path: JsonPath): void {
  const u = c.httpUrl(ep, path);
  // BS-22: loopback host and an explicit port only.
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) c.fail(path, `connect mode accepts only a loopback CDP endpoint (127.0.0.1, localhost or [::1]), got host ${u.hostname}`);
  if (!/^https?:\/\/[^/]+:\d+(\/|$)/.test(ep) || u.port === '') c.fail(path, 'the CDP endpoint needs an explicit port, e.g. http://127.0.0.1:9222');
  if (u.pathname !== '/' || u.search || u.hash || u.username) c.fail(path, 'give the endpoint as http://127.0.0.1:<port> without a path');
}

function timeout(c: Checker, v: unknown, path: JsonPath): number {
  return c.int(v, path, 1, MAX_TIMEOUT_MS);
}

function action(c: Checker, o: Record<string, unknown>, p: JsonPath, step_id: string, kind: string, startOrigin: string): Action {
  const t = o.timeout_ms === undefined ? {} : { timeout_ms: timeout(c, o.timeout_ms, [...p, 'timeout_ms']) };
  switch (kind) {
    case 'goto': {
      const a: Action = { step_id, action: 'goto', destination: c.url(o.destination, [...p, 'destination']), ...t };
      if (o.wait_until !== undefined) a.wait_until = c.oneOf(o.wait_until, [...p, 'wait_until'], ['load', 'domcontentloaded', 'networkidle', 'commit'] as const, 'wait_until');
      return a;
    }
    case 'click': case 'check': case 'uncheck':
      return { step_id, action: kind, locator: c.locator(o.locator, [...p, 'locator']), ...t };
    case 'fill':
      return { step_id, action: 'fill', locator: c.locator(o.locator, [...p, 'locator']), value: c.value(o.value, [...p, 'value']) as ValueSource, ...t };
    case 'press':
      return { step_id, action: 'press', locator: c.locator(o.locator, [...p, 'locator']), key: c.str(o.key, [...p, 'key']), ...t };
    case 'select_option':
      return { step_id, action: 'select_option', locator: c.locator(o.locator, [...p, 'locator']),
        values: c.arr(o.values, [...p, 'values'], { nonEmpty: true }).map((v, i) => c.value(v, [...p, 'values', i]) as ValueSource), ...t };
    case 'wait_for': {
      const a: Action = { step_id, action: 'wait_for', locator: c.locator(o.locator, [...p, 'locator']), ...t };
      if (o.state !== undefined) a.state = c.oneOf(o.state, [...p, 'state'], ['attached', 'detached', 'visible', 'hidden'] as const, 'state');
      return a;
    }
    case 'wait_for_timeout':
      return { step_id, action: 'wait_for_timeout', duration_ms: timeout(c, o.duration_ms, [...p, 'duration_ms']) };
    default:
      return requestAction(c, o, p, step_id, startOrigin, t);
  }
}

/** BS-48 to BS-50, BS-53. */
function requestAction(c: Checker, o: Record<string, unknown>, p: JsonPath, step_id: string, startOrigin: string, t: { timeout_ms?: number }): RequestAction {
  const method = c.oneOf(o.method, [...p, 'method'], ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const, 'method');
  const path = c.str(o.path, [...p, 'path']);
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) c.fail([...p, 'path'], 'must begin with a single "/" (a path on the start URL\'s origin)');
  if (CONTROL.test(path)) c.fail([...p, 'path'], 'must not contain control characters');
  let resolved: URL;
  try { resolved = new URL(path, startOrigin); } catch { c.fail([...p, 'path'], 'is not a valid path'); }
  if (resolved.origin !== startOrigin) c.fail([...p, 'path'], `resolves to ${resolved.origin}, not the start URL's origin ${startOrigin}`);
  const a: RequestAction = { step_id, action: 'request', method, path, ...t };
  if (o.query !== undefined) a.query = c.query(o.query, [...p, 'query']);
  if (o.json !== undefined) {
    if (method === 'GET' || method === 'HEAD') c.fail([...p, 'json'], `a ${method} request cannot carry a body`);
    a.json = o.json;
  }
  if (o.headers !== undefined) {
    const seen = new Map<string, number>();
    a.headers = c.arr(o.headers, [...p, 'headers']).map((h, i) => {
      const hp = [...p, 'headers', i];
      const ho = c.obj(h, hp, ['name', 'value'], ['prefix']);
      const name = c.str(ho.name, [...hp, 'name']);
      const lower = name.toLowerCase();
      if (!TOKEN.test(name)) c.fail([...hp, 'name'], `${JSON.stringify(name)} is not a valid header name`);
      if (seen.has(lower)) c.fail([...hp, 'name'], `header ${JSON.stringify(name)} is given twice (also headers[${seen.get(lower)}]); names compare case-insensitively`);
      seen.set(lower, i);
      if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('sec-') || lower.startsWith('proxy-')) {
        c.fail([...hp, 'name'], `a page fetch cannot set ${JSON.stringify(name)} (forbidden request header${lower === 'user-agent' ? '; Chrome drops User-Agent' : ''})`);
      }
      const value = c.value(ho.value, [...hp, 'value'], 'header');
      if (value.source === 'literal' && CONTROL.test(value.value)) c.fail([...hp, 'value', 'value'], 'a header value must not contain newlines or other control characters');
      const out: { name: string; value: HeaderSource; prefix?: string } = { name, value };
      if (ho.prefix !== undefined) {
        out.prefix = c.str(ho.prefix, [...hp, 'prefix'], {});
        if (CONTROL.test(out.prefix)) c.fail([...hp, 'prefix'], 'a header prefix must not contain newlines or other control characters');
      }
      return out;
    });
  }
  if (o.expected_status !== undefined) {
    a.expected_status = c.arr(o.expected_status, [...p, 'expected_status'], { nonEmpty: true }).map((s, i) => {
      const n = c.int(s, [...p, 'expected_status', i], 100, 599);
      if (n >= 300 && n < 400) c.fail([...p, 'expected_status', i], `${n} is a redirect; a request step does not follow redirects (BS-50): set "path" to the redirect's target instead`);
      return n;
    });
  }
  return a;
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
