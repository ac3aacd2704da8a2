/**
 * Load progress on stderr (issue 19). On a terminal: one line that updates in place with
 * percent, MB/s and time left. Elsewhere (a log, a pipe, CI): a plain line each time another
 * tenth of the file is read, so a 300 MB load prints ten lines, not seventy. Nothing with
 * `--quiet`, and nothing for small files, which load before a line would help.
 */
import type { LoadProgress } from '../ingest/load-captures.js';

/** Progress is shown for files over this size. */
export const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;
/** A terminal line is redrawn at most this often. */
const TTY_INTERVAL_MS = 100;

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

/**
 * One progress line: `FILE: 30.0/300.0 MB, 10%, 25.0 MB/s, 0:11 left, 1,234 records`.
 * Rate and time left need some elapsed time; before that they are left out.
 */
export function formatProgress(p: LoadProgress, elapsedMs: number): string {
  const mb = (n: number) => (n / 1e6).toFixed(1);
  const pct = p.bytesTotal > 0 ? Math.min(100, Math.floor((p.bytesRead / p.bytesTotal) * 100)) : 100;
  const parts = [`${p.file}: ${mb(p.bytesRead)}/${mb(p.bytesTotal)} MB`, `${pct}%`];
  if (elapsedMs >= 200 && p.bytesRead > 0) {
    const rate = p.bytesRead / (elapsedMs / 1000);
    parts.push(`${(rate / 1e6).toFixed(1)} MB/s`);
    if (p.bytesRead < p.bytesTotal) parts.push(`${clock((p.bytesTotal - p.bytesRead) / rate)} left`);
  }
  if (p.bytesRead >= p.bytesTotal) parts.push('storing the manifest and state');
  parts.push(`${p.records.toLocaleString('en-US')} records`);
  return parts.join(', ');
}

export interface ProgressReporter {
  /** Told as the file is read. */
  update(p: LoadProgress): void;
  /** A log line: on a terminal the progress line is cleared first, so the two do not mix. */
  log(message: string): void;
  /** Clears the terminal line (call when the load has finished or failed). */
  end(): void;
}

/**
 * The reporter for `stream`: an updating line on a terminal, a line per tenth elsewhere,
 * nothing when `quiet`. `now` is for tests.
 */
export function progressReporter(stream: ProgressStream, opts: { quiet?: boolean; now?: () => number } = {}): ProgressReporter {
  const now = opts.now ?? Date.now;
  const say = (message: string) => {
    stream.write(`capstate: ${message}\n`);
  };
  if (opts.quiet) return { update: () => {}, log: say, end: () => {} };
  const started = new Map<string, number>();
  const tenths = new Map<string, number>();
  let shown = false;
  let lastDraw = 0;
  // A file's reading starts when the reporter is made (the first file) or when the file before it last reported.
  let lastEvent = now();
  const clear = () => {
    if (shown) {
      stream.write('\r\x1b[K');
      shown = false;
    }
  };
  const elapsed = (p: LoadProgress) => {
    if (!started.has(p.file)) started.set(p.file, lastEvent);
    lastEvent = now();
    return lastEvent - started.get(p.file)!;
  };
  if (stream.isTTY) {
    return {
      update(p) {
        if (p.bytesTotal < PROGRESS_MIN_BYTES) return;
        const ms = elapsed(p);
        const t = now();
        if (t - lastDraw < TTY_INTERVAL_MS && p.bytesRead < p.bytesTotal) return;
        lastDraw = t;
        const width = Math.max(20, (stream.columns || 80) - 1);
        const line = `capstate: ${formatProgress(p, ms)}`;
        stream.write(`\r${line.length > width ? line.slice(0, width - 1) + '…' : line}\x1b[K`);
        shown = true;
      },
      log(message) {
        clear();
        say(message);
      },
      end: clear,
    };
  }
  return {
    update(p) {
      if (p.bytesTotal < PROGRESS_MIN_BYTES) return;
      const ms = elapsed(p);
      const tenth = Math.min(10, Math.floor((p.bytesRead / p.bytesTotal) * 10));
      if (tenth <= (tenths.get(p.file) ?? 0)) return;
      tenths.set(p.file, tenth);
      say(formatProgress(p, ms));
    },
    log: say,
    end: () => {},
  };
}
