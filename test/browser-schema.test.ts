/**
 * browserScenarioSchema validation (BS-8 and the rules it lists), secrets from the
 * environment (BS-9), fingerprints (BS-70), redaction (BS-52, BS-65) and limit estimates
 * (BS-38, OQ-47). No browser is needed: validation runs before any browser starts.
 */
import { describe, expect, it } from 'vitest';
import { CapstateError } from '../src/errors.js';
import { captureBrowserScenario } from '../src/browser/capture.js';
import { decodeUtf16Base64, fingerprintString } from '../src/browser/fingerprints.js';
import { bodyAllocationCost } from '../src/browser/limits.js';
import { Redaction, resolveSecrets } from '../src/browser/redaction.js';
import { DEFAULT_LIMITS, validateScenario } from '../src/browser/schema.js';
import { cli } from './helpers.js';

const minimal = () =>
  ({
    browser: { mode: 'launch', executable_path: '/nonexistent/chromium' },
    start_url: { url: 'http://127.0.0.1:3000' },
    actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 100 }] as Record<string, unknown>[],
  }) as Record<string, any>;

function rejects(s: unknown, path: string, message: RegExp): void {
  let err: unknown;
  try {
    validateScenario(s);
  } catch (e) {
    err = e;
  }
  expect(err, `expected a validation error at ${path}`).toBeInstanceOf(CapstateError);
  const e = err as CapstateError;
  expect(e.code).toBe('invalid-scenario');
  expect(e.context.path).toBe(path);
  expect(e.message).toMatch(message);
  expect(e.exitCode).toBe(1);
}

const request = (extra: Record<string, unknown>) => {
  const s = minimal();
  s.actions = [{ step_id: 'r', action: 'request', method: 'POST', path: '/api/items', ...extra }];
  return s;
};

describe('BS-3 minimal request and defaults', () => {
  it('BS-3 the minimal launch scenario validates; content defaults to false, families empty, limits default', () => {
    const s = validateScenario(minimal());
    expect(s.actions).toHaveLength(1);
    expect(s.capture).toBeUndefined();
  });
  it("BS-38 default limits are the table's values", () => {
    expect(DEFAULT_LIMITS).toEqual({
      max_events: 10_000,
      max_event_bytes: 4 * 1024 * 1024,
      max_retained_event_bytes: 16 * 1024 * 1024,
      max_network_transactions: 1024,
      max_network_body_bytes: 65_536,
      max_network_body_allocation_bytes: 1_048_576,
      max_header_value_bytes: 1_048_576,
      max_network_metadata_bytes: 1_048_576,
    });
  });
});

