/**
 * Issue 42, finding 5 and the load_state part of finding 6: every answer bounded, the
 * state sent once, an oversize request answered with its own id, and a state nested too
 * deeply refused as the caller's mistake, naming where. Each test drives the server as a
 * client does (the SDK client in process or over stdio, fetch over HTTP).
 */
import { join } from 'node:path';
import type { Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHttp } from '../src/http/server.js';
import { LineIdScanner } from '../src/mcp/line-id.js';
import { closeServeContext, openServeContext, type ServeContext } from '../src/model/served/context.js';
import { cli, cliPath, fixture, root, tempDir } from './helpers.js';
import { serveStore, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const db = join(dir, 'bounds.sqlite');
beforeAll(() => {
  const r = cli(['load', fixture('grafana-mini', 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
});

const bytesOf = (r: unknown) => Buffer.byteLength(JSON.stringify(r), 'utf8');
const errorDoc = (r: CallToolResult) =>
  JSON.parse((r.content[0] as { text: string }).text) as { code: string; message: string; context: Record<string, unknown> };

/** `{"a": {"a": … 1 …}}`, `levels` objects deep, as text (no recursive stringify). */
const nestedText = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('issue 42: MCP answers are bounded and the session goes on', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveStore(db);
  });
  afterAll(async () => {
    await s.close();
  });

  it('query_store with a 10 MB comment inside its one column answers in a few KB: the column name is echoed in short', async () => {
    const comment = 'z'.repeat(10_000_000);
    const r = await s.call('query_store', { sql: `select 1 + /* ${comment} */ 1` });
    expect(r.isError, text(r)).toBeFalsy();
    expect(bytesOf(r)).toBeLessThan(8 * 1024);
    const doc = r.structuredContent as { rows: Record<string, unknown>[]; columns: string[] };
    expect(doc.columns).toEqual([expect.stringMatching(/^1 \+ \/\* z+… \(\d+ bytes, sha256 [0-9a-f]{16}…\)$/)]);
    // Issue 46: rows are keyed by column, by the short echo too.
    expect(doc.rows).toEqual([{ [doc.columns[0]]: 2 }]);
    // The session answers the next call.
    expect((await s.call('query_store', { sql: 'select count(*) as n from record' })).isError).toBeFalsy();
  });

  it('get_state carries the state once: the exact text, and structuredContent without a second copy', async () => {
    const r = await s.call('get_state');
    expect(r.isError, text(r)).toBeFalsy();
    const stateText = (r.content[1] as { text: string }).text;
    expect(JSON.parse(stateText)).toMatchObject({ kind: 'served-state' });
    expect(r.structuredContent).toEqual({
      ok: true,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      bytes: Buffer.byteLength(stateText),
      state_in: 'content[1].text',
    });
    // The whole result: the text once (JSON-escaped) and a few hundred bytes more.
    expect(bytesOf(r)).toBeLessThan(bytesOf(stateText) + 1024);
  });

  it('load_state of a state nested 100,000 levels deep is bad-state naming the path where it passed the limit, and the state stays', async () => {
    const before = (await s.call('get_state')).structuredContent as { sha256: string };
    const state = JSON.parse(((await s.call('get_state')).content[1] as { text: string }).text) as {
      entities: { value: Record<string, unknown> }[];
    };
    state.entities[0].value.deep = JSON.parse(nestedText(100_000));
    const r = await s.call('load_state', { state });
    expect(r.isError).toBe(true);
    const doc = errorDoc(r);
    expect(doc).toMatchObject({ code: 'bad-state', context: { max_depth: 512 } });
    expect(doc.message).toMatch(
      /^load_state: state\.entities\[0\]\.value\.deep(\.a)+…\(\d+ more steps\)…(\.a)+ nests deeper than 512 levels/,
    );
    expect(bytesOf(r)).toBeLessThan(4096);
    expect((await s.call('get_state')).structuredContent).toMatchObject({ sha256: before.sha256 });
  });

  it('an environment tool given a body nested 100,000 levels deep is bad-arguments naming the path, not an internal error', async () => {
    const r = await s.call('post_api_annotations', { body: JSON.parse(nestedText(100_000)) });
    expect(r.isError).toBe(true);
    expect(errorDoc(r)).toMatchObject({
      code: 'bad-arguments',
      message: expect.stringMatching(/^post_api_annotations: arguments\.body(\.a)+…\(\d+ more steps\)…(\.a)+ nests deeper than 513 levels/),
    });
    expect((await s.call('query_store', { sql: 'select 1 as one' })).isError).toBeFalsy();
  });
});

describe('issue 42: an answer over the configured limit is an answer-too-large error for that call', () => {
  it('in process: get_state over a 4 KiB limit is an error result naming its size, and the next call is answered', async () => {
    const s = await serveStore(db, { maxAnswerBytes: 4096 });
    try {
      const r = await s.call('get_state');
      expect(r.isError).toBe(true);
      const doc = errorDoc(r);
      expect(doc).toMatchObject({ code: 'answer-too-large', context: { tool: 'get_state', max_bytes: 4096 } });
      expect(doc.message).toMatch(
        /^the answer to get_state is \d+ bytes, \d+ over the server's limit of 4096 bytes, and was not sent; .*--max-answer-bytes/,
      );
      expect(bytesOf(r)).toBeLessThan(4096);
      expect((await s.call('query_store', { sql: 'select 1 as one' })).structuredContent).toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await s.close();
    }
  });

  it('over stdio: serve --max-answer-bytes 4096 refuses a query_store answer over it, naming LIMIT and max_rows, and keeps the session', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve', '--db', db, '--max-answer-bytes', '4096'],
      cwd: root,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bounds-test', version: '1' });
    await client.connect(transport);
    try {
      const big = (await client.callTool({
        name: 'query_store',
        arguments: { sql: 'select hex(zeroblob(3000)) as h from record' },
      })) as CallToolResult;
      expect(big.isError).toBe(true);
      expect(errorDoc(big)).toMatchObject({ code: 'answer-too-large', message: expect.stringMatching(/a LIMIT, a smaller max_rows/) });
      const small = (await client.callTool({
        name: 'query_store',
        arguments: { sql: 'select hex(zeroblob(3000)) as h from record limit 0' },
      })) as CallToolResult;
      expect(small.isError, text(small)).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('serve --max-answer-bytes refuses a size under 4 KiB or not a size, as usage (exit 2)', () => {
    for (const v of ['12', 'lots', '1GiB']) {
      const r = cli(['serve', '--db', db, '--max-answer-bytes', v]);
      expect(r.status, v).toBe(2);
      expect(r.stderr).toMatch(/--max-answer-bytes takes a size from 4096 bytes to 256 MiB/);
    }
  });
});

describe('issue 42: HTTP answers are bounded; PUT state nested too deeply is a 400', () => {
  let ctx: ServeContext;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    ctx = await openServeContext(db);
    ({ server, url: base } = await listenHttp(ctx, '127.0.0.1', 0, { maxAnswerBytes: 4096 }));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeServeContext(ctx);
  });

  it('GET /__capstate/state over a 4 KiB limit is a 507 answer-too-large in the one error shape; a small answer after it is a 200', async () => {
    const r = await fetch(`${base}/__capstate/state`);
    expect(r.status).toBe(507);
    expect(r.headers.get('x-capstate-error')).toBe('answer-too-large');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toMatchObject({
      ok: false,
      code: 'answer-too-large',
      message: expect.stringMatching(/^the answer to GET \/__capstate\/state is \d+ bytes, \d+ over the server's limit of 4096 bytes/),
    });
    const reset = await fetch(`${base}/__capstate/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
  });

  it('PUT /__capstate/state nested 100,000 levels deep is a 400 bad-state naming the path', async () => {
    const body = `{"kind":"served-state","entities":[{"collection":"folders","id":"x","value":${nestedText(100_000)}}]}`;
    const r = await fetch(`${base}/__capstate/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      code: 'bad-state',
      message: expect.stringMatching(
        /^load_state: state\.entities\[0\]\.value(\.a)+…\(\d+ more steps\)…(\.a)+ nests deeper than 512 levels/,
      ),
    });
  });
});

describe('issue 42: a request line over 10 MiB is answered with its own id', () => {
  it('the SDK client (id written last) gets -32600 for its own request, not a timeout, and the session goes on', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve', '--db', db],
      cwd: root,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bounds-test', version: '1' });
    await client.connect(transport);
    try {
      const sql = `select '${'y'.repeat(11 * 1024 * 1024)}'`;
      // The client's own timeout is long: the answer comes, or the test fails on it.
      const e = await client.callTool({ name: 'query_store', arguments: { sql } }, undefined, { timeout: 60_000 }).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(McpError);
      expect(e).toMatchObject({ code: -32600, message: expect.stringMatching(/over the 10 MiB limit/) });
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 90_000);

  it.each([
    [
      'written last, as the SDK writes it',
      ['{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":9,"x":"', 'a"b\\"id\\":8', '"}},"id":7}'],
      7,
    ],
    ['written first', ['{"id":"req-1","params":{"id":2}}'], 'req-1'],
    ['split inside its name and value', ['{"params":[1,{"id":3}],"i', 'd"', ': 12', '3}'], 123],
    ['not at the top level only', ['{"params":{"id":5}}'], null],
    ['not an integer or string', ['{"id":1.5}'], null],
  ])('LineIdScanner finds the top-level id %s', (_what, pieces, id) => {
    const scanner = new LineIdScanner();
    for (const p of pieces) scanner.feed(Buffer.from(p, 'utf8'));
    expect(scanner.id()).toBe(id);
  });
});
