/**
 * Parsing beside writing: a load's parse side (entries.ts) runs in a worker thread while
 * the main thread, which owns the one SQLite connection and its one transaction, stores
 * what arrives (perf-baselines.md: records-only ingest 86 → 116 MB/s with a parse worker;
 * the machines have 2 cores). Errors keep their shape: a CapstateError raised in the
 * worker is raised again here with its code, message and {file, record, path}.
 */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CapstateError, type ErrorContext } from '../errors.js';
import { collectCredentials, parseCapture, type FirstPassFinds, type ParseOut } from './entries.js';
import { CleanBodies } from './secret-collect.js';
import type { InflateBudget, InflateBudgetState } from './inflate-budget.js';

export interface WorkerInput {
  file: string;
  sensitive: string[];
  inflate?: InflateBudgetState;
}

/** What the writer's thread sends the worker: a batch stored, or its share of the first pass (null: none, scan it yourself). */
export type ToWorker = { t: 'ack' } | { t: 'share'; finds: FirstPassFinds | null };

export type ToWriter =
  | { t: 'batch'; items: ParseOut[] }
  | { t: 'done' }
  | { t: 'error'; code: string; message: string; context: ErrorContext }
  | { t: 'crash'; message: string; stack?: string };

/** A batch closes at this many items or characters of body text, whichever comes first. */
export const BATCH_ITEMS = 64;
export const BATCH_CHARS = 1024 * 1024;
/** Batches posted but not yet stored: bounds what the worker holds ahead of the writer. */
export const MAX_BATCHES_AHEAD = 2;

const WORKER_JS = fileURLToPath(new URL('./parse-worker.js', import.meta.url));

/** A structured clone turns Buffers into plain Uint8Arrays: make them Buffers again (no copy). */
const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

function fromClone(m: ParseOut): ParseOut {
  if (m.t === 'piece') m.piece.bytes = asBuffer(m.piece.bytes);
  else if (m.t === 'entry') {
    if (typeof m.request.content !== 'string') m.request.content = asBuffer(m.request.content);
    if (typeof m.response.content !== 'string') m.response.content = asBuffer(m.response.content);
  }
  return m;
}

export interface ParsedCapture {
  items: AsyncGenerator<ParseOut>;
  /** Stops the parse (the worker) early; the items then end with an error nobody needs. */
  close(): Promise<void>;
}

/**
 * Below this many bytes a capture is parsed on the writer's thread: a worker thread costs a
 * new isolate that imports the parser again, about 0.2 s, and the overlap wins that back only
 * from about 8 MB (a 5 MB capture loads in 1.8 s on this thread, 2.0 s with a worker; 10 MB in
 * 2.4 s and 2.2 s; measured on the 2-core machine class).
 */
export const IN_THREAD_BELOW_BYTES = 8 * 1024 * 1024;

/**
 * What parseCapture yields for `file`, parsed in a worker thread that starts at once.
 * The first pass (the capture's credentials, which must all be known before the first
 * entry is stored) is shared: the worker scans the even entries, this thread the odd
 * ones while it hashes the file, and hands its finds over (at 50 MB this thread
 * otherwise waited ~4 s for the worker's whole pass). A capture smaller than
 * `inThreadBelow` bytes, or any where the compiled worker is not there (the sources run
 * directly), is parsed on this thread.
 */
export function parsedCapture(
  file: string,
  sensitive: string[],
  inflate?: InflateBudget,
  inThreadBelow: number = IN_THREAD_BELOW_BYTES,
): ParsedCapture {
  if (!existsSync(WORKER_JS) || statSync(file).size < inThreadBelow) {
    const items = parseCapture(file, { sensitive, inflate });
    return {
      items,
      close: async () => {
        await items.return(undefined);
      },
    };
  }
  const worker = new Worker(WORKER_JS, {
    workerData: { file, sensitive, inflate: inflate?.state() } satisfies WorkerInput,
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  const stopShare = new AbortController();
  void shareFirstPass(file, stopShare.signal).then((finds) => {
    if (!stopShare.signal.aborted) worker.postMessage({ t: 'share', finds } satisfies ToWorker);
  });
  const inbox: ToWriter[] = [];
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  const arrive = () => {
    if (wake) {
      const w = wake;
      wake = null;
      w();
    }
  };
  worker.on('message', (m: ToWriter) => {
    inbox.push(m);
    arrive();
  });
  worker.on('error', (e) => {
    failure = e;
    arrive();
  });
  worker.on('exit', (code) => {
    if (!failure) failure = new Error(`the parse worker stopped (exit code ${code})`);
    arrive();
  });
  const stop = async () => {
    stopShare.abort();
    await worker.terminate();
  };
  async function* items(): AsyncGenerator<ParseOut> {
    try {
      for (;;) {
        while (inbox.length === 0 && !failure)
          await new Promise<void>((ok) => {
            wake = ok;
          });
        const m = inbox.shift();
        if (!m) throw failure!;
        if (m.t === 'done') return;
        if (m.t === 'error') throw new CapstateError(m.code, m.message, m.context);
        if (m.t === 'crash') throw Object.assign(new Error(m.message), { stack: m.stack });
        for (const item of m.items) yield fromClone(item);
        worker.postMessage({ t: 'ack' } satisfies ToWorker); // stored: the worker may run one batch further ahead
      }
    } finally {
      await stop();
    }
  }
  return { items: items(), close: stop };
}

/** This thread's share of the first pass (collectCredentials' part 1 of 2); null if it failed or was stopped (the worker then scans it). */
async function shareFirstPass(file: string, signal: AbortSignal): Promise<FirstPassFinds | null> {
  try {
    const clean = new CleanBodies();
    const values = await collectCredentials(file, clean, { parts: 2, part: 1, signal });
    return signal.aborted ? null : { values: [...values], clean: clean.bytes };
  } catch {
    return null; // a file the splitter refuses: the worker's own pass reports it
  }
}
