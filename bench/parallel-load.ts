/**
 * Issue 20's parallel-load figure: N generated captures (different seeds, so no two share their
 * bytes) loaded into a throwaway PostgreSQL, first by one loader after another into one schema,
 * then by N loaders at once into another; total throughput of each and the ratio. Both schemas
 * must end with every capture, whole (the record counts agree), or the run fails.
 *
 * Env: BENCH_PARALLEL_MB (each capture's size, default 10), BENCH_PARALLEL_LOADERS (default 4).
 * Prints the figures on stdout and writes bench/out/parallel-results.json.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../src/cli/memory.js';
import { DEFAULT_SEED, generateHar } from './gen-har.js';
import { measure, type Measured } from './measure.js';
import { startPostgres } from './postgres-server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'bench', 'out');
const CLI_JS = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const log = (msg: string) => process.stderr.write(msg + '\n');

/** CPU seconds the whole machine has spent busy so far (every process: the loaders and the server). */
const busySeconds = () => cpus().reduce((s, c) => s + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0) / 1000;

function captures(mb: number, n: number): string[] {
  mkdirSync(OUT, { recursive: true });
  return Array.from({ length: n }, (_, i) => {
    const seed = DEFAULT_SEED + 1 + i;
    const file = join(OUT, `p${mb}-s${seed}.har`);
    // The generator is deterministic, so a file of the right size is the file it would write.
    if (!existsSync(file) || Math.abs(statSync(file).size - mb * 1e6) > mb * 1e4) {
      log(`[parallel] generating ${relative(ROOT, file)}…`);
      generateHar(file, Math.round(mb * 1e6), seed);
    }
    return file;
  });
}

async function main(): Promise<number> {
  const mb = Number(process.env.BENCH_PARALLEL_MB ?? 10);
  const n = Math.max(2, Number(process.env.BENCH_PARALLEL_LOADERS ?? 4) | 0);
  const files = captures(mb, n);
  const totalMB = files.reduce((s, f) => s + statSync(f).size, 0) / 1e6;
  const pg = startPostgres();
  try {
    const load = (file: string, schema: string) => measure(ROOT, [...NODE_FLAGS, CLI_JS, 'load', file, '--db', pg.url(schema), '--quiet']);
    const failed = (runs: Measured[]) => runs.some((r) => r.code !== 0);

    log(`[parallel] ${n} captures of ${mb} MB, one loader after another…`);
    const t0 = performance.now();
    const busy0 = busySeconds();
    const one: Measured[] = [];
    for (const f of files) one.push(await load(f, 'one_loader'));
    const oneS = (performance.now() - t0) / 1000;
    // How many cores one loader keeps busy (its threads and the server's): N loaders at once can
    // at best be cores ÷ this as fast.
    const coresBusy = (busySeconds() - busy0) / oneS;

    log(`[parallel] the same ${n} captures, ${n} loaders at once…`);
    const t1 = performance.now();
    const many = await Promise.all(files.map((f) => load(f, 'many_loaders')));
    const manyS = (performance.now() - t1) / 1000;
    const load1 = loadavg()[0];

    if (failed(one) || failed(many)) {
      log('[parallel] a load failed');
      return 1;
    }
    const counts = (schema: string) =>
      pg.psql('postgres', `select count(*) from ${schema}.capture; select count(*) from ${schema}.record`).trim().split('\n').map(Number);
    const [c1, r1] = counts('one_loader');
    const [cN, rN] = counts('many_loaders');
    if (c1 !== n || cN !== n || r1 !== rN) {
      log(`[parallel] captures/records differ: one loader ${c1}/${r1}, ${n} loaders ${cN}/${rN}`);
      return 1;
    }

    const result = {
      machine: { cpus: cpus().length, node: process.version },
      loaders: n,
      capture_mb: mb,
      total_mb: totalMB,
      records: r1,
      one_loader: { wall_s: oneS, mb_per_s: totalMB / oneS, peak_rss_mb: Math.max(...one.map((r) => r.rssMB ?? 0)) },
      many_loaders: { wall_s: manyS, mb_per_s: totalMB / manyS, peak_rss_mb_each: Math.max(...many.map((r) => r.rssMB ?? 0)) },
      ratio: oneS / manyS,
      one_loader_cores_busy: coresBusy,
      ratio_bound: cpus().length / coresBusy,
      load_average_1m: load1,
    };
    writeFileSync(join(OUT, 'parallel-results.json'), JSON.stringify(result, null, 2) + '\n');
    const f = (x: number) => x.toFixed(2);
    process.stdout.write(
      [
        `parallel load into PostgreSQL: ${n} captures of ${mb} MB (${f(totalMB)} MB, ${r1} records), ${result.machine.cpus} cores`,
        `one loader after another: ${f(oneS)} s, ${f(result.one_loader.mb_per_s)} MB/s, peak RSS ${result.one_loader.peak_rss_mb.toFixed(0)} MB, ${f(coresBusy)} of ${result.machine.cpus} cores busy`,
        `${n} loaders at once:       ${f(manyS)} s, ${f(result.many_loaders.mb_per_s)} MB/s, peak RSS ${result.many_loaders.peak_rss_mb_each.toFixed(0)} MB each`,
        `throughput ${n} loaders / one: ${f(result.ratio)}× (target ≥ 1.5×; at most ${f(result.ratio_bound)}× with ${f(coresBusy)} cores busy for one; load average ${load1.toFixed(2)} at the end)`,
      ].join('\n') + '\n',
    );
    return 0;
  } finally {
    pg.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
