/**
 * The browser boundary (BS-4 headless, BS-7, BS-11, BS-12, BS-22 to BS-25, OQ-40, OQ-48). Launch mode
 * starts the caller's executable with a capstate-owned temporary profile and deletes it
 * at cleanup; connect mode attaches to a loopback CDP endpoint and only disconnects.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CapstateError } from '../errors.js';
import type { PageGlobals } from './actions.js';
import type { Scenario } from './schema.js';

/** Flags that keep a headless Chromium quiet and self-contained on a build machine. */
export const LAUNCH_FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Chromium's sandbox stays on wherever Chromium can run with it. As root it cannot
 * (Chromium refuses to start), so there, and only there, the flags turn it off.
 */
export function launchFlags(uid: number | undefined = process.getuid?.()): string[] {
  return uid === 0 ? ['--no-sandbox', ...LAUNCH_FLAGS] : [...LAUNCH_FLAGS];
}

/** What Chromium says when this host gives it no usable sandbox (no user namespaces, no setuid helper). */
const NO_SANDBOX = /No usable sandbox|--no-sandbox|sandbox is not|setuid sandbox/i;

/**
 * Launches with the sandbox where the host allows it; a host that has none (a container
 * without user namespaces) gets one more try without it rather than no browser.
 */
export async function withSandboxFallback<T>(
  start: (flags: string[]) => Promise<T>,
  uid: number | undefined = process.getuid?.(),
): Promise<T> {
  const flags = launchFlags(uid);
  try {
    return await start(flags);
  } catch (e) {
    if (flags.includes('--no-sandbox') || !NO_SANDBOX.test(e instanceof Error ? e.message : String(e))) throw e;
    return start(['--no-sandbox', ...flags]);
  }
}

/** OQ-40: endpoint discovery (`/json/version`) has its own fixed deadline. */
export const CDP_DISCOVERY_TIMEOUT_MS = 5000;

export interface BrowserSession {
  mode: 'launch' | 'connect';
  context: BrowserContext;
  page: Page;
  browserVersion: string;
  /** Closes and deletes what capstate owns; in connect mode only disconnects. */
  cleanup(): Promise<void>;
}

/** playwright-core is loaded when a browser is needed, not by every command at start-up. */
async function playwright() {
  return (await import('playwright-core')).chromium;
}

export async function acquireBrowser(s: Scenario, commandTimeoutMs: number): Promise<BrowserSession> {
  return s.browser.mode === 'launch' ? launch(s, commandTimeoutMs) : connect(s, commandTimeoutMs);
}

