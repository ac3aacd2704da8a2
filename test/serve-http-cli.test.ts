/**
 * Issue 46, `serve --http` from the command line as json-server and Mockoon users expect:
 * `--port N` for `--http 127.0.0.1:N`; the routes printed at start; one line per request on
 * stderr (method, path, status, how it was answered, ms) that `--quiet` silences; stdout
 * empty; a busy port a runtime failure (exit 1) in one line naming the port, not a usage error.
 * No assertion reads a time: the lines are matched with `\d+ ms`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, cliPath, fixture, tempDir } from './helpers.js';

const dir = tempDir();
const db = join(dir, 'json-server.sqlite');

beforeAll(() => {
  const r = cli(['load', fixture('json-server', 'capture.har'), '--db', db]);
  expect(r.status, r.stderr).toBe(0);
});

interface Running {
  child: ChildProcess;
  base: string;
  stderr: () => string;
  stdout: () => string;
  /** Resolves once stderr matches `re` (no fixed wait: the condition is the event). */
  waitFor: (re: RegExp) => Promise<void>;
  /** SIGTERM, then the exit code once the process ends. */
  stop: () => Promise<number | null>;
}

/** `capstate serve ARGS` as a process, once it says where it listens. */
async function serve(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--db', db, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    for (const w of waiters.filter((x) => x.re.test(err))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const waitFor = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (re.test(err)) return resolve();
      waiters.push({ re, resolve });
      void exited.then((code) => reject(new Error(`serve exited ${code} before ${re}: ${err}`)));
    });
  // The last line of the start-up: the routes and the rest are said by then.
  await waitFor(/^capstate: ready/m);
  return {
    child,
    base: /over HTTP at (http:\/\/[^:]+:\d+)/.exec(err)![1],
    stderr: () => err,
    stdout: () => out,
    waitFor,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('issue 46: serve --port, the route list and the request log', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => busy.close(resolve)));

  it('--port N serves on 127.0.0.1:N, prints the routes, then one line per request on stderr', async () => {
    const s = await serve(['--port', '0']);
    try {
      expect(s.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // The routes: one per tool, method, template and tool name.
      expect(s.stderr()).toMatch(/^routes:$/m);
      expect(s.stderr()).toMatch(/^ {2}GET +\/posts\/\{id\} +get_posts_by_id$/m);
      expect(s.stderr()).toMatch(/^ {2}PATCH +\/profile +patch_profile$/m);
      expect(s.stderr()).toMatch(/open http:\/\/127\.0\.0\.1:\d+\/ to run the recorded app/);
      expect((await fetch(`${s.base}/posts/1`)).status).toBe(200);
      expect((await fetch(`${s.base}/posts?zzz=1`)).status).toBe(501);
      expect((await fetch(`${s.base}/__capstate/reset`, { method: 'POST' })).status).toBe(200);
      await s.waitFor(/^POST \/__capstate\/reset /m);
      expect(s.stderr()).toMatch(/^GET \/posts\/1 200 state get_posts_by_id \d+ ms$/m);
      expect(s.stderr()).toMatch(/^GET \/posts\?zzz=1 501 declined no-convention \d+ ms$/m);
      expect(s.stderr()).toMatch(/^POST \/__capstate\/reset 200 data-plane \d+ ms$/m);
    } finally {
      expect(await s.stop()).toBe(0);
    }
    expect(s.stdout()).toBe('');
  });

  it('a refused page and a replayed file say so in their lines', async () => {
    const s = await serve(['--port', '0']);
    try {
      expect((await fetch(`${s.base}/posts`, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
      expect((await fetch(`${s.base}/index.html`)).status).toBe(200);
      await s.waitFor(/^GET \/index\.html /m);
      expect(s.stderr()).toMatch(/^GET \/posts 403 refused cross-origin \d+ ms$/m);
      expect(s.stderr()).toMatch(/^GET \/index\.html 200 replay get_index_html \d+ ms$/m);
    } finally {
      await s.stop();
    }
  });

  it('--quiet: no request lines, the start-up still said', async () => {
    const s = await serve(['--port', '0', '--quiet']);
    expect((await fetch(`${s.base}/posts/1`)).status).toBe(200);
    expect((await fetch(`${s.base}/nowhere`)).status).toBe(501);
    // The process has ended, so every line it would have written is in.
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).toMatch(/^routes:$/m);
    expect(s.stderr()).not.toMatch(/^(GET|POST) \//m);
    expect(s.stderr()).toMatch(/^capstate: ready \(--quiet: no line per request\)$/m);
  });

  it('a busy port exits 1 with one line naming the port and what to do; no help page', async () => {
    const r = await cliAsync(['serve', '--db', db, '--port', String(busyPort)]);
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^capstate: error: port ${busyPort} is already in use on 127\\.0\\.0\\.1 .*stop that server, or choose another port: --port \\d+$`,
      ),
    );
    const viaHttp = await cliAsync(['serve', '--db', db, '--http', `127.0.0.1:${busyPort}`]);
    expect(viaHttp.status).toBe(1);
  });

  it('--port with --http, or a --port that is no number, is a usage error (exit 2)', () => {
    const both = cli(['serve', '--db', db, '--port', '3000', '--http', '3001']);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--port PORT is short for --http 127\.0\.0\.1:PORT; give one of them, not both/);
    const bad = cli(['serve', '--db', db, '--port', 'localhost:3000']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--port takes a port number such as 3000/);
  });
});
