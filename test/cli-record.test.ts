/**
 * `capstate record URL` (issue 46): a HAR of the user's own app, recorded in Debian's
 * Chromium (headless: tests have no display) and ended by Ctrl-C (SIGINT), which must
 * write the HAR, say where it is and what to run next; the HAR loads. Under xvfb-run, a
 * visible window that the user closes writes it too. Without a display, and for a bad URL
 * or an existing --out, it says so plainly and records nothing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { defaultHarName, recordUrl } from '../src/cli/record.js';
import { CHROMIUM, describeBrowser } from './browser-app.js';
import { cliAsync, cliPath, root, tempDir, type CliResult } from './helpers.js';

const dir = tempDir();

/** A page that reads a JSON endpoint, then tells the server it has its answer (`/done`). */
function startPageServer(): { origin: Promise<string>; hits: string[]; done: Promise<void>; close: () => void } {
  const hits: string[] = [];
  let sawDone!: () => void;
  const done = new Promise<void>((r) => {
    sawDone = r;
  });
  const server = http.createServer((req, res) => {
    hits.push(req.url!);
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><html><head><title>notes</title></head><body><ul id="notes"></ul><script>
fetch('/api/notes').then((r) => r.json()).then((notes) => {
  for (const n of notes) document.getElementById('notes').append(Object.assign(document.createElement('li'), { textContent: n.title }));
  return fetch('/done');
});
</script></body></html>`,
      );
      return;
    }
    if (req.url === '/api/notes') {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'sid=Zq81xYw47tR2; Path=/; HttpOnly' });
      res.end(JSON.stringify([{ id: 1, title: 'Buy milk' }]));
      return;
    }
    if (req.url === '/done') sawDone();
    res.writeHead(204);
    res.end();
  });
  const origin = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  return { origin, hits, done, close: () => server.close() };
}

/**
 * `capstate record ARGS` as a process of its own: once its stderr says it is recording and
 * `ready` has resolved, it gets SIGINT (Ctrl-C); resolves with how it ended.
 */
function recordThenInterrupt(args: string[], ready: Promise<unknown>): Promise<CliResult> {
  const child = spawn(process.execPath, [cliPath, 'record', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = watchRecording(child);
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout: seen.stdout, stderr: seen.stderr }));
  });
  void Promise.all([seen.recording, ready]).then(() => child.kill('SIGINT'));
  return exited;
}

/** What a `capstate record` process printed so far, and when its stderr first says it is recording. */
function watchRecording(child: ChildProcess): {
  stdout: string;
  stderr: string;
  recording: Promise<void>;
} {
  let sawRecording!: () => void;
  const seen = {
    stdout: '',
    stderr: '',
    recording: new Promise<void>((r) => {
      sawRecording = r;
    }),
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    seen.stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    seen.stderr += d;
    if (/recording into /.test(seen.stderr)) sawRecording();
  });
  return seen;
}

describeBrowser('issue 46: capstate record', () => {
  const app = startPageServer();
  afterAll(() => app.close());

  it('Ctrl-C writes a HAR of the page and its API call, says where it is and to load it, and the HAR loads', {
    timeout: 240_000,
  }, async () => {
    const origin = await app.origin;
    const har = join(dir, 'app.har');
    const r = await recordThenInterrupt([`${origin}/`, '--headless', '--out', har, '--browser', CHROMIUM], app.done);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${har}`);
    expect(r.stdout).toMatch(/cookies and tokens.*capstate load keeps their values out of the store/);
    expect(r.stdout).toContain(`next: capstate load ${har}`);
    const doc = JSON.parse(readFileSync(har, 'utf8'));
    const api = doc.log.entries.find((e: { request: { url: string } }) => e.request.url === `${origin}/api/notes`);
    expect(api, 'the API request is in the HAR').toBeDefined();
    expect(api.response.status).toBe(200);
    expect(api.response.content.text).toContain('Buy milk');
    // No temporary file is left beside it.
    expect(readdirSync(dir).filter((f) => f.includes('recording'))).toEqual([]);
    const load = await cliAsync(['load', har, '--db', join(dir, 'app.sqlite'), '--json']);
    expect(load.status, load.stderr).toBe(0);
    expect(JSON.parse(load.stdout).captures[0].records).toBeGreaterThanOrEqual(2);
  });

  it('a URL where nothing answers is an error (exit 1) naming the reason, and leaves no HAR', { timeout: 180_000 }, async () => {
    // A port that was just free: nothing listens there.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const har = join(dir, 'nothing.har');
    const r = await cliAsync(['record', `http://127.0.0.1:${port}/`, '--headless', '--out', har, '--browser', CHROMIUM]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/did not load \(net::ERR_CONNECTION_REFUSED/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(existsSync(har)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('recording'))).toEqual([]);
  });
});

/**
 * Closes every Chromium browser window on $DISPLAY as a window manager's close button does
 * (WM_DELETE_WINDOW), through libX11: Xvfb has no window manager and no tool here sends it.
 * Exits 3 when it finds no window to close.
 */
