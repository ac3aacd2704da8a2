/**
 * `npm run fidelity:record [APP…]`: records the fidelity benchmark's data again from the real
 * apps. For each app: (1) start it from its seed and drive session.html in Debian's Chromium
 * with Playwright's HAR recorder → capture.har; (2) start it again from the same seed, send the
 * capture's own API requests in order (the state the capture left), then every request of
 * heldout.json in order, and keep the app's answers → truth.json.
 *
 * Ids the app draws at random (UUIDs: Alertmanager's silences) differ between the two runs; the
 * truth run renames them (drawnIds below) so the capture's requests and heldout.json, which name
 * the capture's ids, reach the same objects, and the truth names them as the capture does.
 *
 * `--truth-only` keeps capture.har and records truth.json again (a check that the truth is
 * stable, or a new held-out request). Re-recording changes the benchmark: commit the new files
 * with the reason. heldout.json is never written here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { maskJson, type Answer, type MaskRules } from './compare.js';
import { APPS, appDir, captureRequests, heldOut, send, startApp, type FidelityApp, type Req } from './harness.js';

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

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const isUuid = (s: string) => s.length === 36 && s.replace(UUID, '') === '';

interface HarAnswer {
  request: { method: string; url: string };
  response: { content?: { text?: string; encoding?: string } };
}

/**
 * The answers capture.har recorded to the capture's own API requests (captureRequests' order),
 * parsed as JSON where they are; undefined where not.
 */
function recordedAnswers(app: FidelityApp): unknown[] {
  const entries = (JSON.parse(readFileSync(join(appDir(app), 'capture.har'), 'utf8')) as { log: { entries: HarAnswer[] } }).log.entries;
  let at = 0;
  return captureRequests(app).map((r) => {
    while (at < entries.length) {
      const e = entries[at++];
      const u = new URL(e.request.url);
      if (e.request.method !== r.method || u.pathname + u.search !== r.path) continue;
      const c = e.response.content;
      const text = c?.text === undefined ? '' : c.encoding === 'base64' ? Buffer.from(c.text, 'base64').toString('utf8') : c.text;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined;
      }
    }
    return undefined;
  });
}

/**
 * The truth run's renaming of drawn ids. `pair` walks the capture's recorded answer and the
 * app's live answer to the same request side by side: a UUID in one and another UUID at the same
 * place in the other are the same object, drawn twice (the first pairing of either id holds).
 * `request` puts the app's ids for the capture's in a request's path and body; `answer` puts the
 * capture's back in an answer, so the truth reads as if the app had drawn the capture's ids.
 * Apps whose ids are the same in both runs (json-server's, counted or sent by the session) pair
 * nothing, and their requests and answers pass unchanged.
 */
function drawnIds() {
  const toLive = new Map<string, string>();
  const toCapture = new Map<string, string>();
  const pair = (rec: unknown, live: unknown): void => {
    if (typeof rec === 'string' && typeof live === 'string') {
      if (rec !== live && isUuid(rec) && isUuid(live) && !toLive.has(rec.toLowerCase()) && !toCapture.has(live.toLowerCase())) {
        toLive.set(rec.toLowerCase(), live);
        toCapture.set(live.toLowerCase(), rec);
      }
    } else if (Array.isArray(rec) && Array.isArray(live)) {
      rec.forEach((v, i) => pair(v, live[i]));
    } else if (rec && live && typeof rec === 'object' && typeof live === 'object') {
      for (const [k, v] of Object.entries(rec)) pair(v, (live as Record<string, unknown>)[k]);
    }
  };
  const swap = (s: string, m: Map<string, string>) => s.replace(UUID, (u) => m.get(u.toLowerCase()) ?? u);
  const deep = (v: unknown): unknown =>
    typeof v === 'string'
      ? swap(v, toCapture)
      : Array.isArray(v)
        ? v.map(deep)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [swap(k, toCapture), deep(x)]))
          : v;
  return {
    pair,
    request: <R extends Req>(r: R): R =>
      toLive.size === 0 ? r : { ...r, path: swap(r.path, toLive), ...(r.body === undefined ? {} : { body: swap(r.body, toLive) }) },
    answer: (a: Answer): Answer =>
      toCapture.size === 0
        ? a
        : {
            ...a,
            ...(a.json === undefined ? {} : { json: deep(a.json) }),
            ...(a.text === undefined ? {} : { text: swap(a.text, toCapture) }),
          },
  };
}

const sameMasked = (mask: MaskRules, a: unknown, b: unknown) => JSON.stringify(maskJson(a, mask)) === JSON.stringify(maskJson(b, mask));

async function recordTruth(app: FidelityApp): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), `fidelity-${app.name}-`));
  const running = await startApp(app, work);
  try {
    const ids = drawnIds();
    const recorded = recordedAnswers(app);
    // The truth run must reach the state the capture left: each of the capture's own reads
    // answers here as the capture recorded it (apps whose answers carry clocks or drawn ids are
    // compared after their mask; a difference is reported on stderr and kept in truth.json).
    const differs: string[] = [];
    const isRead = app.isRead ?? ((r: Req) => r.method === 'GET');
    for (const [i, r] of captureRequests(app).entries()) {
      const live = await send(running.base, ids.request(r), app.headers);
      ids.pair(recorded[i], live.json);
      const mine = ids.answer(live).json;
      if (isRead(r) && recorded[i] !== undefined && !sameMasked(app.mask, recorded[i], mine))
        differs.push(`${r.method} ${r.path}${r.method === 'GET' ? '' : ` (the capture's request ${i + 1})`}`);
    }
    if (differs.length)
      process.stderr.write(
        `${app.name}: warning: the truth run may not stand where the capture left the app; these reads answered otherwise than the capture recorded: ${differs.join('; ')}\n`,
      );
    const answers = [];
    for (const r of heldOut(app))
      answers.push({
        id: r.id,
        kind: r.kind,
        method: r.method,
        path: r.path,
        ...ids.answer(await send(running.base, ids.request(r), app.headers)),
      });
    const truth = {
      about: `The answers of ${app.about}, after the capture's own requests, to heldout.json in order. Written by npm run fidelity:record; never by capstate.`,
      ...(differs.length ? { capture_reads_differing: differs } : {}),
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
  const truthOnly = process.argv.includes('--truth-only');
  const wanted = process.argv.slice(2).filter((a) => a !== '--truth-only');
  const unknown = wanted.filter((w) => !APPS.some((a) => a.name === w));
  if (unknown.length) throw new Error(`unknown app ${unknown.join(', ')}; apps: ${APPS.map((a) => a.name).join(', ')}`);
  for (const app of APPS.filter((a) => wanted.length === 0 || wanted.includes(a.name))) {
    const n = truthOnly ? captureRequests(app).length : await recordCapture(app);
    const t = await recordTruth(app);
    process.stderr.write(
      `${app.name}: capture.har ${truthOnly ? 'kept' : 'recorded'} with ${n} API requests, truth.json with ${t} answers\n`,
    );
  }
}

main().catch((e) => {
  process.stderr.write(`fidelity:record: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
