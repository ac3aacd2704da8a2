import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, fixture, sha256File, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';

const dir = tempDir();
let n = 0;

interface Tool {
  name: string;
  method: string;
  template: string;
  root_path: string;
  is_query_post: boolean;
  template_source: string;
  record_ordinals: number[];
  statuses: number[];
}
interface Manifest {
  admission: {
    decision: string;
    subject_origin: string;
    subject_source: string;
    records: number;
    admitted_records: number;
    notes: string[];
  };
  api_base: string;
  api_base_source: string;
  template_rules: { method: string; template: string; tool: string }[];
  tools: Tool[];
}

/** Loads exchanges as a HAR and returns the manifest printed by `capstate manifest --json`. */
function manifestOf(exchanges: Exchange[], opts: { pageTitle?: string; args?: string[] } = {}): Manifest {
  const file = writeHar(dir, `m${n++}.har`, exchanges, opts);
  const r = cli(['manifest', file, '--json', ...(opts.args ?? [])]);
  expect(r.status, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as { format_version: number; manifests: Manifest[] };
  expect(doc.manifests).toHaveLength(1);
  return doc.manifests[0];
}

const templates = (m: Manifest) => m.tools.map((t) => `${t.method} ${t.template}`);
const A = 'http://app.test';

describe('OQ-1 templates', () => {
  it('OQ-1 an id-looking segment is a parameter: digits, UUID, long hex, letters mixed with digits', () => {
    const m = manifestOf([
      { url: `${A}/api/items/12` },
      { url: `${A}/api/runs/3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b` },
      { url: `${A}/api/commits/64a1f0c2e4b0` },
      // Issue 18: a weak shape (letters mixed with digits) needs a second value at its position.
      { url: `${A}/api/things/it-01` },
      { url: `${A}/api/things/it-02` },
    ]);
    expect(templates(m)).toEqual(['GET /api/commits/{id}', 'GET /api/items/{id}', 'GET /api/runs/{id}', 'GET /api/things/{id}']);
  });

  it('OQ-1 a letter-only segment listed by the prefix path is a parameter named after the member (Grafana uid)', () => {
    const m = manifestOf([
      {
        url: `${A}/api/folders`,
        body: [
          { id: 1, uid: 'nErXDvCkzz', title: 'Dept' },
          { id: 2, uid: 'kLmNoPqRsT', title: 'Ops' },
        ],
      },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { id: 1, uid: 'nErXDvCkzz', title: 'Dept', version: 1 } },
      { method: 'DELETE', url: `${A}/api/folders/kLmNoPqRsT`, body: { message: 'deleted' } },
    ]);
    expect(templates(m)).toEqual(['GET /api/folders', 'DELETE /api/folders/{uid}', 'GET /api/folders/{uid}']);
  });

  it('OQ-1 a parameter is named after the member of its own response that repeats it (dashboards/uid/{uid})', () => {
    const m = manifestOf([
      { url: `${A}/api/dashboards/uid/abc123XYZ`, body: { dashboard: { id: 9, uid: 'abc123XYZ', title: 'Svc' }, meta: { slug: 'svc' } } },
    ]);
    expect(templates(m)).toEqual(['GET /api/dashboards/uid/{uid}']);
    expect(m.tools[0].name).toBe('get_api_dashboards_uid_by_uid');
  });

  it('OQ-1 trailing slashes are kept and do not change the shape (Ghost)', () => {
    const m = manifestOf([
      { url: `${A}/ghost/api/admin/posts/`, body: { posts: [{ id: '64a1f0c2e4b0a1b2c3d4e5f6', title: 'Hi' }] } },
      { url: `${A}/ghost/api/admin/posts/64a1f0c2e4b0a1b2c3d4e5f6/`, body: { posts: [{ id: '64a1f0c2e4b0a1b2c3d4e5f6', title: 'Hi' }] } },
    ]);
    expect(templates(m)).toEqual(['GET /ghost/api/admin/posts/', 'GET /ghost/api/admin/posts/{id}/']);
    expect(m.api_base).toBe('/ghost/api/admin');
  });

  it('OQ-1 format suffixes stay on the template (/issues/{id}.json) and list lookups see through them', () => {
    const m = manifestOf([
      {
        url: `${A}/projects.json`,
        body: {
          projects: [
            { id: 3, identifier: 'website-redesign' },
            { id: 4, identifier: 'intranet' },
          ],
        },
      },
      { url: `${A}/projects/website-redesign/memberships.json`, body: { memberships: [] } },
      { url: `${A}/issues/12.json`, body: { issue: { id: 12 } } },
      { method: 'PUT', url: `${A}/issues/12.json`, requestBody: { issue: { subject: 'x' } }, status: 204 },
    ]);
    expect(templates(m)).toEqual([
      'GET /issues/{id}.json',
      'PUT /issues/{id}.json',
      'GET /projects.json',
      'GET /projects/{identifier}/memberships.json',
    ]);
    expect(m.tools.find((t) => t.template === '/issues/{id}.json')!.root_path).toBe('/issues');
  });

  it('OQ-1 percent-encoded segments are compared decoded', () => {
    const m = manifestOf([
      {
        url: `${A}/api/labels`,
        body: [
          { name: 'x', slug: 'good first issue' },
          { name: 'y', slug: 'bug' },
        ],
      },
      { url: `${A}/api/labels/good%20first%20issue`, body: { slug: 'good first issue' } },
    ]);
    expect(templates(m)).toEqual(['GET /api/labels', 'GET /api/labels/{slug}']);
  });

  it('OQ-1 several parameters: sibling paths whose other segments are identical, to a fixpoint (GitHub-like)', () => {
    const m = manifestOf([
      { url: `${A}/repos/octocat/hello-world/issues/1`, body: { id: 1001, number: 1, title: 'a' } },
      { url: `${A}/repos/octocat/spoon-knife/issues/2`, body: { id: 1002, number: 2, title: 'b' } },
      { url: `${A}/repos/torvalds/linux/issues/3`, body: { id: 1003, number: 3, title: 'c' } },
      { url: `${A}/repos/torvalds/subsurface/issues/4`, body: { id: 1004, number: 4, title: 'd' } },
    ]);
    expect(templates(m)).toEqual(['GET /repos/{id}/{id2}/issues/{number}']);
    expect(m.tools[0].name).toBe('get_repos_by_id_by_id2_issues_by_number');
  });

  it('OQ-1 two segments that only vary together stay static (they may be a collection and an alias)', () => {
    const m = manifestOf([
      { url: `${A}/api/users/me/settings`, body: {} },
      { url: `${A}/api/orgs/current/settings`, body: {} },
      { method: 'PUT', url: `${A}/api/orgs/current/settings`, body: {} },
    ]);
    expect(templates(m)).toEqual(['GET /api/orgs/current/settings', 'PUT /api/orgs/current/settings', 'GET /api/users/me/settings']);
    expect(new Set(m.tools.map((t) => t.root_path))).toEqual(new Set(['/api/orgs', '/api/users']));
  });

  it('OQ-1 static segments that look like ids are not parameters: versions, dates, file names, collection names', () => {
    const m = manifestOf([
      { url: `${A}/api/v2/silences`, body: [{ id: '3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b' }] },
      { url: `${A}/api/v2/status`, body: { cluster: 'ok' } },
      { url: `${A}/api/2024-01-01/reports`, body: [] },
      { url: `${A}/static/main.3f2a1b9c.js`, body: 'x', mimeType: 'application/javascript' },
      { url: `${A}/api/folders`, body: [] },
      { url: `${A}/api/search`, body: [] },
    ]);
    // The script is a static asset: a fact, not a tool (issue 17).
    expect(templates(m)).toEqual([
      'GET /api/2024-01-01/reports',
      'GET /api/folders',
      'GET /api/search',
      'GET /api/v2/silences',
      'GET /api/v2/status',
    ]);
  });
});

