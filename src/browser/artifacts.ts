/**
 * Artifacts (BS-19 to BS-21, BS-29, BS-34, BS-70): per step, one typed capture state for
 * each of screenshot, DOM, accessibility, URL, history and storage. Unrequested ones are
 * `not_requested`; strings pass through the redaction current at capture time.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { sha256Hex } from '../json/sha256.js';
import { withDeadline } from './deadline.js';
import { decodeUtf16Base64, fingerprint, FINGERPRINT_VERSION, PAGE_ENCODE } from './fingerprints.js';
import { firstLine } from './launch.js';
import type { RedactionView } from './redaction.js';
import { ARTIFACTS, type Artifact } from './schema.js';

export type CaptureState =
  | { state: 'captured'; value: unknown }
  | { state: 'not_requested' }
  | { state: 'unavailable'; error: string }
  | { state: 'missing' };

export type Captures = Record<Artifact, CaptureState>;

export function notRequested(requested: Artifact[] = [], state: 'not_requested' | 'missing' = 'not_requested'): Captures {
  return Object.fromEntries(ARTIFACTS.map((a) => [a, requested.includes(a) ? { state } : { state: 'not_requested' }])) as Captures;
}

/** BS-21: `complete` covers only the requested parts. */
export function completeness(c: Captures): 'complete' | 'partial' | 'missing' {
  const requested = Object.values(c).filter((x) => x.state !== 'not_requested');
  const ok = requested.filter((x) => x.state === 'captured').length;
  return ok === requested.length ? 'complete' : ok === 0 ? 'missing' : 'partial';
}

/** BS-26: the URL as persisted: declared secrets and page values replaced. */
export function sanitizedUrl(page: Page, view: RedactionView): string {
  return view.text(page.url());
}

export async function captureArtifacts(
  page: Page,
  context: BrowserContext,
  requested: Artifact[],
  view: RedactionView,
  timeout: number,
): Promise<Captures> {
  const out = notRequested();
  for (const a of ARTIFACTS) {
    if (!requested.includes(a)) continue;
    try {
      // BS-11: a page that never answers (paused by a debugger client, hung) cannot hold the
      // capture: every artifact is bounded by command_timeout_ms, not only those Playwright bounds.
      const value = await withDeadline(
        capture(a, page, context, view, timeout),
        timeout,
        () => new Error(`the ${a} capture did not finish within command_timeout_ms (${timeout} ms)`),
      );
      out[a] = { state: 'captured', value };
    } catch (e) {
      out[a] = { state: 'unavailable', error: view.text(firstLine(e)) };
    }
  }
  return out;
}

async function capture(a: Artifact, page: Page, context: BrowserContext, view: RedactionView, timeout: number): Promise<unknown> {
  switch (a) {
    case 'url':
      return sanitizedUrl(page, view);
    case 'dom':
      return view.text(await page.content());
    case 'accessibility':
      return view.text(await page.locator('body').ariaSnapshot({ timeout }));
    case 'screenshot': {
      const png = await page.screenshot({ timeout });
      return { media_type: 'image/png', base64: png.toString('base64'), bytes: png.length, sha256: sha256Hex(png) };
    }
    case 'history': {
      const cdp = await context.newCDPSession(page);
      try {
        const h = await cdp.send('Page.getNavigationHistory');
        return { current_index: h.currentIndex, entries: h.entries.map((e) => ({ url: view.text(e.url), title: view.text(e.title) })) };
      } finally {
        await cdp.detach().catch(() => {});
      }
    }
    case 'storage':
      return storage(page, context, view);
  }
}

/**
 * BS-29, BS-70: cookies scoped to the page URL now, and the page origin's local and
 * session storage, each value as a version-2 fingerprint (no values are persisted).
 */
async function storage(page: Page, context: BrowserContext, view: RedactionView): Promise<unknown> {
  const url = page.url();
  const cookies = /^https?:/.test(url) ? await context.cookies(url) : [];
  // Strings travel as UTF-16 code units so unpaired surrogates survive the protocol.
  const areas = (await page.evaluate(`(() => { const enc = ${PAGE_ENCODE};
    const dump = (area) => { try { const s = area(); const out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push([enc(k), enc(s.getItem(k))]); } return out; } catch { return null; } };
    return { local: dump(() => localStorage), session: dump(() => sessionStorage) }; })()`)) as {
    local: [string, string][] | null;
    session: [string, string][] | null;
  };
  const entries = (list: [string, string][] | null) =>
    list === null
      ? null
      : list.map(([k, v]) => {
          const key = decodeUtf16Base64(k),
            value = decodeUtf16Base64(v);
          return { key: view.text(key), value: fingerprint(value, view.holdsValue(value)) };
        });
  let origin: string | null = null;
  try {
    origin = new URL(url).origin;
  } catch {
    /* about:blank */
  }
  return {
    fingerprint_version: FINGERPRINT_VERSION,
    url: view.text(url),
    origin,
    cookies: cookies.map((c) => ({
      name: view.text(c.name),
      domain: c.domain,
      path: c.path,
      secure: c.secure,
      http_only: c.httpOnly,
      same_site: c.sameSite,
      expires: c.expires,
      value: fingerprint(c.value, view.holdsValue(c.value)),
    })),
    local_storage: entries(areas.local),
    session_storage: entries(areas.session),
  };
}
