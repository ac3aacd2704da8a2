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
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'bench', 'out');
const CLI_JS = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const TIME_BIN = '/usr/bin/time';
const log = (msg: string) => process.stderr.write(msg + '\n');

/** The HAR for one size: every body stays under ES-4's 256 KiB, so all of them are usable. */
function writeHar(file: string, n: number): void {
  const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
  const objects = Array.from({ length: n }, (_, i) => ({ id: `imp-${String(i).padStart(5, '0')}`, n: i }));
  const exchanges: { method: string; url: string; status: number; body: unknown }[] = [
    { method: 'GET', url: '/api/projects', status: 200, body: [{ id: 'prj-1001', name: 'Alpha' }] },
    { method: 'POST', url: '/api/imports', status: 201, body: objects },
    { method: 'POST', url: '/api/batches', status: 201, body: { data: { id: 'prj-2002', items: objects } } },
    { method: 'GET', url: '/api/projects', status: 200, body: [{ id: 'prj-1001', name: 'Alpha' }, { id: 'prj-2002', name: 'Beta' }] },
    { method: 'GET', url: '/api/imports', status: 200, body: objects.slice(0, 50) },
  ];
  const entries = exchanges.map((x, i) => ({
    startedDateTime: new Date(t0 + i * 1000).toISOString(), time: 20,
    request: {
      method: x.method, url: `https://app.example${x.url}`, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [],
      ...(x.method === 'POST' ? { postData: { mimeType: 'application/json', text: '{}' } } : {}),
    },
    response: {
      status: x.status, statusText: '', httpVersion: 'HTTP/1.1', headers: [], cookies: [], redirectURL: '',
      content: { size: -1, mimeType: 'application/json', text: JSON.stringify(x.body) },
    },
    cache: {}, timings: { send: 1, wait: 18, receive: 1 },
  }));
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'capstate-bench', version: '1' }, pages: [], entries } }));
}

interface Measured { code: number | null; wallMs: number; rssMB: number | null; cpuMs: number | null; stdout: string }

/** One process under GNU time: wall time, peak RSS and CPU time (user + system; steadier than wall time on a busy machine). */
function measure(args: string[]): Promise<Measured> {
  const timeOut = join(tmpdir(), `capstate-bench-post-${process.pid}-${Math.floor(performance.now())}.time`);
  const haveTime = existsSync(TIME_BIN);
  const [cmd, argv] = haveTime ? [TIME_BIN, ['-o', timeOut, '-f', '%M %U %S', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      let rssMB: number | null = null;
      let cpuMs: number | null = null;
      if (haveTime && existsSync(timeOut)) {
        // The last line holds "%M %U %S"; earlier lines may say "Command exited with non-zero status".
        const lines = readFileSync(timeOut, 'utf8').trim().split('\n');
        const [kib, user, sys] = lines[lines.length - 1].split(' ').map(Number);
        if (Number.isFinite(kib)) rssMB = (kib * 1024) / 1e6;
        if (Number.isFinite(user) && Number.isFinite(sys)) cpuMs = (user + sys) * 1000;
        rmSync(timeOut, { force: true });
      }
      ok({ code, wallMs, rssMB, cpuMs, stdout: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

async function main(): Promise<number> {
  const sizes = (process.env.BENCH_POST_OBJECTS ?? '2000,7000').split(',').map((s) => Number(s.trim())).filter((x) => x > 0);
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3) | 0);
  if (!existsSync(CLI_JS)) { log(`bench: ${CLI_JS} missing; run npm run build`); return 2; }
  mkdirSync(OUT, { recursive: true });
  const lines: string[] = [];
  let failed = false;
  for (const n of sizes) {
    const har = join(OUT, `post-${n}.har`);
    const db = join(OUT, `post-${n}.sqlite`);
    writeHar(har, n);
    for (const suffix of ['', '-journal']) rmSync(db + suffix, { force: true });
    const load = spawnSync(process.execPath, [CLI_JS, 'load', har, '--db', db, '--quiet'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (load.status !== 0) { log(`bench: loading ${har} failed`); failed = true; continue; }
    const walls: number[] = [];
    const cpus: number[] = [];
    let rss = 0;
    let plans = 0;
    for (let i = 0; i < runs; i++) {
      const m = await measure([CLI_JS, 'state', '--db', db, '--json']);
      if (m.code !== 0) { log(`bench: capstate state exited with ${m.code} on ${db}`); failed = true; break; }
      walls.push(m.wallMs);
      if (m.cpuMs !== null) cpus.push(m.cpuMs);
      rss = Math.max(rss, m.rssMB ?? 0);
      const doc = JSON.parse(m.stdout) as { plans: unknown[] };
      plans = doc.plans.length;
      log(`[post-ids] ${n} objects run ${i + 1}/${runs}: ${(m.wallMs / 1000).toFixed(2)} s`);
    }
    if (walls.length < runs) continue;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const cpu = cpus.length === runs ? `, CPU ${(median(cpus) / 1000).toFixed(2)} s` : '';
    lines.push(`POST answering ${n.toLocaleString('en')} objects: state ${(median(walls) / 1000).toFixed(2)} s wall${cpu} (median of ${runs}), peak RSS ${rss.toFixed(0)} MB, ${plans} plans`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  return failed ? 1 : 0;
}

main().then((code) => process.exit(code), (err: unknown) => { log(`bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}`); process.exit(1); });
