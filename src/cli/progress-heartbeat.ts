/**
 * A progress line while the load's own thread is busy (issue 46). A step of the state pass
 * can be one SQLite statement that runs for a minute (evaluating the rule views at 200 MB),
 * and better-sqlite3 gives no callback meanwhile, so the reporter could not say anything:
 * a load was silent for 268 s. A small worker thread, which that statement does not block,
 * repeats the last step's line with its time left counting down, writing straight to the
 * file descriptor. A lock shared with the reporter keeps their writes whole and ordered, and
 * nothing is written once the reporter has ended.
 */
import { Worker } from 'node:worker_threads';

/** What the worker repeats: the line's file and percent, the time left when told, what the step does, and when it began. */
export interface Beat {
  head: string;
  what: string;
  secondsLeft: number | null;
  toldAt: number;
  stepAt: number;
}

export interface Heartbeat {
  /** The step now under way (null: nothing to repeat, e.g. a file finished). */
  tell(beat: Beat | null): void;
  /** Runs a write of the reporter's own while the worker cannot write. */
  locked<T>(fn: () => T): T;
  /** No write after this returns. */
  stop(): void;
}

/** How often the worker looks whether a line is due: a silence lasts at most its interval and this. */
export const HEARTBEAT_LOOK_MS = 250;

/**
 * The heartbeat's interval when the reporter does not set one: on a terminal the line is
 * redrawn each second; off one (a log, CI) a line every 3 s, so that with the worker's look no
 * silence reaches issue 49's 5 s — also on a busy machine, where the worker's timer fires late:
 * with 4 s, `npm run bench` beside the test suite (1-minute load average 5–6.5) measured gaps of
 * 5.20–5.54 s.
 */
export const HEARTBEAT_EVERY_MS = { tty: 1000, file: 3000 } as const;

// The worker's code, run with `eval` so it needs no file of its own beside the build.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { fd, everyMs, tty, columns, shared, last } = workerData;
const flags = new Int32Array(shared); // [0] lock, [1] stopped
const lastWrite = new Float64Array(last);
let beat = null;
parentPort.on('message', (m) => { beat = m; });
const clock = (seconds) => {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (n) => String(n).padStart(2, '0');
  return h > 0 ? h + ':' + two(m) + ':' + two(r) : m + ':' + two(r);
};
setInterval(() => {
  const now = Date.now();
  if (!beat || Atomics.load(flags, 1) === 1 || now - lastWrite[0] < everyMs) return;
  if (Atomics.compareExchange(flags, 0, 0, 1) !== 0) return;
  try {
    if (Atomics.load(flags, 1) === 1) return;
    const left = beat.secondsLeft === null ? null : beat.secondsLeft - (now - beat.toldAt) / 1000;
    const parts = [beat.head];
    if (left !== null) parts.push(left >= 1 ? 'about ' + clock(left) + ' left' : 'longer than estimated');
    parts.push(beat.what + ' (' + clock((now - beat.stepAt) / 1000) + ' so far)');
    const line = 'capstate: ' + parts.join(', ');
    const width = Math.max(20, (columns || 80) - 1);
    writeSync(fd, tty ? '\\r' + (line.length > width ? line.slice(0, width - 1) + '\u2026' : line) + '\\x1b[K' : line + '\\n');
    lastWrite[0] = now;
  } finally {
    Atomics.store(flags, 0, 0);
  }
}, Math.min(${HEARTBEAT_LOOK_MS}, everyMs));
parentPort.postMessage('ready');
`;

/**
 * Starts the worker writing to `fd` when no line has been written for `everyMs`; `tty` says
 * whether to redraw one line in place. `onReady` is for tests, which wait for the worker.
 */
export function startHeartbeat(opts: { fd: number; everyMs: number; tty: boolean; columns?: number; onReady?: () => void }): Heartbeat {
  const shared = new SharedArrayBuffer(8);
  const flags = new Int32Array(shared);
  const last = new SharedArrayBuffer(8);
  const lastWrite = new Float64Array(last);
  lastWrite[0] = Date.now();
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { fd: opts.fd, everyMs: opts.everyMs, tty: opts.tty, columns: opts.columns, shared, last },
  });
  worker.unref(); // never keeps the process alive
  worker.on('message', () => opts.onReady?.());
  worker.on('error', () => {}); // a heartbeat that fails leaves the reporter's own lines
  const lock = () => {
    while (Atomics.compareExchange(flags, 0, 0, 1) !== 0) Atomics.wait(flags, 0, 1, 1);
  };
  const unlock = () => Atomics.store(flags, 0, 0);
  return {
    tell(beat) {
      worker.postMessage(beat);
    },
    locked(fn) {
      lock();
      try {
        return fn();
      } finally {
        lastWrite[0] = Date.now();
        unlock();
      }
    },
    stop() {
      lock();
      Atomics.store(flags, 1, 1);
      unlock();
      void worker.terminate();
    },
  };
}
