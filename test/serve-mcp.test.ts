import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, fixture, tempDir } from './helpers.js';
import { serveStore, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const db = join(dir, 'grafana.sqlite');
const har = JSON.parse(readFileSync(fixture('grafana-mini', 'capture.har'), 'utf8')) as {
  log: { entries: { request: { method: string; url: string }; response: { status: number; content: { text?: string } } }[] };
};
let s: Served;

beforeAll(async () => {
  const r = cli(['load', fixture('grafana-mini', 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  s = await serveStore(db);
});
afterAll(async () => {
  await s?.close();
});

describe('ACC-7 in-process MCP server (grafana-mini)', () => {
  it('lists one tool per manifest tool plus the analysis tools and the data plane (issue 16)', () => {
    const names = s.tools.map((t) => t.name);
    for (const t of s.ctx.manifest.tools) expect(names).toContain(t.name);
    expect(names).toEqual(expect.arrayContaining(['inspect_analysis_view', 'inspect_environment_manifest', 'query_store']));
    // capture_browser_scenario runs a browser on this machine: listed only with serve --allow-browser;
    // compare_web_captures is not about the app (issue 46): listed only with --evidence-dir or --allow-browser.
    expect(names).not.toContain('capture_browser_scenario');
    expect(names).not.toContain('compare_web_captures');
    expect(names).toEqual(expect.arrayContaining(['reset_state', 'get_state', 'load_state']));
    expect(names.length).toBe(s.ctx.manifest.tools.length + 3 + 3);
  });

  it('MCP-1: advertises the hints of every tool', () => {
    expect(s.tool('get_api_folders_by_uid').annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(s.tool('post_api_annotations').annotations).toEqual({ readOnlyHint: false, idempotentHint: false, openWorldHint: false });
    // Without --allow-browser no tool is open-world (capture_browser_scenario is the only one).
    for (const t of s.tools) expect(t.annotations?.openWorldHint, t.name).toBe(false);
  });

  it('inputSchema: template parameters required, recorded query keys optional and described', () => {
    const item = s.tool('get_api_folders_by_uid').inputSchema as {
      required?: string[];
      properties: Record<string, { type: string; description: string }>;
    };
    expect(item.required).toEqual(['uid']);
    expect(item.properties.uid.type).toBe('string');
    expect(item.properties.uid.description).toContain('"nErXDvCkzz"');
    const list = s.tool('get_api_annotations').inputSchema as unknown as {
      required?: string[];
      properties: { query: { properties: Record<string, unknown> } };
    };
    expect(list.required).toBeUndefined();
    expect(Object.keys(list.properties.query.properties)).toEqual(['from', 'to', 'limit', 'matchAny', 'dashboardUID']);
    const post = s.tool('post_api_annotations').inputSchema as unknown as {
      properties: { body: { type: string; properties: Record<string, unknown> } };
    };
    expect(post.properties.body.type).toBe('object');
    expect(Object.keys(post.properties.body.properties).length).toBeGreaterThan(0);
  });

  it('every read tool answers what the capture recorded for its request line', async () => {
    for (const t of s.ctx.manifest.tools.filter((x) => x.method === 'GET')) {
      const ordinal = t.record_ordinals[0];
      const entry = har.log.entries[ordinal - 1];
      const url = new URL(entry.request.url);
      const args: Record<string, unknown> = {};
      const names = [...t.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const tSegs = t.template.split('/');
      const pSegs = url.pathname.split('/');
      for (const nm of names) args[nm] = decodeURIComponent(pSegs[tSegs.indexOf(`{${nm}}`)]);
      if (url.search) args.query = Object.fromEntries(url.searchParams);
      const r = await s.call(t.name, args);
      expect(r.isError, text(r)).toBeFalsy();
      const sc = r.structuredContent as { status: number; record_ordinal: number; source: string; why: string; body_kind: string };
      expect(sc.status).toBe(entry.response.status);
      const recorded = har.log.entries[sc.record_ordinal - 1].response.content.text;
      if (sc.source === 'state') {
        // ES-37: a kept plan renders exactly the recorded value (member order aside).
        expect(sc.why).toMatch(/^(rendered from state|document of)/);
        expect(JSON.parse((r.content[1] as { text: string }).text)).toEqual(JSON.parse(recorded!));
      } else {
        expect(sc.source).toBe('replay');
        expect(sc.why).toMatch(/record of/);
        // The text content carries the retained body exactly.
        if (sc.body_kind === 'json' || sc.body_kind === 'text') expect(r.content[1]).toEqual({ type: 'text', text: recorded });
      }
    }
  });

  it('answers with the latest initial record, not a record after the write that bounds the type', async () => {
    const r = await s.call('get_api_annotations', {
      query: { from: '1772421302000', to: '1772442902000', limit: '100', matchAny: 'false', dashboardUID: 'abc123XYZ' },
    });
    const sc = r.structuredContent as { record_ordinal: number; why: string; body: { id: number }[] };
    expect(sc.record_ordinal).toBe(9);
    expect(sc.why).toMatch(/^rendered from state: annotations list/);
    expect(sc.body[0].id).toBe(16);
  });

  it('query keys compare as a set of pairs, whatever their order (values are strings, as the inputSchema says)', async () => {
    const r = await s.call('get_api_annotations', {
      query: { dashboardUID: 'abc123XYZ', matchAny: 'false', limit: '100', to: '1772442902000', from: '1772421302000' },
    });
    expect(r.isError, text(r)).toBeFalsy();
    expect((r.structuredContent as { record_ordinal: number }).record_ordinal).toBe(9);
  });

  it('keeps a 64-bit integer exact: digits in the text, a labelled string in structuredContent', async () => {
    const hit = await s.call('query_store', {
      sql: "select r.ordinal from record r join body b on b.id = r.response_body_id where b.content like '%9007199254740993%'",
    });
    const ordinal = (hit.structuredContent as { rows: { ordinal: number }[] }).rows[0].ordinal;
    const tool = s.ctx.manifest.tools.find((t) => t.record_ordinals.includes(ordinal))!;
    const r = await s.call(tool.name, tool.template.includes('{uid}') ? { uid: 'abc123XYZ' } : {});
    expect(text(r)).toContain('9007199254740993');
    const sc = r.structuredContent as { integers_as_strings: string[] };
    expect(sc.integers_as_strings.length).toBeGreaterThan(0);
  });

  it('a write tool replays its recorded answer and says writes are not modelled', async () => {
    const r = await s.call('post_api_annotations', {});
    const sc = r.structuredContent as { status: number; why: string; body: unknown };
    expect(sc.status).toBe(201);
    expect(sc.body).toEqual({ id: 17, message: 'Annotation added' });
    expect(sc.why).toMatch(/not modelled/);
  });

  it('non-JSON bodies: text and base64 come back as recorded, labelled by kind (DESC-6)', async () => {
    const page = await s.call('get_d_by_id_service_overview', { id: 'abc123XYZ', query: { orgId: '1' } });
    expect((page.structuredContent as { body_kind: string; body: unknown }).body_kind).toBe('text');
    expect((page.structuredContent as { body: unknown }).body).toBeNull();
    expect(text(page)).toContain('<!DOCTYPE html>');
    // Issue 17: the favicon is a static asset, kept as a fact but not a tool; an API answering
    // the same PNG bytes is one, and replays them base64-encoded.
    expect(s.tools.map((t) => t.name)).not.toContain('get_public_img_fav32_png');
    const doc = JSON.parse(readFileSync(fixture('grafana-mini', 'capture.har'), 'utf8'));
    const favicon = doc.log.entries[1];
    favicon.request.url = 'http://localhost:3000/api/avatar/3f2a9c1e';
    favicon._resourceType = 'fetch';
    const avatarHar = join(dir, 'avatar.har');
    writeFileSync(avatarHar, JSON.stringify(doc));
    const avatarDb = join(dir, 'avatar.sqlite');
    expect(cli(['load', avatarHar, '--db', avatarDb]).status).toBe(0);
    const a = await serveStore(avatarDb);
    try {
      const png = await a.call('get_api_avatar_by_id', { id: '3f2a9c1e' });
      expect((png.structuredContent as { body_kind: string; body_base64: string }).body_kind).toBe('base64');
      expect(
        Buffer.from((png.structuredContent as { body_base64: string }).body_base64, 'base64')
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
    } finally {
      await a.close();
    }
  });
});

describe('ACC-5 grafana-mini descriptions: object, array and envelope lists', () => {
  // Issue 46: one line, no warning before it (the server's instructions carry it).
  const descLine = (name: string) => s.tool(name).description ?? '';
  it('describes each shape from the first 2xx JSON record', () => {
    expect(descLine('get_api_folders')).toMatch(
      /^GET \/api\/folders; returns array of objects with fields "id", "uid", "title"; recorded statuses 200; answers its recorded request lines from state; seen in record 5$/,
    );
    expect(descLine('get_api_dashboards_uid_by_uid')).toMatch(/; returns object with fields "meta", "dashboard";/);
    expect(descLine('get_api_teams_search')).toMatch(
      /; returns object with fields "totalCount", "teams" \(list of objects with fields "id", "uid", .*\), "page", "perPage";/,
    );
    expect(descLine('get_api_annotations')).toMatch(/; seen in records 9 and 11$/);
    // DESC-6: non-JSON bodies (an HTML page) give no <returns>.
    expect(descLine('get_d_by_id_service_overview')).toMatch(/^GET \/d\/\{id\}\/service-overview; recorded statuses 200;/);
  });
});

describe('ACC-7 bad arguments come back as isError and the server keeps serving', () => {
  const cases: [string, string, Record<string, unknown>, RegExp][] = [
    ['missing path parameter', 'get_api_folders_by_uid', {}, /missing required path parameter "uid"/],
    ['unknown argument', 'get_api_folders_by_uid', { uid: 'nErXDvCkzz', limit: 3 }, /unknown argument "limit"/],
    ['unknown query key', 'get_api_annotations', { query: { nope: '1' } }, /unknown query key "nope"/],
    ['query not an object', 'get_api_annotations', { query: 'from=1' }, /query must be an object/],
    ['object as a path value', 'get_api_folders_by_uid', { uid: { a: 1 } }, /must be a non-empty string/],
    ['unknown tool', 'get_api_nothing', {}, /no tool "get_api_nothing"/],
  ];
  for (const [what, tool, args, message] of cases) {
    it(what, async () => {
      const r = await s.call(tool, args);
      expect(r.isError).toBe(true);
      const err = JSON.parse(text(r)) as { ok: boolean; code: string; message: string };
      expect(err.ok).toBe(false);
      expect(err.message).toMatch(message);
      const again = await s.call('get_api_folders', {});
      expect(again.isError).toBeFalsy();
    });
  }

  it('a call no record answers names the tool and the request lines it knows', async () => {
    const missingQuery = await s.call('get_api_annotations', {});
    expect(missingQuery.isError).toBe(true);
    const err = missingQuery.structuredContent as { code: string; message: string; context: { recorded_request_lines: string[] } };
    expect(err.code).toBe('no-record');
    expect(err.message).toMatch(/^get_api_annotations: no retained record answers GET \/api\/annotations; recorded request lines: /);
    expect(err.context.recorded_request_lines.length).toBeGreaterThan(0);
    expect(text(missingQuery)).toContain('GET /api/annotations?from=1772421302000');
  });
});

describe('OQ-4 analysis tools: inspect_analysis_view, inspect_environment_manifest, query_store (STYLE §14)', () => {
  it('query_store runs read-only SQL, caps rows and refuses writes', async () => {
    const r = await s.call('query_store', { sql: 'select ordinal, status from record order by ordinal', max_rows: 2 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      columns: ['ordinal', 'status'],
      rows: [
        { ordinal: 1, status: 200 },
        { ordinal: 2, status: 200 },
      ],
      truncated: true,
    });
    const w = await s.call('query_store', { sql: 'delete from record' });
    expect(w.isError).toBe(true);
    const bad = await s.call('query_store', { sql: 'select * from nowhere' });
    expect((bad.structuredContent as { code: string }).code).toBe('bad-sql');
    const wide = await s.call('query_store', {
      sql: "with recursive n(i) as (select 1 union all select i + 1 from n where i < 50) select i, printf('%.100000c', 'x') from n",
      max_rows: 50,
    });
    const doc = wide.structuredContent as { rows: unknown[]; truncated: boolean; truncated_at_bytes: number };
    expect(doc.truncated).toBe(true);
    expect(doc.truncated_at_bytes).toBe(1024 * 1024);
    expect(doc.rows.length).toBe(10);
    const big = await s.call('query_store', { sql: 'select 9007199254740993 as n' });
    expect(text(big)).toMatch(/"n": ?9007199254740993\s*\}/);
    expect(big.structuredContent).toMatchObject({ rows: [{ n: '9007199254740993' }] });
  });

  it('inspect_analysis_view gives the environment manifest and the environment state', async () => {
    const m = await s.call('inspect_analysis_view', { view: { kind: 'environment-manifest' } });
    expect(m.isError).toBeFalsy();
    const doc = m.structuredContent as { manifest: { tools: { name: string }[] } };
    expect(doc.manifest.tools.map((t) => t.name)).toContain('get_api_folders');
    const alias = await s.call('inspect_environment_manifest', {});
    expect((alias.structuredContent as { manifest: unknown }).manifest).toEqual(doc.manifest);
    const st = await s.call('inspect_analysis_view', { view: { kind: 'environment-state' } });
    expect(st.isError, text(st)).toBeFalsy();
    // The same document `capstate state --json` prints (one derivation, ES-1).
    const cliDoc = JSON.parse(cli(['state', '--db', s.ctx.file, '--json']).stdout);
    expect(JSON.parse(text(st))).toEqual(cliDoc);
    expect((st.structuredContent as { sha256: string }).sha256).toBe(cliDoc.sha256);
    const bad = await s.call('inspect_analysis_view', { view: { kind: 'nope' } });
    expect(text(bad)).toMatch(/unknown view kind/);
  });
});

describe('docs (STYLE §8)', () => {
  it('every analysis MCP tool is documented in the README', async () => {
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    const { ANALYSIS_TOOLS } = await import('../src/serve/analysis.js');
    for (const t of ANALYSIS_TOOLS) expect(readme, t.name).toContain(`\`${t.name}\``);
    expect(readme).toMatch(/## Serve over MCP/);
  });
});

describe('ES-5 exact numbers through replay (STYLE §5 property)', () => {
  it('any 64-bit integers in a body come back digit for digit: exact in the text, labelled strings in structuredContent', async () => {
    const { default: fc } = await import('fast-check');
    const { serveHar } = await import('./serve-helpers.js');
    const work = tempDir();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: 1, maxLength: 40 }), async (ns) => {
        const raw = `{"values":[${ns.join(',')}],"first":${ns[0]}}`;
        const served = await serveHar(work, [{ url: 'http://localhost:3000/api/numbers', body: raw }]);
        try {
          const r = await served.call('get_api_numbers', {});
          expect((r.content[1] as { text: string }).text).toBe(raw);
          const sc = r.structuredContent as {
            body: { values: (number | string)[]; first: number | string };
            integers_as_strings?: string[];
          };
          ns.forEach((n, i) => expect(String(sc.body.values[i])).toBe(n.toString()));
          const unsafe = ns
            .map((n, i) => [n, i] as const)
            .filter(([n]) => n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER));
          for (const [, i] of unsafe) {
            expect(typeof sc.body.values[i]).toBe('string');
            expect(sc.integers_as_strings).toContain(`/values/${i}`);
          }
        } finally {
          await served.close();
        }
      }),
      { numRuns: 8 },
    );
  });
});
