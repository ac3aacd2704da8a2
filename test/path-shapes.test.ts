/**
 * Issue 18, the path- and type-level inferences: which segments are parameters and what
 * they are called, which GET reads are files, which POSTs are reads, which item reads only
 * echo their path, and tool names within 64 characters. Each case is a small HAR named for
 * what it proves; docs/decisions.md, "Manifest" and "Locations and identity", has the readings.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../src/store/open.js';
import { cli, tempDir } from './helpers.js';
import { writeHar, type Exchange } from './har-builder.js';
import { factStore } from './view-facts.js';

const dir = tempDir();
let n = 0;
const A = 'http://app.test';

interface Tool {
  name: string;
  method: string;
  template: string;
  root_path: string;
  is_query_post: boolean;
}
interface State {
  types: {
    collection: string;
    root_path: string;
    identity: string;
    bound: { rule: string; write_ordinal: number } | null;
    initial_order: string[];
  }[];
  entities: { collection: string; id: string }[];
  documents: { tool: string; path: string }[];
  plans: { tool: string; kind: string; reason?: string }[];
}

function harOf(exchanges: Exchange[]): string {
  return writeHar(dir, `p${n++}.har`, exchanges, { pageTitle: `${A}/` });
}

function manifestOf(exchanges: Exchange[], db?: string): Tool[] {
  const r = cli(['manifest', harOf(exchanges), '--json', ...(db ? ['--db', db] : [])]);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { manifests: { tools: Tool[] }[] }).manifests[0].tools;
}

function stateOf(exchanges: Exchange[]): State {
  const r = cli(['state', harOf(exchanges), '--json']);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as State;
}

const templates = (tools: Tool[]) => tools.map((t) => `${t.method} ${t.template}`);
const planOf = (s: State, tool: string) => s.plans.find((p) => p.tool === tool);

describe('issue 18 static segments are not ids', () => {
  it('with one observed value only strong id shapes are parameters: digits, UUIDs, long hex, high-entropy tokens', () => {
    const tools = manifestOf([
      { url: `${A}/api/items/12`, body: { name: 'a' } },
      { url: `${A}/api/runs/3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b`, body: { state: 'ok' } },
      { url: `${A}/api/commits/64a1f0c2e4b0`, body: { message: 'm' } },
      { url: `${A}/api/videos/dQw4w9WgXcQ`, body: { title: 't' } },
      // Names with a number in or after them, and a dotted version: static.
      { url: `${A}/api/issues/issue-62`, body: { title: 'x' } },
      { url: `${A}/api/docs/viewer-2.0`, body: { title: 'x' } },
      { url: `${A}/api/plugins/wp-lightbox2`, body: { title: 'x' } },
      { url: `${A}/api/examples/example3`, body: { title: 'x' } },
      { method: 'POST', url: `${A}/api/nav/GetNavigationMenu2`, requestBody: {}, body: { items: [] } },
      { url: `${A}/apis/batch/v2alpha1/jobs`, body: { kind: 'JobList' } },
    ]);
    expect(templates(tools)).toEqual([
      'GET /api/commits/{id}',
      'GET /api/docs/viewer-2.0',
      'GET /api/examples/example3',
      'GET /api/issues/issue-62',
      'GET /api/items/{id}',
      'POST /api/nav/GetNavigationMenu2',
      'GET /api/plugins/wp-lightbox2',
      'GET /api/runs/{id}',
      'GET /api/videos/{id}',
      'GET /apis/batch/v2alpha1/jobs',
    ]);
  });

  it('a weak id shape is a parameter when a sibling path shows a second value, or its own response repeats it as an identity', () => {
    const tools = manifestOf([
      { url: `${A}/api/things/it-01`, body: { name: 'a' } },
      { url: `${A}/api/things/it-02`, body: { name: 'b' } },
      { url: `${A}/api/dashboards/uid/abc123XYZ`, body: { dashboard: { uid: 'abc123XYZ', title: 'Svc' } } },
      // The same shape whose response repeats it only under a name that is no identity name stays static.
      { url: `${A}/api/pages/about-2`, body: { title: 'about-2' } },
    ]);
    expect(templates(tools)).toEqual(['GET /api/dashboards/uid/{uid}', 'GET /api/pages/about-2', 'GET /api/things/{id}']);
  });

  it('a last segment with a file extension stays static, whatever its stem', () => {
    const tools = manifestOf([
      { url: `${A}/api/exports/report-2024a.har`, body: { log: { entries: [] } } },
      { url: `${A}/api/sites/site2b.webmanifest`, body: { name: 'App' } },
      // A format suffix (`.json`) is not a file extension: the strong id before it stays a parameter.
      { url: `${A}/api/issues/12.json`, body: { issue: { id: 12 } } },
    ]);
    expect(templates(tools)).toEqual([
      'GET /api/exports/report-2024a.har',
      'GET /api/issues/{id}.json',
      'GET /api/sites/site2b.webmanifest',
    ]);
  });

  it('sibling templates under one root use one parameter name for one position', () => {
    const tools = manifestOf([
      // The item names its parameter `uuid` from its own response; the log list has no member
      // that repeats it, which alone would make `{id}`.
      { url: `${A}/api/runs/3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b`, body: { uuid: '3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b', state: 'ok' } },
      { url: `${A}/api/runs/3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b/logs`, body: [{ line: 'started' }] },
      { method: 'DELETE', url: `${A}/api/runs/0c2d3e4f-8d4a-4e6b-9f0a-1c2d3e4f5a6b/logs`, status: 204 },
    ]);
    expect(templates(tools)).toEqual(['GET /api/runs/{uuid}', 'DELETE /api/runs/{uuid}/logs', 'GET /api/runs/{uuid}/logs']);
  });
});

describe('issue 18 files are documents', () => {
  it('a GET of a .json file, a .webmanifest or a .har read on one line is a document, not a type with one entity', () => {
    const manifest = {
      name: 'App',
      icons: [{ src: '/i.png', sizes: '192x192' }],
      related_applications: [{ platform: 'play', id: 'com.example.app' }],
    };
    const s = stateOf([
      { url: `${A}/`, body: '<html></html>', mimeType: 'text/html' },
      { url: `${A}/manifest.json`, body: manifest },
      { url: `${A}/static/site.webmanifest`, body: manifest },
      { url: `${A}/exports/session.har`, body: { log: { entries: [{ id: 1 }, { id: 2 }] } } },
      {
        url: `${A}/api/items`,
        body: [
          { id: 1, name: 'a' },
          { id: 2, name: 'b' },
        ],
      },
    ]);
    expect(s.types.map((t) => t.root_path)).toEqual(['/api']);
    expect(s.documents.map((d) => d.path).sort()).toEqual(['/exports/session.har', '/manifest.json', '/static/site.webmanifest']);
    for (const t of ['get_manifest_json', 'get_static_site_webmanifest', 'get_exports_session_har'])
      expect(planOf(s, t)?.kind).toBe('document');
    expect(planOf(s, 'get_api_items')?.kind).toBe('list');
  });

  it("a .json list beside its item template is the API's format suffix and stays a list (Redmine /issues.json)", () => {
    const s = stateOf([
      {
        url: `${A}/issues.json`,
        body: {
          issues: [
            { id: 1, subject: 'a' },
            { id: 2, subject: 'b' },
          ],
          total_count: 2,
        },
      },
      { url: `${A}/issues/1.json`, body: { issue: { id: 1, subject: 'a' } } },
    ]);
    expect(s.types.map((t) => [t.root_path, t.initial_order])).toEqual([['/issues', ['1', '2']]]);
    expect(planOf(s, 'get_issues_json')?.kind).toBe('list');
  });

  it('a .json file read on two request lines is judged as before (it may be a collection)', () => {
    const s = stateOf([
      { url: `${A}/data.json?page=1`, body: [{ id: 1, name: 'a' }] },
      { url: `${A}/data.json?page=2`, body: [{ id: 2, name: 'b' }] },
    ]);
    expect(s.types.map((t) => t.root_path)).toEqual(['/data']);
  });

  it('DOC-1 file_documents, rows in and out: one-line file tools; not a .json beside another tool of its root, not two lines', () => {
    const f = factStore(dir);
    const manifest = f.tool({ template: '/manifest.json', root: '/manifest' });
    const har = f.tool({ template: '/exports/session.har', root: '/exports' });
    const issues = f.tool({ template: '/issues.json', root: '/issues' });
    const issue = f.tool({ template: '/issues/{id}.json', root: '/issues' });
    const data = f.tool({ template: '/data.json', root: '/data' });
    f.record({ tool: manifest, path: '/manifest.json', body: { name: 'App' } });
    f.record({ tool: manifest, path: '/manifest.json', body: { name: 'App' } });
    f.record({ tool: har, path: '/exports/session.har', body: { log: {} } });
    f.record({ tool: issues, path: '/issues.json', body: { issues: [] } });
    f.record({ tool: issue, path: '/issues/1.json', body: { issue: { id: 1 } }, pathParams: ['1'] });
    f.record({ tool: data, path: '/data.json', query: 'page=1', body: [] });
    f.record({ tool: data, path: '/data.json', query: 'page=2', body: [] });
    expect(f.rows('select tool_id, root_path from file_documents order by tool_id')).toEqual([
      [manifest, '/manifest'],
      [har, '/exports'],
    ]);
    expect(f.rows('select tool, lists_collection from read_records order by ordinal')).toEqual([
      ['GET /manifest.json', 0],
      ['GET /manifest.json', 0],
      ['GET /exports/session.har', 0],
      ['GET /issues.json', 1],
      ['GET /issues/{id}.json', 0],
      ['GET /data.json', 1],
      ['GET /data.json', 1],
    ]);
    f.db.close();
  });

  it('a source map is unusable for state: no tool, no type, no document', () => {
    const tools = manifestOf([
      { url: `${A}/api/items`, body: [{ id: 1 }] },
      { url: `${A}/static/main.js.map`, body: { version: 3, sources: ['a.ts'], mappings: 'AAAA' } },
    ]);
    expect(templates(tools)).toEqual(['GET /api/items']);
  });
});

describe('issue 18 RPC-style reads sent as POST are query POSTs', () => {
  const rpc: Exchange[] = [
    { url: `${A}/api/users`, body: [{ id: 1, name: 'a' }] },
    { method: 'POST', url: `${A}/api/users/queries/getCurrentUser`, requestBody: {}, body: { id: 1, name: 'a' } },
    { method: 'POST', url: `${A}/_api/GetNavigationMenu2`, requestBody: {}, body: { items: [] } },
    { method: 'POST', url: `${A}/$rpc/google.example.v1.Service/FetchThings`, requestBody: [], body: [] },
    { method: 'POST', url: `${A}/api/list_users`, requestBody: {}, body: [] },
    // Words that only start with a verb are writes: `listings`, `readme`; so is a plain create.
    { method: 'POST', url: `${A}/shop/listings`, requestBody: {}, body: { id: 9 } },
    { method: 'POST', url: `${A}/docs/readme`, requestBody: {}, body: { id: 9 } },
    { method: 'POST', url: `${A}/api/users`, requestBody: { name: 'b' }, body: { id: 2, name: 'b' } },
    {
      url: `${A}/api/users`,
      body: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
    },
  ];

  it("method names starting with get|list|fetch|read|describe, a /queries/ or /$rpc/ segment, beside OQ-7's names", () => {
    const query = Object.fromEntries(
      manifestOf(rpc)
        .filter((t) => t.method === 'POST')
        .map((t) => [t.template, t.is_query_post]),
    );
    expect(query).toEqual({
      '/api/users/queries/getCurrentUser': true,
      '/_api/GetNavigationMenu2': true,
      '/$rpc/google.example.v1.Service/FetchThings': true,
      '/api/list_users': true,
      '/shop/listings': false,
      '/docs/readme': false,
      '/api/users': false,
    });
  });

  it('such a POST no longer bounds the types under its root: the first write does', () => {
    const s = stateOf(rpc);
    // The API base is `/` (`/_api`, `/$rpc` beside `/api`), so the users' root is `/api`.
    const users = s.types.find((t) => t.root_path === '/api')!;
    // #2 (getCurrentUser) and #5 (list_users) are reads now; POST /api/users (#8) bounds the type.
    expect(users.bound).toEqual({ rule: 'ES-8', write_ordinal: 8 });
    expect(users.initial_order).toEqual(['1']);
  });

  it("the words are the vocabulary table's: a store without the `get` prefix row makes getCurrentUser a write", () => {
    const db = join(dir, 'no-get.sqlite');
    openStore(db, { write: true }).close();
    const raw = new Database(db);
    raw.prepare("delete from vocabulary where vocabulary = 'query_method_prefix' and name = 'get'").run();
    raw.close();
    const query = Object.fromEntries(
      manifestOf(rpc, db)
        .filter((t) => t.method === 'POST')
        .map((t) => [t.template, t.is_query_post]),
    );
    expect(query['/api/users/queries/getCurrentUser']).toBe(true); // still by its /queries/ segment
    expect(query['/_api/GetNavigationMenu2']).toBe(false);
    expect(query['/$rpc/google.example.v1.Service/FetchThings']).toBe(true);
  });
});

describe('issue 18 no empty echo types', () => {
  it('ES-38 item_locations, rows in and out: an object holding only the path value is no entity location', () => {
    const f = factStore(dir);
    const status = f.tool({ template: '/api/status/{code}', root: '/api/status' });
    const dash = f.tool({ template: '/api/dashboards/{uid}', root: '/api/dashboards' });
    f.record({ tool: status, path: '/api/status/200', body: { statusExpected: 200 }, pathParams: ['200'] });
    f.record({
      tool: dash,
      path: '/api/dashboards/abc',
      body: { dashboard: { ref: 'abc' }, meta: { ref: 'abc', slug: 's' } },
      pathParams: ['abc'],
    });
    f.record({ tool: dash, path: '/api/dashboards/def', body: { uid: 'def', title: 'Def' }, pathParams: ['def'] });
    f.record({ tool: status, path: '/api/status/201', body: { statusExpected: 201, text: 'Created' }, pathParams: ['201'] });
    f.record({ tool: dash, path: '/api/dashboards/ghi', body: { uid: 'ghi' }, pathParams: ['ghi'] });
    // #1: only the echo; #2: `/dashboard` holds only the echo, `/meta` more; #3, #4: more than
    // the echo; #5: an identity name alone is an entity (IDN-5's `{"id": "w-001"}`).
    expect(f.rows('select ordinal, entity_pointer, identity_key from item_locations order by ordinal')).toEqual([
      [2, '/meta', 'ref'],
      [3, '', 'uid'],
      [4, '', 'statusExpected'],
      [5, '', 'uid'],
    ]);
    f.db.close();
  });

  it('a root whose item reads only echo their path value holds no entity and is not a type', () => {
    const s = stateOf([
      { url: `${A}/api/status/200`, body: { statusExpected: 200 } },
      { url: `${A}/api/status/404`, body: { statusExpected: 404 } },
      { url: `${A}/api/items/7`, body: { id: 7, name: 'seven' } },
    ]);
    expect(s.types.map((t) => t.root_path)).toEqual(['/api/items']);
    expect(s.entities.map((e) => `${e.collection}/${e.id}`)).toEqual(['items/7']);
    expect(planOf(s, 'get_api_status_by_statusexpected') ?? planOf(s, 'get_api_status_by_id')).toMatchObject({
      kind: 'record',
      reason: 'no-identity',
    });
    expect(planOf(s, 'get_api_items_by_id')?.kind).toBe('item');
  });
});

describe('issue 18 tool names cut at a token boundary', () => {
  it('names within 64 characters end on a whole token, and names the cut made equal keep the token that tells them apart', () => {
    const long = 'segment-of-a-rather/long-path/that-goes-on/and-on-and-on/beyond';
    const tools = manifestOf([
      { url: `${A}/api/${long}/sixty-four/characters/alpha`, body: {} },
      { url: `${A}/api/${long}/sixty-four/characters/beta`, body: {} },
      { url: `${A}/api/${long}/sixty-four/characters/beta/items/12`, body: {} },
      // Equal once spelled as tokens: only these two need a number.
      { url: `${A}/api/folders-archive`, body: [] },
      { url: `${A}/api/folders_archive`, body: [] },
    ]);
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    const tokensOf = (t: Tool) =>
      `${t.method}_${t.template}`
        .toLowerCase()
        .replace(/\{([^}]+)\}/g, 'by_$1')
        .replace(/[^a-z0-9_]+/g, '_')
        .replace(/_+/g, '_')
        .replace(/^_|_$/g, '')
        .split('_');
    for (const t of tools) {
      expect(t.name.length).toBeLessThanOrEqual(64);
      // Every token of the name is a whole token of the template (no token cut in two), bar a `_2`.
      const tokens = new Set(tokensOf(t));
      for (const w of t.name.replace(/_\d+$/, '').split('_')) expect(tokens.has(w), `${t.name}: ${w}`).toBe(true);
    }
    const byEnd = tools.filter((t) => t.template.includes(long));
    expect(byEnd.map((t) => t.name).filter((x) => /_\d+$/.test(x))).toEqual([]);
    expect(byEnd.find((t) => t.template.endsWith('/alpha'))!.name).toMatch(/_alpha$/);
    expect(byEnd.find((t) => t.template.endsWith('/beta'))!.name).toMatch(/_beta$/);
    expect(names).toContain('get_api_folders_archive');
    expect(names).toContain('get_api_folders_archive_2');
  });
});
