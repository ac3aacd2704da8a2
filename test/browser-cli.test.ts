/**
 * `capstate capture-browser-scenario` end to end with the built CLI: the Evidence loads
 * with `capstate load` and its tools appear in `capstate manifest --json` (BS-1, BS-59);
 * launch mode leaves no profile behind (BS-22, BS-23); connect mode leaves the external
 * browser running (BS-22, BS-24, BS-25, BS-43).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { captureBrowserScenario } from '../src/browser/index.js';
import { CHROMIUM, describeBrowser, startApp, startExternalBrowser, type ExternalBrowser } from './browser-app.js';
import { cliAsync, cliPath, root, tempDir } from './helpers.js';

const app = startApp();
const dir = tempDir();

function appScenario(): Record<string, unknown> {
  return {
    browser: { mode: 'launch', executable_path: CHROMIUM },
    start_url: { url: `${app.origin}/app` },
    actions: [
      {
        step_id: 'ready',
        action: 'wait_for',
        locator: { kind: 'css', selector: "body[data-state='ready']" },
        state: 'attached',
        timeout_ms: 10000,
      },
    ],
    capture: { network: { request_body: true, response_body: true, header_values: true } },
  };
}

describeBrowser('BS-1 / BS-59 capture, load, manifest', () => {
  it("BS-1 a scenario file → --out Evidence → capstate load → manifest --json lists the app's tools", async () => {
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify(appScenario()));
    const ev = join(dir, 'evidence.json');
    const r = await cliAsync(['capture-browser-scenario', file, '--out', ev]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ready: completed/);
    const store = join(dir, 'e2e.sqlite');
    const load = await cliAsync(['load', ev, '--db', store, '--json']);
    expect(load.status, load.stderr).toBe(0);
    const loaded = JSON.parse(load.stdout).captures[0];
    expect(loaded.format).toBe('scenario-evidence');
    expect(loaded.records).toBe(3);
    expect(loaded.response_bodies_by_kind.json).toBe(2);
    const m = await cliAsync(['manifest', '--db', store, '--json']);
    expect(m.status, m.stderr).toBe(0);
    const manifest = JSON.parse(m.stdout).manifests[0];
    expect(manifest.admission.subject_origin).toBe(app.origin);
    const tools = manifest.tools.map((t: { name: string; template: string }) => `${t.name} ${t.template}`);
    expect(tools).toEqual(expect.arrayContaining(['get_api_items /api/items', 'get_api_items_by_id /api/items/{id}']));
    // BS-59: the records are timed from the browser's start times.
    const sql = await cliAsync([
      'sql',
      'select ordinal, path, started_ms is not null as timed from records_timeline',
      '--db',
      store,
      '--json',
    ]);
    expect(JSON.parse(sql.stdout).rows).toEqual([
      { ordinal: 1, path: '/app', timed: 1 },
      { ordinal: 2, path: '/api/items', timed: 1 },
      { ordinal: 3, path: '/api/items/it-01', timed: 1 },
    ]);
  });

  it('BS-1 inline INPUT_JSON with --json writes one Evidence document on stdout that loads', async () => {
    const r = await cliAsync(['capture-browser-scenario', JSON.stringify(appScenario()), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format_version: 1, ok: true, schema_version: 1 });
    const file = join(dir, 'stdout-evidence.json');
    writeFileSync(file, r.stdout);
    // --explain: the load's facts line (issue 46: the default is the plain summary).
    const load = await cliAsync(['load', file, '--db', join(dir, 'stdout.sqlite'), '--explain']);
    expect(load.status, load.stderr).toBe(0);
    expect(load.stdout).toMatch(/3 records/);
  });
});

describeBrowser('BS-22 / BS-23 launch mode cleans up its profile', () => {
  it('BS-22 after a capture, the temporary directory holds no profile or Playwright artifacts', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'capstate-tmpdir-'));
    try {
      const r = await cliAsync(['capture-browser-scenario', JSON.stringify(appScenario()), '--out', join(dir, 'cleanup.json')], {
        env: { TMPDIR: tmp },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(readdirSync(tmp)).toEqual([]);
      // A failed step still cleans up.
      const failing = {
        ...appScenario(),
        actions: [{ step_id: 'nope', action: 'click', locator: { kind: 'css', selector: '#missing' }, timeout_ms: 200 }],
      };
      const f = await cliAsync(['capture-browser-scenario', JSON.stringify(failing), '--json'], { env: { TMPDIR: tmp } });
      expect(f.status, f.stderr).toBe(0);
      expect(JSON.parse(f.stdout).steps[0].status).toBe('failed');
      expect(f.stderr).toMatch(/step nope failed/);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describeBrowser('BS-23 / BS-67 SIGINT cancels the capture and cleanup still runs', () => {
  it('BS-23 SIGINT during a step: the step and the rest are cancelled, Evidence is written, no profile is left', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'capstate-tmpdir-'));
    try {
      const s = {
        ...appScenario(),
        actions: [
          { step_id: 'long', action: 'wait_for_timeout', duration_ms: 60000 },
          { step_id: 'after', action: 'wait_for_timeout', duration_ms: 1 },
        ],
      };
      // The test started this CLI process; it signals it by id.
      const child = spawn(process.execPath, [cliPath, 'capture-browser-scenario', JSON.stringify(s), '--json'], {
        cwd: root,
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '',
        stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d) => {
        stdout += d;
      });
      child.stderr!.setEncoding('utf8').on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((r) => child.on('close', r));
      // Signal once the long step runs (the CLI says so on stderr), however loaded the machine is.
      for (let i = 0; i < 600 && !/step long: running/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toMatch(/step long: running/);
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(0);
      expect(stderr).toMatch(/cancelling the capture/);
      const e = JSON.parse(stdout);
      expect(e.steps.map((x: { status: string }) => x.status)).toEqual(['cancelled', 'cancelled']);
      expect(e.steps[0].error.code).toBe('cancelled');
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describeBrowser('BS-22 / BS-24 / BS-25 / BS-43 connect mode', () => {
  let external: ExternalBrowser | null = null;
  let endpoint = '';
  afterAll(async () => {
    await external?.stop();
  });

  const tabs = async () => (await (await fetch(`${endpoint}/json/list`)).json()) as { type: string; url: string }[];

  it('BS-22 capstate attaches over loopback CDP, captures, and leaves the external browser running', async () => {
    external = await startExternalBrowser();
    endpoint = external.endpoint;
    const browser = external.process;
    const e = await captureBrowserScenario({
      browser: { mode: 'connect', cdp_endpoint: endpoint },
      start_url: { url: `${app.origin}/app` },
      actions: [
        {
          step_id: 'ready',
          action: 'wait_for',
          locator: { kind: 'css', selector: "body[data-state='ready']" },
          state: 'attached',
          timeout_ms: 10000,
        },
      ],
      environment: { locale: 'de-DE' },
      capture: { network: { response_body: true }, at_end: ['url', 'dom'] },
    });
    expect(e.steps[0].status).toBe('completed');
    expect(e.scenario.browser).toEqual({ mode: 'connect', cdp_endpoint: endpoint });
    expect((e.steps[0].captures.dom as { value: string }).value).toContain('<li>Lamp</li>');
    expect(e.events.filter((x) => x.kind === 'request').map((x) => new URL(x.url as string).pathname)).toEqual([
      '/app',
      '/api/items',
      '/api/items/it-01',
    ]);
    // BS-24, BS-25, BS-43: every connected capture states these limitations.
    expect(e.limitations.map((l) => l.rule)).toEqual(expect.arrayContaining(['BS-24', 'BS-25', 'BS-43']));
    expect(e.equality.eligible).toBe(false);
    // The browser is still alive and answers; the tab capstate opened is closed.
    const version = (await (await fetch(`${endpoint}/json/version`)).json()) as { Browser: string };
    expect(version.Browser).toMatch(/Chrom/);
    expect(browser.exitCode).toBeNull();
    expect((await tabs()).filter((t) => t.url.startsWith(app.origin))).toEqual([]);
  });

  it('BS-22 a target page chosen by url_prefix is used in place and stays open', async () => {
    expect(endpoint, 'the previous test starts the external browser').not.toBe('');
    await fetch(`${endpoint}/json/new?${app.origin}/count`, { method: 'PUT' });
    for (let i = 0; i < 50 && !(await tabs()).some((t) => t.url === `${app.origin}/count`); i++)
      await new Promise((r) => setTimeout(r, 100));
    const e = await captureBrowserScenario({
      browser: { mode: 'connect', cdp_endpoint: endpoint, target: { url_prefix: `${app.origin}/count` } },
      start_url: { url: `${app.origin}/` },
      actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 50 }],
    });
    expect(e.steps[0].captures.url).toEqual({ state: 'captured', value: `${app.origin}/` });
    expect((await tabs()).some((t) => t.type === 'page' && t.url === `${app.origin}/`)).toBe(true);
    expect(external!.process.exitCode).toBeNull();
    const missing = await captureBrowserScenario({
      browser: { mode: 'connect', cdp_endpoint: endpoint, target: { url_prefix: 'http://127.0.0.1:1/none' } },
      start_url: { url: `${app.origin}/` },
      actions: [{ step_id: 'settle', action: 'wait_for_timeout', duration_ms: 1 }],
    }).catch((err) => err);
    expect(missing.code).toBe('target-not-found');
    expect(external!.process.exitCode).toBeNull();
  });
});

describeBrowser('BS-65 the --out Evidence carries no credential values', () => {
  it('BS-65 Set-Cookie values are null in the written file', () => {
    const text = readFileSync(join(dir, 'evidence.json'), 'utf8');
    expect(text).not.toContain('seen=1');
    expect(text).toMatch(/"name": "[Ss]et-[Cc]ookie",\s*"value": null,\s*"redacted": true/);
  });
});
