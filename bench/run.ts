/**
 * `npm run bench`: generate the HAR corpus (cached), then for each file run the parse-only
 * baseline and the real `capstate load` as separate processes, measuring wall time and
 * peak RSS of each, and print a comparison table (stdout) plus bench/out/results.json.
 *
 * Env:
 *   BENCH_SIZES  comma-separated sizes in MB (10^6 bytes), default "50,500"
 *   BENCH_SEED   generator seed, default gen-har's DEFAULT_SEED
 *   BENCH_RUNS   runs per measurement, default 1 (median wall time, max RSS are reported)
 *   BENCH_CLI    path of the capstate CLI script, default dist/src/cli/main.js
 *   BENCH_REPEAT_MB  size of the single-app capture (one json-server session repeated, issue 49), default 200; 0 skips it
 *
 * Each measurement is its own process so peak RSS is that job's alone, and node start-up is
 * paid equally by both sides (the ratio compares like with like).
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { DEFAULT_SEED, GENERATOR_VERSION, generateHar, type GenStats } from './gen-har.js';
import { generateRepeatedHar } from './gen-repeat-har.js';
import { NODE_FLAGS } from '../src/cli/memory.js';
import { haveTime, measure, TIME_BIN } from './measure.js';

// dist/bench/run.js → repository root two levels up; commands run from there.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'bench', 'out');
const BASELINE_JS = join(ROOT, 'dist', 'bench', 'baseline.js');
// BENCH_CLI lets the same harness measure another build (e.g. a release) of the CLI.
const CLI_JS = process.env.BENCH_CLI ? resolve(process.env.BENCH_CLI) : join(ROOT, 'dist', 'src', 'cli', 'main.js');

const log = (msg: string) => process.stderr.write(msg + '\n');

// ---------------------------------------------------------------------------------------------
// Corpus

interface Meta {
  generatorVersion: number;
  seed: number;
  targetBytes: number;
  bytes: number;
  sha256: string;
  stats: GenStats;
}

function sha256File(file: string): Promise<string> {
  return new Promise((ok, fail) => {
    const h = createHash('sha256');
    createReadStream(file, { highWaterMark: 4 << 20 })
      .on('data', (b) => h.update(b))
      .on('end', () => ok(h.digest('hex')))
      .on('error', fail);
  });
}

/** Returns the HAR for `mb`, regenerating only if the cached file does not match its sidecars. */
async function ensureHar(mb: number, seed: number): Promise<{ file: string; meta: Meta }> {
  const name = seed === DEFAULT_SEED ? `h${mb}` : `h${mb}-s${seed}`;
  const file = join(OUT, `${name}.har`);
  const shaFile = file + '.sha256';
  const metaFile = file + '.meta.json';
  const targetBytes = Math.round(mb * 1e6);
  if (existsSync(file) && existsSync(shaFile) && existsSync(metaFile)) {
    try {
      const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Meta;
      const recorded = readFileSync(shaFile, 'utf8').split(/\s+/)[0];
      const same =
        meta.generatorVersion === GENERATOR_VERSION &&
        meta.seed === seed &&
        meta.targetBytes === targetBytes &&
        statSync(file).size === meta.bytes &&
        recorded === meta.sha256;
      if (same) {
        log(`[gen] ${relative(ROOT, file)}: cached, checking sha256…`);
        if ((await sha256File(file)) === recorded) return { file, meta };
        log(`[gen] ${relative(ROOT, file)}: sha256 mismatch, regenerating`);
      }
    } catch {
      // Unreadable sidecars: fall through and regenerate.
    }
  }
  log(`[gen] generating ${relative(ROOT, file)} (${mb} MB, seed ${seed})…`);
  const t0 = performance.now();
  const res = generateHar(file, targetBytes, seed, (b) => log(`[gen]   ${(b / 1e6).toFixed(0)} MB`));
  const meta: Meta = { generatorVersion: GENERATOR_VERSION, seed, targetBytes, bytes: res.bytes, sha256: res.sha256, stats: res.stats };
  // Sidecars are written only after the HAR is complete, so their presence means a whole file.
  writeFileSync(metaFile, JSON.stringify(meta, null, 2) + '\n');
  writeFileSync(shaFile, `${res.sha256}  ${basename(file)}\n`);
  log(`[gen]   ${res.bytes.toLocaleString('en')} bytes, ${res.stats.entries} entries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { file, meta };
}

// ---------------------------------------------------------------------------------------------
// Measuring a child process

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// ---------------------------------------------------------------------------------------------
// The two jobs

interface BaselineRun {
  wallMs: number;
  workMs: number;
  rssMB: number | null;
  entries: number;
  loadAvg: number;
}

async function runBaseline(file: string): Promise<BaselineRun> {
  const m = await measure(ROOT, [BASELINE_JS, file]);
  if (m.code !== 0) throw new Error(`baseline exited with ${m.code} on ${file}`);
  const line = m.stdout.trim().split('\n').pop() ?? '';
  const out = JSON.parse(line) as { entries: number; ms: number };
  return { wallMs: m.wallMs, workMs: out.ms, rssMB: m.rssMB, entries: out.entries, loadAvg: m.loadAvg };
}

interface LoadRun {
  wallMs: number;
  rssMB: number | null;
  records: number | null;
  members: number | null;
  dbBytes: number;
  loadAvg: number;
  /** Where the load's time went, from its --json report (`phases_ms`; null if the report has none). */
  phasesMs: { facts: number; manifest: number; state: number } | null;
  /** The CLI's --json document, kept verbatim for results.json. */
  report: unknown;
  /** The longest stretch its progress on stderr was silent (Measured.silentMs). */
  silentMs: number;
}

/** The `phases_ms` of the report's one capture, when it has them. */
function phasesOf(report: unknown): LoadRun['phasesMs'] {
  const c = (report as { captures?: { phases_ms?: LoadRun['phasesMs'] }[] } | null)?.captures?.[0];
  const p = c?.phases_ms;
  return p && [p.facts, p.manifest, p.state].every((x) => typeof x === 'number') ? p : null;
}

function removeDb(db: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(db + suffix, { force: true });
}

function countRows(db: string): { records: number | null; members: number | null } {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const has = (t: string) => conn.prepare("select 1 from sqlite_master where type in ('table','view') and name = ?").get(t) !== undefined;
    const count = (t: string) => (has(t) ? (conn.prepare(`select count(*) as n from "${t}"`).get() as { n: number }).n : null);
    // member_node since migration 0007 (issue 14); `member` in stores written before it.
    return { records: count('record'), members: count('member_node') ?? count('member') };
  } finally {
    conn.close();
  }
}

async function runLoad(file: string, db: string): Promise<LoadRun> {
  removeDb(db);
  const m = await measure(ROOT, [...NODE_FLAGS, CLI_JS, 'load', file, '--db', db, '--json']);
  if (m.code !== 0)
    throw new Error(`capstate load exited with ${m.code} on ${file}${m.stdout ? `; stdout: ${m.stdout.slice(0, 2000)}` : ''}`);
  let report: unknown = m.stdout.trim();
  try {
    report = JSON.parse(m.stdout);
  } catch {
    /* keep the raw text */
  }
  const { records, members } = countRows(db);
  let dbBytes = 0;
  for (const suffix of ['', '-wal']) if (existsSync(db + suffix)) dbBytes += statSync(db + suffix).size;
  return {
    wallMs: m.wallMs,
    rssMB: m.rssMB,
    records,
    members,
    dbBytes,
    loadAvg: m.loadAvg,
    phasesMs: phasesOf(report),
    report,
    silentMs: m.silentMs,
  };
}

// ---------------------------------------------------------------------------------------------
// Reporting

interface FileResult {
  file: string;
  bytes: number;
  sha256: string;
  /** `varied` (gen-har.ts) or `single-app` (gen-repeat-har.ts, issue 49). */
  shape: 'varied' | 'single-app';
  generated: GenStats | { entries: number; repeats: number };
  baseline: {
    runs: BaselineRun[];
    wallMs: number;
    workMs: number;
    rssMB: number | null;
    entries: number;
    mbPerSec: number;
    workMbPerSec: number;
  };
  /** The environment-state view over the loaded store (ES-39 budget, issue 5). */
  state?:
    | { wallMs: number; rssMB: number | null; renderMs: number; renderRssMB: number | null; entities: number | null; plans: number | null }
    | { error: string };
  load:
    | {
        runs: LoadRun[];
        wallMs: number;
        rssMB: number | null;
        records: number | null;
        members: number | null;
        dbBytes: number;
        mbPerSec: number;
        recordsPerSec: number | null;
        membersPerSec: number | null;
        dbTimesHar: number;
        vsBaseline: number;
      }
    | { error: string };
}

const maxOrNull = (xs: (number | null)[]): number | null => (xs.some((x) => x === null) ? null : Math.max(...(xs as number[])));

function fmt(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function table(results: FileResult[]): string {
  const head = [
    'file',
    'MB',
    'entries',
    'base s',
    'base MB/s',
    'base work MB/s',
    'load s',
    'load MB/s',
    'load rec/s',
    'member rows/s',
    'base RSS MB',
    'load RSS MB',
    'load/base',
    'db ×HAR',
  ];
  const rows = results.map((r) => {
    const b = r.baseline;
    const l = 'error' in r.load ? null : r.load;
    return [
      basename(r.file),
      fmt(r.bytes / 1e6),
      fmt(b.entries, 0),
      fmt(b.wallMs / 1000, 2),
      fmt(b.mbPerSec),
      fmt(b.workMbPerSec),
      fmt(l?.wallMs !== undefined ? l.wallMs / 1000 : null, 2),
      fmt(l?.mbPerSec),
      fmt(l?.recordsPerSec, 0),
      fmt(l?.membersPerSec, 0),
      fmt(b.rssMB, 0),
      fmt(l?.rssMB, 0),
      l ? fmt(l.vsBaseline, 2) : 'n/a',
      fmt(l?.dbTimesHar, 2),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') + ' |';
  const sep = '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|';
  const states = results.map((r) => {
    const s = r.state;
    if (!s) return `${basename(r.file)}: state view not measured`;
    if ('error' in s) return `${basename(r.file)}: state view failed: ${s.error}`;
    const l = 'error' in r.load ? null : r.load;
    const ratio = l ? ` (state/load ${fmt(s.wallMs / l.wallMs, 2)})` : '';
    return `${basename(r.file)}: state pass ${fmt(s.wallMs / 1000, 2)} s${ratio}, peak RSS ${fmt(s.rssMB, 0)} MB; state --json (rendered from the stored rows) ${fmt(s.renderMs / 1000, 2)} s, ${fmt(s.renderRssMB, 0)} MB; ${s.entities} entities, ${s.plans} plans`;
  });
  // Issue 14's ingest targets, said next to what this run measured (benchmarks, not timed tests).
  const targets = results.map((r) => {
    const l = 'error' in r.load ? null : r.load;
    if (!l) return `${basename(r.file)}: targets not measured (load failed)`;
    const mark = (ok: boolean) => (ok ? 'met' : 'NOT met');
    const rssOk = l.rssMB !== null && l.rssMB <= 256;
    const loads = [...r.baseline.runs.map((x) => x.loadAvg), ...l.runs.map((x) => x.loadAvg)];
    const silent = Math.max(...l.runs.map((x) => x.silentMs));
    return (
      `${basename(r.file)}: load ${fmt(l.mbPerSec)} MB/s, load/base ${fmt(l.vsBaseline, 2)} (target ≥ 40 MB/s and ≥ 0.3: ${mark(l.mbPerSec >= 40 && l.vsBaseline >= 0.3)}); ` +
      `load RSS ${fmt(l.rssMB, 0)} MB (≤ 256: ${mark(rssOk)}); store ${fmt(l.dbTimesHar, 2)}× HAR (≤ 2: ${mark(l.dbTimesHar <= 2)}); ` +
      `progress silent at most ${fmt(silent / 1000, 2)} s (issue 49: ≤ 5: ${mark(silent <= 5000)}); ` +
      `1-min load average ${fmt(Math.min(...loads))}–${fmt(Math.max(...loads))} on ${cpus().length} CPUs`
    );
  });
  // Inside the load (its --json phases_ms, median run): facts (parse, records, bodies, members), manifest, state.
  const phases = results.flatMap((r) => {
    const l = 'error' in r.load ? null : r.load;
    const runs = l ? l.runs.filter((x) => x.phasesMs !== null) : [];
    if (!l || runs.length === 0) return [];
    const p = [...runs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor((runs.length - 1) / 2)].phasesMs!;
    const mbytes = r.bytes / 1e6;
    return [
      `${basename(r.file)}: inside the load: facts ${fmt(p.facts / 1000, 2)} s (${fmt(mbytes / (p.facts / 1000))} MB/s), ` +
        `manifest ${fmt(p.manifest / 1000, 2)} s, state ${fmt(p.state / 1000, 2)} s`,
    ];
  });
  const errors = results
    .filter((r) => 'error' in r.load)
    .map((r) => `load failed for ${basename(r.file)}: ${(r.load as { error: string }).error}`);
  return [line(head), sep, ...rows.map(line), ...errors, '', ...targets, '', ...phases, '', ...states].join('\n');
}

// ---------------------------------------------------------------------------------------------

/** Baseline, load and state pass of one HAR (`entries` as its generator wrote them). */
async function benchFile(
  file: string,
  bytes: number,
  entries: number,
  runs: number,
  cliMissing: boolean,
): Promise<Pick<FileResult, 'baseline' | 'load' | 'state'>> {
  const mbytes = bytes / 1e6;

  const bRuns: BaselineRun[] = [];
  for (let i = 0; i < runs; i++) {
    log(`[baseline] ${basename(file)} run ${i + 1}/${runs}…`);
    bRuns.push(await runBaseline(file));
    log(`[baseline]   ${(bRuns[i].wallMs / 1000).toFixed(2)} s wall, ${fmt(bRuns[i].rssMB, 0)} MB RSS, ${bRuns[i].entries} entries`);
  }
  const bWall = median(bRuns.map((r) => r.wallMs));
  const bWork = median(bRuns.map((r) => r.workMs));
  const baseline = {
    runs: bRuns,
    wallMs: bWall,
    workMs: bWork,
    rssMB: maxOrNull(bRuns.map((r) => r.rssMB)),
    entries: bRuns[0].entries,
    mbPerSec: mbytes / (bWall / 1000),
    workMbPerSec: mbytes / (bWork / 1000),
  };
  if (baseline.entries !== entries) log(`bench: WARNING baseline saw ${baseline.entries} entries, generator wrote ${entries}`);

  let load: FileResult['load'];
  if (cliMissing) {
    load = { error: `${relative(ROOT, CLI_JS)} not found (loader CLI not built)` };
  } else {
    const db = join(OUT, basename(file, '.har') + '.sqlite');
    try {
      const lRuns: LoadRun[] = [];
      for (let i = 0; i < runs; i++) {
        log(`[load] ${basename(file)} → ${relative(ROOT, db)} run ${i + 1}/${runs}…`);
        lRuns.push(await runLoad(file, db));
        const l = lRuns[i];
        const ph = l.phasesMs
          ? ` (facts ${fmt(l.phasesMs.facts / 1000, 2)} s, manifest ${fmt(l.phasesMs.manifest / 1000, 2)} s, state ${fmt(l.phasesMs.state / 1000, 2)} s)`
          : '';
        log(
          `[load]   ${(l.wallMs / 1000).toFixed(2)} s wall${ph}, ${fmt(l.rssMB, 0)} MB RSS, ${l.records ?? '?'} records, ${l.members ?? 'no'} member rows`,
        );
      }
      const last = lRuns[lRuns.length - 1];
      const wall = median(lRuns.map((r) => r.wallMs));
      const s = wall / 1000;
      if (last.records !== null && last.records !== entries)
        log(`bench: WARNING record table has ${last.records} rows for ${entries} entries`);
      load = {
        runs: lRuns,
        wallMs: wall,
        rssMB: maxOrNull(lRuns.map((r) => r.rssMB)),
        records: last.records,
        members: last.members,
        dbBytes: last.dbBytes,
        mbPerSec: mbytes / s,
        recordsPerSec: last.records === null ? null : last.records / s,
        membersPerSec: last.members === null ? null : last.members / s,
        dbTimesHar: last.dbBytes / bytes,
        vsBaseline: mbytes / s / baseline.mbPerSec,
      };
    } catch (err) {
      load = { error: err instanceof Error ? err.message : String(err) };
      log(`bench: ${load.error}`);
    }
  }
  let state: FileResult['state'];
  if (!('error' in load)) {
    const db = join(OUT, basename(file, '.har') + '.sqlite');
    // The state pass runs inside the load (phases_ms.state); `migrate --recompute` runs it
    // again on its own, so its wall time and peak RSS are the pass's alone.
    log(`[state] capstate migrate --db ${relative(ROOT, db)} --recompute…`);
    const pass = await measure(ROOT, [...NODE_FLAGS, CLI_JS, 'migrate', '--db', db, '--recompute']);
    log(`[state] capstate state --db ${relative(ROOT, db)} --json…`);
    const m = await measure(ROOT, [...NODE_FLAGS, CLI_JS, 'state', '--db', db, '--json']);
    if (pass.code === 0 && m.code === 0) {
      const doc = JSON.parse(m.stdout) as { entities: unknown[]; plans: unknown[] };
      state = {
        wallMs: pass.wallMs,
        rssMB: pass.rssMB,
        renderMs: m.wallMs,
        renderRssMB: m.rssMB,
        entities: doc.entities.length,
        plans: doc.plans.length,
      };
      log(
        `[state]   pass ${(pass.wallMs / 1000).toFixed(2)} s wall, ${fmt(pass.rssMB, 0)} MB RSS; state --json ${(m.wallMs / 1000).toFixed(2)} s, ${fmt(m.rssMB, 0)} MB RSS; ${doc.entities.length} entities, ${doc.plans.length} plans`,
      );
    } else {
      state = {
        error:
          pass.code !== 0
            ? `capstate migrate --recompute exited with ${pass.code}`
            : `capstate state exited with ${m.code}: ${m.stdout.slice(0, 500)}`,
      };
      log(`bench: ${state.error}`);
    }
  }
  return { baseline, load, state };
}

async function main(): Promise<number> {
  const sizes = (process.env.BENCH_SIZES ?? '50,500')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
  const seed = process.env.BENCH_SEED ? Number(process.env.BENCH_SEED) : DEFAULT_SEED;
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 1) | 0);
  const repeatMb = Number(process.env.BENCH_REPEAT_MB ?? 200);
  if (!Number.isFinite(repeatMb) || repeatMb < 0) {
    log('bench: BENCH_REPEAT_MB must be a size in MB (0 skips the single-app capture)');
    return 2;
  }
  if (!sizes.length || !Number.isInteger(seed)) {
    log('bench: BENCH_SIZES must list sizes in MB (e.g. "50,500"), BENCH_SEED must be an integer');
    return 2;
  }
  if (!existsSync(BASELINE_JS)) {
    log(`bench: ${relative(ROOT, BASELINE_JS)} is missing; run \`npm run bench\` (it builds first) or \`npx tsc -p tsconfig.json\``);
    return 2;
  }
  const cliMissing = !existsSync(CLI_JS);
  if (cliMissing) {
    log(`bench: ERROR ${relative(ROOT, CLI_JS)} does not exist, so \`capstate load\` cannot be measured.`);
    log('bench: the loader CLI (src/cli/main.ts) is not built yet; running generation and the baseline only.');
  }
  if (!haveTime) log(`bench: ${TIME_BIN} not found; peak RSS will be reported as "–" (apt-get install time)`);
  mkdirSync(OUT, { recursive: true });

  const results: FileResult[] = [];
  for (const mb of sizes) {
    const { file, meta } = await ensureHar(mb, seed);
    const measured = await benchFile(file, meta.bytes, meta.stats.entries, runs, cliMissing);
    results.push({
      file: relative(ROOT, file),
      bytes: meta.bytes,
      sha256: meta.sha256,
      shape: 'varied',
      generated: meta.stats,
      ...measured,
    });
  }
  // Issue 49's second shape: one small app's session repeated (gen-repeat-har.ts).
  if (repeatMb > 0) {
    const file = join(OUT, `r${repeatMb}.har`);
    log(`[gen] generating ${relative(ROOT, file)} (${repeatMb} MB of one json-server session repeated)…`);
    const g = generateRepeatedHar(ROOT, file, Math.round(repeatMb * 1e6), (b) => log(`[gen]   ${(b / 1e6).toFixed(0)} MB`));
    log(`[gen]   ${g.bytes.toLocaleString('en')} bytes, ${g.entries} entries (${g.repeats} repeats of the session)`);
    const measured = await benchFile(file, g.bytes, g.entries, runs, cliMissing);
    results.push({
      file: relative(ROOT, file),
      bytes: g.bytes,
      sha256: g.sha256,
      shape: 'single-app',
      generated: { entries: g.entries, repeats: g.repeats },
      ...measured,
    });
  }

  const doc = {
    // Wall-clock stamp for the record only; nothing generated depends on it.
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      memMB: Math.round(totalmem() / 1e6),
      node: process.version,
      platform: process.platform,
    },
    env: { sizes, seed, runs, repeatMb },
    results,
  };
  writeFileSync(join(OUT, 'results.json'), JSON.stringify(doc, null, 2) + '\n');
  process.stdout.write(table(results) + '\n');
  log(`[bench] wrote ${relative(ROOT, join(OUT, 'results.json'))}`);
  return results.some((r) => 'error' in r.load) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
