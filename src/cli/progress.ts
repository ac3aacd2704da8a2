/**
 * Load progress on stderr (issue 19). On a terminal: one line that updates in place with
 * percent, MB/s and time left. Elsewhere (a log, a pipe, CI): a plain line each time another
 * tenth of the file is read, so a 300 MB load prints ten lines, not seventy. Issue 46: the
 * manifest and the state pass after the reading report too (a 200 MB load was silent for
 * 268 s after "100%"), and the percent and time left are the whole load's. Nothing with
 * `--quiet`, and nothing for small files, which load before a line would help.
 */
import { isMainThread } from 'node:worker_threads';
import type { LoadProgress } from '../ingest/load-captures.js';
import { LoadEstimator, type Estimate } from './progress-estimate.js';
import { HEARTBEAT_EVERY_MS, startHeartbeat, type Heartbeat } from './progress-heartbeat.js';

/** Progress is shown for files over this size. */
export const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;
/** A terminal line is redrawn at most this often. */
const TTY_INTERVAL_MS = 100;
/** Off a terminal, a step after the reading prints at most a line this often (a new step always does). */
const LINE_INTERVAL_MS = 3000;

/** What a reporter writes to: stderr, or a test's stand-in. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): unknown;
}

/** `m:ss` (or `h:mm:ss`) for a number of seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600),
    m = Math.floor((s % 3600) / 60),
    r = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

/** What the state pass is doing, in words (issue 46); `done` of `total` units of the step are finished. */
function stateWords(p: LoadProgress): string {
  const s = p.step;
  if (!s) return 'computing the state';
  const nth = `${Math.min(s.done + 1, s.total)} of ${s.total}`;
  switch (s.step) {
    case 'views':
      return 'state: evaluating the rules over the records';
    case 'bounds':
      return s.done < s.total ? `state: finding where writes change each type (${nth})` : 'state: finding where writes change each type';
    case 'records':
      return 'state: marking the initial reads';
    case 'types':
      return s.done < s.total ? `state: building type ${nth}` : 'state: all types built';
    case 'write-check':
      return 'state: checking the write tools against later reads';
    case 'digest':
      return 'state: storing it';
  }
}

/** What a step is doing: `reading the capture`, `state: building type 3 of 8`. */
function stepWords(p: LoadProgress): string {
  const phase = p.phase ?? 'facts';
  if (phase === 'facts') return 'reading the capture';
  return phase === 'manifest' ? `finding the tools in ${p.records.toLocaleString('en-US')} records` : stateWords(p);
}

/**
 * One progress line. Reading: `FILE: 30.0/300.0 MB, 5%, 25.0 MB/s, about 0:23 left, 1,234 records`;
 * then `FILE: 52%, about 0:09 left, state: building type 3 of 8`; at the end `FILE: 100%, done in 0:41`.
 * The percent and the time left are the whole load's (progress-estimate.ts).
 */
export function formatProgress(p: LoadProgress, e: Estimate): string {
  const mb = (n: number) => (n / 1e6).toFixed(1);
  const phase = p.phase ?? 'facts';
  const left = e.secondsLeft === null ? [] : [e.secondsLeft >= 1 ? `about ${clock(e.secondsLeft)} left` : 'almost done'];
  if (phase === 'done') return `${p.file}: 100%, done in ${clock(e.elapsedMs / 1000)}`;
  // The time left before the words, so a narrow terminal cuts the words.
  if (phase === 'manifest' || phase === 'state') return [`${p.file}: ${e.percent}%`, ...left, stepWords(p)].join(', ');
  const parts = [`${p.file}: ${mb(p.bytesRead)}/${mb(p.bytesTotal)} MB`, `${e.percent}%`];
  if (e.bytesPerSecond !== null) parts.push(`${(e.bytesPerSecond / 1e6).toFixed(1)} MB/s`, ...left);
  parts.push(`${p.records.toLocaleString('en-US')} records`);
  return parts.join(', ');
}

export interface ProgressReporter {
  /** Told as the file is read, and at each phase and step after the reading. */
  update(p: LoadProgress): void;
  /** A log line: on a terminal the progress line is cleared first, so the two do not mix. */
  log(message: string): void;
  /** Clears the terminal line (call when the load has finished or failed). */
  end(): void;
}

/**
 * The reporter for `stream`: an updating line on a terminal; elsewhere a line per tenth of
 * the reading, then a line at each step after it (at most one per few seconds within a
 * step); nothing when `quiet`. `now` is for tests.
 */
