/**
 * The worker thread of a load: runs parseCapture (entries.ts) and posts what it yields in
 * batches, staying at most a few batches ahead of the writer so memory stays bounded
 * whatever the capture's size (ES-39). The writer acknowledges each batch it has stored.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CapstateError } from '../errors.js';
import { parseCapture, type FirstPassFinds, type ParseOut } from './entries.js';
import { InflateBudget } from './inflate-budget.js';
import { BATCH_CHARS, BATCH_ITEMS, MAX_BATCHES_AHEAD, type ToWorker, type ToWriter, type WorkerInput } from './pipeline.js';

const port = parentPort!;
const input = workerData as WorkerInput;
let acked = 0;
let posted = 0;
let wake: (() => void) | null = null;
let giveShare: (finds: FirstPassFinds | null) => void = () => {};
// The writer's thread scans share 1 of the first pass (pipeline.ts) and posts it here.
const otherShare = new Promise<FirstPassFinds | null>((ok) => {
  giveShare = ok;
});
port.on('message', (m: ToWorker) => {
  if (m.t === 'share') {
    giveShare(m.finds);
    return;
  }
  acked++;
  if (wake) {
    const w = wake;
    wake = null;
    w();
  }
});

function weight(m: ParseOut): number {
  if (m.t === 'entry') return 512 + m.request.content.length + m.response.content.length;
  if (m.t === 'piece') return 64 + m.piece.bytes.length;
  return 64;
}

async function run(): Promise<void> {
  let batch: ParseOut[] = [];
  let chars = 0;
  const flush = async () => {
    while (posted - acked >= MAX_BATCHES_AHEAD)
      await new Promise<void>((ok) => {
        wake = ok;
      });
    port.postMessage({ t: 'batch', items: batch } satisfies ToWriter);
    posted++;
    batch = [];
    chars = 0;
  };
  for await (const m of parseCapture(input.file, {
    sensitive: input.sensitive,
    otherShare,
    inflate: input.inflate && InflateBudget.from(input.inflate),
  })) {
    batch.push(m);
    chars += weight(m);
    // The credentials must reach the writer before any entry it redacts.
    if (m.t === 'credentials' || batch.length >= BATCH_ITEMS || chars >= BATCH_CHARS) await flush();
  }
  if (batch.length) await flush();
  port.postMessage({ t: 'done' } satisfies ToWriter);
}

run().catch((e: unknown) => {
  const msg: ToWriter =
    e instanceof CapstateError
      ? { t: 'error', code: e.code, message: e.message, context: e.context }
      : { t: 'crash', message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined };
  port.postMessage(msg);
});
