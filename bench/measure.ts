/**
 * One benchmarked process under GNU time: wall time, peak RSS and CPU time (user + system;
 * steadier than wall time on a busy machine), with the machine's load average at its end.
 * bench/run.ts and bench/post-ids.ts both measure through it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const TIME_BIN = '/usr/bin/time';
export const haveTime = existsSync(TIME_BIN);

export interface Measured {
  code: number | null;
  wallMs: number;
  /** Peak RSS in MB (10^6 bytes) from GNU time's %M; null when /usr/bin/time is unavailable. */
  rssMB: number | null;
  /** User + system CPU time; null when /usr/bin/time is unavailable. */
  cpuMs: number | null;
  stdout: string;
  /** The 1-minute load average when the process ended: other work on the machine shows here. */
  loadAvg: number;
  /**
   * The longest time the process wrote nothing to stderr while it ran (from its start to its
   * first output, between outputs, and from its last output to its end): how long a user
   * watching its progress saw nothing (issue 49: never more than 5 s).
   */
  silentMs: number;
}

/** Runs `node ARGS` in `cwd` and measures it. */
export function measure(cwd: string, args: string[]): Promise<Measured> {
  // GNU time writes to its own -o file, so the child's stderr (progress, errors) passes through
  // untouched (timed on the way) and cannot be confused with the measurement.
  const timeOut = join(tmpdir(), `capstate-bench-${process.pid}-${Math.floor(performance.now())}.time`);
  const [cmd, argv] = haveTime ? [TIME_BIN, ['-o', timeOut, '-f', '%M %U %S', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    let lastOutput = t0;
    let silentMs = 0;
    child.stderr.on('data', (b: Buffer) => {
      const t = performance.now();
      silentMs = Math.max(silentMs, t - lastOutput);
      lastOutput = t;
      process.stderr.write(b);
    });
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      silentMs = Math.max(silentMs, t0 + wallMs - lastOutput);
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
      ok({ code, wallMs, rssMB, cpuMs, stdout: Buffer.concat(chunks).toString('utf8'), loadAvg: loadavg()[0], silentMs });
    });
  });
}