async function launch(s: Scenario, timeout: number): Promise<BrowserSession> {
  const b = s.browser as Extract<Scenario['browser'], { mode: 'launch' }>;
  if (!existsSync(b.executable_path)) {
    throw new CapstateError(
      'browser-not-found',
      `no browser executable at ${b.executable_path}; install a Chromium-family browser (e.g. apt-get install chromium) and give its path in browser.executable_path`,
      { path: 'browser.executable_path' },
    );
  }
  // BS-22: the profile is ours alone; it is deleted at cleanup, whatever happened. It holds
  // the user data directory and Playwright's artifacts directory, which Playwright would
  // otherwise create in TMPDIR itself and leak when a launch is aborted.
  const profile = mkdtempSync(join(tmpdir(), 'capstate-profile-'));
  const userData = join(profile, 'user-data');
  const artifacts = join(profile, 'artifacts');
  mkdirSync(artifacts);
  // Chromium's own temporary files (its singleton socket directory among them) go into
  // the profile too, so a browser killed mid-launch leaves nothing in TMPDIR. A Unix
  // socket path has at most 107 bytes: with a longer TMPDIR, Chromium keeps TMPDIR.
  const browserTmp = join(profile, 't');
  const ownTmp = Buffer.byteLength(join(browserTmp, 'org.chromium.Chromium.XXXXXX', 'SingletonSocket')) <= 107;
  if (ownTmp) mkdirSync(browserTmp);
  const env = s.environment ?? {};
  let context: BrowserContext;
  try {
    const chromium = await playwright();
    context = await withSandboxFallback((args) =>
      chromium.launchPersistentContext(userData, {
        // Not in Playwright's public types, but a launch parameter of its protocol.
        ...({ artifactsDir: artifacts } as object),
        ...(ownTmp ? { env: { ...process.env, TMPDIR: browserTmp } } : {}),
        executablePath: b.executable_path,
        headless: b.headless ?? true,
        args,
        // Playwright turns the sandbox off unless asked (chromiumSandbox defaults to false).
        chromiumSandbox: !args.includes('--no-sandbox'),
        timeout,
        serviceWorkers: env.service_workers === 'allow' ? 'allow' : 'block',
        acceptDownloads: false,
        // capstate handles SIGINT/SIGTERM itself (cancel, then clean up); Playwright's own
        // handlers would kill the browser under the cleanup and exit the process.
        handleSIGINT: false,
        handleSIGTERM: false,
        ...(env.locale ? { locale: env.locale } : {}),
        ...(env.timezone ? { timezoneId: env.timezone } : {}),
        ...(env.viewport ? { viewport: env.viewport } : {}),
      }),
    );
  } catch (e) {
    // An aborted launch (timeout) leaves Playwright's browser process running and
    // writing into the profile: end it before deleting, or the profile comes back.
    await removeProfile(profile, true);
    // BS-4: a visible browser needs a display; Playwright's first line ("Target page,
    // context or browser has been closed") would blame the executable instead.
    if (b.headless === false && /XServer|X server|\$DISPLAY/.test(e instanceof Error ? e.message : String(e))) {
      throw new CapstateError(
        'browser-launch-failed',
        `could not launch ${b.executable_path} with browser.headless false: this host has no display (X server) for a visible browser; set browser.headless to true, or run under a display (e.g. Xvfb with DISPLAY set)`,
        { path: 'browser.headless' },
      );
    }
    throw new CapstateError('browser-launch-failed', `could not launch ${b.executable_path}: ${firstLine(e)}`, {
      path: 'browser.executable_path',
    });
  }
  const cleanup = async () => {
    try {
      await context.close();
    } finally {
      await removeProfile(profile);
    }
  };
  try {
    context.setDefaultTimeout(timeout);
    const page = context.pages()[0] ?? (await context.newPage());
    return { mode: 'launch', context, page, browserVersion: context.browser()?.version() ?? (await versionOf(page)), cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/** BS-22: the profile goes, or the user is told where it is (it may hold cookies and storage, BS-23). */
async function removeProfile(profile: string, aborted = false): Promise<void> {
  // Browser helper processes may still be writing for a while after the close, longer on
  // a loaded machine: keep trying for up to PROFILE_REMOVAL_MS before giving up.
  const deadline = Date.now() + PROFILE_REMOVAL_MS;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (;;) {
    try {
      if (aborted) await endProcessesUsing(profile, deadline);
      removeSingletonDir(profile);
      rmSync(profile, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      if (!aborted) return;
      // A process Playwright was still starting when the launch was abandoned may appear
      // (and recreate the profile) a moment later: look once more before calling it done.
      await sleep(PROFILE_SETTLE_MS);
      if (!existsSync(profile) && processesUsing(profile).length === 0) return;
      if (Date.now() >= deadline) throw new Error('a browser process kept recreating it');
    } catch (e) {
      if (Date.now() >= deadline) {
        throw new CapstateError(
          'cleanup-failed',
          `could not delete the temporary browser profile ${profile}: ${firstLine(e)}; delete it by hand (it may hold cookies and storage)`,
          { profile },
        );
      }
      await sleep(250);
    }
  }
}

/**
 * Chromium keeps its singleton socket in a directory of its own in TMPDIR, linked from the
 * profile's `SingletonSocket`; a browser that was killed (an aborted launch) leaves it
 * behind. It is removed when it holds nothing but the singleton files.
 */
function removeSingletonDir(profile: string): void {
  let dir: string;
  try {
    dir = dirname(readlinkSync(join(profile, 'user-data', 'SingletonSocket')));
  } catch {
    return;
  }
  try {
    if (readdirSync(dir).every((f) => /^Singleton(Socket|Cookie|Lock)$/.test(f))) rmSync(dir, { recursive: true, force: true });
  } catch {
    /* already gone */
  }
}

/** How long an aborted launch's cleanup watches for a late browser process. */
const PROFILE_SETTLE_MS = 500;

/**
 * The processes whose command line names the profile (the browser, its helpers, its crash
 * handler): capstate's own, since the profile is a fresh capstate directory. Linux only;
 * elsewhere (no /proc) none are found and removal relies on its retries.
 */
function processesUsing(profile: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(profile + '/')) found.push(Number(pid));
    } catch {
      /* gone, or not readable */
    }
  }
  return found;
}

/** Kills the processes that use the profile and waits (until `deadline`) for them to go. */
async function endProcessesUsing(profile: string, deadline: number): Promise<void> {
  for (;;) {
    const pids = processesUsing(profile).filter((p) => p !== process.pid);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    if (Date.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How long cleanup keeps retrying the profile's removal. */
const PROFILE_REMOVAL_MS = 30_000;

async function versionOf(page: Page): Promise<string> {
  const ua = await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.userAgent);
  return /Chrom(?:e|ium)\/([\d.]+)/.exec(ua)?.[1] ?? 'unknown';
}

async function connect(s: Scenario, timeout: number): Promise<BrowserSession> {
  const b = s.browser as Extract<Scenario['browser'], { mode: 'connect' }>;
  const endpoint = b.cdp_endpoint.replace(/\/$/, '');
  let ws: string;
  try {
    const res = await fetch(`${endpoint}/json/version`, { signal: AbortSignal.timeout(CDP_DISCOVERY_TIMEOUT_MS) });
    ws = ((await res.json()) as { webSocketDebuggerUrl?: string }).webSocketDebuggerUrl ?? '';
    if (!ws) throw new Error('no webSocketDebuggerUrl in /json/version');
  } catch (e) {
    throw new CapstateError(
      'cdp-unreachable',
      `no CDP endpoint answered at ${endpoint}/json/version within ${CDP_DISCOVERY_TIMEOUT_MS} ms: ${firstLine(e)}; start the browser with --remote-debugging-port`,
      { path: 'browser.cdp_endpoint' },
    );
  }
  let browser: Browser;
  try {
    browser = await (await playwright()).connectOverCDP(ws, { timeout });
  } catch (e) {
    throw new CapstateError('cdp-connect-failed', `could not attach to ${endpoint}: ${firstLine(e)}`, { path: 'browser.cdp_endpoint' });
  }
  let page: Page | undefined;
  let ownsPage = false;
  try {
    const prefix = b.target?.url_prefix;
    if (prefix !== undefined) {
      page = browser
        .contexts()
        .flatMap((c) => c.pages())
        .find((p) => p.url().startsWith(prefix));
      if (!page)
        throw new CapstateError('target-not-found', `no open page's URL starts with ${JSON.stringify(prefix)}`, {
          path: 'browser.target.url_prefix',
        });
    } else {
      const context = browser.contexts()[0];
      if (!context)
        throw new CapstateError('target-not-found', 'the connected browser has no default context to open a page in', {
          path: 'browser.cdp_endpoint',
        });
      page = await context.newPage();
      ownsPage = true;
    }
  } catch (e) {
    await browser.close().catch(() => {});
    throw e;
  }
  const owned = page;
  return {
    mode: 'connect',
    context: owned.context(),
    page: owned,
    browserVersion: browser.version(),
    cleanup: async () => {
      // BS-22: close only the tab capstate opened, then disconnect; the browser stays up.
      try {
        if (ownsPage) await owned.close();
      } finally {
        await browser.close();
      }
    },
  };
}

export function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0].replace(/\u001b\[[0-9;]*m/g, '');
}
