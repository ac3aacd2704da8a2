/**
 * `[CAPTURE | --db FILE]` for commands that serve one capture (serve, card): a capture
 * file is loaded first — into a temporary store unless `--db` is given — as `load` does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapstateError } from '../errors.js';
import { loadCaptures } from '../load/index.js';
import { openServeContext, type ServeContext } from '../serve/context.js';
import { log } from './common.js';
import { loadInputs } from './load-inputs.js';

export const captureArg = {
  capture: { type: 'string', description: 'Capture id in the store (default: the store\'s only capture)', valueHint: 'ID' },
} as const;

export interface ServedSource { ctx: ServeContext; cleanup: () => void }

/** Opens the capture to serve: loads CAPTURE first when given, then the store read-only. */
export async function openSource(a: { db: string; capture?: string; manifest?: string; source?: string }, rawArgs: string[]): Promise<ServedSource> {
  const explicitDb = rawArgs.some((r) => r === '--db' || r.startsWith('--db='));
  let db = a.db;
  let temp: string | null = null;
  let captureId = a.capture === undefined ? undefined : Number(a.capture);
  if (captureId !== undefined && !Number.isInteger(captureId)) throw new CapstateError('usage', '--capture takes a capture id (see capstate info)', {}, 2);
  const cleanup = () => { if (temp) rmSync(temp, { recursive: true, force: true }); temp = null; };
  try {
    if (a.source) {
      if (!explicitDb) {
        temp = mkdtempSync(join(tmpdir(), 'capstate-'));
        db = join(temp, 'capstate.sqlite');
      }
      const [loaded] = await loadCaptures({ db, files: [a.source], log, ...loadInputs(a, rawArgs) });
      captureId = loaded.capture_id;
    }
    return { ctx: await openServeContext(db, captureId), cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
