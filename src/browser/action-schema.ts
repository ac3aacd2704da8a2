/**
 * The scenario's steps and the values they take, declared with zod (issue 19; the scenario
 * around them is src/browser/schema.ts, which re-exports all of this): value sources and
 * header sources (BS-27, BS-51), URLs without userinfo (BS-26), locators (OQ-39), and the
 * actions with their deadlines (BS-14), request steps included (BS-47 to BS-53, OQ-45).
 * Apart from schema.ts (issue 43): the actions are the part of the scenario that grows.
 */
import { z } from 'zod';
import { arr, bool, httpUrl, int, obj, oneOf, rule, str, timeout, unionError } from './schema-blocks.js';

export const ACTIONS = [
  'goto',
  'click',
  'fill',
  'press',
  'select_option',
  'check',
  'uncheck',
  'wait_for',
  'wait_for_timeout',
  'request',
] as const;
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** OQ-45: the Fetch standard's forbidden request-header names, plus User-Agent (BS-53). */
const FORBIDDEN_HEADERS = new Set([
  'accept-charset',
  'accept-encoding',
  'access-control-request-headers',
  'access-control-request-method',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'date',
  'dnt',
  'expect',
  'host',
  'keep-alive',
  'origin',
  'referer',
  'set-cookie',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via',
  'user-agent',
  'x-http-method',
  'x-http-method-override',
  'x-method-override',
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** BS-53: newlines and other ASCII control characters (tab is allowed inside a value). */
export const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

// ---- Values (BS-27, BS-51). ----

const literal = obj({ source: z.literal('literal'), value: str({}) });
const secretRef = obj({ source: z.literal('secret'), secret_id: str() });
export const valueSourceSchema = z
  .discriminatedUnion('source', [literal, secretRef], { error: unionError('source', ['literal', 'secret'], 'value source') })
  .meta({
    id: 'ValueSource',
    description: '{"source": "literal", "value": "…"} or {"source": "secret", "secret_id": "…"} (a declared secret)',
  });

const headerSources = ['literal', 'secret', 'cookie', 'local_storage'] as const;
const headerSourceSchema = z
  .discriminatedUnion(
    'source',
    [
      obj({
        source: z.literal('literal'),
        value: str({}).superRefine(
          rule((v: string) => (CONTROL.test(v) ? 'a header value must not contain newlines or other control characters' : undefined)),
        ),
      }),
      secretRef,
      obj({ source: z.literal('cookie'), name: str() }),
      obj({
        source: z.literal('local_storage'),
        key: str(),
        json_pointer: str({})
          .superRefine(
            rule((p: string) => (p !== '' && !p.startsWith('/') ? 'a JSON pointer (RFC 6901) is empty or starts with "/"' : undefined)),
          )
          .optional(),
      }),
    ],
    { error: unionError('source', headerSources, 'value source') },
  )
  .meta({
    id: 'HeaderSource',
    description:
      'A value source, or a value the page holds: {"source": "cookie", "name": "…"} or {"source": "local_storage", "key": "…", "json_pointer"?: "/…"}',
  });

const queryEntries = arr(obj({ name: str(), value: valueSourceSchema }));

/** BS-26: an http(s) URL without userinfo, with optional structured query entries. */
export const urlSpecSchema = obj({
  url: httpUrl((u) =>
    u.username || u.password
      ? 'userinfo credentials in a URL are rejected; declare a secret and use a structured query entry or a storage seed'
      : undefined,
  ),
  query: queryEntries.optional(),
}).meta({
  id: 'UrlSpec',
  description: 'An http(s) URL without user name or password: {"url": "…", "query"?: [{"name": "…", "value": {…}}]}',
});

// ---- Locators and actions (OQ-39, BS-14, BS-47 to BS-53). ----

export const locatorSchema = z
  .discriminatedUnion(
    'kind',
    [
      obj({ kind: z.literal('css'), selector: str() }),
      obj({ kind: z.literal('role'), role: str(), name: str({}).optional(), exact: bool().optional() }),
      obj({ kind: z.literal('test_id'), test_id: str() }),
    ],
    { error: unionError('kind', ['css', 'role', 'test_id'], 'locator kind') },
  )
  .meta({
    id: 'Locator',
    description:
      '{"kind": "css", "selector": "…"}, {"kind": "role", "role": "button", "name"?: "…", "exact"?: true} or {"kind": "test_id", "test_id": "…"}',
  });

const stepId = () => str();
const withLocator = <A extends string>(action: A) =>
  obj({ step_id: stepId(), action: z.literal(action), locator: locatorSchema, timeout_ms: timeout().optional() });

/** BS-53: a header a page fetch may set. */
function headerNameProblem(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name)) return `${JSON.stringify(name)} is not a valid header name`;
  if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('sec-') || lower.startsWith('proxy-')) {
    return `a page fetch cannot set ${JSON.stringify(name)} (forbidden request header${lower === 'user-agent' ? '; Chrome drops User-Agent' : ''})`;
  }
  return undefined;
}

