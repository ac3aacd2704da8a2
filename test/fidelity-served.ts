/**
 * A fidelity benchmark app's capture (bench/fidelity/<app>/, recorded from the real app in
 * Debian's Chromium) served over HTTP and over MCP for one test file, with the app's seed
 * (db.json: the state the session read before any write) to compute json-server's answers from.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { APPS, captureRequests, send } from '../bench/fidelity/harness.js';
import { root, tempDir } from './helpers.js';
import { serveHttp, serveStore, type Served } from './serve-helpers.js';

export type Row = Record<string, string | number | boolean>;

export interface ServedFidelityApp {
  /** The app's folder, bench/fidelity/<name>. */
  app: string;
  seed: { posts: Row[]; comments: Row[]; users: Row[] };
  /** The HTTP server's base URL (set once beforeAll ran). */
  base(): string;
  mcp(): Served;
  get(path: string): Promise<{ status: number; json: unknown; h: (name: string) => string | null }>;
  /** Any request over HTTP, a JSON body sent as JSON; the answer's JSON (undefined for an empty body). */
  send(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; h: (name: string) => string | null }>;
  /** Resets the served model, then sends the capture's own API requests over HTTP, in order (what the benchmark's runner does before its held-out ones). */
  replayCapture(): Promise<void>;
  /** Resets the served model (`POST /__capstate/reset`). */
  reset(): Promise<void>;
  /** The app's own answer to a held-out request (truth.json): by id, or the last one by method and path. */
  truth(idOrMethod: string, path?: string): { status: number; json?: unknown; link?: string | null };
}

/** Serves `bench/fidelity/<name>/capture.har` for the calling file's tests (beforeAll/afterAll). */
export function servedFidelityApp(name: string): ServedFidelityApp {
  const app = join(root, 'bench', 'fidelity', name);
  const db = join(tempDir(), `${name}.sqlite`);
  let base = '';
  let close: (() => Promise<void>) | undefined;
  let mcp: Served | undefined;
  beforeAll(async () => {
    ({ base, close } = await serveHttp(join(app, 'capture.har'), db));
    mcp = await serveStore(db);
  });
  afterAll(async () => {
    await mcp?.close();
    await close?.();
  });
  const reset = async () => {
    const r = await fetch(`${base}/__capstate/reset`, { method: 'POST' });
    if (r.status !== 200) throw new Error(`POST /__capstate/reset answered ${r.status}`);
  };
  return {
    app,
    reset,
    // json-server apps have a seed db.json; Redmine and Alertmanager seed themselves.
    seed: (existsSync(join(app, 'db.json'))
      ? JSON.parse(readFileSync(join(app, 'db.json'), 'utf8'))
      : { posts: [], comments: [], users: [] }) as ServedFidelityApp['seed'],
    base: () => base,
    mcp: () => mcp!,
    get: async (path) => {
      const r = await fetch(base + path);
      return { status: r.status, json: (await r.json()) as unknown, h: (n: string) => r.headers.get(n) };
    },
    send: async (method, path, body) => {
      const r = await fetch(base + path, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await r.text();
      return { status: r.status, json: text ? (JSON.parse(text) as unknown) : undefined, h: (n: string) => r.headers.get(n) };
    },
    replayCapture: async () => {
      await reset();
      for (const r of captureRequests(APPS.find((a) => a.name === name)!)) await send(base, r);
    },
    truth: (idOrMethod, path) => {
      const t = JSON.parse(readFileSync(join(app, 'truth.json'), 'utf8')) as {
        answers: { id: string; method: string; path: string; status: number; json?: unknown; link?: string | null }[];
      };
      return path === undefined
        ? t.answers.find((a) => a.id === idOrMethod)!
        : t.answers.findLast((a) => a.method === idOrMethod && a.path === path)!;
    },
  };
}

/** A HAR's entries, as the variant helpers below change them. */
export interface HarEntries {
  log: {
    entries: {
      startedDateTime: string;
      request: { method: string; url: string };
      response: { content: { text?: string } };
    }[];
  };
}

/**
 * Serves a changed copy of `bench/fidelity/<name>/capture.har` (its entries as `change` leaves
 * them) over HTTP from a store of its own: the real capture with a read moved, dropped or edited.
 */
export async function serveCaptureVariant(
  name: string,
  change: (har: HarEntries) => void,
): Promise<{ base: string; close: () => Promise<void> }> {
  const har = JSON.parse(readFileSync(join(root, 'bench', 'fidelity', name, 'capture.har'), 'utf8')) as HarEntries;
  change(har);
  const dir = tempDir();
  writeFileSync(join(dir, 'capture.har'), JSON.stringify(har));
  return serveHttp(join(dir, 'capture.har'), join(dir, 'store.sqlite'));
}
