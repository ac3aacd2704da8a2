/**
 * Issue 49's load contract: facts, then state. A load into an existing store commits its
 * facts first and stores each capture's state in a short transaction of its own; killed in
 * between, it leaves a pending capture, which every reader reports in one line and the next
 * load completes — with the same state bytes as a load that was never interrupted.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateRepeatedHar } from '../bench/gen-repeat-har.js';
import { cli, cliPath, fixture, root, tempDir } from './helpers.js';

const small = fixture('grafana-mini', 'capture.har');
const dir = tempDir();
const big = join(dir, 'big.har');
const noStack = (stderr: string) => expect(stderr).not.toMatch(/^\s{4}at /m);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PENDING = /the environment state of capture 2 in .*killed\.sqlite is pending \(its load was interrupted or is still running/;

beforeAll(() => {
  // One json-server session repeated to 8 MB: over the 4 MB from which a load prints its
  // progress, with a state phase of about two seconds (the window the stop, sent when its first
  // line is read, must land in).
  generateRepeatedHar(root, big, 8e6);
});

/** Loads `file` into `store` as a child process, stopped (SIGSTOP) once its stderr says its state phase began. */
async function stoppedInStatePhase(
  file: string,
  store: string,
): Promise<{ stderr: () => string; kill: () => Promise<NodeJS.Signals | null> }> {
  const child = spawn(process.execPath, [cliPath, 'load', file, '--db', store], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      // The first state line is told only after the facts' COMMIT (src/ingest/load-states.ts).
      if (/state: evaluating the rules/.test(stderr)) {
        child.kill('SIGSTOP');
        resolve();
      }
    });
    void exited.then(() => reject(new Error(`the load ended before its state phase was seen: ${stderr}`)));
  });
  return {
    stderr: () => stderr,
    kill: () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

describe('issue 49: a load killed between its facts and its state', () => {
  it('leaves a pending capture that readers report in one line and the next load completes with the same state bytes', async () => {
    const t0 = performance.now();
    const whole = join(dir, 'whole.sqlite');
    expect(cli(['load', small, '--db', whole, '--quiet']).status).toBe(0);
    const uninterrupted = cli(['load', big, '--db', whole, '--quiet', '--json']);
    expect(uninterrupted.status, uninterrupted.stderr).toBe(0);
    const statePhase = (JSON.parse(uninterrupted.stdout) as { captures: { phases_ms: { state: number } }[] }).captures[0].phases_ms.state;
    const expected = cli(['state', '--db', whole, '--capture', '2', '--json']);
    expect(expected.status, expected.stderr).toBe(0);
    const tReference = performance.now();

    const store = join(dir, 'killed.sqlite');
    expect(cli(['load', small, '--db', store, '--quiet']).status).toBe(0);
    const load = await stoppedInStatePhase(big, store);
    // A reader while the load is computing the state: the facts are there, the state is not yet.
    const during = cli(['state', '--db', store, '--capture', '2']);
    expect(during.status).toBe(1);
    expect(during.stderr.trim().split('\n')).toHaveLength(1);
    expect(during.stderr).toMatch(PENDING);
    expect(await load.kill()).toBe('SIGKILL');
    const tKilled = performance.now();

    // What the kill left: the capture's facts whole, its state absent (pending).
    for (const args of [
      ['state', '--db', store, '--capture', '2', '--json'],
      ['serve', '--db', store, '--capture', '2'],
      ['export', 'openapi', '--db', store, '--capture', '2'],
    ]) {
      const r = cli(args, { input: '' });
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(PENDING);
      expect(r.stderr).toContain(`the next capstate load into this store completes it, or run: capstate migrate --db ${store}`);
      noStack(r.stderr);
    }
    const db = new Database(store, { readonly: true });
    try {
      expect(db.prepare('select id from capture order by id').pluck().all()).toEqual([1, 2]);
      const records = 'select count(*) from record where capture_id = 2';
      const wholeDb = new Database(whole, { readonly: true });
      try {
        expect(db.prepare(records).pluck().get()).toBe(wholeDb.prepare(records).pluck().get());
      } finally {
        wholeDb.close();
      }
      expect(db.prepare(records).pluck().get()).toBeGreaterThan(1000);
      expect(db.prepare('select capture_id from state_capture order by capture_id').pluck().all()).toEqual([1]);
    } finally {
      db.close();
    }
    const info = cli(['info', '--db', store]);
    expect(info.status, info.stderr).toBe(0);
    expect(info.stdout).toContain('environment state: pending (its load was interrupted or is still running)');

    // The next write command completes it first, saying so, with the state phase's progress.
    const next = cli(['load', small, '--db', store]);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toContain('capstate: capture 2: its state was not stored (an interrupted load); computing it now');
    expect(next.stderr).toMatch(/capstate: capture 2: \d+%.*state: checking the write tools/);
    expect(next.stderr).toContain('already loaded as capture 1');
    const tCompleted = performance.now();
    const completed = cli(['state', '--db', store, '--capture', '2', '--json']);
    expect(completed.status, completed.stderr).toBe(0);
    expect(sha256(completed.stdout)).toBe(sha256(expected.stdout));
    expect(completed.stdout).toBe(expected.stdout);
    console.log(
      `issue 49 timings: reference ${((tReference - t0) / 1000).toFixed(1)} s (its state phase ${(statePhase / 1000).toFixed(1)} s, ` +
        `the window the stop must land in), killed load ${((tKilled - tReference) / 1000).toFixed(1)} s, readers and completion ${((tCompleted - tKilled) / 1000).toFixed(1)} s`,
    );
  }, 300_000);
});
