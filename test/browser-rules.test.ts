/**
 * Browser scenario rules that had no test of their own: BS-2 (a declarative request),
 * BS-4 (headless), BS-5 (targets and origins), BS-6 (what each request names), BS-7
 * (what capstate does not do), BS-15 (click timeouts and readiness), BS-27 (value
 * sources) and BS-34 (Evidence structure). Pages are served on 127.0.0.1 by this file;
 * the browser is Debian's Chromium (test/browser-app.ts). BS-4's visible browser runs on
 * an Xvfb display this file starts itself.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { captureBrowserScenario, type Evidence } from '../src/browser/index.js';
import { validateScenario } from '../src/browser/schema.js';
import { CapstateError } from '../src/errors.js';
import { CHROMIUM, describeBrowser, startExternalBrowser, type ExternalBrowser } from './browser-app.js';
import { cliPath, root } from './helpers.js';

// ---------------------------------------------------------------------------------------
// Local servers: `pages` is the start origin of most scenarios, `other` a second origin.

interface Site {
  origin: string;
  hits: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
}

function serve(route: (site: Site, req: http.IncomingMessage, body: string, res: http.ServerResponse) => void): Site {
  const site: Site = { origin: '', hits: [] };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      site.hits.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/favicon.ico') {
        res.writeHead(204);
        res.end();
        return;
      }
      route(site, req, body, res);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return site;
}

const html = (res: http.ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`);
};
const json = (res: http.ServerResponse, v: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(v));
};

/** BS-15: how long /api/slow takes to answer. */
const SLOW_MS = 3000;

const other = serve((_site, req, _body, res) => {
  const p = new URL(req.url!, 'http://x').pathname;
  if (p === '/pixel.gif') {
    res.writeHead(200, { 'content-type': 'image/gif' });
    res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    return;
  }
  if (p === '/landing') return html(res, '<p id="landing">other origin</p>');
  if (p === '/api/echo') return json(res, { other: true });
  res.writeHead(404);
  res.end();
});

const pages = serve((_site, req, body, res) => {
  const p = new URL(req.url!, 'http://x').pathname;
  if (p === '/api/echo') return json(res, { body, headers: req.headers });
  if (p === '/api/slow') {
    setTimeout(() => json(res, { results: ['Lamp', 'Desk'] }), SLOW_MS);
    return;
  }
  if (p === '/plain') return html(res, '<p id="plain">plain</p>');
  if (p === '/slow-search') {
    // BS-15: the click starts a fetch; results render only when it answers. #sync updates at once.
    return html(
      res,
      `<button id="search">Search</button><ul id="results"></ul><button id="sync">Sync</button><p id="sync-out"></p>
      <script>
        document.getElementById('search').onclick = async () => {
          const d = await (await fetch('/api/slow')).json();
          const list = document.getElementById('results');
          list.innerHTML = d.results.map((r) => '<li>' + r + '</li>').join('');
          list.dataset.state = 'ready';
        };
        document.getElementById('sync').onclick = () => { document.getElementById('sync-out').textContent = 'synchronous result'; };
      </script>`,
    );
  }
  if (p === '/form') {
    // BS-27: the filled value is mirrored into the DOM and sent to the server on click.
    return html(
      res,
      `<input id="field" oninput="document.getElementById('mirror').textContent = this.value"><p id="mirror"></p>
      <button id="send" onclick="fetch('/api/echo', { method: 'POST', body: document.getElementById('field').value }).then(() => { document.body.dataset.sent = 'yes'; })">Send</button>`,
    );
  }
  if (p === '/show-storage') {
    // BS-27: the page sends what it sees in its storage to the server, and shows it.
    return html(
      res,
      `<p id="out"></p><script>
      const seen = { ls_secret: localStorage.getItem('ls-secret'), ls_literal: localStorage.getItem('ls-literal'), ss_secret: sessionStorage.getItem('ss-secret') };
      document.getElementById('out').textContent = JSON.stringify(seen);
      fetch('/api/echo', { method: 'POST', body: JSON.stringify(seen) }).then(() => { document.body.dataset.sent = 'yes'; });
    </script>`,
    );
  }
  if (p === '/cross') {
    // BS-5: an ordinary page request and a link to another origin.
    return html(res, `<img id="pixel" src="${other.origin}/pixel.gif"><a id="away" href="${other.origin}/landing">away</a>`);
  }
  if (p === '/log') {
    // BS-34: console events at load and on click, to check event bounds.
    return html(res, `<button id="log" onclick="console.log('clicked')">Log</button><script>console.log('loaded')</script>`);
  }
  if (p === '/ua') return html(res, '<p id="ua"></p><script>document.getElementById("ua").textContent = navigator.userAgent</script>');
  res.writeHead(404);
  res.end();
});

// ---------------------------------------------------------------------------------------
// Helpers.

const sha256 = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

function launch(start: string, actions: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { browser: { mode: 'launch', executable_path: CHROMIUM }, start_url: { url: start }, actions, ...extra };
}

const settle = (id = 'settle') => ({ step_id: id, action: 'wait_for_timeout', duration_ms: 1 });

/** The CapstateError `p` rejects with (fails the test when it resolves). */
async function errorOf(p: Promise<unknown>): Promise<CapstateError> {
  const r = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(r instanceof CapstateError)) throw new Error(`expected a CapstateError, got ${r === null ? 'a result' : String(r)}`);
  return r;
}

function invalid(s: unknown): CapstateError {
  try {
    validateScenario(s);
  } catch (e) {
    if (e instanceof CapstateError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(s)} to be rejected`);
}

/** Runs `fn` with environment variables set (undefined: removed), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  set(vars);
  try {
    return await fn();
  } finally {
    set(saved);
  }
}

const scratch: string[] = [];
function scratchDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `capstate-rules-${prefix}-`));
  scratch.push(d);
  return d;
}
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

/** An executable shell script at `dir/name`. */
function script(dir: string, name: string, body: string): string {
  const f = join(dir, name);
  writeFileSync(f, `#!/bin/sh\n${body}\n`);
  chmodSync(f, 0o755);
  return f;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ host: '127.0.0.1', port });
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** BS-4: a virtual display this file starts (and stops) itself; fails clearly without Xvfb. */
async function startXvfb(): Promise<{ display: string; child: ChildProcess }> {
  if (spawnSync('sh', ['-c', 'command -v Xvfb'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('Xvfb is missing: install it (apt-get install -y xvfb); BS-4 runs a visible browser on a virtual display');
  }
  // -displayfd: Xvfb picks a free display number itself and writes it to stdout.
  const child = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  const display = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb reported no display within 10 s: ${stderr}`)), 10_000);
    child.stdout!.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /^(\d+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`:${m[1]}`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}): ${stderr}`));
    });
  });
  return { display, child };
}