describe('OQ-1 tool names', () => {
  it('OQ-1 names are valid MCP tool names, unique, readable and stable across runs', () => {
    const ex: Exchange[] = [
      { url: `${A}/api/folders`, body: [{ uid: 'nErXDvCkzz' }] },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { uid: 'nErXDvCkzz' } },
      { url: `${A}/api/folders-archive`, body: [] },
      { url: `${A}/api/folders_archive`, body: [] },
      { url: `${A}/${'very-long-segment/'.repeat(6)}end`, body: {} },
    ];
    const a = manifestOf(ex);
    const b = manifestOf(ex);
    expect(a.tools).toEqual(b.tools);
    const names = a.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names).toContain('get_api_folders_by_uid');
    expect(names).toContain('get_api_folders');
    expect(names).toContain('get_api_folders_archive');
    expect(names).toContain('get_api_folders_archive_2');
  });
});

describe('ES-7 type root paths (OQ-5)', () => {
  it('ES-7 API base + version segment + one segment', () => {
    const m = manifestOf([
      { url: `${A}/api/v1/items`, body: [{ id: 'it-01' }] },
      { url: `${A}/api/v1/items/it-01`, body: { id: 'it-01' } },
      { url: `${A}/api/v1/items/it-01/tags`, body: [] },
    ]);
    expect(m.api_base).toBe('/api');
    expect(new Set(m.tools.map((t) => t.root_path))).toEqual(new Set(['/api/v1/items']));
  });

  it('ES-7 without a version segment: base + one segment (/api/folders/nErXDvCkzz → /api/folders)', () => {
    const m = manifestOf([
      { url: `${A}/api/folders`, body: [{ uid: 'nErXDvCkzz' }] },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { uid: 'nErXDvCkzz' } },
      { url: `${A}/api/annotations`, body: [] },
    ]);
    expect(m.tools.map((t) => [t.template, t.root_path])).toEqual([
      ['/api/annotations', '/api/annotations'],
      ['/api/folders', '/api/folders'],
      ['/api/folders/{uid}', '/api/folders'],
    ]);
  });

  it('ES-7 an api_base override decides the roots', () => {
    const over = join(dir, 'base.json');
    writeFileSync(over, JSON.stringify({ api_base: '/api/admin' }));
    const m = manifestOf(
      [
        { url: `${A}/api/admin/users/5`, body: {} },
        { url: `${A}/api/admin/users`, body: [] },
      ],
      { args: ['--manifest', over] },
    );
    expect(m.api_base).toBe('/api/admin');
    expect(m.api_base_source).toBe('override');
    expect(m.tools.map((t) => t.root_path)).toEqual(['/api/admin/users', '/api/admin/users']);
  });
});

