/**
 * `capstate record` (issue 46): a Chromium the user drives, recording a HAR of everything
 * it sends and receives (Playwright's `recordHar`, bodies embedded) until the user closes
 * the browser or the caller stops it. No scenario, no Evidence: the HAR is what DevTools'
 * "Save all as HAR with content" would give, without the user having to open DevTools.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CapstateError } from '../errors.js';
import { firstLine, withSandboxFallback } from './launch.js';

export interface RecordOptions {
  /** The page to open first (an http(s) URL). */
  url: string;
  /** Where the HAR goes; written under a temporary name beside it, then renamed. */
  out: string;
  /** The Chromium executable. */
  executable: string;
  /** No window: records the page load (and whatever the page does) until `signal` stops it. */
  headless: boolean;
  /** Aborting it ends the recording and writes the HAR (Ctrl-C). */
  signal: AbortSignal;
  /** How long launching the browser and loading the first page may take. */
  timeoutMs: number;
  /** Called once the first page has loaded (or its load timed out): the recording is under way. */
  onRecording?: (loaded: { timedOut: boolean }) => void;
}

export interface RecordResult {
  /** What ended the recording: the user closed the browser's last window, or `signal` was aborted. */
  endedBy: 'browser-closed' | 'stopped';
}

/**
 * Opens `url` in a new Chromium and records a HAR of the session into `out`. Resolves once
 * the HAR is written; a browser that ends on its own (a crash) or a first page that does
 * not load is an error, and no file is left behind.
 */
export async function recordHar(o: RecordOptions): Promise<RecordResult> {
  if (!existsSync(o.executable))
    throw new CapstateError(
      'browser-not-found',
      `no browser executable at ${o.executable}; install Chromium (apt-get install chromium) or name one with --browser`,
      { file: o.executable },
    );
  // Playwright writes the HAR when the context closes: into a temporary name with the same
  // extension (a `.zip` path makes a zipped HAR), renamed over `out` only once it is whole.
  const partial = join(dirname(o.out), `.${basename(o.out)}.recording-${process.pid}${extensionOf(o.out)}`);
  const chromium = (await import('playwright-core')).chromium;
  let browser: Browser;
  try {
    browser = await withSandboxFallback((args) =>
      chromium.launch({
        executablePath: o.executable,
        headless: o.headless,
        // A Wayland-only desktop has no DISPLAY: let Chromium pick X11 or Wayland itself.
        args: o.headless ? args : [...args, '--ozone-platform-hint=auto'],
        chromiumSandbox: !args.includes('--no-sandbox'),
        timeout: o.timeoutMs,
        // The recording ends on SIGINT by closing the context first (that writes the HAR);
        // Playwright's own handlers would kill the browser before it is written.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      }),
    );
  } catch (e) {
    // Playwright's first line ("Target page, context or browser has been closed") would blame
    // the executable; the browser's log further down says when it found no display.
    const full = e instanceof Error ? e.message : String(e);
    if (!o.headless && /Missing X server|\$DISPLAY|platform failed to initialize/i.test(full))
      throw new CapstateError('no-display', 'could not open a browser window on this display; pass --headless to record without one');
    throw new CapstateError('browser-launch-failed', `could not launch ${o.executable}: ${firstLine(e)}`, { file: o.executable });
  }
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext({
      recordHar: { path: partial, content: 'embed', mode: 'full' },
      // A service worker answering the app's requests would keep them out of the HAR.
      serviceWorkers: 'block',
      // A window the user resizes resizes the page, as in their own browser.
      ...(o.headless ? {} : { viewport: null }),
    });
    const ended = whenEnded(browser, context, o.signal);
    const page = await context.newPage();
    const timedOut = await openFirstPage(page, o.url, o.timeoutMs, ended.promise);
    if (!ended.settled) o.onRecording?.({ timedOut });
    const endedBy = await ended.promise;
    await context.close();
    await browser.close();
    if (!existsSync(partial)) throw new CapstateError('har-not-written', `the browser closed without writing the HAR to ${o.out}`);
    renameSync(partial, o.out);
    return { endedBy };
  } catch (e) {
    await context?.close().catch(() => {});
    await browser.close().catch(() => {});
    rmSync(partial, { force: true });
    throw e;
  }
}

/** The extension Playwright reads to choose between a plain and a zipped HAR. */
function extensionOf(file: string): string {
  return /\.zip$/i.test(file) ? '.zip' : '.har';
}

interface Ending {
  promise: Promise<RecordResult['endedBy']>;
  readonly settled: boolean;
}

/**
 * The end of the recording: the last page closed (the user closed the window; Playwright's
 * browser outlives its windows, so the HAR can still be written), or `signal` aborted. The
 * browser going away first (a crash, a kill) loses the HAR: that rejects.
 */
function whenEnded(browser: Browser, context: BrowserContext, signal: AbortSignal): Ending {
  let settled = false;
  const promise = new Promise<RecordResult['endedBy']>((resolve, reject) => {
    const done = (by: RecordResult['endedBy']) => {
      settled = true;
      resolve(by);
    };
    if (signal.aborted) return done('stopped');
    signal.addEventListener('abort', () => done('stopped'), { once: true });
    const watch = (page: Page) =>
      page.once('close', () => {
        if (context.pages().length === 0) done('browser-closed');
      });
    context.on('page', watch);
    browser.once('disconnected', () => {
      if (settled) return;
      settled = true;
      reject(new CapstateError('browser-ended', 'the browser ended before the HAR could be written (did it crash or get killed?)'));
    });
  });
  // Settled by the time anyone awaits it, or awaited later: never an unhandled rejection.
  promise.catch(() => {});
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

/**
 * Loads the first page. A load that is merely slow keeps the recording going (returns
 * true), as does one the user interrupts; one that fails (nothing listens there, a DNS
 * error) is an error naming the reason. A recording ended while the page loads wins over
 * the load.
 */
async function openFirstPage(page: Page, url: string, timeoutMs: number, ended: Promise<unknown>): Promise<boolean> {
  const load = page.goto(url, { waitUntil: 'load', timeout: timeoutMs }).then(
    () => false,
    (e: unknown) => e,
  );
  const first = await Promise.race([load, ended.then(() => 'ended' as const)]);
  if (first === false || first === 'ended') return false;
  if (first instanceof Error && first.name === 'TimeoutError') return true;
  // Interrupted rather than failed: the user went elsewhere (or closed the window) before
  // the page finished loading, or the page stopped its own load. The recording goes on.
  if (page.isClosed() || /net::ERR_ABORTED|has been closed/.test(firstLine(first))) return false;
  throw new CapstateError(
    'page-not-loaded',
    `${url} did not load (${firstLine(first).replace(/^page\.goto: /, '')}); is the app running there?`,
  );
}
