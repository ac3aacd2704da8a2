/**
 * A fidelity benchmark app's capture (bench/fidelity/<app>/, recorded from the real app in
 * Debian's Chromium) served over HTTP and over MCP for one test file, with the app's seed
 * (db.json: the state the session read before any write) to compute json-server's answers from.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
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
  return {
    app,
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
  };
}
