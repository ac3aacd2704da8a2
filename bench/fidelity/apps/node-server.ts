/**
 * What the two GraphQL apps of the fidelity benchmark (graphql-yoga.ts, apollo-server.ts) share.
 *
 * The benchmark's side: `startNodeServer` runs a compiled server script of this directory
 * (dist/bench/fidelity/apps/<name>.server.js) as `node SCRIPT PORT SEED PAGE` on 127.0.0.1 at
 * a free port, with the app's seed.json and session.html, and resolves once the page answers.
 *
 * `isGraphqlRead` tells the recorder which of the capture's POSTs only read (a query).
 *
 * The server's side: `serverArgs` reads that command line and the seed (fresh at each start:
 * the server keeps it in memory, writes change the memory copy), and `sessionPage` answers
 * `GET /index.html` with the page, so the page and `POST /graphql` share an origin.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { parse } from 'graphql';
import type { FidelityApp, Req, RunningApp } from '../harness.js';

export async function startNodeServer(app: FidelityApp, work: string): Promise<RunningApp> {
  // Imported here, not at the top: harness.ts imports the apps for APPS.
  const { appDir, freePort, root, whenReady } = await import('../harness.js');
  const script = join(root, 'dist', 'bench', 'fidelity', 'apps', `${app.name}.server.js`);
  if (!existsSync(script)) throw new Error(`${app.name}: ${script} missing: run npm run build`);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [script, String(port), join(appDir(app), 'seed.json'), join(appDir(app), 'session.html')],
    // No NODE_ENV: Apollo Server reads it (introspection, the landing page), and the caller's
    // environment should not change the app.
    { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_ENV: undefined } },
  );
  return whenReady(app, child, `http://127.0.0.1:${port}`);
}

/** Whether `r` is a GraphQL query (its operation, or the one operationName names, is not a mutation). */
export function isGraphqlRead(r: Req): boolean {
  try {
    const { query, operationName } = JSON.parse(r.body ?? '') as { query?: string; operationName?: string | null };
    const ops = parse(query ?? '').definitions.filter((d) => d.kind === 'OperationDefinition');
    const op = operationName ? ops.find((d) => d.name?.value === operationName) : ops[0];
    return op?.operation === 'query';
  } catch {
    return false;
  }
}

/** The server script's command line: `PORT SEED PAGE`, the seed parsed. */
export function serverArgs<Seed>(): { port: number; seed: Seed; page: string } {
  const [port, seed, page] = process.argv.slice(2);
  if (!port || !seed || !page) throw new Error('usage: node SERVER.js PORT SEED.json SESSION.html');
  return { port: Number(port), seed: JSON.parse(readFileSync(seed, 'utf8')) as Seed, page };
}

/** Answers `GET /index.html` with the session page and says so; any other request is the caller's. */
export function sessionPage(req: IncomingMessage, res: ServerResponse, page: string): boolean {
  if (req.method !== 'GET' || req.url !== '/index.html') return false;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(page));
  return true;
}

/** The first id a server allocates: the integer after the seed's highest (then counted up, never reused). */
export const firstNewId = (rows: { id: number | string }[]) => rows.reduce((m, r) => Math.max(m, Number(r.id)), 0) + 1;
