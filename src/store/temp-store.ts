/**
 * A store file in a temporary directory of its own, `capstate-PID-…` in $TMPDIR: removed by
 * `cleanup`, at exit, or — when the process was killed — by the next run that makes one
 * (src/cli/source.ts, removeAbandonedTemps). The private copies serving reads (a PostgreSQL
 * replica, one capture of a SQLite store) are made this way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TemporaryStore {
  file: string;
  cleanup: () => void;
}

/** Makes the directory, has `fill` write the store at `file`, and removes it all if `fill` fails. */
export async function temporaryStore(fill: (file: string) => void | Promise<void>): Promise<TemporaryStore> {
  const dir = mkdtempSync(join(tmpdir(), `capstate-${process.pid}-`));
  const onExit = () => rmSync(dir, { recursive: true, force: true });
  process.on('exit', onExit);
  const cleanup = () => {
    onExit();
    process.off('exit', onExit);
  };
  try {
    const file = join(dir, 'capstate.sqlite');
    await fill(file);
    return { file, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
