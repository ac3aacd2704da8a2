/**
 * Issue 47: `capstate export json-server` writes the stored state as a json-server database.
 * Proof by the app itself: the real json-server (0.17.4 and 1.0, pinned devDependencies, as the
 * fidelity benchmark runs them) serves the export of its own recorded session, and answers
 * every read the capture made before its first write as the capture recorded it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS, appDir, captureRequests, freePort } from '../bench/fidelity/harness.js';
import { cli as runCli, tempDir } from './helpers.js';

interface HarEntry {
  request: { method: string; url: string };
  response: { status: number; content: { text?: string } };
}

/** Starts json-server on `dbFile` (in `work`); resolves with its base URL and a stop function. */
async function startJsonServer(app: (typeof APPS)[number], work: string): Promise<{ base: string; stop: () => Promise<void> }> {
  mkdirSync(join(work, 'public'), { recursive: true });
  const port = await freePort();
  const { file, args, env } = app.command!('db.json', 'public', port);
  const child = spawn(file, args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d) => (err += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 400 && child.exitCode === null; i++) {
    try {
      if ((await fetch(`${base}/posts`)).status === 200) return { base, stop };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`json-server did not start on the export: ${err.slice(-2000)}`);
}

describe('issue 47: capstate export json-server', () => {
  for (const name of ['json-server-0.17', 'json-server-1.0']) {
    it(`${name} serves the export of its own session and answers every read before the first write as recorded`, async () => {
      const app = APPS.find((a) => a.name === name)!;
      const work = tempDir();
      const har = join(appDir(app), 'capture.har');
      const r = runCli(['export', 'json-server', har, '--quiet', '--out', join(work, 'db.json')]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain('npx json-server');
      const db = JSON.parse(readFileSync(join(work, 'db.json'), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(db).sort()).toEqual(expect.arrayContaining(['comments', 'posts', 'users']));

      const entries = (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
      const requests = captureRequests(app);
      const firstWrite = requests.findIndex((q) => q.method !== 'GET');
      const reads = requests.slice(0, firstWrite);
      expect(reads.length).toBeGreaterThan(5);
      const server = await startJsonServer(app, work);
      try {
        for (const q of reads) {
          const recorded = entries.find((e) => {
            const u = new URL(e.request.url);
            return e.request.method === q.method && u.pathname + u.search === q.path;
          })!;
          const res = await fetch(server.base + q.path, { headers: { accept: 'application/json' } });
          expect(res.status, q.path).toBe(recorded.response.status);
          expect(await res.json(), q.path).toEqual(JSON.parse(recorded.response.content.text ?? 'null'));
        }
      } finally {
        await server.stop();
      }
    });
  }

  it('leaves out, by name, what json-server cannot serve at its recorded path (Redmine’s /issues.json)', () => {
    const r = runCli(['export', 'json-server', join(appDir(APPS.find((a) => a.name === 'redmine')!), 'capture.har'), '-q']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
    expect(r.stderr).toContain('left out: issues (read at /issues.json, /issues/{id}.json');
  });

  it('an unknown format is a usage error naming the formats', () => {
    const r = runCli(['export', 'yaml', '--db', join(tempDir(), 'x.sqlite')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown export format "yaml"; formats: openapi, json-server');
  });
});