describe('BS-8 validation failures name the JSON path', () => {
  it('BS-8 unknown fields, at the root and deep inside', () => {
    rejects({ ...minimal(), extra: 1 }, 'extra', /unknown field "extra"/);
    const s = minimal();
    s.actions[0].colour = 'red';
    rejects(s, 'actions[0].colour', /unknown field "colour"/);
    const t = minimal();
    t.capture = { network: { response_body: true, bodies: true } };
    rejects(t, 'capture.network.bodies', /unknown field/);
    const u = minimal();
    u.actions = [{ step_id: 'c', action: 'click', locator: { kind: 'css', selector: '#a', nth: 2 } }];
    rejects(u, 'actions[0].locator.nth', /unknown field "nth"/);
  });
  it('BS-8 unsupported action tags, artifacts and event families', () => {
    const s = minimal();
    s.actions = [{ step_id: 'x', action: 'hover' }];
    rejects(s, 'actions[0].action', /unsupported action "hover"/);
    const t = minimal();
    t.capture = { at_end: ['dom', 'video'] };
    rejects(t, 'capture.at_end[1]', /unsupported artifact "video"/);
    const u = minimal();
    u.capture = { events: ['console', 'keyboard'] };
    rejects(u, 'capture.events[1]', /unsupported event family/);
  });
  it('BS-8 duplicate step ids', () => {
    const s = minimal();
    s.actions.push({ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1 });
    rejects(s, 'actions[1].step_id', /duplicate step_id "settle".*actions\[0\]/);
  });
  it('BS-8 / BS-28 undeclared secret references, wherever they are', () => {
    const s = minimal();
    s.actions = [
      { step_id: 'f', action: 'fill', locator: { kind: 'css', selector: '#p' }, value: { source: 'secret', secret_id: 'password' } },
    ];
    rejects(s, 'actions[0].value.secret_id', /secret "password" is not declared/);
    const t = minimal();
    t.start_url = { url: 'http://127.0.0.1:3000/', query: [{ name: 'key', value: { source: 'secret', secret_id: 'api' } }] };
    rejects(t, 'start_url.query[0].value.secret_id', /not declared/);
    const u = minimal();
    u.storage = { cookies: [{ name: 'sid', url: 'http://127.0.0.1:3000', value: { source: 'secret', secret_id: 'sid' } }] };
    rejects(u, 'storage.cookies[0].value.secret_id', /not declared/);
  });
  it('BS-8 / BS-22 connect mode takes only a loopback endpoint with an explicit port', () => {
    const s = minimal();
    s.browser = { mode: 'connect', cdp_endpoint: 'http://10.0.0.5:9222' };
    rejects(s, 'browser.cdp_endpoint', /loopback/);
    s.browser = { mode: 'connect', cdp_endpoint: 'http://127.0.0.1' };
    rejects(s, 'browser.cdp_endpoint', /explicit port/);
    s.browser = { mode: 'connect', cdp_endpoint: 'http://127.0.0.1:9222', executable_path: '/usr/bin/chromium' };
    rejects(s, 'browser.executable_path', /unknown field/);
    s.browser = { mode: 'connect', cdp_endpoint: 'http://localhost:9222' };
    expect(validateScenario(s).browser).toEqual({ mode: 'connect', cdp_endpoint: 'http://localhost:9222' });
  });
  it('BS-26 userinfo in a URL is rejected; query values and fragments are fine', () => {
    const s = minimal();
    s.start_url = { url: 'http://user:pw@127.0.0.1:3000/' };
    rejects(s, 'start_url.url', /userinfo/);
    s.start_url = { url: 'http://127.0.0.1:3000/?a=1#frag' };
    expect(validateScenario(s).start_url.url).toBe('http://127.0.0.1:3000/?a=1#frag');
    s.start_url = { url: 'file:///etc/passwd' };
    rejects(s, 'start_url.url', /only http and https/);
  });
});

describe('BS-14 action timeout range', () => {
  it('BS-14 timeout_ms and duration_ms accept 1..2147483647 and nothing else', () => {
    const s = minimal();
    s.actions = [{ step_id: 'c', action: 'click', locator: { kind: 'css', selector: '#a' }, timeout_ms: 2_147_483_648 }];
    rejects(s, 'actions[0].timeout_ms', /between 1 and 2147483647/);
    s.actions = [{ step_id: 'c', action: 'click', locator: { kind: 'css', selector: '#a' }, timeout_ms: 0 }];
    rejects(s, 'actions[0].timeout_ms', /between 1 and 2147483647/);
    s.actions = [{ step_id: 'w', action: 'wait_for_timeout', duration_ms: 1.5 }];
    rejects(s, 'actions[0].duration_ms', /integer/);
    s.actions = [{ step_id: 'w', action: 'wait_for_timeout', duration_ms: 2_147_483_647 }];
    expect(() => validateScenario(s)).not.toThrow();
  });
  it('BS-11 command_timeout_ms is a top-level positive integer', () => {
    rejects({ ...minimal(), command_timeout_ms: -5 }, 'command_timeout_ms', /between 1/);
  });
});

describe('BS-37 capture.limits', () => {
  it('BS-37 every supplied limit is a positive safe integer; unknown limit names are rejected', () => {
    const s = minimal();
    s.capture = { limits: { max_events: 0 } };
    rejects(s, 'capture.limits.max_events', /between 1/);
    s.capture = { limits: { max_network_body_bytes: 2 ** 60 } };
    rejects(s, 'capture.limits.max_network_body_bytes', /between 1/);
    s.capture = { limits: { max_bodies: 3 } };
    rejects(s, 'capture.limits.max_bodies', /unknown field/);
    s.capture = { limits: { max_events: 5 } };
    expect(validateScenario(s).capture?.limits).toEqual({ max_events: 5 });
  });
});