const CLOSE_WINDOWS_PY = String.raw`
import ctypes, re, subprocess, sys
x = ctypes.cdll.LoadLibrary('libX11.so.6')
x.XOpenDisplay.restype = ctypes.c_void_p
x.XInternAtom.restype = ctypes.c_ulong
x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
x.XFlush.argtypes = [ctypes.c_void_p]
class ClientMessage(ctypes.Structure):
    _fields_ = [('type', ctypes.c_int), ('serial', ctypes.c_ulong), ('send_event', ctypes.c_int), ('display', ctypes.c_void_p),
                ('window', ctypes.c_ulong), ('message_type', ctypes.c_ulong), ('format', ctypes.c_int), ('l', ctypes.c_long * 5)]
class XEvent(ctypes.Union):
    _fields_ = [('xclient', ClientMessage), ('pad', ctypes.c_long * 24)]
d = x.XOpenDisplay(None)
tree = subprocess.run(['xwininfo', '-root', '-tree'], capture_output=True, text=True).stdout
windows = [int(m.group(1), 16) for m in re.finditer(r'^\s+(0x[0-9a-f]+) "[^"]* - Chromium"', tree, re.M)]
if not windows:
    sys.exit(3)
protocols, delete = x.XInternAtom(d, b'WM_PROTOCOLS', 0), x.XInternAtom(d, b'WM_DELETE_WINDOW', 0)
for w in windows:
    ev = XEvent()
    ev.xclient.type, ev.xclient.window, ev.xclient.message_type, ev.xclient.format = 33, w, protocols, 32
    ev.xclient.l[0] = delete
    x.XSendEvent(d, w, 0, 0, ctypes.byref(ev))
x.XFlush(d)
`;

/** Ends a process group the test started (a detached child and its children). */
function endGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

const hasXvfb = spawnSync('sh', ['-c', 'command -v xvfb-run && command -v xwininfo && command -v python3']).status === 0;

describeBrowser('issue 46: capstate record with a window (xvfb-run)', () => {
  const app = startPageServer();
  afterAll(() => app.close());

  it.skipIf(!hasXvfb)('closing the browser window writes the HAR and ends the command (exit 0)', { timeout: 240_000 }, async () => {
    const origin = await app.origin;
    const har = join(dir, 'window.har');
    const child = spawn(
      'xvfb-run',
      [
        '-a',
        'sh',
        '-c',
        'echo "display=$DISPLAY xauthority=$XAUTHORITY" >&2; exec "$@"',
        'sh',
        process.execPath,
        cliPath,
        'record',
        `${origin}/`,
        '--out',
        har,
        '--browser',
        CHROMIUM,
      ],
      // Its own process group, so a failed test ends xvfb-run, Xvfb and capstate together.
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '' }, detached: true },
    );
    const seen = watchRecording(child);
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // A test that times out never reaches its finally.
    onTestFinished(() => endGroup(child.pid));
    try {
      await Promise.all([seen.recording, app.done]);
      expect(seen.stderr).toMatch(/recording into .*close the browser/);
      // The window is on xvfb-run's display, which lets in only holders of its cookie.
      const [, display, xauthority] = /display=(\S+) xauthority=(\S*)/.exec(seen.stderr) ?? [];
      const closer = spawnSync('python3', ['-c', CLOSE_WINDOWS_PY], {
        env: { ...process.env, DISPLAY: display, XAUTHORITY: xauthority },
        encoding: 'utf8',
      });
      expect(closer.status, `closing the window: ${closer.stderr}`).toBe(0);
      expect(await exited, seen.stderr).toBe(0);
    } finally {
      endGroup(child.pid);
    }
    expect(seen.stderr).not.toMatch(/stopping/); // the window's close ended it, not a signal
    expect(seen.stdout).toContain(`next: capstate load ${har}`);
    const entries = JSON.parse(readFileSync(har, 'utf8')).log.entries as { request: { url: string } }[];
    expect(entries.map((e) => e.request.url)).toContain(`${origin}/api/notes`);
  });
});

describe('issue 46: capstate record refuses what it cannot do, before opening a browser', () => {
  it('without a display and without --headless it says how to record instead (exit 1), one line', async () => {
    const har = join(dir, 'no-display.har');
    const r = await cliAsync(['record', 'http://127.0.0.1:9/', '--out', har], { env: { DISPLAY: '', WAYLAND_DISPLAY: '' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^capstate: error: no display .*pass --headless to record the page load alone\n$/);
    expect(existsSync(har)).toBe(false);
  });

  it('a bad URL is a usage error (exit 2) whose first line says what is wrong', async () => {
    const r = await cliAsync(['record', 'not a url']);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('capstate: error: not an http(s) URL: "not a url"');
    const bare = await cliAsync(['record', 'localhost:3000']);
    expect(bare.status).toBe(2);
    expect(bare.stderr.split('\n')[0]).toBe('capstate: error: not an http(s) URL: "localhost:3000"; did you mean http://localhost:3000?');
  });

  it('an existing --out is kept unless --force (usage error, exit 2)', async () => {
    const har = join(dir, 'kept.har');
    writeFileSync(har, 'mine');
    const r = await cliAsync(['record', 'http://127.0.0.1:9/', '--headless', '--out', har]);
    expect(r.status).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`capstate: error: ${har} exists; pass --force to overwrite it, or name another --out`);
    expect(readFileSync(har, 'utf8')).toBe('mine');
  });
});

describe('issue 46: the default HAR name', () => {
  it("comes from the URL's host and port, and never names an existing file", () => {
    expect(defaultHarName(recordUrl('http://localhost:3000/app'), () => false)).toBe('localhost-3000.har');
    expect(defaultHarName(recordUrl('https://app.example.com/x?y=1'), () => false)).toBe('app.example.com.har');
    expect(defaultHarName(recordUrl('http://[::1]:8080/'), () => false)).toBe('1-8080.har');
    const taken = new Set(['localhost-3000.har', 'localhost-3000-2.har']);
    expect(defaultHarName(recordUrl('http://localhost:3000/'), (f) => taken.has(f))).toBe('localhost-3000-3.har');
  });
});
