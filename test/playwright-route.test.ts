/**
 * Issue 47: `capstate/playwright`'s routeFromCapture answers a page's requests from the served
 * model, in Debian's Chromium. The json-server 0.17 fidelity page runs its recorded session
 * (lists, a create, an edit, a delete) through the model; then a create and a read the capture
 * never made show the model keeping state, where Playwright's own `routeFromHAR` on the same
 * file cannot answer them — the difference is asserted side by side, not claimed.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withSandboxFallback } from '../src/browser/launch.js';
import { routeFromCapture } from '../src/playwright/index.js';
import { CHROMIUM, describeBrowser } from './browser-app.js';
import { root } from './helpers.js';

const har = join(root, 'bench', 'fidelity', 'json-server-0.17', 'capture.har');
/** The recorded app's origin: routeFromHAR matches the HAR's URLs, so both routes answer the page there. */
const APP = new URL(
  (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: { request: { url: string } }[] } }).log.entries[0].request.url,
).origin;

/** Opens the recorded page and waits for its script to finish its steps (no fixed wait). */
async function runRecordedSession(page: Page): Promise<string[]> {
  await page.goto(`${APP}/index.html`);
  await page.waitForFunction(
    () => document.getElementById('done') !== null || /^done$/m.test(document.getElementById('log')?.textContent ?? ''),
    null,
    {
      timeout: 90_000,
    },
  );
  return (await page.textContent('#log'))!
    .trim()
    .split('\n')
    .filter((l) => l !== 'done');
}

/** A create the capture never made, then a read of what it created: [POST status, GET status, GET title]; a failed request shows as `failed`. */
async function heldOutCreateAndRead(page: Page): Promise<[number | string, number | string, string | null]> {
  return page.evaluate(async () => {
    let created: Response;
    try {
      created = await fetch('/posts', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ userId: 3, author: 'carol', title: 'Only in this test', views: 1, published: true }),
      });
    } catch (e) {
      return [`failed: ${String(e)}`, 'not sent', null] as [string, string, null];
    }
    const id = ((await created.json().catch(() => null)) as { id?: unknown } | null)?.id ?? null;
    try {
      const read = await fetch(`/posts/${String(id)}`, { headers: { accept: 'application/json' } });
      const body = (await read.json().catch(() => null)) as { title?: string } | null;
      return [created.status, read.status, body?.title ?? null] as [number, number, string | null];
    } catch (e) {
      return [created.status, `failed: ${String(e)}`, null] as [number, string, null];
    }
  });
}

describeBrowser('issue 47: routeFromCapture (capstate/playwright)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await withSandboxFallback((args) => chromium.launch({ executablePath: CHROMIUM, args }));
  });
  afterAll(() => browser?.close());

  it("the recorded page creates, edits and lists through the model; a create nobody recorded is then read back, where routeFromHAR's answer is not", async () => {
    const page = await browser.newPage();
    const route = await routeFromCapture(page, har, { url: `${APP}/**` });
    try {
      const shown = await runRecordedSession(page);
      expect(shown.slice(12, 16)).toEqual(['POST /posts 201', 'PATCH /posts/2 200', 'DELETE /posts/5 200', 'POST /comments 201']);
      // The page's writes took effect in the model, as the provenance of each answer says.
      const writes = route.answers.filter((a) => a.method !== 'GET');
      expect(writes.map((a) => a.answer)).toEqual(['state', 'state', 'state', 'state']);
      expect(route.answers.filter((a) => a.answer === 'declined')).toEqual([]);
      const state = await route.state();
      const posts = state.entities.filter((e) => e.collection === 'posts');
      expect(posts.map((e) => (e.value as { title: string }).title)).toContain('Written in the session');
      expect(posts.map((e) => e.id)).not.toContain('5');

      const [postStatus, getStatus, title] = await heldOutCreateAndRead(page);
      expect([postStatus, getStatus, title]).toEqual([201, 200, 'Only in this test']);
      expect(route.answers.at(-1)).toMatchObject({ method: 'GET', status: 200, answer: 'state' });

      // reset() forgets the writes: the created post is gone from the model.
      route.reset();
      expect((await route.state()).entities.some((e) => (e.value as { title?: string }).title === 'Only in this test')).toBe(false);
    } finally {
      await route.close();
      await page.close();
    }

    // The same steps with Playwright's routeFromHAR on the same file.
    const replayPage = await browser.newPage();
    try {
      await replayPage.routeFromHAR(har, { url: `${APP}/**`, notFound: 'abort' });
      await runRecordedSession(replayPage);
      const [postStatus, getStatus, title] = await heldOutCreateAndRead(replayPage);
      // No record of this create nor of the post it made: routeFromHAR cannot answer either.
      expect(postStatus).toMatch(/^failed/);
      expect(getStatus).not.toBe(200);
      expect(title).toBeNull();
    } finally {
      await replayPage.close();
    }
  });

  it('a request the model declines is fulfilled with its 501 problem, or goes to the network with unanswered: continue', async () => {
    // The network: a server of our own, which the page is opened from.
    const reached: string[] = [];
    const server = createServer((req, res) => {
      if (req.url !== '/favicon.ico') reached.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('from the network');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/start`);
      const declining = await routeFromCapture(page, har, { url: `${origin}/api-like/**` });
      const status = await page.evaluate(async () => (await fetch('/api-like/nowhere')).status);
      expect(status).toBe(501);
      expect(declining.answers.at(-1)).toMatchObject({ answer: 'declined', error: 'no-route' });
      expect(reached).toEqual(['/start']);
      await declining.close();

      const continuing = await routeFromCapture(page, har, { url: `${origin}/api-like/**`, unanswered: 'continue' });
      const text = await page.evaluate(async () => (await fetch('/api-like/nowhere')).text());
      expect(text).toBe('from the network');
      expect(continuing.answers.at(-1)).toMatchObject({ answer: 'declined', continued: true });
      expect(reached).toEqual(['/start', '/api-like/nowhere']);
      await continuing.close();
    } finally {
      await page.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
