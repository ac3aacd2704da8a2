/**
 * The MCP browser tools belong to the operator: a caller (possibly a prompt-injected agent)
 * cannot pick the program that runs, read the server's environment through declared
 * secrets, or open files outside the evidence directory.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFlags, withSandboxFallback } from '../src/browser/launch.js';
import { allowedSecretEnv, CLOSED_BROWSER_POLICY, type BrowserPolicy } from '../src/serve/browser-policy.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli, cliPath, fixture, root, tempDir } from './helpers.js';
import { METHOD_EXCHANGES, serveHar, text, type Served } from './serve-helpers.js';

const dir = tempDir();
const scenario = (extra: Record<string, unknown> = {}) => ({
  browser: { mode: 'launch' },
  start_url: { url: 'http://127.0.0.1:9/' },
  actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1 }],
  ...extra,
});
const code = (r: { structuredContent?: unknown }) => (r.structuredContent as { code?: string } | undefined)?.code;

describe('serve without --allow-browser: no browser tool', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serveHar(dir, METHOD_EXCHANGES);
  });
  afterAll(() => s.close());

  it('capture_browser_scenario is not listed, and a call is refused with the flag that allows it', async () => {
    expect(s.tools.map((t) => t.name)).not.toContain('capture_browser_scenario');
    const r = await s.call('capture_browser_scenario', scenario());
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/--allow-browser/);
  });

  it('compare_web_captures is not listed and opens no file at all: /etc/passwd and a missing path get the same answer', async () => {
    // Issue 46: a tool that is not about the app is listed (and answered) only when the operator asked for it.
    expect(s.tools.map((t) => t.name)).not.toContain('compare_web_captures');
    const passwd = await s.call('compare_web_captures', { before: '/etc/passwd', after: {} });
    const missing = await s.call('compare_web_captures', { before: '/etc/no-such-file-here', after: {} });
    expect(code(passwd)).toBe('tool-not-listed');
    expect(text(passwd)).toMatch(/--evidence-dir DIR/);
    expect(text(passwd)).toBe(text(missing));
    expect(text(passwd)).not.toMatch(/Unexpected|no such file/);
  });
});

describe("serve --allow-browser: the operator's browser and secrets only", () => {
  let s: Served;
  let marker: string;
  let fake: string;
  const policy = (): BrowserPolicy => ({
    ...CLOSED_BROWSER_POLICY,
    allowBrowser: true,
    executablePath: '/nonexistent/chromium',
    secretEnv: ['CAPSTATE_ALLOWED_SECRET'],
  });
  beforeAll(async () => {
    // A program that leaves a mark if anything runs it.
    marker = join(dir, 'ran');
    fake = join(dir, 'fake-browser.sh');
    writeFileSync(fake, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(fake, 0o755);
    s = await serveHar(dir, METHOD_EXCHANGES, { browser: policy() });
  });
  afterAll(() => s.close());

  it("a caller's executable_path is refused before anything runs", async () => {
    const r = await s.call('capture_browser_scenario', scenario({ browser: { mode: 'launch', executable_path: fake } }));
    expect(r.isError).toBe(true);
    expect(code(r)).toBe('browser-not-allowed');
    expect(text(r)).toMatch(/leave browser\.executable_path out/);
    expect(existsSync(marker)).toBe(false);
  });

  it('without executable_path the configured browser is the one launched', async () => {
    const r = await s.call('capture_browser_scenario', scenario());
    // The configured path does not exist here, so the error names it: it was the one tried.
    expect(code(r)).toBe('browser-not-found');
    expect(text(r)).toMatch(/\/nonexistent\/chromium/);
  });

  it('connect mode is refused unless the operator named an endpoint', async () => {
    const r = await s.call('capture_browser_scenario', scenario({ browser: { mode: 'connect', cdp_endpoint: 'http://127.0.0.1:9222' } }));
    expect(code(r)).toBe('browser-not-allowed');
    expect(text(r)).toMatch(/--browser-cdp/);
  });

  it('a secret may name only an allowed variable, and the answer does not tell whether another is set', async () => {
    process.env.CAPSTATE_PROBE_SET = 'hunter2-secret-value';
    try {
      const set = await s.call(
        'capture_browser_scenario',
        scenario({ secrets: [{ secret_id: 's', environment_variable: 'CAPSTATE_PROBE_SET' }] }),
      );
      const unset = await s.call(
        'capture_browser_scenario',
        scenario({ secrets: [{ secret_id: 's', environment_variable: 'CAPSTATE_PROBE_UNSET' }] }),
      );
      expect(code(set)).toBe('secret-not-allowed');
      expect(text(set).replace('CAPSTATE_PROBE_SET', 'X')).toBe(text(unset).replace('CAPSTATE_PROBE_UNSET', 'X'));
      expect(text(set)).not.toMatch(/not set|hunter2/);
      expect(text(set)).toMatch(/--secret-env/);
    } finally {
      delete process.env.CAPSTATE_PROBE_SET;
    }
  });

  it('a scenario reads secrets only from the allowed names', () => {
    const env = { CAPSTATE_ALLOWED_SECRET: 'a', HOME: '/root', AWS_SECRET_ACCESS_KEY: 'b' };
    expect(allowedSecretEnv(policy(), env)).toEqual({ CAPSTATE_ALLOWED_SECRET: 'a' });
  });
});

describe('compare_web_captures reads Evidence files only under --evidence-dir, with a size cap', () => {
  let s: Served;
  const evidence = join(dir, 'evidence');
  beforeAll(async () => {
    mkdirSync(evidence, { recursive: true });
    writeFileSync(join(evidence, 'not-json.json'), 'root:x:0:0');
    writeFileSync(join(evidence, 'big.json'), 'x'.repeat(2048));
    symlinkSync('/etc/passwd', join(evidence, 'escape.json'));
    s = await serveHar(dir, METHOD_EXCHANGES, { browser: { ...CLOSED_BROWSER_POLICY, evidenceDir: evidence, maxEvidenceBytes: 1024 } });
  });
  afterAll(() => s.close());

  it('a file inside the directory is read (relative or absolute)', async () => {
    for (const p of ['not-json.json', join(evidence, 'not-json.json')]) {
      const r = await s.call('compare_web_captures', { before: p, after: {} });
      expect(code(r), text(r)).toBe('bad-json');
    }
  });

  it('paths outside it, ../ and symbolic links that lead out are refused alike', async () => {
    const answers = await Promise.all(
      ['/etc/passwd', '../../etc/passwd', 'escape.json', '/etc/nope'].map((p) => s.call('compare_web_captures', { before: p, after: {} })),
    );
    for (const r of answers) expect(code(r), text(r)).toBe('evidence-path-refused');
    expect(new Set(answers.map(text)).size).toBe(1);
  });

  it('a file over the cap is refused before it is read', async () => {
    const r = await s.call('compare_web_captures', { before: 'big.json', after: {} });
    expect(code(r)).toBe('evidence-too-large');
  });
});

describe("Chromium's sandbox is on wherever it can run", () => {
  it('only root (where Chromium cannot sandbox) gets --no-sandbox', () => {
    expect(launchFlags(0)).toContain('--no-sandbox');
    expect(launchFlags(1000)).not.toContain('--no-sandbox');
  });

  it('a host without a usable sandbox gets one retry without it; other launch errors are not retried', async () => {
    const tried: string[][] = [];
    const started = await withSandboxFallback(async (flags) => {
      tried.push(flags);
      if (!flags.includes('--no-sandbox')) throw new Error('[FATAL:zygote_host_impl_linux.cc] No usable sandbox!');
      return 'up';
    }, 1000);
    expect(started).toBe('up');
    expect(tried.map((f) => f.includes('--no-sandbox'))).toEqual([false, true]);
    let calls = 0;
    await expect(
      withSandboxFallback(async () => {
        calls++;
        throw new Error('executable crashed');
      }, 1000),
    ).rejects.toThrow('executable crashed');
    expect(calls).toBe(1);
  });
});

describe("serve's browser flags are checked at start-up", () => {
  const listed = async (extra: string[]) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'serve', fixture('grafana-mini', 'capture.har'), ...extra],
      cwd: root,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'capstate-policy-test', version: '1' });
    await client.connect(transport);
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  };

  it('the compiled server lists capture_browser_scenario only with --allow-browser', async () => {
    expect(await listed([])).not.toContain('capture_browser_scenario');
    expect(await listed(['--allow-browser', '--browser', process.execPath])).toContain('capture_browser_scenario');
  }, 30_000);

  it('--secret-env takes variable names; a bad one is a usage error (exit 2)', () => {
    const r = cli(['serve', '--db', join(dir, 'none.sqlite'), '--secret-env', 'not a name']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--secret-env takes an environment variable name/);
  });

  it('--evidence-dir must be a directory', () => {
    const r = cli(['serve', '--db', join(dir, 'none.sqlite'), '--evidence-dir', join(dir, 'nope')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--evidence-dir .*: no such directory/);
  });
});