export function progressReporter(
  stream: ProgressStream,
  opts: { quiet?: boolean; now?: () => number; heartbeat?: { fd: number; everyMs?: number; onReady?: () => void } } = {},
): ProgressReporter {
  const now = opts.now ?? Date.now;
  // Issue 46: stderr gets a heartbeat for steps that keep this thread busy (progress-heartbeat.ts).
  // Only on the main thread: a CLI run inside a worker (the tests') has a stderr that is not fd 2.
  const beatOpts = opts.heartbeat ?? (stream === process.stderr && isMainThread ? { fd: 2 } : undefined);
  let beat: Heartbeat | null = null;
  const write = (chunk: string) => (beat ? beat.locked(() => stream.write(chunk)) : stream.write(chunk));
  const say = (message: string) => {
    write(`capstate: ${message}\n`);
  };
  if (opts.quiet) return { update: () => {}, log: say, end: () => {} };
  const estimators = new Map<string, LoadEstimator>();
  const tenths = new Map<string, number>();
  let shown = false;
  let lastDraw = 0;
  let lastStep = '';
  let stepAt = Date.now();
  // A file's load starts when the reporter is made (the first file) or when the file before it last reported.
  let lastEvent = now();
  const clear = () => {
    if (shown) {
      write('\r\x1b[K');
      shown = false;
    }
  };
  let lastFile: string | null = null;
  const estimate = (p: LoadProgress) => {
    const known = estimators.get(p.file);
    if (!known) estimators.set(p.file, new LoadEstimator(lastEvent));
    // Issue 49: a file's state comes after the other files' facts: the time up to their last report is not its own.
    if (known && lastFile !== p.file) known.resumeAt(lastEvent);
    lastEvent = now();
    lastFile = p.file;
    return estimators.get(p.file)!.observe(p, lastEvent);
  };
  // A new phase or state step is always shown; units within a step and bytes are throttled.
  const stepOf = (p: LoadProgress) => `${p.file} ${p.phase ?? 'facts'} ${p.step?.step ?? ''}`;
  // The heartbeat is told each step, to repeat while nothing else is said: after the reading while
  // this thread is busy, and in the reading while the parse side reads for credentials (issue 49).
  const tellBeat = (p: LoadProgress, e: Estimate) => {
    const phase = p.phase ?? 'facts';
    if (!beatOpts) return;
    if (phase === 'done') return beat?.tell(null);
    if (stepOf(p) !== lastStep) stepAt = Date.now();
    beat ??= startHeartbeat({
      fd: beatOpts.fd,
      everyMs: beatOpts.everyMs ?? (stream.isTTY ? HEARTBEAT_EVERY_MS.tty : HEARTBEAT_EVERY_MS.file),
      tty: !!stream.isTTY,
      columns: stream.columns,
      onReady: beatOpts.onReady,
    });
    beat.tell({ head: `${p.file}: ${e.percent}%`, what: stepWords(p), secondsLeft: e.secondsLeft, toldAt: Date.now(), stepAt });
  };
  const end = () => {
    beat?.stop();
    beat = null;
  };
  if (stream.isTTY) {
    return {
      update(p) {
        if (p.bytesTotal < PROGRESS_MIN_BYTES) return;
        const e = estimate(p);
        tellBeat(p, e);
        const t = now();
        const step = stepOf(p);
        const readAll = (p.phase ?? 'facts') === 'facts' && p.bytesRead >= p.bytesTotal;
        if (t - lastDraw < TTY_INTERVAL_MS && step === lastStep && !readAll) return;
        lastDraw = t;
        lastStep = step;
        const width = Math.max(20, (stream.columns || 80) - 1);
        const line = `capstate: ${formatProgress(p, e)}`;
        write(`\r${line.length > width ? line.slice(0, width - 1) + '…' : line}\x1b[K`);
        shown = true;
      },
      log(message) {
        clear();
        say(message);
      },
      end() {
        end();
        clear();
      },
    };
  }
  return {
    update(p) {
      if (p.bytesTotal < PROGRESS_MIN_BYTES) return;
      const e = estimate(p);
      tellBeat(p, e);
      if ((p.phase ?? 'facts') === 'facts') {
        const tenth = Math.min(10, Math.floor((p.bytesRead / p.bytesTotal) * 10));
        if (tenth <= (tenths.get(p.file) ?? 0)) return;
        tenths.set(p.file, tenth);
      } else {
        // A step's last unit finishing is told by the next step's line.
        if (p.step && p.step.total > 0 && p.step.done >= p.step.total) return;
        const t = now();
        const step = stepOf(p);
        if (step === lastStep && t - lastDraw < LINE_INTERVAL_MS) return;
        lastStep = step;
        lastDraw = t;
      }
      say(formatProgress(p, e));
    },
    log: say,
    end,
  };
}