describe('BS-48 / BS-49 / BS-50 / BS-53 request-step validation', () => {
  it('BS-48 methods and bodies: GET and HEAD cannot carry json', () => {
    rejects(request({ method: 'TRACE' }), 'actions[0].method', /unsupported method "TRACE"/);
    rejects(request({ method: 'GET', json: { a: 1 } }), 'actions[0].json', /GET request cannot carry a body/);
    rejects(request({ method: 'HEAD', json: null }), 'actions[0].json', /HEAD request cannot carry a body/);
  });
  it('BS-49 the path begins with a single "/" and stays on the start origin', () => {
    rejects(request({ path: 'api/items' }), 'actions[0].path', /single "\/"/);
    rejects(request({ path: '//evil.example/api' }), 'actions[0].path', /single "\/"/);
    expect(() => validateScenario(request({ path: '/api/items?x=1#f' }))).not.toThrow();
  });
  it('BS-50 expected_status cannot name a redirect', () => {
    rejects(request({ expected_status: [201, 302] }), 'actions[0].expected_status[1]', /redirect/);
  });
  it('BS-53 duplicate (case-insensitive) and forbidden header names, control characters', () => {
    const lit = (value: string) => ({ source: 'literal', value });
    rejects(
      request({
        headers: [
          { name: 'X-A', value: lit('1') },
          { name: 'x-a', value: lit('2') },
        ],
      }),
      'actions[0].headers[1].name',
      /given twice/,
    );
    for (const name of ['Cookie', 'Origin', 'Host', 'Sec-Fetch-Mode', 'User-Agent', 'Proxy-Authorization']) {
      rejects(request({ headers: [{ name, value: lit('v') }] }), 'actions[0].headers[0].name', /cannot set/);
    }
    rejects(request({ headers: [{ name: 'X-A', value: lit('a\nb') }] }), 'actions[0].headers[0].value.value', /control characters/);
    rejects(request({ headers: [{ name: 'X-A', value: lit('a'), prefix: 'B\r' }] }), 'actions[0].headers[0].prefix', /control characters/);
    rejects(
      request({ headers: [{ name: 'X-A', value: { source: 'session_storage', key: 'k' } }] }),
      'actions[0].headers[0].value.source',
      /unsupported value source/,
    );
    // BS-51: cookie and local-storage sources exist only for request headers.
    const s = minimal();
    s.actions = [{ step_id: 'f', action: 'fill', locator: { kind: 'css', selector: '#a' }, value: { source: 'cookie', name: 'c' } }];
    rejects(s, 'actions[0].value.source', /unsupported value source "cookie"/);
  });
});

describe('BS-9 secrets backed by environment variables', () => {
  const withSecret = () => ({ ...minimal(), secrets: [{ secret_id: 'api', environment_variable: 'CAPSTATE_TEST_API' }] });
  it('BS-9 a missing variable fails before any browser, naming the declaration and the variable', async () => {
    const err = await captureBrowserScenario(withSecret(), { env: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(CapstateError);
    expect(err.code).toBe('missing-secret');
    expect(err.message).toMatch(/secret "api".*CAPSTATE_TEST_API/);
    expect(err.context.path).toBe('secrets[0].environment_variable');
  });
  it('BS-9 an explicitly empty string counts as resolved', () => {
    expect(resolveSecrets(validateScenario(withSecret()), { CAPSTATE_TEST_API: '' }).get('api')).toBe('');
  });
  it('BS-8 validation comes before the browser: an invalid scenario never reports the missing executable', async () => {
    const s = minimal();
    s.actions.push({ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1 });
    const err = await captureBrowserScenario(s, { env: {} }).catch((e) => e);
    expect(err.code).toBe('invalid-scenario');
    const ok = await captureBrowserScenario(minimal(), { env: {} }).catch((e) => e);
    expect(ok.code).toBe('browser-not-found');
  });
});

describe('BS-1 / BS-8 the CLI reports validation errors with exit 1 and the JSON path', () => {
  it('BS-1 inline INPUT_JSON with an unknown field: exit 1, one JSON error document with the path', () => {
    const s = minimal();
    s.actions[0].colour = 'red';
    const r = cli(['capture-browser-scenario', JSON.stringify(s), '--json']);
    expect(r.status).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format_version: 1, ok: false, code: 'invalid-scenario', context: { path: 'actions[0].colour' } });
    expect(r.stderr).toMatch(/actions\[0\]\.colour: unknown field "colour"/);
  });
  it('BS-1 a file path that does not exist, and a file that is not JSON', () => {
    const r = cli(['capture-browser-scenario', '/nonexistent/scenario.json']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no such file/);
    const d = cli(['capture-browser-scenario', '{"browser": 1, "browser": 2}']);
    expect(d.status).toBe(1);
    expect(d.stderr).toMatch(/not valid JSON \(duplicate-key\)/);
  });
});

