/**
 * Issue 46: a store with several captures. The commands that read one capture (state,
 * report, card, check-effects, serve) read the latest without --capture and say so in one
 * line on stderr, naming the others and their files; and a `serve` that cannot start tells
 * the MCP client that started it why, as an MCP error, instead of "Connection closed".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerFirstRequest, STARTUP_FAILED_CODE } from '../src/cli/mcp-startup.js';
import { cli, cliPath, fixture, root, tempDir } from './helpers.js';

const dir = tempDir();
const two = join(dir, 'two.sqlite');
const grafana = fixture('grafana-mini', 'capture.har');
const redmine = fixture('redmine-json', 'capture.har');
const LATEST =
  /^capstate: .*two\.sqlite holds 2 captures; reading the latest, 2 \(.*redmine-json\/capture\.har\); the other: 1 \(.*grafana-mini\/capture\.har\); choose one with --capture ID$/m;

beforeAll(() => {
  const r = cli(['load', grafana, redmine, '--db', two, '--quiet']);
  expect(r.status, r.stderr).toBe(0);
});

/** A client's input and output for answerFirstRequest, and what was written to the output so far. */
function pipes(): { input: PassThrough; output: PassThrough; written: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { input, output, written: () => text };
}

describe('one-capture commands on a store with several read the latest and say so', () => {
  it('state, card and check-effects: exit 0, the latest capture, one line on stderr naming the other and its file', () => {
    for (const command of ['state', 'card', 'check-effects']) {
      const r = cli([command, '--db', two, '--json']);
      expect(r.status, `${command}: ${r.stderr}`).toBe(0);
      expect(r.stderr.match(new RegExp(LATEST.source, 'gm')), command).toHaveLength(1);
      expect(r.stdout, command).toBe(cli([command, '--db', two, '--capture', '2', '--json']).stdout);
    }
  });

  it('report writes the latest capture’s page', () => {
    const out = join(dir, 'report.html');
    const r = cli(['report', '--db', two, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(LATEST);
    const chosen = join(dir, 'report-2.html');
    expect(cli(['report', '--db', two, '--capture', '2', '--out', chosen]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(chosen, 'utf8'));
  });

  it('--capture chooses another, and then nothing is said about the latest', () => {
    const r = cli(['state', '--db', two, '--capture', '1', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/latest/);
    expect(r.stdout).not.toBe(cli(['state', '--db', two, '--json']).stdout);
  });

  it('serve over MCP stdio serves the latest capture and says so on stderr', async () => {
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve', '--db', two],
      cwd: root,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: 'capstate-several-captures', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('post_issues_json');
      expect(tools.map((t) => t.name)).not.toContain('get_api_folders_by_uid');
      expect(stderr).toMatch(LATEST);
    } finally {
      await client.close();
    }
  });
});

/** The error an MCP client gets when `capstate serve ARGS` cannot start. */
async function startupError(args: string[]): Promise<Error> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, 'serve', ...args], cwd: root, stderr: 'pipe' });
  const client = new Client({ name: 'capstate-startup-failure', version: '1' });
  try {
    await client.connect(transport);
  } catch (e) {
    return e as Error;
  } finally {
    await client.close();
  }
  throw new Error('serve started');
}

describe('a serve that cannot start answers the MCP client with the reason', () => {
  it('no store: the client gets an MCP error naming the file and the fix, not "Connection closed"', async () => {
    const e = await startupError(['--db', join(dir, 'nowhere.sqlite')]);
    expect(e.message).toMatch(/capstate serve: error: no store at .*nowhere\.sqlite; load a capture first: capstate load CAPTURE --db /);
    expect(e.message).not.toMatch(/Connection closed/);
    expect((e as { code?: number }).code).toBe(STARTUP_FAILED_CODE);
  });

  it('a usage error: the client gets the one line and where to look', async () => {
    const e = await startupError(['--db', two, '--jsn']);
    expect(e.message).toMatch(/capstate serve: error: unknown option --jsn for serve/);
    expect(e.message).toMatch(/see capstate help serve/);
  });

  it('answerFirstRequest passes over notifications and other lines, and answers the first request with its id', async () => {
    const { input, output, written } = pipes();
    const done = answerFirstRequest('it failed', input, output);
    input.write('not json\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":7,"meth');
    input.write('od":"initialize","params":{}}\n{"jsonrpc":"2.0","id":8,"method":"tools/list"}\n');
    await done;
    expect(
      written()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: STARTUP_FAILED_CODE, message: 'it failed' } }]);
  });

  it('answerFirstRequest returns, writing nothing, when the input ends without a request', async () => {
    const { input, output, written } = pipes();
    const done = answerFirstRequest('it failed', input, output);
    input.end('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await done;
    expect(written()).toBe('');
  });
});
