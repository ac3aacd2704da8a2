/** MCP test helpers: a real Client linked to the server in process (STYLE §9). */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { closeServeContext, openServeContext, type ServeContext } from '../src/model/served/context.js';
import { createServer } from '../src/mcp/server.js';
import { listenHttp } from '../src/http/server.js';
import type { Catalog } from '../src/serve/catalog.js';
import type { BrowserPolicy } from '../src/serve/browser-policy.js';
import { writeHar, type Exchange } from './har-builder.js';
import { cli } from './helpers.js';

export interface Served {
  ctx: ServeContext;
  client: Client;
  catalog: Catalog;
  tools: Tool[];
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  tool: (name: string) => Tool;
  close: () => Promise<void>;
}

/** Serves a store in process and connects a real MCP client to it. */
export async function serveStore(
  db: string,
  opts: { reserveBytes?: number; browser?: BrowserPolicy; maxAnswerBytes?: number; capture?: number } = {},
): Promise<Served> {
  const ctx = await openServeContext(db, opts.capture);
  const { server, catalog } = await createServer(ctx, opts);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'capstate-test', version: '1' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  return {
    ctx,
    client,
    catalog,
    tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    tool: (name) => {
      const t = tools.find((x) => x.name === name);
      if (!t) throw new Error(`no tool ${name}; tools: ${tools.map((x) => x.name).join(', ')}`);
      return t;
    },
    close: async () => {
      await client.close();
      await server.close();
      await closeServeContext(ctx);
    },
  };
}

let n = 0;

/** Writes exchanges as a HAR, loads it into a new store with the CLI, and serves it. */
export async function serveHar(
  dir: string,
  exchanges: Exchange[],
  opts: { reserveBytes?: number; browser?: BrowserPolicy } = {},
): Promise<Served> {
  const name = `serve-${process.pid}-${n++}`;
  const har = writeHar(dir, `${name}.har`, exchanges);
  const db = join(dir, `${name}.sqlite`);
  const r = cli(['load', har, '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  return serveStore(db, opts);
}

/** A tool's description: one line (issue 46: the untrusted-catalog warning is in the server's instructions, not here). */
export function line(t: Tool): string {
  const description = t.description ?? '';
  expect(description).not.toMatch(/^Untrusted catalog: |\n/);
  return description;
}

export function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** One tool per method of MCP-1's table (GET, HEAD, OPTIONS, query POST, POST, PATCH, PUT, DELETE). */
export const METHOD_EXCHANGES: Exchange[] = [
  {
    url: 'http://localhost:3000/api/v1/items',
    body: [
      { id: 'it-01', name: 'A' },
      { id: 'it-02', name: 'B' },
    ],
  },
  { method: 'HEAD', url: 'http://localhost:3000/api/v1/items/it-01' },
  { method: 'OPTIONS', url: 'http://localhost:3000/api/v1/items', status: 204 },
  { method: 'POST', url: 'http://localhost:3000/api/v1/search', requestBody: { q: 'a' }, body: { hits: [{ id: 'it-01' }] } },
  { method: 'POST', url: 'http://localhost:3000/api/v1/search', requestBody: { q: 'b' }, body: { hits: [] } },
  { method: 'POST', url: 'http://localhost:3000/api/v1/items', requestBody: { name: 'C' }, status: 201, body: { id: 'it-03', name: 'C' } },
  { method: 'PATCH', url: 'http://localhost:3000/api/v1/items/it-01', requestBody: { name: 'Z' }, body: { id: 'it-01', name: 'Z' } },
  {
    method: 'PUT',
    url: 'http://localhost:3000/api/v1/items/it-02',
    requestBody: { id: 'it-02', name: 'Y' },
    body: { id: 'it-02', name: 'Y' },
  },
  { method: 'DELETE', url: 'http://localhost:3000/api/v1/items/it-03', status: 204 },
];

/** MCP-1's table: (method, template prefix, expected hints) for METHOD_EXCHANGES. */
export const METHOD_HINTS: [string, string | undefined, Record<string, unknown>][] = [
  ['GET', '/api/v1/items', { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
  ['HEAD', undefined, { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
  ['OPTIONS', undefined, { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
  ['POST', '/api/v1/search', { readOnlyHint: true, idempotentHint: false, openWorldHint: false }],
  ['POST', '/api/v1/items', { readOnlyHint: false, idempotentHint: false, openWorldHint: false }],
  ['PATCH', undefined, { readOnlyHint: false, idempotentHint: false, openWorldHint: false }],
  ['PUT', undefined, { readOnlyHint: false, idempotentHint: true, openWorldHint: false }],
  ['DELETE', undefined, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }],
];

/** Loads `capture` into a new store `db` with the CLI and serves it over HTTP on a free loopback port. */
export async function serveHttp(capture: string, db: string): Promise<{ base: string; close: () => Promise<void> }> {
  const r = cli(['load', capture, '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  return serveStoreHttp(db);
}

/** Serves an already loaded store `db` over HTTP on a free loopback port. */
export async function serveStoreHttp(db: string): Promise<{ base: string; close: () => Promise<void> }> {
  const ctx = await openServeContext(db);
  const { server, url } = await listenHttp(ctx, '127.0.0.1', 0);
  return {
    base: url,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeServeContext(ctx);
    },
  };
}