describe('BS-70 storage fingerprint version 2', () => {
  it("BS-70 the spec's two examples", () => {
    expect(fingerprintString('ab')).toBe('fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603');
    expect(fingerprintString('a\uD800')).toBe('172fcd3b5d6c36011a53b052b214564195ad29c51a9fec3b1accf10826cdace1');
  });
  it('BS-70 a lone low surrogate and a lone high surrogate differ from each other and from U+FFFD', () => {
    const a = fingerprintString('x\uDC00'),
      b = fingerprintString('x\uD800'),
      c = fingerprintString('x\uFFFD');
    expect(new Set([a, b, c]).size).toBe(3);
    // A well-formed pair is plain UTF-8.
    expect(fingerprintString('\uD83D\uDE00')).toBe(fingerprintString('😀'));
  });
  it('BS-70 page strings travel as UTF-16 code units and come back exact', () => {
    const b64 = Buffer.from('a\uD800b', 'utf16le').toString('base64');
    expect(decodeUtf16Base64(b64)).toBe('a\uD800b');
  });
});

describe('BS-52 / BS-65 redaction of secrets and page values', () => {
  it('BS-65 a declared secret is replaced as written, URI/form-escaped and JSON-escaped, in text and in bytes', () => {
    const r = new Redaction(new Map([['pw', 'p@ss w/"rd']]));
    const v = r.view();
    expect(v.text('a p@ss w/"rd b')).toBe('a [REDACTED:secret:pw] b');
    expect(v.text('q=p%40ss%20w%2F%22rd')).toBe('q=[REDACTED:secret:pw]');
    expect(v.text('q=p%40ss+w%2F%22rd')).toBe('q=[REDACTED:secret:pw]');
    expect(v.text('{"p":"p@ss w/\\"rd"}')).toBe('{"p":"[REDACTED:secret:pw]"}');
    const bin = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('p@ss w/"rd'), Buffer.from([0x80])]);
    expect(v.bytes(bin)).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('[REDACTED:secret:pw]'), Buffer.from([0x80])]));
  });
  it('BS-52 page values: short ones kept, the first marker kept on a second read, earlier views unchanged', () => {
    const r = new Redaction(new Map());
    const before = r.view();
    r.addPageValue('s1', 'X-Short', 'abc123', 'abc123');
    expect(r.view().text('abc123')).toBe('abc123');
    r.addPageValue('s1', 'X-CSRFToken', 'csrf0123456789abcdef0123456789ab', ' csrf0123456789abcdef0123456789ab\t');
    r.addPageValue('s2', 'X-Again', 'csrf0123456789abcdef0123456789ab', 'csrf0123456789abcdef0123456789ab');
    expect(r.view().text('t=csrf0123456789abcdef0123456789ab')).toBe('t=[REDACTED:page:s1.X-CSRFToken]');
    expect(before.text('csrf0123456789abcdef0123456789ab')).toBe('csrf0123456789abcdef0123456789ab');
    expect(r.view().pageValuesRead).toBe(1);
  });
  it('OQ-47 / BS-52 after one page value read, bodies over about 47 KiB exceed the 1 MiB allocation estimate', () => {
    const limit = DEFAULT_LIMITS.max_network_body_allocation_bytes;
    expect(bodyAllocationCost(46 * 1024, 1)).toBeLessThanOrEqual(limit);
    expect(bodyAllocationCost(48 * 1024, 1)).toBeGreaterThan(limit);
    // Without page values the default body limit (64 KiB) binds first.
    expect(bodyAllocationCost(64 * 1024, 0)).toBeLessThanOrEqual(limit);
  });
});