const STATES = ['captured', 'not_requested', 'unavailable', 'missing'];
const ARTIFACTS = ['accessibility', 'dom', 'history', 'screenshot', 'storage', 'url'];
const keys = (o: object) => Object.keys(o).sort();
const text = (c: unknown) => (c as { state: string; value: string }).value;

// ---------------------------------------------------------------------------------------

describeBrowser('BS-2 A declarative request', () => {
  // A stand-in "browser" that only records that it was started, then fails: if validation
  // came after the launch, the marker would exist.
  let dir = '';
  let fake = '';
  let marker = '';
  beforeAll(() => {
    dir = scratchDir('bs2');
    marker = join(dir, 'started');
    fake = script(dir, 'fake-browser', `echo started > '${marker}'\nexit 1`);
  });

  const withFake = (s: Record<string, unknown>) => ({ ...s, browser: { mode: 'launch', executable_path: fake } });

  it('BS-2 only the fixed action vocabulary is accepted; script-like actions and fields fail validation before any browser starts', async () => {
    // The probe works: a valid scenario does start the (fake) executable.
    const valid = withFake(launch(`${pages.origin}/plain`, [settle()]));
    expect((await errorOf(captureBrowserScenario(valid, { env: {} }))).code).toBe('browser-launch-failed');
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const start = `${pages.origin}/plain`;
    const cases: [unknown[], Record<string, unknown>, string][] = [
      [[{ step_id: 'x', action: 'evaluate', script: 'document.body.remove()' }], {}, 'actions[0].action'],
      [[{ step_id: 'x', action: 'eval', expression: '1' }], {}, 'actions[0].action'],
      [[{ step_id: 'x', action: 'run_script', code: 'alert(1)' }], {}, 'actions[0].action'],
      [[{ step_id: 'x', action: 'click', locator: { kind: 'css', selector: '#a' }, script: 'alert(1)' }], {}, 'actions[0].script'],
      [[{ step_id: 'x', action: 'click', locator: { kind: 'javascript', selector: 'document.body' } }], {}, 'actions[0].locator.kind'],
      [[{ step_id: 'x', action: 'click', locator: { kind: 'xpath', selector: '//a' } }], {}, 'actions[0].locator.kind'],
      [[settle()], { init_script: 'window.x = 1' }, 'init_script'],
      [[settle()], { environment: { init_script: 'window.x = 1' } }, 'environment.init_script'],
      [[settle()], { environment: { permissions: ['geolocation'] } }, 'environment.permissions'],
    ];
    for (const [actions, extra, path] of cases) {
      const e = await errorOf(captureBrowserScenario(withFake(launch(start, actions, extra)), { env: {} }));
      expect(e.code, path).toBe('invalid-scenario');
      expect(e.context.path, JSON.stringify(actions)).toBe(path);
      expect(existsSync(marker), `no browser may start for ${path}`).toBe(false);
    }
  });

  it('BS-2 targets are explicit http(s) URLs: javascript:, file:, data:, about: and relative targets are refused before any browser starts', async () => {
    const targets = [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<p>x</p>',
      'about:blank',
      '/relative/path',
      'ftp://127.0.0.1/x',
    ];
    for (const t of targets) {
      const asStart = await errorOf(captureBrowserScenario(withFake(launch(t, [settle()])), { env: {} }));
      expect(asStart.code, t).toBe('invalid-scenario');
      expect(asStart.context.path, t).toBe('start_url.url');
      const asGoto = await errorOf(
        captureBrowserScenario(withFake(launch(`${pages.origin}/plain`, [{ step_id: 'go', action: 'goto', destination: { url: t } }])), {
          env: {},
        }),
      );
      expect(asGoto.code, t).toBe('invalid-scenario');
      expect(asGoto.context.path, t).toBe('actions[0].destination.url');
    }
    // A cookie seed's URL and a storage-seed origin are targets too.
    expect(
      invalid(
        launch(`${pages.origin}/plain`, [settle()], {
          storage: { cookies: [{ name: 'a', value: { source: 'literal', value: 'b' }, url: 'file:///tmp' }] },
        }),
      ).context.path,
    ).toBe('storage.cookies[0].url');
    expect(
      invalid(launch(`${pages.origin}/plain`, [settle()], { storage: { local_storage: [{ origin: 'javascript:x', entries: [] }] } }))
        .context.path,
    ).toBe('storage.local_storage[0].origin');
    expect(existsSync(marker)).toBe(false);
  });

  it('BS-2 no additional authorization step: the CLI runs a valid scenario to Evidence with stdin open and nobody answering', async () => {
    expect(existsSync(cliPath), `${cliPath} missing: run npm run build`).toBe(true);
    const s = launch(`${pages.origin}/plain`, [
      { step_id: 'see', action: 'wait_for', locator: { kind: 'css', selector: '#plain' }, timeout_ms: 10000 },
    ]);
    // stdin stays an open pipe: a confirmation prompt would wait on it until the kill below.
    const child = spawn(process.execPath, [cliPath, 'capture-browser-scenario', JSON.stringify(s), '--json'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    clearTimeout(killer);
    child.stdin!.destroy();
    expect(code, stderr).toBe(0);
    const e = JSON.parse(stdout) as Evidence & { ok: boolean };
    expect(e.ok).toBe(true);
    expect(e.steps.map((x) => x.status)).toEqual(['completed']);
    expect(stderr).not.toMatch(/confirm|authori[sz]e|allow\?|\[y\/n\]/i);
  });
});

describeBrowser('BS-4 Headless', () => {
  let xvfb: { display: string; child: ChildProcess } | null = null;
  afterAll(async () => {
    const c = xvfb?.child;
    if (c?.pid && c.exitCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  });

  const uaOf = async (headless: boolean | undefined) => {
    const before = pages.hits.length;
    const browser = { mode: 'launch', executable_path: CHROMIUM, ...(headless === undefined ? {} : { headless }) };
    const e = await captureBrowserScenario(
      { ...launch(`${pages.origin}/ua`, [settle()], { capture: { at_end: ['dom'] } }), browser },
      { env: {} },
    );
    const hit = pages.hits.slice(before).find((h) => h.url === '/ua');
    expect(hit, 'the page was requested').toBeTruthy();
    const rendered = /<p id="ua">([^<]*)<\/p>/.exec(text(e.steps[0].captures.dom))![1];
    return { e, header: String(hit!.headers['user-agent']), rendered };
  };

  it('BS-4 headless defaults to true: the Evidence says so and the browser identifies as HeadlessChrome; "headless" must be a boolean', async () => {
    const { e, header, rendered } = await uaOf(undefined);
    expect(e.scenario.browser).toEqual({ mode: 'launch', executable_path: CHROMIUM, headless: true });
    expect(header).toMatch(/HeadlessChrome\//);
    expect(rendered).toMatch(/HeadlessChrome\//);
    expect(
      invalid({ ...launch(`${pages.origin}/ua`, [settle()]), browser: { mode: 'launch', executable_path: CHROMIUM, headless: 'no' } })
        .context.path,
    ).toBe('browser.headless');
    // BS-4 is launch mode's: a connected browser has no headless switch.
    expect(
      invalid({
        ...launch(`${pages.origin}/ua`, [settle()]),
        browser: { mode: 'connect', cdp_endpoint: 'http://127.0.0.1:9222', headless: false },
      }).context.path,
    ).toBe('browser.headless');
  });

  it('BS-4 headless: false runs a visible browser where the host has a display (Xvfb); headless: true on the same display stays headless', async () => {
    xvfb = await startXvfb();
    await withEnv({ DISPLAY: xvfb.display, WAYLAND_DISPLAY: undefined }, async () => {
      const headed = await uaOf(false);
      expect(headed.e.scenario.browser).toEqual({ mode: 'launch', executable_path: CHROMIUM, headless: false });
      expect(headed.e.steps[0].status).toBe('completed');
      expect(headed.header).toMatch(/ Chrome\/\d/);
      expect(headed.header).not.toMatch(/Headless/);
      expect(headed.rendered).not.toMatch(/Headless/);
      // The display alone does not make the browser visible: the flag does.
      const headless = await uaOf(true);
      expect(headless.header).toMatch(/HeadlessChrome\//);
    });
  });

  it('BS-4 headless: false on a host without a display fails fast with a launch error naming browser.headless, and leaves no profile', async () => {
    const tmp = scratchDir('bs4-tmp');
    const t0 = Date.now();
    const err = await withEnv({ DISPLAY: undefined, WAYLAND_DISPLAY: undefined, TMPDIR: tmp }, () =>
      errorOf(
        captureBrowserScenario(
          {
            ...launch(`${pages.origin}/ua`, [settle()]),
            browser: { mode: 'launch', executable_path: CHROMIUM, headless: false },
            command_timeout_ms: 60_000,
          },
          { env: {} },
        ),
      ),
    );
    expect(err.code).toBe('browser-launch-failed');
    expect(err.exitCode).toBe(1);
    expect(err.context.path).toBe('browser.headless');
    expect(err.message).toMatch(/display/);
    expect(err.message).toContain(CHROMIUM);
    // Not a hang: far less than the 60 s command deadline.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(readdirSync(tmp).filter((f) => f.startsWith('capstate-profile-'))).toEqual([]);
  });
});

describeBrowser('BS-5 Targets and origins', () => {
  it('BS-5 a request step can only name a path on the start origin; there is no origin or allow-list field', () => {
    const s = (extra: Record<string, unknown>, root: Record<string, unknown> = {}) =>
      launch(`${pages.origin}/plain`, [{ step_id: 'r', action: 'request', method: 'GET', path: '/api/echo', ...extra }], root);
    expect(() => validateScenario(s({}))).not.toThrow();
    for (const path of [
      `//127.0.0.1:${new URL(other.origin).port}/api/echo`,
      `${other.origin}/api/echo`,
      '/\\evil.example/x',
      'api/echo',
    ]) {
      const e = invalid(s({ path }));
      expect(e.context.path, path).toBe('actions[0].path');
    }
    expect(invalid(s({ origin: other.origin })).context.path).toBe('actions[0].origin');
    expect(invalid(s({ url: `${other.origin}/api/echo` })).context.path).toBe('actions[0].url');
    for (const field of ['allowed_origins', 'origin_allow_list', 'origins']) {
      expect(invalid(s({}, { [field]: [other.origin] })).context.path).toBe(field);
      expect(invalid(s({}, { environment: { [field]: [other.origin] } })).context.path).toBe(`environment.${field}`);
    }
  });

  it("BS-5 navigation follows named and page targets on other origins; the page's own cross-origin requests go out; a request step off the start origin is refused at run time", async () => {
    const pagesBefore = pages.hits.length,
      otherBefore = other.hits.length;
    const e = await captureBrowserScenario(
      launch(
        `${pages.origin}/cross`,
        [
          { step_id: 'follow-link', action: 'click', locator: { kind: 'css', selector: '#away' }, timeout_ms: 10000 },
          { step_id: 'landed', action: 'wait_for', locator: { kind: 'css', selector: '#landing' }, timeout_ms: 10000 },
          { step_id: 'request-elsewhere', action: 'request', method: 'GET', path: '/api/echo', timeout_ms: 10000 },
        ],
        { capture: { events: ['network'], after_each_step: ['url'] } },
      ),
      { env: {} },
    );
    // Ordinary page requests are the browser's: the image on the other origin was loaded.
    expect(other.hits.slice(otherBefore).map((h) => h.url)).toEqual(expect.arrayContaining(['/pixel.gif', '/landing']));
    expect(e.events.filter((x) => x.kind === 'request').map((x) => x.url)).toEqual(
      expect.arrayContaining([`${other.origin}/pixel.gif`, `${other.origin}/landing`]),
    );
    expect(e.steps.map((x) => x.status)).toEqual(['completed', 'completed', 'failed']);
    expect(e.steps[1].url).toBe(`${other.origin}/landing`);
    expect(e.steps[2].error).toMatchObject({ code: 'off-origin', message: expect.stringContaining(pages.origin) });
    // Nothing was sent by the refused step, to either origin.
    expect(pages.hits.slice(pagesBefore).filter((h) => h.url.startsWith('/api/echo'))).toEqual([]);
    expect(other.hits.slice(otherBefore).filter((h) => h.url.startsWith('/api/echo'))).toEqual([]);
  });

  it("BS-5 a goto to another origin works, and a goto back makes the start origin's request step possible again", async () => {
    const pagesBefore = pages.hits.length,
      otherBefore = other.hits.length;
    const e = await captureBrowserScenario(
      launch(`${pages.origin}/plain`, [
        { step_id: 'away', action: 'goto', destination: { url: `${other.origin}/landing` } },
        { step_id: 'back', action: 'goto', destination: { url: `${pages.origin}/plain` } },
        { step_id: 'send', action: 'request', method: 'GET', path: '/api/echo?n=1', expected_status: [200], timeout_ms: 10000 },
      ]),
      { env: {} },
    );
    expect(e.steps.map((x) => [x.step_id, x.status, x.url])).toEqual([
      ['away', 'completed', `${other.origin}/landing`],
      ['back', 'completed', `${pages.origin}/plain`],
      ['send', 'completed', `${pages.origin}/plain`],
    ]);
    expect(pages.hits.slice(pagesBefore).filter((h) => h.url === '/api/echo?n=1')).toHaveLength(1);
    expect(
      other.hits
        .slice(otherBefore)
        .map((h) => h.url)
        .filter((u) => u !== '/favicon.ico'),
    ).toEqual(['/landing']);
  });
});

describeBrowser('BS-6 What each request names', () => {
  let external: ExternalBrowser | null = null;
  afterAll(() => external?.stop());

  it('BS-6 the request must name the executable or the endpoint, the start URL and the actions; nothing is discovered', () => {
    const base = launch(`${pages.origin}/plain`, [settle()]);
    expect(invalid({ ...base, browser: { mode: 'launch' } }).context.path).toBe('browser.executable_path');
    expect(invalid({ ...base, browser: { mode: 'connect' } }).context.path).toBe('browser.cdp_endpoint');
    expect(invalid({ ...base, browser: {} }).context.path).toBe('browser.mode');
    const { start_url: _s, ...noStart } = base;
    expect(invalid(noStart).context.path).toBe('start_url');
    expect(invalid({ ...base, actions: [] }).context.path).toBe('actions');
  });

  it('BS-6 connect mode names a loopback CDP endpoint with an explicit port', () => {
    const withEndpoint = (cdp_endpoint: string) => ({
      ...launch(`${pages.origin}/plain`, [settle()]),
      browser: { mode: 'connect', cdp_endpoint },
    });
    for (const ok of ['http://127.0.0.1:9222', 'http://localhost:9222', 'http://[::1]:9222'])
      expect(() => validateScenario(withEndpoint(ok)), ok).not.toThrow();
    for (const [bad, message] of [
      ['http://192.168.1.10:9222', /loopback/],
      ['http://example.com:9222', /loopback/],
      ['http://0.0.0.0:9222', /loopback/],
      ['http://127.0.0.1', /explicit port/],
      ['http://localhost/', /explicit port/],
      ['ws://127.0.0.1:9222/devtools/browser/x', /http and https/],
      ['http://127.0.0.1:9222/json/version', /without a path/],
    ] as const) {
      const e = invalid(withEndpoint(bad));
      expect(e.context.path, bad).toBe('browser.cdp_endpoint');
      expect(e.message, bad).toMatch(message);
    }
  });

  it('BS-6 launch: the exact executable named is the one started, with a temporary profile deleted afterwards; the Evidence names it, the targets, the actions and the capture', async () => {
    const dir = scratchDir('bs6');
    const tmp = scratchDir('bs6-tmp');
    const argsFile = join(dir, 'args');
    // A wrapper around Chromium that records its arguments: proof that this path was run.
    const wrapper = script(dir, 'my-chromium', `printf '%s\\n' "$@" > '${argsFile}'\nexec '${CHROMIUM}' "$@"`);
    const s = {
      ...launch(
        `${pages.origin}/log`,
        [
          { step_id: 'click', action: 'click', locator: { kind: 'css', selector: '#log' }, timeout_ms: 10000 },
          { step_id: 'go', action: 'goto', destination: { url: `${pages.origin}/plain` } },
        ],
        {
          capture: {
            after_each_step: ['url'],
            at_end: ['dom'],
            events: ['network', 'console'],
            network: { response_body: true },
            limits: { max_events: 500 },
          },
        },
      ),
      browser: { mode: 'launch', executable_path: wrapper },
      start_url: { url: `${pages.origin}/log`, query: [{ name: 'lang', value: { source: 'literal', value: 'en' } }] },
    };
    const e = await withEnv({ TMPDIR: tmp }, () => captureBrowserScenario(s, { env: {} }));
    expect(e.steps.map((x) => x.status)).toEqual(['completed', 'completed']);
    const args = readFileSync(argsFile, 'utf8').split('\n');
    const userDataDir = args.find((a) => a.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
    expect(userDataDir.startsWith(join(tmp, 'capstate-profile-'))).toBe(true);
    expect(existsSync(userDataDir), 'the launch profile is deleted at cleanup').toBe(false);
    expect(readdirSync(tmp).filter((f) => f.startsWith('capstate-profile-'))).toEqual([]);
    // The Evidence names what the request named.
    expect(e.scenario.browser).toEqual({ mode: 'launch', executable_path: wrapper, headless: true });
    expect(e.scenario.start_url).toBe(`${pages.origin}/log?lang=en`);
    expect(e.steps.map((x) => [x.step_id, x.action])).toEqual([
      ['click', 'click'],
      ['go', 'goto'],
    ]);
    expect(e.steps[1].url).toBe(`${pages.origin}/plain`);
    expect(e.scenario.artifacts).toEqual({ after_each_step: ['url'], at_end: ['dom'] });
    expect(e.scenario.event_families).toEqual(['console', 'network']);
    expect(e.scenario.network_content).toEqual({ request_body: false, response_body: true, header_values: false });
    expect(e.scenario.limits.max_events).toBe(500);
  });

  it('BS-6 connect: the Evidence names the exact endpoint; capstate disconnects without closing the external browser', async () => {
    external = await startExternalBrowser();
    const browser = external.process;
    const port = new URL(external.endpoint).port;
    // The endpoint as the caller spells it (localhost), kept exactly in the Evidence.
    const endpoint = `http://localhost:${port}`;
    const e = await captureBrowserScenario(
      { ...launch(`${pages.origin}/plain`, [settle()]), browser: { mode: 'connect', cdp_endpoint: endpoint } },
      { env: {} },
    );
    expect(e.scenario.browser).toEqual({ mode: 'connect', cdp_endpoint: endpoint });
    expect(e.steps[0].status).toBe('completed');
    expect(browser.exitCode).toBeNull();
    expect(((await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { Browser: string }).Browser).toMatch(/Chrom/);
  });
});

describeBrowser('BS-7 What capstate does not do', () => {
  it('BS-7 a schema-valid scenario with a missing executable fails clearly; nothing is created or installed', async () => {
    const tmp = scratchDir('bs7-tmp');
    const browsers = join(scratchDir('bs7-pw'), 'browsers');
    const missing = join(tmp, 'no-such-chromium');
    const s = { ...launch(`${pages.origin}/plain`, [settle()]), browser: { mode: 'launch', executable_path: missing } };
    expect(() => validateScenario(s)).not.toThrow();
    const err = await withEnv({ TMPDIR: tmp, PLAYWRIGHT_BROWSERS_PATH: browsers }, () => errorOf(captureBrowserScenario(s, { env: {} })));
    expect(err.code).toBe('browser-not-found');
    expect(err.exitCode).toBe(1);
    expect(err.context.path).toBe('browser.executable_path');
    expect(err.message).toContain(missing);
    expect(err.message).toMatch(/install/);
    // No profile, no Playwright artifacts, no browser download.
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(browsers)).toBe(false);
    expect(existsSync(missing)).toBe(false);
  });

  it('BS-7 an executable that is not a browser fails as a launch error, and its profile is deleted', async () => {
    const dir = scratchDir('bs7-fake');
    const tmp = scratchDir('bs7-fake-tmp');
    const notBrowser = script(dir, 'not-a-browser', 'exit 3');
    const err = await withEnv({ TMPDIR: tmp }, () =>
      errorOf(
        captureBrowserScenario(
          { ...launch(`${pages.origin}/plain`, [settle()]), browser: { mode: 'launch', executable_path: notBrowser } },
          { env: {} },
        ),
      ),
    );
    expect(err.code).toBe('browser-launch-failed');
    expect(err.context.path).toBe('browser.executable_path');
    expect(err.message).toContain(notBrowser);
    expect(readdirSync(tmp).filter((f) => f.startsWith('capstate-profile-'))).toEqual([]);
  });

  it('BS-7 a target that is not running is not started: the Evidence records a failed initial navigation, and the port stays closed', async () => {
    const port = await freePort();
    const s = launch(`http://127.0.0.1:${port}/`, [settle('a'), settle('b')], { command_timeout_ms: 10_000 });
    expect(() => validateScenario(s)).not.toThrow();
    const e = await captureBrowserScenario(s, { env: {} });
    expect(e.initial_state).toMatchObject({
      status: 'failed',
      error: { code: 'navigation-failed', message: expect.stringMatching(/ERR_CONNECTION_REFUSED/) },
    });
    expect(e.steps.map((x) => [x.status, x.error?.code])).toEqual([
      ['cancelled', 'not-executed'],
      ['cancelled', 'not-executed'],
    ]);
    expect(e.scenario.start_url).toBe(`http://127.0.0.1:${port}/`);
    expect(await listening(port)).toBe(false);
  });
});

describeBrowser('BS-15 Click timeouts and readiness', () => {
  const click = (timeout_ms: number) => ({ step_id: 'search', action: 'click', locator: { kind: 'css', selector: '#search' }, timeout_ms });
  const ready = (timeout_ms: number) => ({
    step_id: 'results-ready',
    action: 'wait_for',
    locator: { kind: 'css', selector: "#results[data-state='ready']" },
    state: 'visible',
    timeout_ms,
  });

  it("BS-15 the click's timeout_ms covers the click only: a 1 s click completes while its fetch takes 3 s, and a capture right after it shows no results", async () => {
    const before = pages.hits.length;
    const e = await captureBrowserScenario(
      launch(`${pages.origin}/slow-search`, [click(1000)], { capture: { at_end: ['dom', 'accessibility', 'url'] } }),
      { env: {} },
    );
    expect(e.steps[0]).toMatchObject({ status: 'completed', completeness: 'complete' });
    expect(e.steps[0].elapsed_ms).toBeLessThan(SLOW_MS);
    // The click did start the fetch…
    expect(pages.hits.slice(before).map((h) => h.url)).toContain('/api/slow');
    // …but capstate did not wait for it, whatever the capture selection.
    expect(text(e.steps[0].captures.dom)).toContain('<ul id="results"></ul>');
    expect(text(e.steps[0].captures.dom)).not.toContain('<li>Lamp</li>');
    expect(text(e.steps[0].captures.accessibility)).not.toMatch(/listitem/);
  });

  it('BS-15 a wait_for on a page-specific readiness condition makes the final capture show the results', async () => {
    const e = await captureBrowserScenario(
      launch(`${pages.origin}/slow-search`, [click(1000), ready(10_000)], { capture: { at_end: ['dom', 'accessibility'] } }),
      { env: {} },
    );
    expect(e.steps.map((x) => x.status)).toEqual(['completed', 'completed']);
    expect(e.steps[1].elapsed_ms).toBeGreaterThan(SLOW_MS / 2);
    expect(text(e.steps[1].captures.dom)).toContain('<li>Lamp</li><li>Desk</li>');
    expect(text(e.steps[1].captures.accessibility)).toMatch(/listitem: Lamp/);
  });

  it('BS-15 the wait has its own timeout: one shorter than the fetch fails the step; a synchronous update needs no wait', async () => {
    const short = await captureBrowserScenario(
      launch(`${pages.origin}/slow-search`, [click(10_000), ready(300)], { capture: { at_end: ['dom'] } }),
      { env: {} },
    );
    expect(short.steps.map((x) => x.status)).toEqual(['completed', 'failed']);
    expect(short.steps[1].error?.message).toMatch(/300ms/);
    expect(text(short.steps[1].captures.dom)).not.toContain('<li>Lamp</li>');

    const sync = await captureBrowserScenario(
      launch(
        `${pages.origin}/slow-search`,
        [{ step_id: 'sync', action: 'click', locator: { kind: 'css', selector: '#sync' }, timeout_ms: 10_000 }],
        { capture: { at_end: ['dom'] } },
      ),
      { env: {} },
    );
    expect(text(sync.steps[0].captures.dom)).toContain('<p id="sync-out">synchronous result</p>');
  });
});

describeBrowser('BS-27 Value sources', () => {
  const SECRET = 'fill-secret-Zq81xw';
  const secrets = [
    { secret_id: 'form-value', environment_variable: 'CAPSTATE_RULES_FORM' },
    { secret_id: 'store-value', environment_variable: 'CAPSTATE_RULES_STORE' },
  ];
  const STORE = 'store-secret-Kp27vb';

  it('BS-27 value sources of form values, storage values and cookie values are literal or a declared secret, nothing else', () => {
    const base = (extra: Record<string, unknown>, actions: unknown[] = [settle()]) =>
      launch(`${pages.origin}/form`, actions, { secrets, ...extra });
    const fill = (value: unknown) => base({}, [{ step_id: 'f', action: 'fill', locator: { kind: 'css', selector: '#field' }, value }]);
    const cookie = (value: unknown) => base({ storage: { cookies: [{ name: 'c', value, url: pages.origin }] } });
    const local = (value: unknown) => base({ storage: { local_storage: [{ origin: pages.origin, entries: [{ key: 'k', value }] }] } });
    const session = (value: unknown) => base({ storage: { session_storage: [{ origin: pages.origin, entries: [{ key: 'k', value }] }] } });
    const where: [(v: unknown) => unknown, string][] = [
      [fill, 'actions[0].value'],
      [cookie, 'storage.cookies[0].value'],
      [local, 'storage.local_storage[0].entries[0].value'],
      [session, 'storage.session_storage[0].entries[0].value'],
    ];
    for (const [make, path] of where) {
      expect(() => validateScenario(make({ source: 'literal', value: 'x' })), path).not.toThrow();
      expect(() => validateScenario(make({ source: 'secret', secret_id: 'form-value' })), path).not.toThrow();
      // Page sources are for request-step headers only; bare strings and other sources are refused.
      expect(invalid(make({ source: 'cookie', name: 'csrftoken' })).context.path).toBe(`${path}.source`);
      expect(invalid(make({ source: 'local_storage', key: 'auth' })).context.path).toBe(`${path}.source`);
      expect(invalid(make({ source: 'env', name: 'HOME' })).context.path).toBe(`${path}.source`);
      expect(invalid(make('plain string')).context.path).toBe(path);
      expect(invalid(make({ source: 'secret', secret_id: 'undeclared' })).context.path).toBe(`${path}.secret_id`);
    }
    // Request-step headers additionally take cookie and local_storage (with json_pointer) sources.
    const header = (value: unknown) =>
      base({}, [{ step_id: 'r', action: 'request', method: 'GET', path: '/api/echo', headers: [{ name: 'X-V', value }] }]);
    for (const v of [
      { source: 'cookie', name: 'c' },
      { source: 'local_storage', key: 'auth' },
      { source: 'local_storage', key: 'auth', json_pointer: '/token' },
    ])
      expect(() => validateScenario(header(v))).not.toThrow();
    expect(invalid(header({ source: 'local_storage', key: 'auth', json_pointer: 'token' })).context.path).toBe(
      'actions[0].headers[0].value.json_pointer',
    );
    expect(invalid(header({ source: 'session_storage', key: 'auth' })).context.path).toBe('actions[0].headers[0].value.source');
  });

  it('BS-27 a fill value: a literal reaches the page as written; a declared secret reaches the page and the Evidence shows its reference', async () => {
    const run = (value: unknown) => {
      const before = pages.hits.length;
      return captureBrowserScenario(
        launch(
          `${pages.origin}/form`,
          [
            { step_id: 'fill', action: 'fill', locator: { kind: 'css', selector: '#field' }, value, timeout_ms: 10000 },
            { step_id: 'send', action: 'click', locator: { kind: 'css', selector: '#send' }, timeout_ms: 10000 },
            {
              step_id: 'sent',
              action: 'wait_for',
              locator: { kind: 'css', selector: "body[data-sent='yes']" },
              state: 'attached',
              timeout_ms: 10000,
            },
          ],
          { secrets, capture: { at_end: ['dom'] } },
        ),
        { env: { CAPSTATE_RULES_FORM: SECRET, CAPSTATE_RULES_STORE: STORE } },
      ).then((e) => ({ e, sent: pages.hits.slice(before).find((h) => h.url === '/api/echo')?.body }));
    };
    const lit = await run({ source: 'literal', value: 'literal words' });
    expect(lit.sent).toBe('literal words');
    expect(text(lit.e.steps[2].captures.dom)).toContain('<p id="mirror">literal words</p>');

    const sec = await run({ source: 'secret', secret_id: 'form-value' });
    expect(sec.e.steps.map((x) => x.status)).toEqual(['completed', 'completed', 'completed']);
    expect(sec.sent).toBe(SECRET);
    expect(text(sec.e.steps[2].captures.dom)).toContain('<p id="mirror">[REDACTED:secret:form-value]</p>');
    expect(JSON.stringify(sec.e)).not.toContain(SECRET);
  });

  it('BS-27 storage and cookie values: literals and declared secrets reach the page; the Evidence keeps only references and fingerprints', async () => {
    const before = pages.hits.length;
    const e = await captureBrowserScenario(
      launch(
        `${pages.origin}/show-storage`,
        [
          {
            step_id: 'sent',
            action: 'wait_for',
            locator: { kind: 'css', selector: "body[data-sent='yes']" },
            state: 'attached',
            timeout_ms: 10000,
          },
        ],
        {
          secrets,
          storage: {
            cookies: [
              { name: 'c_secret', value: { source: 'secret', secret_id: 'store-value' }, url: pages.origin },
              { name: 'c_literal', value: { source: 'literal', value: 'cookie-literal' }, url: pages.origin },
            ],
            local_storage: [
              {
                origin: pages.origin,
                entries: [
                  { key: 'ls-secret', value: { source: 'secret', secret_id: 'store-value' } },
                  { key: 'ls-literal', value: { source: 'literal', value: 'ls literal' } },
                ],
              },
            ],
            session_storage: [
              { origin: pages.origin, entries: [{ key: 'ss-secret', value: { source: 'secret', secret_id: 'store-value' } }] },
            ],
          },
          capture: { at_end: ['dom', 'storage'] },
        },
      ),
      { env: { CAPSTATE_RULES_FORM: SECRET, CAPSTATE_RULES_STORE: STORE } },
    );
    expect(e.steps[0].status).toBe('completed');
    // What the page and the server saw: the real values.
    const doc = pages.hits.slice(before).find((h) => h.url === '/show-storage')!;
    expect(doc.headers.cookie).toContain(`c_secret=${STORE}`);
    expect(doc.headers.cookie).toContain('c_literal=cookie-literal');
    const echo = pages.hits.slice(before).find((h) => h.url === '/api/echo')!;
    expect(JSON.parse(echo.body)).toEqual({ ls_secret: STORE, ls_literal: 'ls literal', ss_secret: STORE });
    // What the Evidence keeps: references, never the secret; literal values fingerprinted.
    expect(JSON.stringify(e)).not.toContain(STORE);
    expect(text(e.steps[0].captures.dom)).toContain('"ls_secret":"[REDACTED:secret:store-value]"');
    const st = (
      e.steps[0].captures.storage as {
        value: {
          cookies: { name: string; value: unknown }[];
          local_storage: { key: string; value: unknown }[];
          session_storage: { key: string; value: unknown }[];
        };
      }
    ).value;
    const byName = (l: { value: unknown }[], f: (x: never) => boolean) => l.find(f as (x: unknown) => boolean)!.value;
    expect(byName(st.cookies, (c: { name: string }) => c.name === 'c_secret')).toEqual({ state: 'redacted-secret', sha256: null });
    expect(byName(st.cookies, (c: { name: string }) => c.name === 'c_literal')).toEqual({
      state: 'hashed',
      sha256: sha256('cookie-literal'),
    });
    expect(byName(st.local_storage, (x: { key: string }) => x.key === 'ls-secret')).toEqual({ state: 'redacted-secret', sha256: null });
    expect(byName(st.local_storage, (x: { key: string }) => x.key === 'ls-literal')).toEqual({
      state: 'hashed',
      sha256: sha256('ls literal'),
    });
    expect(byName(st.session_storage, (x: { key: string }) => x.key === 'ss-secret')).toEqual({ state: 'redacted-secret', sha256: null });
  });

  it('BS-27 request-step headers read a cookie, a whole local-storage value and a JSON value inside one (json_pointer)', async () => {
    const before = pages.hits.length;
    const e = await captureBrowserScenario(
      launch(
        `${pages.origin}/plain`,
        [
          {
            step_id: 'send',
            action: 'request',
            method: 'POST',
            path: '/api/echo',
            json: { a: 1 },
            expected_status: [200],
            timeout_ms: 10000,
            headers: [
              { name: 'X-CSRFToken', value: { source: 'cookie', name: 'csrftoken' } },
              { name: 'X-Whole', value: { source: 'local_storage', key: 'plain' } },
              { name: 'X-Token', value: { source: 'local_storage', key: 'auth', json_pointer: '/user/token' }, prefix: 'Bearer ' },
              { name: 'X-Literal', value: { source: 'literal', value: 'just-a-literal' } },
              { name: 'X-Secret', value: { source: 'secret', secret_id: 'form-value' } },
            ],
          },
        ],
        {
          secrets,
          storage: {
            cookies: [{ name: 'csrftoken', value: { source: 'literal', value: 'csrf-from-cookie-0123' }, url: pages.origin }],
            local_storage: [
              {
                origin: pages.origin,
                entries: [
                  { key: 'plain', value: { source: 'literal', value: 'whole-value-abcdefgh' } },
                  { key: 'auth', value: { source: 'literal', value: '{"user":{"token":"tok-in-json-98765"}}' } },
                ],
              },
            ],
          },
          capture: { network: { header_values: true } },
        },
      ),
      { env: { CAPSTATE_RULES_FORM: SECRET, CAPSTATE_RULES_STORE: STORE } },
    );
    expect(e.steps[0].status).toBe('completed');
    const hit = pages.hits.slice(before).find((h) => h.url === '/api/echo')!;
    expect(hit.headers['x-csrftoken']).toBe('csrf-from-cookie-0123');
    expect(hit.headers['x-whole']).toBe('whole-value-abcdefgh');
    expect(hit.headers['x-token']).toBe('Bearer tok-in-json-98765');
    expect(hit.headers['x-literal']).toBe('just-a-literal');
    expect(hit.headers['x-secret']).toBe(SECRET);
    // In the Evidence, page values carry their page markers and the secret its reference.
    const req = e.events.find((x) => x.kind === 'request' && x.url === `${pages.origin}/api/echo`)!;
    const content = e.events.find((x) => x.kind === 'network-content' && x.source_event_sequence === req.sequence)!;
    const headers = Object.fromEntries(
      (content.headers as { values: { name: string; value: string | null }[] }).values.map((h) => [h.name.toLowerCase(), h.value]),
    );
    expect(headers['x-csrftoken']).toBe('[REDACTED:page:send.X-CSRFToken]');
    expect(headers['x-whole']).toBe('[REDACTED:page:send.X-Whole]');
    expect(headers['x-token']).toBe('Bearer [REDACTED:page:send.X-Token]');
    expect(headers['x-literal']).toBe('just-a-literal');
    expect(headers['x-secret']).toBe('[REDACTED:secret:form-value]');
    const all = JSON.stringify(e);
    for (const v of ['csrf-from-cookie-0123', 'whole-value-abcdefgh', 'tok-in-json-98765', SECRET]) expect(all).not.toContain(v);
  });
});

describeBrowser('BS-34 Evidence structure', () => {
  const SECRET = 'query-secret-Hn4t';
  const STEP_KEYS = ['action', 'captures', 'completeness', 'elapsed_ms', 'event_bounds', 'status', 'step_id', 'url'];
  const STATE_KEYS: Record<string, string[]> = {
    captured: ['state', 'value'],
    not_requested: ['state'],
    missing: ['state'],
    unavailable: ['error', 'state'],
  };

  /** One capture state per artifact, each independently typed with exactly its own keys. */
  function checkCaptures(c: Record<string, { state: string }>, expected: Record<string, string>, where: string): void {
    expect(keys(c), where).toEqual(ARTIFACTS);
    for (const a of ARTIFACTS) {
      expect(STATES, `${where} ${a}`).toContain(c[a].state);
      expect(keys(c[a]), `${where} ${a}`).toEqual(STATE_KEYS[c[a].state]);
      expect(c[a].state, `${where} ${a}`).toBe(expected[a] ?? 'not_requested');
    }
  }

  function checkBounds(b: { first: number | null; last: number | null }, where: string): void {
    expect(keys(b), where).toEqual(['first', 'last']);
    if (b.first === null) expect(b.last, where).toBeNull();
    else {
      expect(Number.isInteger(b.first) && Number.isInteger(b.last), where).toBe(true);
      expect(b.first, where).toBeLessThanOrEqual(b.last!);
    }
  }

  it('BS-34 an initial state, then exactly one record per declared action with status, elapsed time, sanitized URL, event bounds and six typed capture states — also when a step fails and the rest are cancelled', async () => {
    const declared = [
      { step_id: 'click-log', action: 'click', locator: { kind: 'css', selector: '#log' }, timeout_ms: 10000 },
      {
        step_id: 'reload',
        action: 'goto',
        destination: { url: `${pages.origin}/log`, query: [{ name: 'k', value: { source: 'secret', secret_id: 'q' } }] },
      },
      { step_id: 'broken', action: 'wait_for', locator: { kind: 'css', selector: '#nope' }, timeout_ms: 200 },
      { step_id: 'never', action: 'click', locator: { kind: 'css', selector: '#log' }, timeout_ms: 10000 },
      { step_id: 'never-either', action: 'wait_for_timeout', duration_ms: 1 },
    ];
    const e = await captureBrowserScenario(
      launch(`${pages.origin}/log`, declared, {
        start_url: { url: `${pages.origin}/log`, query: [{ name: 'k', value: { source: 'secret', secret_id: 'q' } }] },
        secrets: [{ secret_id: 'q', environment_variable: 'CAPSTATE_RULES_Q' }],
        capture: { after_each_step: ['url', 'dom'], at_end: ['storage', 'history'], events: ['console'] },
      }),
      { env: { CAPSTATE_RULES_Q: SECRET } },
    );
    const sanitized = `${pages.origin}/log?k=[REDACTED:secret:q]`;
    expect(JSON.stringify(e)).not.toContain(SECRET);

    // The initial state: a step-like record without step_id/action.
    const init = e.initial_state;
    expect(keys(init)).toEqual(STEP_KEYS.filter((k) => k !== 'action' && k !== 'step_id'));
    expect(init.status).toBe('completed');
    expect(init.url).toBe(sanitized);
    expect(init.elapsed_ms).toBeGreaterThan(0);
    checkBounds(init.event_bounds, 'initial_state');
    checkCaptures(init.captures, { url: 'captured', dom: 'captured' }, 'initial_state');
    expect(text(init.captures.url)).toBe(sanitized);

    // One record per declared action, in order.
    expect(e.steps.map((s) => [s.step_id, s.action])).toEqual(declared.map((a) => [a.step_id, a.action]));
    expect(e.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'failed', 'cancelled', 'cancelled']);
    for (const s of e.steps) {
      expect(keys(s), s.step_id).toEqual((s.status === 'completed' ? STEP_KEYS : [...STEP_KEYS, 'error']).sort());
      expect(typeof s.elapsed_ms, s.step_id).toBe('number');
      expect(s.elapsed_ms, s.step_id).toBeGreaterThanOrEqual(0);
      checkBounds(s.event_bounds, s.step_id);
    }
    const [clicked, reload, broken, never, neverEither] = e.steps;
    expect(clicked.url).toBe(sanitized);
    checkCaptures(clicked.captures, { url: 'captured', dom: 'captured' }, 'click-log');
    expect(reload.url).toBe(sanitized);
    expect(text(reload.captures.url)).toBe(sanitized);
    // The failed step is where the capture ended: it holds the at_end artifacts.
    expect(broken.error).toMatchObject({ code: expect.any(String), message: expect.stringMatching(/200ms/) });
    expect(broken.elapsed_ms).toBeGreaterThanOrEqual(150);
    checkCaptures(broken.captures, { url: 'captured', dom: 'captured', storage: 'captured', history: 'captured' }, 'broken');
    // Cancelled steps: not executed, no URL, no events, requested artifacts missing.
    for (const s of [never, neverEither]) {
      expect(s).toMatchObject({
        status: 'cancelled',
        elapsed_ms: 0,
        url: null,
        event_bounds: { first: null, last: null },
        completeness: 'missing',
      });
      expect(s.error).toEqual({ code: 'not-executed', message: 'not executed: step "broken" did not complete' });
    }
    checkCaptures(never.captures, { url: 'missing', dom: 'missing' }, 'never');
    checkCaptures(neverEither.captures, { url: 'missing', dom: 'missing', storage: 'missing', history: 'missing' }, 'never-either');

    // Event bounds: every event lies within the bounds of the record it belongs to.
    const records: [string | null, { first: number | null; last: number | null }][] = [
      [null, init.event_bounds],
      ...e.steps.map((s) => [s.step_id, s.event_bounds] as [string, typeof s.event_bounds]),
    ];
    expect(e.events.length).toBeGreaterThanOrEqual(3);
    for (const ev of e.events) {
      const b = records.find(([id]) => id === ev.step_id)![1];
      expect(b.first, `${ev.kind} ${String(ev.text)}`).not.toBeNull();
      expect(ev.sequence).toBeGreaterThanOrEqual(b.first!);
      expect(ev.sequence).toBeLessThanOrEqual(b.last!);
    }
    const consoleOf = (id: string | null) => e.events.filter((x) => x.kind === 'console' && x.step_id === id).map((x) => x.text);
    expect(consoleOf(null)).toEqual(['loaded']);
    expect(consoleOf('click-log')).toEqual(['clicked']);
    expect(consoleOf('reload')).toEqual(['loaded']);
    // Bounds of different records never overlap and follow the record order.
    const nonEmpty = records.map(([, b]) => b).filter((b) => b.first !== null);
    for (let i = 1; i < nonEmpty.length; i++) expect(nonEmpty[i].first!).toBeGreaterThan(nonEmpty[i - 1].last!);
  });
});
