/**
 * What the fidelity benchmark's recorder (record.ts) and runner (run.ts) share: the apps, how
 * each real app is started, the capture's own API requests, and sending one request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alertmanager } from './apps/alertmanager.js';
import { apolloServer } from './apps/apollo-server.js';
import { djangoRest } from './apps/django-rest.js';
import { feathersApp } from './apps/feathers.js';
import { graphqlYoga } from './apps/graphql-yoga.js';
import { redmine } from './apps/redmine.js';
import { wordpress } from './apps/wordpress.js';
import { bodyOf, type Answer, type MaskRules } from './compare.js';

/** The repository root (this file runs from bench/fidelity/ or dist/bench/fidelity/). */
export const root = (() => {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6 && !existsSync(join(d, 'package.json')); i++) d = dirname(d);
  return d;
})();

/** A real app of the benchmark; its files live in bench/fidelity/<name>/. */
export interface FidelityApp {
  name: string;
  /** What runs, for the README and the raw results. */
  about: string;
  /**
   * The command that serves `db` (a copy of the seed) and `publicDir` on 127.0.0.1:port; both
   * are relative to the working directory it runs in (json-server 0.17 joins `--static` to it).
   */
  command?(db: string, publicDir: string, port: number): { file: string; args: string[]; env?: Record<string, string> };
  /** A path the app answers 200 once it listens. */
  readyPath: string;
  mask: MaskRules;
  /**
   * Apps that are not json-server (Redmine, Alertmanager, …): starts the app from its seed in
   * `work` and resolves once it answers; `startApp` then uses this instead of `command`.
   */
  start?(work: string): Promise<RunningApp>;
  /** Whether a capture entry's path is one of the app's API requests (default: its first segment is a key of db.json). */
  isApiPath?(path: string): boolean;
  /** Where the recorder opens session.html on the app's origin (default `/index.html`); a `start` app must serve it there. */
  sessionPath?: string;
  /**
   * Whether a request only reads (default: a GET): the recorder checks that the truth run answers
   * the capture's reads as the capture recorded them. GraphQL apps read with POST too.
   */
  isRead?(r: Req): boolean;
  /** Headers every request to the app carries (an API key the session also sent); never stored in the truth. */
  headers?: Record<string, string>;
}

const pkgBin = (pkg: string, bin: string) => join(root, 'node_modules', pkg, bin);

/** json-server 0.17.4 serving `db` and the page; it sets no value of its own but ids, which are the same from the same seed. */
const jsonServer017 = {
  command: (db: string, pub: string, port: number) => ({
    file: process.execPath,
    args: [pkgBin('json-server', 'lib/cli/bin.js'), '--host', '127.0.0.1', '--port', String(port), '--static', pub, '--quiet', db],
  }),
  readyPath: '/db',
  mask: { fields: [] },
};

export const APPS: FidelityApp[] = [
  {
    name: 'json-server-0.17',
    about: 'json-server 0.17.4 (npm, pinned devDependency), seed db.json, page served from its --static dir',
    ...jsonServer017,
  },
  {
    // OQ-11 (5): a session that starts on an empty app, as many recorded sessions do.
    name: 'json-server-empty',
    about:
      'json-server 0.17.4 (npm, pinned devDependency), a todo app whose seed db.json holds empty lists: the session creates every entity',
    ...jsonServer017,
  },
  {
    name: 'json-server-1.0',
    about:
      'json-server 1.0.0-beta.3 (npm alias json-server-1, pinned devDependency; the last 1.x that runs on Node 20), string ids, seed db.json, page served from its --static dir',
    command: (db, pub, port) => ({
      file: process.execPath,
      args: [pkgBin('json-server-1', 'lib/bin.js'), '--host', '127.0.0.1', '--port', String(port), '--static', pub, db],
      // Outside production, 1.x reloads db.json when the file changes; a reload that lands after
      // the next write answered loses that write (the truth run sends faster than a browser, and
      // lost the session's PATCH /posts/2). Production mode does not watch the file.
      env: { NODE_ENV: 'production' },
    }),
    // 1.x has no /db route.
    readyPath: '/posts',
    // Ids are the seed's or the session's own (session.html sends them), so nothing varies.
    mask: { fields: [] },
  },
  alertmanager,
  redmine,
  wordpress,
  djangoRest,
  graphqlYoga,
  apolloServer,
  feathersApp,
];

export const appDir = (app: FidelityApp) => join(root, 'bench', 'fidelity', app.name);

/** A port the OS says is free now (the app binds it right after; a clash fails loudly). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

/** A running real app: its base URL and how to stop it. */
export interface RunningApp {
  base: string;
  stop(): Promise<void>;
  child: ChildProcess;
}