const headers = arr(
  obj({
    name: str().superRefine(rule(headerNameProblem)),
    value: headerSourceSchema,
    prefix: str({})
      .superRefine(
        rule((p: string) => (CONTROL.test(p) ? 'a header prefix must not contain newlines or other control characters' : undefined)),
      )
      .optional(),
  }),
).superRefine((list, ctx) => {
  const seen = new Map<string, number>();
  list.forEach((h, i) => {
    const lower = h.name.toLowerCase();
    if (seen.has(lower))
      ctx.addIssue({
        code: 'custom',
        path: [i, 'name'],
        input: h.name,
        message: `header ${JSON.stringify(h.name)} is given twice (also headers[${seen.get(lower)}]); names compare case-insensitively`,
      });
    else seen.set(lower, i);
  });
});

/** BS-49: the request path's own form; that it stays on the start URL's origin is checked with the whole scenario. */
function requestPathProblem(path: string): string | undefined {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\'))
    return 'must begin with a single "/" (a path on the start URL\'s origin)';
  if (CONTROL.test(path)) return 'must not contain control characters';
  return undefined;
}

/** BS-48 to BS-50, BS-53. */
const requestAction = obj({
  step_id: stepId(),
  action: z.literal('request'),
  method: oneOf(METHODS, 'method'),
  path: str().superRefine(rule(requestPathProblem)).describe('A path on the start URL\'s origin, beginning with a single "/"'),
  query: queryEntries.optional(),
  headers: headers.optional(),
  json: z.unknown().optional().describe('A JSON request body (not with GET or HEAD)'),
  expected_status: arr(
    int(100, 599).superRefine(
      rule((n: number) =>
        n >= 300 && n < 400
          ? `${n} is a redirect; a request step does not follow redirects (BS-50): set "path" to the redirect's target instead`
          : undefined,
      ),
    ),
    { nonEmpty: true },
  ).optional(),
  timeout_ms: timeout().optional(),
}).superRefine((a, ctx) => {
  if (a.json !== undefined && (a.method === 'GET' || a.method === 'HEAD'))
    ctx.addIssue({ code: 'custom', path: ['json'], input: a.json, message: `a ${a.method} request cannot carry a body` });
});

export const actionSchema = z.discriminatedUnion(
  'action',
  [
    obj({
      step_id: stepId(),
      action: z.literal('goto'),
      destination: urlSpecSchema,
      wait_until: oneOf(['load', 'domcontentloaded', 'networkidle', 'commit'], 'wait_until').optional(),
      timeout_ms: timeout().optional(),
    }),
    withLocator('click'),
    obj({
      step_id: stepId(),
      action: z.literal('fill'),
      locator: locatorSchema,
      value: valueSourceSchema,
      timeout_ms: timeout().optional(),
    }),
    obj({ step_id: stepId(), action: z.literal('press'), locator: locatorSchema, key: str(), timeout_ms: timeout().optional() }),
    obj({
      step_id: stepId(),
      action: z.literal('select_option'),
      locator: locatorSchema,
      values: arr(valueSourceSchema, { nonEmpty: true }),
      timeout_ms: timeout().optional(),
    }),
    withLocator('check'),
    withLocator('uncheck'),
    obj({
      step_id: stepId(),
      action: z.literal('wait_for'),
      locator: locatorSchema,
      state: oneOf(['attached', 'detached', 'visible', 'hidden'], 'state').optional(),
      timeout_ms: timeout().optional(),
    }),
    obj({ step_id: stepId(), action: z.literal('wait_for_timeout'), duration_ms: timeout() }),
    requestAction,
  ],
  { error: unionError('action', ACTIONS, 'action') },
);

export type Action = z.infer<typeof actionSchema>;
export type RequestAction = Extract<Action, { action: 'request' }>;
export type Locator = z.infer<typeof locatorSchema>;
export type ValueSource = z.infer<typeof valueSourceSchema>;
export type HeaderSource = z.infer<typeof headerSourceSchema>;
export type UrlSpec = z.infer<typeof urlSpecSchema>;