describe('OQ-7 query POSTs', () => {
  it('OQ-7 a POST to a search/query endpoint is a query POST; other POSTs are writes', () => {
    const m = manifestOf([
      { method: 'POST', url: `${A}/api/search`, requestBody: { q: 'x' }, body: [] },
      { method: 'POST', url: `${A}/api/ds/query`, requestBody: { queries: [] }, body: {} },
      { method: 'POST', url: `${A}/api/items`, requestBody: { name: 'x' }, body: { id: 'it-9' }, status: 201 },
    ]);
    expect(Object.fromEntries(m.tools.map((t) => [t.template, t.is_query_post]))).toEqual({
      '/api/search': true,
      '/api/ds/query': true,
      '/api/items': false,
    });
  });

  it('OQ-7 GraphQL: queries only → query POST; any mutation → write', () => {
    const q = manifestOf([
      { method: 'POST', url: `${A}/graphql`, requestBody: { query: 'query Viewer { viewer { login } }' }, body: { data: {} } },
    ]);
    expect(q.tools[0].is_query_post).toBe(true);
    const w = manifestOf([
      { method: 'POST', url: `${A}/graphql`, requestBody: { query: '{ viewer { login } }' }, body: { data: {} } },
      {
        method: 'POST',
        url: `${A}/graphql`,
        requestBody: { query: 'mutation AddStar { addStar(input: {}) { clientMutationId } }' },
        body: { data: {} },
      },
    ]);
    expect(w.tools[0].is_query_post).toBe(false);
  });
});

