/**
 * `npm run fidelity`: the held-out fidelity benchmark (bench/README.md, "Fidelity on held-out
 * requests"). For each app of bench/fidelity/: serve its capture.har with the built CLI over
 * HTTP, reset, send the capture's own API requests in order (as truth.json was made against the
 * real app), then every request of heldout.json in order, and judge each answer against the
 * app's (compare.ts). Prints matched / wrong / declined per app and kind; raw results go to
 * bench/out/fidelity.json. Exits 1 when an app cannot be served, not for misses.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { declineReason, judge, type Answer, type Verdict } from './compare.js';
import { APPS, appDir, captureRequests, heldOut, root, send, type FidelityApp } from './harness.js';

const cli = process.env.FIDELITY_CLI ?? join(root, 'dist/src/cli/main.js');

interface Result {
  id: string;
  kind: string;
  method: string;
  path: string;
  verdict: Verdict;
  why: string[];
  truth: Answer;
  model: Answer;
}

/** `capstate serve CAPTURE --http 127.0.0.1:0` while `use` runs (test/helpers.ts whileServedOverHttp). */
async function whileServed<T>(capture: string, use: (base: string) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, [cli, 'serve', capture, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`serve printed no address in 120 s: ${err}`)), 120_000);
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /over HTTP at (http:\/\/[^:]+:\d+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited ${code}: ${err}`));
      });
    });
    return await use(base);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function runApp(app: FidelityApp): Promise<{ results: Result[]; replay: { sent: number; same_status: number } }> {
  const truth = (JSON.parse(readFileSync(join(appDir(app), 'truth.json'), 'utf8')) as { answers: (Answer & { id: string })[] }).answers;
  const byId = new Map(truth.map((t) => [t.id, t]));
  const capture = captureRequests(app);
  return whileServed(join(appDir(app), 'capture.har'), async (base) => {
    const reset = await fetch(`${base}/__capstate/reset`, { method: 'POST' });
    if (reset.status !== 200) throw new Error(`${app.name}: POST /__capstate/reset answered ${reset.status}`);
    let same = 0;
    // Not judged (the model was built from these answers); a count that drops says the
    // held-out requests start from another state than the app's.
    for (const r of capture) if ((await send(base, r, app.headers)).status === r.recorded_status) same++;
    const results: Result[] = [];
    for (const r of heldOut(app)) {
      const t = byId.get(r.id);
      if (!t) throw new Error(`${app.name}: truth.json has no answer for ${r.id}: run npm run fidelity:record ${app.name}`);
      const model = await send(base, r, app.headers);
      const truthAnswer: Answer = {
        status: t.status,
        content_type: t.content_type,
        json: t.json,
        text: t.text,
        x_total_count: t.x_total_count,
        link: t.link,
      };
      const { verdict, why } = judge(truthAnswer, model, app.mask);
      results.push({ id: r.id, kind: r.kind, method: r.method, path: r.path, verdict, why, truth: truthAnswer, model });
    }
    return { results, replay: { sent: capture.length, same_status: same } };
  });
}

const WRITE_KINDS = new Set(['write', 'read-after-write']);

function table(rows: [string, string, Record<Verdict, number>][]): string {
  const head = ['app', 'kind', 'matched', 'wrong', 'declined', 'total'];
  const body = rows.map(([a, k, c]) => [
    a,
    k,
    String(c.matched),
    String(c.wrong),
    String(c.declined),
    String(c.matched + c.wrong + c.declined),
  ]);
  return columns(head, body, 2);
}

/** Rows under `head` in columns as wide as their widest cell: the first `left` left-aligned, the counts right-aligned. */
function columns(head: string[], body: string[][], left: number): string {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i < left ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...body.map(line)].join('\n') + '\n';
}

/**
 * The declines of each app by the reason capstate gave (declineReason): what keeps a request
 * from being answered — a capture that never showed the key, the route, the not-found body or the
 * app after such a write — rather than how many.
 */
function declines(apps: Record<string, { results: Result[] }>): string {
  const counts = new Map<string, Map<string, number>>();
  for (const [name, { results }] of Object.entries(apps))
    for (const r of results)
      if (r.verdict === 'declined') {
        const c = counts.get(name) ?? counts.set(name, new Map()).get(name)!;
        const why = declineReason(r.model);
        c.set(why, (c.get(why) ?? 0) + 1);
      }
  const reasons = [...new Set([...counts.values()].flatMap((c) => [...c.keys()]))].sort();
  if (reasons.length === 0) return '';
  const head = ['declined by reason', ...reasons];
  return columns(
    head,
    [...counts].map(([name, c]) => [name, ...reasons.map((w) => String(c.get(w) ?? 0))]),
    1,
  );
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error(`${cli} missing: run npm run build`);
  const wanted = process.argv.slice(2);
  const out: Record<string, unknown> = {};
  const rows: [string, string, Record<Verdict, number>][] = [];
  const all: Record<Verdict, number> = { matched: 0, wrong: 0, declined: 0 };
  for (const app of APPS.filter((a) => wanted.length === 0 || wanted.includes(a.name))) {
    process.stderr.write(`${app.name}: serving capture.har\n`);
    const { results, replay } = await runApp(app);
    const kinds = [...new Set(results.map((r) => r.kind))];
    const sum: Record<Verdict, number> = { matched: 0, wrong: 0, declined: 0 };
    for (const k of kinds) {
      const c: Record<Verdict, number> = { matched: 0, wrong: 0, declined: 0 };
      for (const r of results.filter((x) => x.kind === k)) {
        c[r.verdict]++;
        sum[r.verdict]++;
        all[r.verdict]++;
      }
      rows.push([app.name, k, c]);
    }
    // The reads issue (44) and the writes issue (45) are judged apart: held-out writes and the
    // reads after them are the kinds `write` and `read-after-write`.
    const part = (writes: boolean) => {
      const c: Record<Verdict, number> = { matched: 0, wrong: 0, declined: 0 };
      for (const r of results) if (WRITE_KINDS.has(r.kind) === writes) c[r.verdict]++;
      return c;
    };
    if (results.some((r) => WRITE_KINDS.has(r.kind))) {
      rows.push([app.name, 'reads', part(false)]);
      rows.push([app.name, 'writes', part(true)]);
    }
    rows.push([app.name, 'all', sum]);
    out[app.name] = { about: app.about, replay, counts: sum, results };
  }
  if (rows.length > 0 && new Set(rows.map((r) => r[0])).size > 1) rows.push(['all', 'all', all]);
  process.stdout.write(table(rows));
  process.stdout.write('\n' + declines(out as Record<string, { results: Result[] }>));
  mkdirSync(join(root, 'bench/out'), { recursive: true });
  writeFileSync(join(root, 'bench/out/fidelity.json'), JSON.stringify({ cli, apps: out }, null, 1) + '\n');
  process.stderr.write('raw results: bench/out/fidelity.json\n');
}

main().catch((e) => {
  process.stderr.write(`fidelity: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
