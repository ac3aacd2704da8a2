/** Shared test helpers: temporary stores, the built CLI, file hashes. */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, inject } from 'vitest';
import { registerBodyFunctions } from '../src/store/body-content.js';
import { openStore, type Sqlite } from '../src/store/open.js';

export const root = resolve(__dirname, '..');
export const cliPath = join(root, 'dist/src/cli/main.js');
export const fixture = (...p: string[]) => join(root, 'fixtures', ...p);
/** Every fixture case (a directory of fixtures/), in name order. */
export const fixtureCases = (): string[] =>
  readdirSync(join(root, 'fixtures'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
/** The capture file of fixture case `name` (a HAR, zipped or gzipped, or scenario Evidence). */
export const captureOf = (name: string): string =>
  fixture(name, readdirSync(fixture(name)).find((f) => /\.(har|json|har\.gz|zip)$/.test(f))!);

/** Every TypeScript file under src/ (for tests that check a rule is stated in one module only). */
export function sourceFiles(dir = join(root, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** A temporary directory removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstate-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * An empty store at `file`, open for writing: a copy of the store test/global-setup.ts migrated
 * once for the run, opened as any store is (openStore checks its schema and views, and finds
 * nothing to migrate). For tests about what goes into a store, not about migrating one.
 * `scratch`: commits need not reach the disk (a store the test throws away).
 */
export function migratedStore(file: string, opts: { scratch?: boolean } = {}): Sqlite {
  copyFileSync(inject('migratedStore'), file);
  const db = openStore(file, { write: true });
  if (opts.scratch) db.pragma('synchronous = OFF');
  return db;
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}
export interface CliOptions {
  cwd?: string;
  input?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs the built CLI (`npm test` builds first via `pretest`): in process, in a worker thread
 * of this test file that runs one command line after another (issue 43: a fresh Node process
 * per command cost 0.2–1.5 s). A test about the process itself (exit on a signal, start-up,
 * Node flags, a pipe closed early) uses `cliProcess`. Commands that need what a worker
 * thread cannot give run as a process too: another working directory, or `CAPSTATE_DB`
 * (read when the command modules are imported, for the `--db` default). `CAPSTATE_TEST_CLI=process`
 * runs every command as a process (to compare).
 */
export function cli(args: string[], opts: CliOptions = {}): CliResult {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} missing: run npm run build`);
  const inProcess =
    process.env.CAPSTATE_TEST_CLI !== 'process' &&
    (opts.cwd === undefined || resolve(opts.cwd) === process.cwd()) &&
    process.cwd() === root &&
    opts.env?.CAPSTATE_DB === undefined;
  return inProcess ? cliInWorker(args, opts) : cliProcess(args, opts);
}

/** Runs the built CLI as a process of its own: `node dist/src/cli/main.js ARGS`. */
export function cliProcess(args: string[], opts: CliOptions = {}): CliResult {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} missing: run npm run build`);
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: opts.cwd ?? root,
    encoding: 'utf8',
    input: opts.input,
    env: opts.env ? { ...process.env, ...opts.env } : process.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The longest one in-process command may take before the worker is ended and the call fails. */
const WORKER_DEADLINE_MS = 600_000;
let runner: { worker: Worker; port: MessagePort; signal: Int32Array } | null = null;

function cliInWorker(args: string[], opts: CliOptions): CliResult {
  if (!runner) {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(join(root, 'test/cli-worker.mjs'), {
      workerData: { port: port2, signal, runJs: pathToFileURL(join(root, 'dist/src/cli/run.js')).href },
      transferList: [port2],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    port1.unref();
    runner = { worker, port: port1, signal };
  }
  const { worker, port, signal } = runner;
  Atomics.store(signal, 0, 0);
  port.postMessage({ args, input: opts.input, env: opts.env ? { ...process.env, ...opts.env } : { ...process.env } });
  // This thread waits as spawnSync did; the worker answers, then wakes it.
  const woke = Atomics.wait(signal, 0, 0, WORKER_DEADLINE_MS);
  const answer = Atomics.load(signal, 0) === 1 ? (receiveMessageOnPort(port)?.message as CliResult | undefined) : undefined;
  if (!answer) {
    runner = null;
    void worker.terminate();
    if (woke === 'timed-out') throw new Error(`capstate ${args.join(' ')}: no answer from the in-process CLI (timed out)`);
    // The thread ended: the in-process CLI is this suite's shortcut, shared by the test files of a
    // vitest worker (isolate: false), and something before this command may have ended it. The
    // CLI users run is a process: the command is run as one, and its answer is the test's.
    process.stderr.write(`capstate ${args.join(' ')}: the in-process CLI's thread ended; run as a process\n`);
    return cliProcess(args, opts);
  }
  return answer;
}

/**
 * Runs the built CLI without blocking this process, for tests whose server lives in the
 * test process itself (a local app the captured browser talks to).
 */
export function cliAsync(args: string[], opts: Omit<CliOptions, 'input'> = {}): Promise<CliResult> {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} missing: run npm run build`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: opts.cwd ?? root,
      env: opts.env ? { ...process.env, ...opts.env } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '',
      stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

/**
 * `capstate serve ARGS --http 127.0.0.1:0` in a child process: `use` gets the base URL it
 * prints; then SIGTERM, which must end the server with status 0.
 */
export async function whileServedOverHttp(args: string[], use: (base: string) => Promise<void>): Promise<number | null> {
  const child = spawn(process.execPath, [cliPath, 'serve', ...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /over HTTP at (http:\/\/[^:]+:\d+)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
    await use(base);
  } finally {
    child.kill('SIGTERM');
  }
  return exited;
}

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * A store as capstate wrote it before migration 0014 (for tests that take a store back to an
 * older schema version): every body as it was recorded, no `body.coding`, and no views (the migration to 0014 rebuilds them).
 */
export function bodiesBefore0014(file: string): void {
  const db = new Database(file);
  try {
    registerBodyFunctions(db);
    // Without views: DROP COLUMN compiles every view again to check it (~80 s for the deepest), and
    // 0014 clears `queries_sha256`, so the migrate that follows builds them anew.
    for (const v of db.prepare("select name from sqlite_master where type = 'view'").pluck().all() as string[]) db.exec(`drop view "${v}"`);
    db.exec(
      "update body set content = cast(sqlar_uncompress(content, bytes) as text), coding = null where coding = 'deflate'; alter table body drop column coding;",
    );
  } finally {
    db.close();
  }
}