describe('ES-3 grouping and DESC-4 statuses', () => {
  it('ES-3 every admitted record belongs to exactly one tool; DESC-4 statuses are the sorted distinct statuses', () => {
    const m = manifestOf([
      { url: `${A}/api/folders/12`, status: 404, body: { message: 'not found' } },
      { url: `${A}/api/folders/13`, body: { id: 13 } },
      { url: `${A}/api/folders/14`, status: 500, body: { message: 'x' } },
      { url: 'https://analytics.example/collect', method: 'POST', status: 204 },
    ]);
    expect(m.tools).toHaveLength(1);
    expect(m.tools[0]).toMatchObject({ template: '/api/folders/{id}', record_ordinals: [1, 2, 3], statuses: [200, 404, 500] });
    expect(m.template_rules).toEqual([{ method: 'GET', template: '/api/folders/{id}', tool: 'get_api_folders_by_id' }]);
    const all = m.tools.flatMap((t) => t.record_ordinals);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('ES-2 admission (OQ-2)', () => {
  it('ES-2 the subject is the page origin; records of other origins are not admitted and are counted in the notes', () => {
    const m = manifestOf(
      [
        { url: `${A}/api/user`, body: { id: 1 } },
        { url: 'https://fonts.gstatic.test/s/inter.woff2', body: 'AAAA', mimeType: 'font/woff2' },
        { url: 'https://cdn.test/app.js', body: 'x', mimeType: 'application/javascript' },
        { url: 'https://cdn.test/app.css', body: 'x', mimeType: 'text/css' },
      ],
      { pageTitle: `${A}/dashboard` },
    );
    expect(m.admission).toMatchObject({ decision: 'admitted', subject_origin: A, subject_source: 'page', records: 4, admitted_records: 1 });
    expect(m.admission.notes).toEqual(['3 records of other origins not admitted: https://cdn.test 2, https://fonts.gstatic.test 1']);
  });

  it('ES-2 OQ-2 (revised) a SPA calling its same-site API origin: the page is the subject, the API origin is admitted with it', () => {
    const m = manifestOf(
      [
        { url: 'https://app.example.test/', body: '<html></html>', mimeType: 'text/html' },
        { url: 'https://api.example.test/v2/teams', body: [] },
        { url: 'https://api.example.test/v2/teams/5', body: {} },
      ],
      { pageTitle: 'https://app.example.test/' },
    );
    expect(m.admission).toMatchObject({ subject_origin: 'https://app.example.test', subject_source: 'page', admitted_records: 3 });
    expect(m.admission.notes).toContain('admitted with the subject: https://api.example.test 2');
  });

  it('ES-2 rejections name the record and where the value sits; nothing is stored', () => {
    const store = join(dir, 'reject.sqlite');
    expect(cli(['load', fixture('grafana-mini', 'capture.har'), '--db', store]).status).toBe(0);
    const before = sha256File(store);
    const cases: [Exchange[], string[], RegExp][] = [
      [
        [{ url: `${A}/api/a` }, { url: `${A}/api/b?access_token=abc123def` }],
        [],
        /record #2 \(log\.entries\[1\]\.request\.url\).*"access_token"/,
      ],
      [[{ url: `${A}/api/a?api_key=k-123456` }], [], /record #1 .*"api_key"/],
      [
        [{ url: `${A}/api/a` }, { url: `${A}/api/b`, body: { note: 'my hunter2secret here' } }],
        ['--sensitive', 'hunter2secret'],
        /record #2 \(log\.entries\[1\]\.response\.content\.text\).*--sensitive/,
      ],
      [
        [{ url: `${A}/api/a`, headers: [{ name: 'X-Trace', value: 'hunter2secret' }] }],
        ['--sensitive', 'hunter2secret'],
        /record #1 .*header "X-Trace".*--sensitive/,
      ],
      [[{ url: `${A}/api/a?q=hunter2%20secret` }], ['--sensitive', 'hunter2 secret'], /record #1 .*URL.*--sensitive/],
    ];
    for (const [ex, args, message] of cases) {
      const file = writeHar(dir, `rej${n++}.har`, ex);
      const r = cli(['load', file, '--db', store, ...args]);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/hunter2secret|abc123def|k-123456/);
      expect(sha256File(store)).toBe(before);
    }
  });

  it('ES-2 a redacted token value is not a credential', () => {
    const m = manifestOf([{ url: `${A}/api/a?token=%5BREDACTED%5D`, body: {} }]);
    expect(m.admission.admitted_records).toBe(1);
  });

  it('ES-2 a scenario capture that did not select response bodies is rejected', () => {
    const file = join(dir, 'no-bodies.json');
    writeFileSync(
      file,
      JSON.stringify({
        schema_version: 1,
        scenario: { start_url: `${A}/`, network_content: { request_body: false, response_body: false, header_values: false } },
        steps: [],
        events: [
          {
            sequence: 1,
            kind: 'request',
            transaction_id: 't1',
            redirected_from_transaction_id: null,
            method: 'GET',
            url: `${A}/api/items`,
          },
          { sequence: 2, kind: 'response', transaction_id: 't1', status: 200 },
        ],
      }),
    );
    const store = join(dir, 'nb.sqlite');
    const r = cli(['load', file, '--db', store, '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      code: 'response-bodies-not-selected',
      context: { path: 'scenario.network_content.response_body' },
    });
    expect(existsSync(store)).toBe(false);
  });

  it('ES-2 a capture with no recorded exchange is rejected (nothing to admit)', () => {
    const file = join(dir, 'nosubject.json');
    writeFileSync(
      file,
      JSON.stringify({
        schema_version: 1,
        scenario: { start_url: `${A}/`, network_content: { request_body: true, response_body: true, header_values: true } },
        steps: [],
        events: [
          { sequence: 1, kind: 'request', transaction_id: 't1', redirected_from_transaction_id: null, method: 'GET', url: `${A}/x` },
          { sequence: 2, kind: 'request-failed', transaction_id: 't1', error_text: 'net::ERR_CONNECTION_REFUSED' },
          { sequence: 3, kind: 'console', text: 'hello' },
        ],
      }),
    );
    const r = cli(['load', file, '--db', join(dir, 'ns.sqlite'), '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).code).toBe('no-subject-records');
  });
});

describe('OQ-1 the user override (--manifest FILE)', () => {
  it('OQ-1 override rules take precedence and are marked; the rest is inferred', () => {
    const over = join(dir, 'rules.json');
    writeFileSync(over, JSON.stringify({ template_rules: [{ method: 'GET', template: '/api/teams/{team}' }] }));
    const m = manifestOf(
      [
        { url: `${A}/api/teams/platform`, body: { name: 'platform' } },
        { url: `${A}/api/teams/12/members`, body: [] },
      ],
      { args: ['--manifest', over] },
    );
    expect(m.tools.map((t) => [t.template, t.template_source])).toEqual([
      ['/api/teams/{id}/members', 'inferred'],
      ['/api/teams/{team}', 'override'],
    ]);
  });

  it('OQ-1 the override is stored with the capture: reloading with another override is refused', () => {
    const store = join(dir, 'over.sqlite');
    const har = writeHar(dir, 'over.har', [{ url: `${A}/api/teams/platform`, body: {} }]);
    const o1 = join(dir, 'o1.json');
    const o2 = join(dir, 'o2.json');
    writeFileSync(o1, JSON.stringify({ template_rules: [{ method: 'GET', template: '/api/teams/{team}' }] }));
    writeFileSync(o2, JSON.stringify({ template_rules: [{ method: 'GET', template: '/api/teams/{slug}' }] }));
    expect(cli(['load', har, '--db', store, '--manifest', o1]).status).toBe(0);
    expect(cli(['load', har, '--db', store, '--manifest', o1]).stderr).toMatch(/already loaded/);
    const r = cli(['load', har, '--db', store, '--manifest', o2]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/another --manifest override/);
  });

  it('OQ-1 overrides are checked: a parameter named twice or a rule listed twice is refused', () => {
    const har = writeHar(dir, 'chk.har', [{ url: `${A}/api/x/1/2`, body: {} }]);
    const cases: [unknown, RegExp][] = [
      [{ template_rules: [{ method: 'GET', template: '/api/x/{a}/{a}' }] }, /template_rules\[0\]\.template.*\{a\} appears twice/],
      [
        {
          template_rules: [
            { method: 'GET', template: '/api/x/{a}/{b}' },
            { method: 'get', template: '/api/x/{a}/{b}' },
          ],
        },
        /template_rules\[1\].*listed twice/,
      ],
      [{ template_rules: [], colour: 'red' }, /colour.*unknown field/],
    ];
    for (const [doc, message] of cases) {
      const f = join(dir, `chk${n++}.json`);
      writeFileSync(f, JSON.stringify(doc));
      const r = cli(['load', har, '--db', join(dir, `chk${n++}.sqlite`), '--manifest', f]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
    }
  });

  it('OQ-1 rules that match nothing and an api_base that prefixes nothing are noted; the override is stored canonically', () => {
    const f = join(dir, 'noted.json');
    writeFileSync(f, JSON.stringify({ template_rules: [{ method: 'GET', template: '/nowhere/{id}' }], api_base: '/nothere' }, null, 4));
    const m = manifestOf([{ url: `${A}/api/x`, body: {} }], { args: ['--manifest', f] });
    expect(m.admission.notes).toEqual([
      'override rule GET /nowhere/{id} matched no admitted record',
      'override api_base /nothere is a prefix of no admitted path; type roots fall back to first segments',
    ]);
    expect((m as unknown as { override: unknown }).override).toEqual({
      api_base: '/nothere',
      template_rules: [{ method: 'GET', template: '/nowhere/{id}' }],
    });
  });

  it('OQ-1 the same override reformatted is the same input', () => {
    const store = join(dir, 'fmt.sqlite');
    const har = writeHar(dir, 'fmt.har', [{ url: `${A}/api/teams/platform`, body: {} }]);
    const a = join(dir, 'fmt-a.json');
    const b = join(dir, 'fmt-b.json');
    writeFileSync(a, JSON.stringify({ template_rules: [{ method: 'GET', template: '/api/teams/{team}' }] }));
    writeFileSync(b, JSON.stringify({ template_rules: [{ template: '/api/teams/{team}', method: 'get' }] }, null, 2));
    expect(cli(['load', har, '--db', store, '--manifest', a]).status).toBe(0);
    const r = cli(['load', har, '--db', store, '--manifest', b]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/already loaded/);
  });

  it('OQ-1 a malformed override names the file and the field', () => {
    const bad = join(dir, 'bad-over.json');
    writeFileSync(bad, JSON.stringify({ template_rules: [{ method: 'GET', template: '/api/x{id}' }] }));
    const har = writeHar(dir, 'bo.har', [{ url: `${A}/api/x1`, body: {} }]);
    const r = cli(['load', har, '--db', join(dir, 'bo.sqlite'), '--manifest', bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad-over\.json: template_rules\[0\]\.template/);
  });
});

describe('capstate manifest', () => {
  it('prints every capture of a store, the same on every run; a capture file goes to a temporary store', () => {
    const cwd = join(dir, 'cwd');
    require('node:fs').mkdirSync(cwd);
    const r1 = cli(['manifest', fixture('grafana-mini', 'capture.har')], { cwd });
    const r2 = cli(['manifest', fixture('grafana-mini', 'capture.har')], { cwd });
    expect(r1.status).toBe(0);
    expect(r1.stdout).toBe(r2.stdout);
    expect(r1.stdout).toMatch(/get_api_folders_by_uid\s+GET\s+\/api\/folders\/\{uid\}\s+type \/api\/folders/);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('OQ-1 shape details', () => {
  it('OQ-1 a trailing slash is ignored for shape: /x/1 and /x/1/ are one tool', () => {
    const m = manifestOf([
      { url: `${A}/api/runs/12/`, body: {} },
      { url: `${A}/api/runs/13`, body: {} },
    ]);
    expect(templates(m)).toEqual(['GET /api/runs/{id}/']);
    expect(m.tools[0].record_ordinals).toEqual([1, 2]);
  });

  it('OQ-1 a value that is a parameter in one path is one in its siblings; a root never ends in a parameter', () => {
    const m = manifestOf([
      { url: `${A}/repos/octocat/hello-world/issues/1`, body: { number: 1 } },
      { url: `${A}/repos/octocat/spoon-knife/issues/2`, body: { number: 2 } },
      { url: `${A}/repos/torvalds/linux/issues/3`, body: { number: 3 } },
      { url: `${A}/repos/torvalds/subsurface/issues/4`, body: { number: 4 } },
      { url: `${A}/repos/octocat/hello-world/pulls`, body: [] },
    ]);
    expect(templates(m)).toEqual(['GET /repos/{id}/{id2}/issues/{number}', 'GET /repos/{id}/{id2}/pulls']);
    expect(m.tools.map((t) => t.root_path)).toEqual(['/repos', '/repos']);
  });

  it('OQ-1 a letter-only last segment whose own response repeats it as an identity joins its sibling template', () => {
    const m = manifestOf([
      { url: `${A}/api/folders`, body: [{ uid: 'nErXDvCkzz' }] },
      { url: `${A}/api/folders/nErXDvCkzz`, body: { uid: 'nErXDvCkzz' } },
      { url: `${A}/api/folders/general`, body: { uid: 'general', title: 'General' } },
    ]);
    expect(m.tools.find((t) => t.template === '/api/folders/{uid}')!.record_ordinals).toEqual([2, 3]);
  });

  it('ES-2 OQ-2 (revised) a scenario whose start URL serves no JSON admits its same-site API origin (127.0.0.1:3000 beside :8080)', () => {
    const file = join(dir, 'spa.json');
    const body = Buffer.from('[{"id":"it-01"}]');
    writeFileSync(
      file,
      JSON.stringify({
        schema_version: 1,
        scenario: {
          start_url: 'http://127.0.0.1:3000/',
          network_content: { request_body: true, response_body: true, header_values: true },
        },
        steps: [],
        events: [
          {
            sequence: 1,
            kind: 'request',
            transaction_id: 't1',
            redirected_from_transaction_id: null,
            method: 'GET',
            url: 'http://127.0.0.1:3000/',
          },
          { sequence: 2, kind: 'response', transaction_id: 't1', status: 200 },
          {
            sequence: 3,
            kind: 'request',
            transaction_id: 't2',
            redirected_from_transaction_id: null,
            method: 'GET',
            url: 'http://127.0.0.1:8080/api/items',
          },
          { sequence: 4, kind: 'response', transaction_id: 't2', status: 200 },
          {
            sequence: 5,
            kind: 'network-content',
            transaction_id: 't2',
            source_event_sequence: 4,
            body: { state: 'captured', base64: body.toString('base64'), bytes: body.length, media_type: 'application/json' },
          },
        ],
      }),
    );
    const r = cli(['manifest', file, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const admission = JSON.parse(r.stdout).manifests[0].admission;
    expect(admission).toMatchObject({ subject_origin: 'http://127.0.0.1:3000', subject_source: 'start-url', admitted_records: 2 });
    expect(admission.notes).toContain('admitted with the subject: http://127.0.0.1:8080 1');
  });
});

describe('OQ-7 at scale', () => {
  it("OQ-7 35,000 GraphQL POSTs load (bound parameter lists stay under SQLite's limit)", () => {
    const file = join(dir, 'many-gql.har');
    const entries = Array.from({ length: 35_000 }, (_, i) =>
      JSON.stringify({
        startedDateTime: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
        time: 1,
        request: {
          method: 'POST',
          url: `${A}/graphql`,
          headers: [],
          postData: { mimeType: 'application/json', text: `{"query":"query Q${i} { item(id: ${i}) { id } }"}` },
        },
        response: { status: 200, headers: [], content: { mimeType: 'application/json', text: `{"data":{"item":{"id":${i}}}}` } },
      }),
    );
    writeFileSync(file, `{"log":{"version":"1.2","entries":[${entries.join(',')}]}}`);
    const r = cli(['manifest', file, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const [t] = JSON.parse(r.stdout).manifests[0].tools;
    expect(t).toMatchObject({ template: '/graphql', is_query_post: true });
    expect(t.record_ordinals).toHaveLength(35_000);
  });
});
