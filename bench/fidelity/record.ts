/**
 * `npm run fidelity:record [APP…]`: records the fidelity benchmark's data again from the real
 * apps. For each app: (1) start it from its seed and drive session.html in Debian's Chromium
 * with Playwright's HAR recorder → capture.har; (2) start it again from the same seed, send the
 * capture's own API requests in order (the state the capture left), then every request of
 * heldout.json in order, and keep the app's answers → truth.json.
 *
 * Re-recording changes the benchmark: commit the new files with the reason. heldout.json is
 * never written here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { APPS, appDir, captureRequests, heldOut, send, startApp, type FidelityApp } from './harness.js';

const CHROMIUM = process.env.FIDELITY_CHROMIUM ?? '/usr/bin/chromium';

async function recordCapture(app: FidelityApp): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), `fidelity-${app.name}-`));
  const running = await startApp(app, work);
  const harPath = join(appDir(app), 'capture.har');
  try {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
    try {
      const context = await browser.newContext({ recordHar: { path: harPath, content: 'embed' }, serviceWorkers: 'block' });
      const page = await context.newPage();
      await page.goto(`${running.base}${app.sessionPath ?? '/index.html'}`);
      // The page adds #done after its last request's answer was read: no sleeps.
      const log = () => page.textContent('#log').catch(() => null);
      await page.waitForSelector('#done', { state: 'attached', timeout: 60_000 }).catch(async (e: Error) => {
        throw new Error(`${app.name}: the session page did not finish (${e.message.split('\n')[0]}); its log:\n${await log()}`);
      });
      process.stderr.write(`${app.name}: session\n${await log()}`);
      await context.close(); // writes the HAR
    } finally {
      await browser.close();
    }
  } finally {
    await running.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return captureRequests(app).length;
}

async function recordTruth(app: FidelityApp): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), `fidelity-${app.name}-`));
  const running = await startApp(app, work);
  try {
    for (const r of captureRequests(app)) await send(running.base, r, app.headers);
    const answers = [];
    for (const r of heldOut(app))
      answers.push({ id: r.id, kind: r.kind, method: r.method, path: r.path, ...(await send(running.base, r, app.headers)) });
    const truth = {
      about: `The answers of ${app.about}, after the capture's own requests, to heldout.json in order. Written by npm run fidelity:record; never by capstate.`,
      answers,
    };
    writeFileSync(join(appDir(app), 'truth.json'), JSON.stringify(truth, null, 1) + '\n');
    return answers.length;
  } finally {
    await running.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !APPS.some((a) => a.name === w));
  if (unknown.length) throw new Error(`unknown app ${unknown.join(', ')}; apps: ${APPS.map((a) => a.name).join(', ')}`);
  for (const app of APPS.filter((a) => wanted.length === 0 || wanted.includes(a.name))) {
    const n = await recordCapture(app);
    const t = await recordTruth(app);
    process.stderr.write(`${app.name}: capture.har with ${n} API requests, truth.json with ${t} answers\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`fidelity:record: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
