#!/usr/bin/env -S node --max-semi-space-size=4
/**
 * The capstate CLI process: run.ts runs the command line. Exit codes: 0 ok, 1 bad input or
 * failed check, 2 usage. stdout carries data only (`--json` is one document); progress and
 * logs go to stderr.
 */
import { boundHeapGrowth } from './memory.js';
import { version } from './version.js';

boundHeapGrowth();
// A reader that stops early (`capstate state --json | head`) closes the pipe: stop quietly,
// as other Unix tools do, instead of printing Node's stack for the failed write. `serve`'s
// stdio transport listens too and reports its own failure (exit 1): this one stands aside.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (process.stdout.listenerCount('error') > 1) return;
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const rawArgs = process.argv.slice(2);
// `--version` answers before the commands' modules (and the store's) are imported.
if (rawArgs[0] === '--version' || rawArgs[0] === '-v') {
  process.stdout.write(version + '\n');
  process.exitCode = 0;
} else {
  process.exitCode = await (await import('./run.js')).run(rawArgs);
}
