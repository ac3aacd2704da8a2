/** Builds small HAR files for tests: one line per exchange, like the spec's examples. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect } from 'vitest';
import { cli } from './helpers.js';
import { listViews } from '../src/store/open.js';
import { evaluateViews, viewSnapshot } from '../src/store/snapshot.js';

export interface Exchange {
  method?: string;
  url: string;
  status?: number;
  /** A JSON value (serialised) or a string body. */
  body?: unknown;
  mimeType?: string;
  requestBody?: unknown;
  headers?: { name: string; value: string }[];
  /** Response headers (`X-Total-Count`, `Link`, …). */
  responseHeaders?: { name: string; value: string }[];
  /** Start time-of-day `10:00:01.050` on 2026-01-01 (UTC); default: one second apart. Null: no start time. */
  start?: string | null;
  /** Duration in ms (HAR `time`); default 20. */
  time?: number;
}

/** Writes a HAR with distinct, increasing start times; returns its path. */
export function writeHar(dir: string, name: string, exchanges: Exchange[], opts: { pageTitle?: string } = {}): string {
  const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
  const entries = exchanges.map((x, i) => ({
    ...(x.start === null ? {} : { startedDateTime: x.start ? `2026-01-01T${x.start}Z` : new Date(t0 + i * 1000).toISOString() }),
    time: x.time ?? 20,
    request: {
      method: x.method ?? 'GET',
      url: x.url,
      httpVersion: 'HTTP/1.1',
      headers: x.headers ?? [],
      queryString: [],
      cookies: [],
      ...(x.requestBody !== undefined
        ? {
            postData: {
              mimeType: 'application/json',
              text: typeof x.requestBody === 'string' ? x.requestBody : JSON.stringify(x.requestBody),
            },
          }
        : {}),
    },
    response: {
      status: x.status ?? 200,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: x.responseHeaders ?? [],
      cookies: [],
      content:
        x.body === undefined
          ? { size: 0, mimeType: x.mimeType ?? 'application/json' }
          : {
              size: -1,
              mimeType: x.mimeType ?? 'application/json',
              text: typeof x.body === 'string' ? x.body : JSON.stringify(x.body),
            },
      redirectURL: '',
    },
    cache: {},
    timings: { send: 1, wait: 18, receive: 1 },
  }));
  const pages = opts.pageTitle
    ? [{ startedDateTime: new Date(t0).toISOString(), id: 'page_1', title: opts.pageTitle, pageTimings: {} }]
    : [];
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({ log: { version: '1.2', creator: { name: 'capstate-test', version: '1' }, pages, entries } }, null, 2),
  );
  return file;
}

let loaded = 0;

/** Writes exchanges as a HAR, loads it with the CLI into a new store, returns a read-only connection. */
export function loadHar(dir: string, exchanges: Exchange[]): Database.Database {
  const name = `load-${process.pid}-${loaded++}`;
  const file = writeHar(dir, `${name}.har`, exchanges);
  const db = join(dir, `${name}.sqlite`);
  const r = cli(['load', file, '--db', db]);
  expect(r.status, r.stderr).toBe(0);
  // The rule views read as `capstate sql` reads them, each evaluated once (store/snapshot.ts):
  // compiling a statement over a deep stored view costs ~30 s on this machine class.
  const connection = new Database(db, { readonly: true });
  evaluateViews(connection, viewSnapshot(listViews().map((v) => v.name)));
  return connection;
}

/** A loader of small captures for view tests (`loadHar`), each store closed after the file's tests. */
export function viewStores(dir: string): (exchanges: Exchange[]) => Database.Database {
  const open: Database.Database[] = [];
  afterAll(() => open.forEach((db) => db.close()));
  return (exchanges) => {
    const db = loadHar(dir, exchanges);
    open.push(db);
    return db;
  };
}
