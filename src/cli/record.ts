/**
 * `capstate record URL` (issue 46): the first step of the first hour — a HAR of the user's
 * own app, recorded in Chromium while they use it, ready for `capstate load`.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { defineCommand } from 'citty';
import { recordHar } from '../browser/record-har.js';
import { CapstateError } from '../errors.js';
import { log, out } from './common.js';

/** The browser the tests and the setup install: Debian's Chromium. */
const DEFAULT_BROWSER = '/usr/bin/chromium';
/** How long launching the browser and loading the first page may take before the recording goes on without it. */
const OPEN_TIMEOUT_MS = 60_000;

/** The URL to open, or a usage error: only http(s) pages can be recorded. */
export function recordUrl(raw: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    /* said below */
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname) return url;
  const hint = /^[\w.-]+(:\d+)?(\/|$)/.test(raw) && !/^https?:/i.test(raw) ? `; did you mean http://${raw}?` : '';
  throw new CapstateError('usage', `not an http(s) URL: ${JSON.stringify(raw)}${hint}`, {}, 2);
}

/**
 * The HAR's default name, from the URL's host: `localhost-3000.har` for
 * http://localhost:3000/. An existing file is never overwritten: the first free of
 * `NAME.har`, `NAME-2.har`, … is taken.
 */
export function defaultHarName(url: URL, exists: (file: string) => boolean = existsSync): string {
  // A name that starts with `-` would read as an option: [::1] becomes `1`.
  const host = url.hostname.replace(/[^\w.]+/g, '-').replace(/^-+|-+$/g, '') || 'app';
  const base = url.port ? `${host}-${url.port}` : host;
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${base}.har` : `${base}-${n}.har`;
    if (!exists(name)) return name;
  }
}

/** Where a window can open: a display on Linux and the BSDs; macOS and Windows always have one. */
export function hasDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  return platform === 'darwin' || platform === 'win32' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** A file name as a shell reads it: quoted only when it must be. */
const shellWord = (s: string) => (/^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export default defineCommand({
  meta: {
    name: 'record',
    description:
      'Open URL in Chromium and record a HAR of everything you do there; close the browser (or press Ctrl-C) to write it, then `capstate load` it. ' +
      'The HAR holds your cookies and tokens as sent: keep it private (capstate load keeps their values out of the store)',
  },
  args: {
    url: { type: 'positional', description: "Your app's page to open first (http:// or https://)", required: true, valueHint: 'URL' },
    out: {
      type: 'string',
      alias: 'o',
      description: "The HAR file to write (default: from the URL's host, e.g. localhost-3000.har, never an existing file)",
      valueHint: 'FILE',
    },
    force: { type: 'boolean', description: 'Overwrite the --out file if it exists', default: false },
    headless: {
      type: 'boolean',
      description: 'No window: record the page load (and what the page does by itself) until Ctrl-C; for hosts without a display',
      default: false,
    },
    browser: {
      type: 'string',
      description: "The Chromium executable (Debian's chromium package installs it there)",
      default: DEFAULT_BROWSER,
      valueHint: 'FILE',
    },
  },
  async run({ args: a }) {
    const url = recordUrl(a.url as string);
    const target = a.out ?? defaultHarName(url);
    if (a.out !== undefined) {
      if (existsSync(target) && !a.force)
        throw new CapstateError('usage', `${target} exists; pass --force to overwrite it, or name another --out`, {}, 2);
      if (!existsSync(dirname(target)) || !statSync(dirname(target)).isDirectory())
        throw new CapstateError('usage', `no folder ${dirname(target)} to write ${target} in`, {}, 2);
    }
    if (!a.headless && !hasDisplay())
      throw new CapstateError(
        'no-display',
        'no display to open a browser window on (neither DISPLAY nor WAYLAND_DISPLAY is set): run it in a desktop session (or over ssh -X) to click through your app, or pass --headless to record the page load alone',
      );
    // Ctrl-C (and a plain kill) end the recording the way closing the browser does: the HAR
    // is written first. A second Ctrl-C while it is being written gives up on it.
    const stop = new AbortController();
    const onSignal = () => {
      if (stop.signal.aborted) {
        log('stopped before the HAR was written');
        process.exit(130);
      }
      log('stopping: writing the HAR');
      stop.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    log(`opening ${url.href} in ${a.headless ? 'a headless ' : ''}Chromium`);
    try {
      await recordHar({
        url: url.href,
        out: target,
        executable: a.browser as string,
        headless: Boolean(a.headless),
        signal: stop.signal,
        timeoutMs: OPEN_TIMEOUT_MS,
        onRecording: ({ timedOut }) =>
          log(
            `${timedOut ? 'the page is still loading; ' : ''}recording into ${target}: ` +
              (a.headless ? 'press Ctrl-C to stop and write it' : 'use your app, then close the browser (or press Ctrl-C) to write it'),
          ),
      });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    const kib = Math.max(1, Math.round(statSync(target).size / 1024));
    out(
      `wrote ${target} (${kib} KiB). It holds your cookies and tokens as sent: keep it private (capstate load keeps their values out of the store).\n` +
        `next: capstate load ${shellWord(target)}`,
    );
  },
});
