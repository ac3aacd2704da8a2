import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHar } from './har-builder.js';
import { cli, cliPath, fixture, root, tempDir } from './helpers.js';
import { METHOD_EXCHANGES, METHOD_HINTS } from './serve-helpers.js';

const grafana = fixture('grafana-mini', 'capture.har');

describe('ACC-7 the compiled server over stdio (node dist/src/cli/main.js serve CAPTURE)', () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, 'serve', grafana], cwd: root, stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    client = new Client({ name: 'capstate-stdio-test', version: '1' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('advertises the MCP-1 hints, schemas and descriptions', async () => {
    const { tools } = await client.listTools();
    const folder = tools.find((t) => t.name === 'get_api_folders_by_uid')!;
    expect(folder.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(folder.inputSchema).toMatchObject({ type: 'object', required: ['uid'] });
    expect(folder.description).toMatch(/^GET \/api\/folders\/\{uid\}; returns object with fields "id", "uid"/);
    expect(tools.find((t) => t.name === 'post_api_annotations')!.annotations).toEqual({
      readOnlyHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['inspect_analysis_view', 'query_store']));
    expect(stderr).toMatch(/serving capture 1 .* over MCP stdio: 10 environment tools/);
  });

  it('answers a read tool with what the capture recorded', async () => {
    const r = (await client.callTool({ name: 'get_api_folders_by_uid', arguments: { uid: 'nErXDvCkzz' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      status: 200,
      record_ordinal: 6,
      source: 'state',
      body: { uid: 'nErXDvCkzz', title: 'Dept' },
    });
  });

  it('returns bad arguments as isError and keeps serving; 64-bit integers stay exact over the wire', async () => {
    const bad = (await client.callTool({ name: 'get_api_folders_by_uid', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content[0] as { text: string }).text)).toMatchObject({ ok: false, code: 'bad-arguments' });
    const q = (await client.callTool({ name: 'query_store', arguments: { sql: 'select 9007199254740993 as n' } })) as CallToolResult;
    expect((q.content[0] as { text: string }).text).toMatch(/9007199254740993/);
    expect(q.structuredContent).toMatchObject({ rows: [{ n: '9007199254740993' }] });
  });
});

describe('ACC-7 MCP-1 the compiled server advertises every row of the hint table', () => {
  it('GET, HEAD, OPTIONS, query POST, POST, PATCH, PUT, DELETE over stdio', async () => {
    const har = writeHar(tempDir(), 'methods.har', METHOD_EXCHANGES);
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, 'serve', har], cwd: root, stderr: 'pipe' });
    const client = new Client({ name: 'capstate-stdio-test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      for (const [method, template, hints] of METHOD_HINTS) {
        const t = tools.find((x) => (x.description ?? '').startsWith(`${method} ${template ?? ''}`));
        expect(t?.annotations, `${method} ${template ?? ''}`).toEqual(hints);
      }
    } finally {
      await client.close();
    }
  });
});

describe('MCP-2 capstate card (the environment card)', () => {
  const dir = tempDir();
  const db = join(dir, 'card.sqlite');
  beforeAll(() => {
    expect(cli(['load', grafana, '--db', db]).status).toBe(0);
  });

  it('MCP-2 --json: one document, tools as {name, description, inputSchema} without hints', () => {
    const r = cli(['card', '--db', db, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { format_version: number; ok: boolean; tools: Record<string, unknown>[]; limitations: string[] };
    expect(doc.format_version).toBe(1);
    expect(doc.ok).toBe(true);
    expect(doc.tools.length).toBe(10);
    for (const t of doc.tools) expect(Object.keys(t)).toEqual(['name', 'description', 'inputSchema']);
    expect(doc.limitations).toEqual([]);
  });

  it('loads a capture path into a temporary store, and the card matches the one from the store', () => {
    const fromFile = JSON.parse(cli(['card', grafana, '--json']).stdout) as { tools: unknown[] };
    const fromDb = JSON.parse(cli(['card', '--db', db, '--json']).stdout) as { tools: unknown[] };
    expect(fromFile.tools).toEqual(fromDb.tools);
    const text = cli(['card', '--db', db]);
    expect(text.stdout).toMatch(/get_api_folders_by_uid\n {4}GET \/api\/folders\/\{uid\}; returns object/);
  });

  it("ACC-5 golden: grafana-mini's card tools match fixtures/grafana-mini/expected/card.json", () => {
    const doc = JSON.parse(cli(['card', '--db', db, '--json']).stdout) as { tools: unknown[]; limitations: string[] };
    const expected = JSON.parse(readFileSync(fixture('grafana-mini', 'expected', 'card.json'), 'utf8')) as {
      tools: unknown[];
      limitations: string[];
    };
    expect({ tools: doc.tools, limitations: doc.limitations }).toEqual(expected);
  });

  it('issue 46: a store with several captures serves the latest without --capture, and says so', () => {
    const two = join(dir, 'two.sqlite');
    expect(cli(['load', grafana, fixture('redmine-json', 'capture.har'), '--db', two]).status).toBe(0);
    const r = cli(['card', '--db', two, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/reading the latest, 2 \(.*redmine-json\/capture\.har\); the other: 1 \(.*grafana-mini\/capture\.har\)/);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(cli(['card', '--db', two, '--capture', '2', '--json']).stdout));
    expect(cli(['card', '--db', two, '--capture', '1', '--json']).stderr).not.toMatch(/latest/);
  });
});
