/**
 * Faults (issue 15): what happens when a query runs away, a caller sends too much, a store
 * is not what it seems, or work is killed. Each test proves one expectation of the issue.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, cliPath, fixture, root, tempDir } from './helpers.js';

const grafana = fixture('grafana-mini', 'capture.har');
const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';
const noStack = (stderr: string) => expect(stderr).not.toMatch(/^\s{4}at /m);

const dir = tempDir();
const db = join(dir, 'faults.sqlite');
beforeAll(() => { const r = cli(['load', grafana, '--db', db]); expect(r.status, r.stderr).toBe(0); });

async function stdioClient(args: string[]): Promise<{ client: Client; stderr: () => string; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, ...args], cwd: root, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  const client = new Client({ name: 'capstate-faults-test', version: '1' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

describe('faults: read-only SQL has a deadline', () => {
  it('capstate sql stops a runaway recursive query at --timeout with a clear error (exit 1, no stack)', async () => {
    const t0 = Date.now();
    const r = await cliAsync(['sql', '--db', db, '--timeout', '1', RUNAWAY]);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the query ran longer than 1 s and was stopped.*--timeout SECONDS/);
    noStack(r.stderr);
  }, 30_000);

  it('capstate sql budgets a huge result (zeroblob(400000000)) instead of dying out of memory', async () => {
    const r = await cliAsync(['sql', '--db', db, 'select zeroblob(400000000) as big']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/stopped after 0 rows: the next row would pass \d+ bytes \(--max-bytes\)/);
    noStack(r.stderr);
  }, 60_000);

  it('query_store stops a runaway query at serve --sql-timeout while the server keeps answering other calls', async () => {
    const { client, stderr } = await stdioClient(['serve', '--db', db, '--sql-timeout', '1']);
    try {
      const t0 = Date.now();
      const runaway = client.callTool({ name: 'query_store', arguments: { sql: RUNAWAY } }, undefined, { timeout: 30_000 }) as Promise<CallToolResult>;
      // Answered while the runaway statement runs: the server is not frozen.
      const other = (await client.callTool({ name: 'inspect_environment_manifest', arguments: {} })) as CallToolResult;
      expect(other.isError).toBeFalsy();
      const r = await runaway;
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect(r.isError).toBe(true);
      expect(JSON.parse((r.content[0] as { text: string }).text)).toMatchObject({ ok: false, code: 'sql-timeout' });
      const after = (await client.callTool({ name: 'query_store', arguments: { sql: 'select count(*) as n from record' } })) as CallToolResult;
      expect(after.isError).toBeFalsy();
      noStack(stderr());
    } finally {
      await client.close();
    }
  }, 60_000);
});
