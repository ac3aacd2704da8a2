/**
 * `capstate state` on a capture whose POSTs answer thousands of objects (issue 14: ES-9's
 * `post_created_ids` was quadratic in the size of a POST's body; 7,000 objects took 14 s).
 * For each size, one small HAR: a projects read, a POST answering a root array of N objects,
 * a POST answering `{"data":{"id":…,"items":[N objects]}}` that creates a project (ES-9 with
 * OQ-10's single wrapper), and reads after both. The HAR is loaded once; `state` is timed in
 * its own process, BENCH_RUNS times (median wall time, highest peak RSS).
 *
 * Env: BENCH_POST_OBJECTS (default "2000,7000"), BENCH_RUNS (default 3).
 * Goal: under a second for 7,000 objects on this machine class.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../src/cli/memory.js';
import { measure } from './measure.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'bench', 'out');
const CLI_JS = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const log = (msg: string) => process.stderr.write(msg + '\n');

/** The HAR for one size: every body stays under ES-4's 256 KiB, so all of them are usable. */
function writeHar(file: string, n: number): void {
  const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
  const objects = Array.from({ length: n }, (_, i) => ({ id: `imp-${String(i).padStart(5, '0')}`, n: i }));
  const exchanges: { method: string; url: string; status: number; body: unknown }[] = [
    { method: 'GET', url: '/api/projects', status: 200, body: [{ id: 'prj-1001', name: 'Alpha' }] },
    { method: 'POST', url: '/api/imports', status: 201, body: objects },
    { method: 'POST', url: '/api/batches', status: 201, body: { data: { id: 'prj-2002', items: objects } } },
    {
      method: 'GET',
      url: '/api/projects',
      status: 200,
      body: [
        { id: 'prj-1001', name: 'Alpha' },
        { id: 'prj-2002', name: 'Beta' },
      ],
    },
    { method: 'GET', url: '/api/imports', status: 200, body: objects.slice(0, 50) },
  ];
  const entries = exchanges.map((x, i) => ({
    startedDateTime: new Date(t0 + i * 1000).toISOString(),
    time: 20,
    request: {
      method: x.method,
      url: `https://app.example${x.url}`,
      httpVersion: 'HTTP/1.1',
      headers: [],
      queryString: [],
      cookies: [],
      ...(x.method === 'POST' ? { postData: { mimeType: 'application/json', text: '{}' } } : {}),
    },
    response: {
      status: x.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      redirectURL: '',
      content: { size: -1, mimeType: 'application/json', text: JSON.stringify(x.body) },
    },
    cache: {},
    timings: { send: 1, wait: 18, receive: 1 },
  }));
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'capstate-bench', version: '1' }, pages: [], entries } }));
}

async function main(): Promise<number> {
  const sizes = (process.env.BENCH_POST_OBJECTS ?? '2000,7000')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((x) => x > 0);
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3) | 0);
  if (!existsSync(CLI_JS)) {
    log(`bench: ${CLI_JS} missing; run npm run build`);
    return 2;
  }
  mkdirSync(OUT, { recursive: true });
  const lines: string[] = [];
  let failed = false;
  for (const n of sizes) {
    const har = join(OUT, `post-${n}.har`);
    const db = join(OUT, `post-${n}.sqlite`);
    writeHar(har, n);
    for (const suffix of ['', '-journal']) rmSync(db + suffix, { force: true });
    const load = spawnSync(process.execPath, [...NODE_FLAGS, CLI_JS, 'load', har, '--db', db, '--quiet'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (load.status !== 0) {
      log(`bench: loading ${har} failed`);
      failed = true;
      continue;
    }
    const walls: number[] = [];
    const cpus: number[] = [];
    let rss = 0;
    // The state pass runs when a capture is loaded and again on `migrate --recompute`; that
    // is what is timed (`capstate state` only reads the stored rows).
    for (let i = 0; i < runs; i++) {
      const m = await measure(ROOT, [...NODE_FLAGS, CLI_JS, 'migrate', '--db', db, '--recompute']);
      if (m.code !== 0) {
        log(`bench: capstate migrate --recompute exited with ${m.code} on ${db}`);
        failed = true;
        break;
      }
      walls.push(m.wallMs);
      if (m.cpuMs !== null) cpus.push(m.cpuMs);
      rss = Math.max(rss, m.rssMB ?? 0);
      log(`[post-ids] ${n} objects run ${i + 1}/${runs}: ${(m.wallMs / 1000).toFixed(2)} s`);
    }
    if (walls.length < runs) continue;
    const state = spawnSync(process.execPath, [...NODE_FLAGS, CLI_JS, 'state', '--db', db, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    if (state.status !== 0) {
      log(`bench: capstate state exited with ${state.status} on ${db}`);
      failed = true;
      continue;
    }
    const plans = (JSON.parse(state.stdout) as { plans: unknown[] }).plans.length;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const cpu = cpus.length === runs ? `, CPU ${(median(cpus) / 1000).toFixed(2)} s` : '';
    lines.push(
      `POST answering ${n.toLocaleString('en')} objects: state pass (migrate --recompute) ${(median(walls) / 1000).toFixed(2)} s wall${cpu} (median of ${runs}), peak RSS ${rss.toFixed(0)} MB, ${plans} plans`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
