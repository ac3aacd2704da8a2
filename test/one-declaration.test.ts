/**
 * Issue 19: the scenario (browserScenarioSchema) and the comparison policy are declared
 * once, with zod. The MCP tools publish that declaration's JSON Schema, and the check is
 * the same declaration, whose first problem names its JSON path; the rules a JSON Schema
 * cannot say (one origin, declared secrets, no redirects, …) are refinements of it.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ACTIONS,
  ARTIFACTS,
  EVENT_FAMILIES,
  METHODS,
  browserScenarioSchema,
  mcpScenarioSchema,
  validateScenario,
} from '../src/browser/schema.js';
import {
  comparisonOptionsSchema,
  comparisonRulesSchema,
  readPolicy,
  DEFAULT_OPTIONS,
  MAX_RULES,
  RULE_ARTIFACT_KINDS,
} from '../src/compare/policy.js';
import { CapstateError } from '../src/errors.js';
import { BROWSER_TOOLS, callBrowserTool } from '../src/serve/browser-tools.js';
import { CLOSED_BROWSER_POLICY } from '../src/serve/browser-policy.js';

type Json = Record<string, any>;
const tool = (name: string) => BROWSER_TOOLS.find((t) => t.name === name)!.inputSchema as Json;
const jsonSchema = (schema: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  return rest;
};

const scenario = (extra: Json = {}): Json => ({
  browser: { mode: 'launch', executable_path: '/nonexistent/chromium' },
  start_url: { url: 'http://127.0.0.1:3000/' },
  actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1 }],
  ...extra,
});
const request = (extra: Json) => scenario({ actions: [{ step_id: 'r', action: 'request', method: 'POST', path: '/api/items', ...extra }] });

function problem(f: () => unknown): { code: string; message: string; path: unknown } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CapstateError);
    const c = e as CapstateError;
    return { code: c.code, message: c.message, path: c.context.path ?? c.context.argument };
  }
  throw new Error('expected an error');
}

describe('issue 19: one declaration', () => {
  it("capture_browser_scenario publishes the scenario declaration's JSON Schema, with the executable left to the server", () => {
    const published = tool('capture_browser_scenario');
    expect(published).toEqual(jsonSchema(mcpScenarioSchema));
    expect(published.$schema).toBeUndefined();
    // The MCP variant is the same declaration: every top-level field but the browser is the scenario's own.
    const full = jsonSchema(browserScenarioSchema);
    expect(Object.keys(published.properties)).toEqual(Object.keys(full.properties));
    for (const k of Object.keys(full.properties).filter((k) => k !== 'browser'))
      expect(published.properties[k], k).toEqual(full.properties[k]);
    expect(published.required).toEqual(['browser', 'start_url', 'actions']);
    expect(published.additionalProperties).toBe(false);
    const [launch, connect] = published.properties.browser.oneOf;
    expect(launch.required).toEqual(['mode']);
    expect(connect.required).toEqual(['mode']);
    expect(full.properties.browser.oneOf[0].required).toEqual(['mode', 'executable_path']);
    expect(published.properties.browser.description).toMatch(/executable_path may be left out/);
    // Known members, straight from the declaration's constants.
    const actions = published.properties.actions.items.oneOf as Json[];
    expect(actions.map((a) => a.properties.action.const)).toEqual([...ACTIONS]);
    expect(actions.find((a) => a.properties.action.const === 'request')!.properties.method.enum).toEqual([...METHODS]);
    expect(published.properties.capture.properties.at_end.items.enum).toEqual([...ARTIFACTS]);
    expect(published.properties.capture.properties.events.items.enum).toEqual([...EVENT_FAMILIES]);
    expect(published.properties.command_timeout_ms).toMatchObject({ type: 'integer', minimum: 1, maximum: 2_147_483_647 });
    // Small enough for a catalog agents read (the catalog reserve is 64 KiB).
    expect(JSON.stringify(published).length).toBeLessThan(16 * 1024);
  });

  it("compare_web_captures publishes the policy declaration's options and rules", () => {
    const published = tool('compare_web_captures');
    expect(published.properties.options).toEqual(jsonSchema(comparisonOptionsSchema));
    expect(published.properties.rules).toEqual(jsonSchema(comparisonRulesSchema));
    expect(Object.keys(published.properties)).toEqual(['before', 'after', 'options', 'rules']);
    expect(published.required).toEqual(['before', 'after']);
    expect(published.properties.rules.maxItems).toBe(MAX_RULES);
    expect(published.properties.rules.items.properties.artifact_kinds.items.enum).toEqual([...RULE_ARTIFACT_KINDS]);
    expect(Object.keys(published.properties.options.properties)).toEqual(Object.keys(DEFAULT_OPTIONS));
    expect(published.properties.before.type).toEqual(['string', 'object']);
  });

  it('the published schema and the check agree on the shape; the check alone holds the rules a JSON Schema cannot say', () => {
    const validate = new Ajv({ strict: false }).compile(tool('capture_browser_scenario'));
    const { executable_path: _, ...launch } = scenario().browser;
    // The shape: both accept the minimal scenario, both refuse an unknown field or a wrong type.
    expect(validate(scenario({ browser: launch }))).toBe(true);
    expect(validate(scenario({ colour: 'red' }))).toBe(false);
    expect(problem(() => validateScenario(scenario({ colour: 'red' })))).toMatchObject({ code: 'invalid-scenario', path: 'colour' });
    expect(validate(scenario({ command_timeout_ms: 0 }))).toBe(false);
    expect(problem(() => validateScenario(scenario({ command_timeout_ms: 0 }))).message).toBe(
      'command_timeout_ms: must be between 1 and 2147483647, got 0',
    );
    // Valid JSON Schema, wrong scenario: the same path-bearing messages as before.
    const cases: [Json, string, string][] = [
      [request({ path: '//evil.example/api' }), 'actions[0].path', 'must begin with a single "/" (a path on the start URL\'s origin)'],
      [
        request({ expected_status: [201, 302] }),
        'actions[0].expected_status[1]',
        '302 is a redirect; a request step does not follow redirects (BS-50): set "path" to the redirect\'s target instead',
      ],
      [request({ method: 'GET', json: { a: 1 } }), 'actions[0].json', 'a GET request cannot carry a body'],
      [
        request({ headers: [{ name: 'Cookie', value: { source: 'literal', value: 'a=b' } }] }),
        'actions[0].headers[0].name',
        'a page fetch cannot set "Cookie" (forbidden request header)',
      ],
      [
        request({
          headers: [
            { name: 'X-A', value: { source: 'literal', value: '1' } },
            { name: 'x-a', value: { source: 'literal', value: '2' } },
          ],
        }),
        'actions[0].headers[1].name',
        'header "x-a" is given twice (also headers[0]); names compare case-insensitively',
      ],
      [
        scenario({ actions: [...scenario().actions, ...scenario().actions] }),
        'actions[1].step_id',
        'duplicate step_id "settle" (also actions[0]); step ids must be unique',
      ],
      [
        scenario({ start_url: { url: 'http://127.0.0.1:3000/', query: [{ name: 'k', value: { source: 'secret', secret_id: 'api' } }] } }),
        'start_url.query[0].value.secret_id',
        'secret "api" is not declared; add {"secret_id": "api", "environment_variable": "…"} to "secrets"',
      ],
      [scenario({ start_url: { url: 'ftp://127.0.0.1/' } }), 'start_url.url', 'only http and https URLs are supported, got ftp:'],
      [
        scenario({ browser: { mode: 'connect', cdp_endpoint: 'http://10.0.0.5:9222' } }),
        'browser.cdp_endpoint',
        'connect mode accepts only a loopback CDP endpoint (127.0.0.1, localhost or [::1]), got host 10.0.0.5',
      ],
      [
        scenario({
          storage: {
            local_storage: [
              { origin: 'http://a.test/', entries: [] },
              { origin: 'http://a.test', entries: [] },
            ],
          },
        }),
        'storage.local_storage[1].origin',
        'origin http://a.test is listed twice in local_storage',
      ],
      [scenario({ capture: { at_end: ['dom', 'dom'] } }), 'capture.at_end[1]', 'artifact "dom" is listed twice'],
    ];
    for (const [s, path, message] of cases) {
      expect(validate(s), path).toBe(true);
      expect(
        problem(() => validateScenario(s)),
        path,
      ).toEqual({ code: 'invalid-scenario', path, message: `${path}: ${message}` });
    }
  });

  it('the first problem is the one a reader meets first: an unknown field before a missing one, then the fields in order', () => {
    const { actions, ...rest } = scenario();
    expect(problem(() => validateScenario({ ...rest, actons: actions })).message).toBe(
      'actons: unknown field "actons"; allowed here: browser, start_url, actions, environment, secrets, storage, capture, command_timeout_ms',
    );
    expect(problem(() => validateScenario(rest)).message).toBe('actions: required field "actions" is missing');
    expect(problem(() => validateScenario(scenario({ browser: { mode: 'launch' }, start_url: 5 }))).message).toBe(
      'browser.executable_path: required field "executable_path" is missing',
    );
    expect(
      problem(() =>
        validateScenario(scenario({ actions: [{ step_id: 'a', action: 'click', locator: { kind: 'role', role: 'b', exact: 'yes' } }] })),
      ).message,
    ).toBe('actions[0].locator.exact: must be true or false, got the string "yes"');
    expect(problem(() => validateScenario(scenario({ actions: [{ step_id: 'a', action: 'hover' }] }))).message).toBe(
      `actions[0].action: unsupported action "hover"; use one of ${ACTIONS.join(', ')}`,
    );
  });

  it('the policy: one declaration, bad-comparison-policy with the path as before', () => {
    expect(problem(() => readPolicy({ typo: true }, undefined))).toEqual({
      code: 'bad-comparison-policy',
      path: 'options.typo',
      message: `unknown option "typo"; options: ${Object.keys(DEFAULT_OPTIONS).join(', ')}`,
    });
    expect(problem(() => readPolicy(undefined, [{ artifact_kinds: ['dom', 'screenshot'], find: 'a', replace: 'b' }]))).toEqual({
      code: 'bad-comparison-policy',
      path: 'rules[0].artifact_kinds[1]',
      message: `unknown artifact kind "screenshot"; kinds: ${RULE_ARTIFACT_KINDS.join(', ')}`,
    });
    expect(problem(() => readPolicy(undefined, [{ artifact_kinds: ['dom'], find: 'a', replace: 'b', x: 1 }])).path).toBe('rules[0].x');
    expect(readPolicy(null, [{ artifact_kinds: ['url', 'dom', 'dom'], find: 'a', replace: 'b' }])).toEqual({
      options: DEFAULT_OPTIONS,
      rules: [{ artifact_kinds: ['dom', 'url'], find: 'a', replace: 'b' }],
    });
  });

  it('the MCP tools check their arguments with the same declarations', async () => {
    const allowed = { ...CLOSED_BROWSER_POLICY, allowBrowser: true, executablePath: '/nonexistent/chromium' };
    const capture = (args: Json) =>
      callBrowserTool('capture_browser_scenario', args, allowed).then(
        () => null,
        (e: CapstateError) => ({ code: e.code, message: e.message, path: e.context.path }),
      );
    const { executable_path: _, ...launch } = scenario().browser;
    expect(await capture(scenario({ browser: launch, nope: 1 }))).toEqual({
      code: 'invalid-scenario',
      path: 'nope',
      message: expect.stringMatching(/^nope: unknown field "nope"; allowed here: browser,/),
    });
    expect(await capture(request({ path: '//evil.example/' }))).toMatchObject({ code: 'invalid-scenario', path: 'actions[0].path' });
    const compare = (args: unknown) =>
      callBrowserTool('compare_web_captures', args, allowed).then(
        () => null,
        (e: CapstateError) => ({ code: e.code, message: e.message, path: e.context.argument ?? e.context.path }),
      );
    expect(await compare({ before: {}, after: {}, limit: 3 })).toEqual({
      code: 'bad-arguments',
      path: 'limit',
      message: 'compare_web_captures: unknown argument "limit"; arguments: before, after, options, rules',
    });
    expect(await compare({ after: {} })).toEqual({
      code: 'bad-arguments',
      path: 'before',
      message: 'compare_web_captures: missing required argument "before": an Evidence file path or an Evidence object',
    });
    expect(await compare({ before: 5, after: {} })).toEqual({
      code: 'bad-arguments',
      path: 'before',
      message: 'compare_web_captures: before: must be an Evidence object or the path of an Evidence file',
    });
    expect(await compare({ before: {}, after: {}, options: { nope: true } })).toMatchObject({
      code: 'bad-comparison-policy',
      path: 'options.nope',
    });
    expect(await compare({ before: {}, after: {}, rules: [{ artifact_kinds: [], find: 'a', replace: '' }] })).toMatchObject({
      code: 'bad-comparison-policy',
      path: 'rules[0].artifact_kinds',
    });
  });
});