/**
 * Starts `app` from its seed: db.json copied to `work` (the app writes it), session.html as
 * `work/public/index.html`; resolves once `readyPath` answers 200 (polled at most 200 times).
 */
export async function startApp(app: FidelityApp, work: string): Promise<RunningApp> {
  if (app.start) return app.start(work);
  if (!app.command) throw new Error(`${app.name}: neither start() nor command() is given`);
  const pub = join(work, 'public');
  mkdirSync(pub, { recursive: true });
  copyFileSync(join(appDir(app), 'db.json'), join(work, 'db.json'));
  copyFileSync(join(appDir(app), 'session.html'), join(pub, 'index.html'));
  const port = await freePort();
  const { file, args, env } = app.command('db.json', 'public', port);
  const child = spawn(file, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  return whenReady(app, child, `http://127.0.0.1:${port}`);
}

/**
 * A started app once `app.readyPath` answers 200 (with `app.headers`), polled every `everyMs`
 * at most `tries` times; its stderr's tail names why when it never does. `stop` sends SIGTERM,
 * then SIGKILL after `killAfterMs` when given (Rails may ignore the first).
 */
export async function whenReady(
  app: FidelityApp,
  child: ChildProcess,
  base: string,
  opts: { tries?: number; everyMs?: number; killAfterMs?: number; hint?: string } = {},
): Promise<RunningApp> {
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = (err + d).slice(-4000);
  });
  child.once('error', (e) => {
    err += `${e.message}${opts.hint ? ` (${opts.hint})` : ''}\n`;
  });
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
    child.kill('SIGTERM');
    const t = opts.killAfterMs ? setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs) : undefined;
    await exited;
    clearTimeout(t);
  };
  for (let i = 0; i < (opts.tries ?? 200); i++) {
    if (child.exitCode !== null || child.pid === undefined) break;
    try {
      if ((await fetch(base + app.readyPath, { headers: app.headers })).status === 200) return { base, stop, child };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 50));
  }
  await stop();
  throw new Error(`${app.name} did not answer ${app.readyPath} on ${base}: ${err.slice(-2000)}`);
}

/** One request to send: a held-out one (with id and kind) or one of the capture's own. */
export interface Req {
  method: string;
  path: string;
  body?: string;
  content_type?: string;
  recorded_status?: number;
}
export interface HeldOut extends Req {
  id: string;
  kind: string;
}

interface HarEntry {
  request: { method: string; url: string; postData?: { mimeType?: string; text?: string } };
  response: { status: number };
}

/**
 * The capture's own API requests, in order: every entry whose first path segment names a
 * collection or document of the seed (db.json's keys), so the page, its script and the
 * browser's favicon request are left out.
 */
export function captureRequests(app: FidelityApp): Req[] {
  const har = JSON.parse(readFileSync(join(appDir(app), 'capture.har'), 'utf8')) as { log: { entries: HarEntry[] } };
  const isApi =
    app.isApiPath ??
    (
      (roots: Set<string>) => (path: string) =>
        roots.has(path.split('/')[1] ?? '')
    )(new Set(Object.keys(JSON.parse(readFileSync(join(appDir(app), 'db.json'), 'utf8')))));
  const out: Req[] = [];
  for (const e of har.log.entries) {
    const u = new URL(e.request.url);
    if (!isApi(u.pathname)) continue;
    const r: Req = { method: e.request.method, path: u.pathname + u.search, recorded_status: e.response.status };
    if (e.request.postData?.text !== undefined) {
      r.body = e.request.postData.text;
      r.content_type = e.request.postData.mimeType ?? 'application/json';
    }
    out.push(r);
  }
  return out;
}

export function heldOut(app: FidelityApp): HeldOut[] {
  return (JSON.parse(readFileSync(join(appDir(app), 'heldout.json'), 'utf8')) as { requests: HeldOut[] }).requests;
}

/** Sends `r` to `base` and keeps what the benchmark compares (compare.ts Answer). */
export async function send(base: string, r: Req, extra: Record<string, string> = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...extra };
  if (r.body !== undefined) headers['content-type'] = r.content_type ?? 'application/json';
  const res = await fetch(base + r.path, { method: r.method, headers, body: r.body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const h = (n: string) => res.headers.get(n);
  const a: Answer = {
    status: res.status,
    content_type: h('content-type'),
    ...bodyOf(text),
    x_total_count: h('x-total-count'),
    link: h('link'),
  };
  if (h('x-capstate-source') !== null || h('x-capstate-error') !== null || h('capstate-answer') !== null) {
    a.capstate = {
      source: h('x-capstate-source'),
      answer: h('capstate-answer'),
      error: h('x-capstate-error'),
      ...(h('capstate-convention') !== null ? { convention: h('capstate-convention') } : {}),
    };
  }
  return a;
}
