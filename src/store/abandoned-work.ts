/**
 * Files a killed capstate leaves behind. SIGKILL gives a process no chance to clean up, so
 * each work file carries its process id in its name and a later run removes the ones whose
 * process is gone: a new store's `.NAME.loading-PID` beside its target (src/ingest/
 * load-captures.ts), and the `capstate-PID-XXXXXX` directories in $TMPDIR that hold
 * temporary stores and unpacked inputs (src/cli/source.ts, src/load/inputs.ts).
 */
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/** Whether process `pid` still runs (its work files are not stale). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The name of the file a load builds the new store `target` in, beside it. */
export function newStoreWorkFile(target: string): string {
  return join(dirname(target), `.${basename(target)}.loading-${process.pid}`);
}

/**
 * Removes work files (and their journals) of loads into the store `target` whose process
 * is gone, and this process's own when `own` (a load that failed). Every open of a store calls it (issue 42: a killed load into a new store left
 * its work file until the next load into that path; `info` and `state` said "no store"
 * beside a file as large as the capture). Best effort: a directory this process cannot
 * list or write keeps its files, and the command goes on.
 */
export function removeAbandonedWork(target: string, own = false): void {
  const full = resolve(target);
  const prefix = `.${basename(full)}.loading-`;
  let names: string[];
  try {
    names = readdirSync(dirname(full));
  } catch {
    return;
  }
  for (const f of names) {
    if (!f.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)/.exec(f.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (pid === process.pid ? own : !isAlive(pid)) {
      try {
        rmSync(join(dirname(full), f), { force: true });
      } catch {
        /* not ours to remove (permissions): left */
      }
    }
  }
}

/** Removes `capstate-PID-XXXXXX` directories in $TMPDIR (temporary stores, unpacked inputs) whose process is gone. */
export function removeAbandonedTemps(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^capstate-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m || Number(m[1]) === process.pid || isAlive(Number(m[1]))) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {
      /* another user's: left */
    }
  }
}
