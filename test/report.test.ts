/**
 * `capstate report` (issue 19): one self-contained HTML page of a capture, checked in real
 * Chromium against the stored state (`capstate state --json`) and the final views: every
 * admitted request a mark in its tool's lane, writes and initial reads marked as the store
 * says, each type's bound drawn at its write, each type's entities as a table, each read
 * tool's plan. Captured text is hostile: it must show as text, never run or load anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { withSandboxFallback } from '../src/browser/launch.js';
import { CHROMIUM, describeBrowser } from './browser-app.js';
import { cli, fixture, tempDir } from './helpers.js';
import { writeHar } from './har-builder.js';

const dir = tempDir();

interface StateDoc {
  types: { collection: string; root_path: string; bound: { rule: string; write_ordinal: number } | null }[];
  entities: { collection: string; id: string; value: unknown }[];
  plans: { tool: string; kind: string }[];
}

function ok(args: string[]) {
  const r = cli(args);
  expect(r.status, r.stderr).toBe(0);
  return r;
}
const column = (db: string, query: string) =>
  (JSON.parse(ok(['sql', query, '--db', db, '--json']).stdout).rows as Record<string, unknown>[]).map((r) => Object.values(r)[0]);

let browser: Browser;
/** Opens `file` in Chromium; `requests` lists every URL the page asked for. */
async function open(file: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
  return { page, requests };
}

describeBrowser('report: the page against the stored state (grafana fixture)', () => {
  const db = join(dir, 'grafana.sqlite');
  const html = join(dir, 'grafana.html');
  let state: StateDoc;
  let page: Page;
  let requests: string[];

  beforeAll(async () => {
    ok(['load', fixture('grafana', 'capture.har'), '--db', db, '--quiet']);
    const r = ok(['report', db, '--out', html]);
    expect(r.stderr).toContain(`wrote ${html}`);
    state = JSON.parse(ok(['state', '--db', db, '--json']).stdout) as StateDoc;
    browser = await withSandboxFallback((args) => chromium.launch({ executablePath: CHROMIUM, args }));
    ({ page, requests } = await open(html));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('is one self-contained file: opening it requests nothing but itself', async () => {
    expect(requests).toEqual([pathToFileURL(html).href]);
    const text = readFileSync(html, 'utf8');
    // No element or rule that could fetch: scripts, links, images, frames, CSS imports or urls.
    expect(text).not.toMatch(/<(script|link|img|iframe|object|embed)\b|@import|url\(/i);
    expect(text).toContain("default-src 'none'");
    expect(await page.title()).toContain('capstate report');
  });

  it('has a mark per admitted request, in timeline order, in its tool lane; writes and initial reads as the store says', async () => {
    const marks = await page.$$eval('rect.mark', (els) =>
      els.map((e) => ({
        ordinal: Number(e.getAttribute('data-ordinal')),
        tool: e.getAttribute('data-tool'),
        cls: e.getAttribute('class'),
      })),
    );
    expect(marks.map((m) => m.ordinal)).toEqual(column(db, 'select ordinal from records_timeline order by timeline_position'));
    const tools = column(
      db,
      'select o.name from records_timeline t join record r on r.id = t.record_id join tool o on o.id = r.tool_id order by t.timeline_position',
    );
    expect(marks.map((m) => m.tool)).toEqual(tools);
    const writes = column(db, 'select ordinal from writes order by ordinal');
    expect(writes.length).toBeGreaterThan(0);
    expect(
      marks
        .filter((m) => m.cls!.split(' ').includes('write'))
        .map((m) => m.ordinal)
        .sort((a, b) => a - b),
    ).toEqual(writes);
    const initial = column(
      db,
      'select r.ordinal from state_records s join record r on r.id = s.record_id where s.is_initial = 1 order by r.ordinal',
    );
    expect(initial.length).toBeGreaterThan(0);
    expect(
      marks
        .filter((m) => m.cls!.split(' ').includes('initial'))
        .map((m) => m.ordinal)
        .sort((a, b) => a - b),
    ).toEqual(initial);
    // Each mark sits in the lane of its tool.
    const inLane = await page.$$eval('rect.mark', (els) =>
      els.every((e) => {
        const lane = [...document.querySelectorAll('g.lane')].find((g) => g.getAttribute('data-tool') === e.getAttribute('data-tool'));
        const bg = lane?.querySelector('rect.lane-bg');
        if (!bg) return false;
        const a = e.getBoundingClientRect(),
          b = bg.getBoundingClientRect();
        return a.top >= b.top && a.bottom <= b.bottom;
      }),
    );
    expect(inLane).toBe(true);
  });

  it("draws each bounded type's bound at its write's mark, and shades its initial window up to it", async () => {
    const bounded = state.types.filter((t) => t.bound);
    expect(bounded.length).toBeGreaterThan(0);
    const lines = await page.$$eval('line.bound', (els) =>
      els.map((e) => ({
        collection: e.getAttribute('data-collection'),
        ordinal: Number(e.getAttribute('data-write-ordinal')),
        x: Number(e.getAttribute('x1')),
      })),
    );
    expect(lines.map((l) => [l.collection, l.ordinal])).toEqual(bounded.map((t) => [t.collection, t.bound!.write_ordinal]));
    for (const l of lines) {
      const mark = await page.$eval(
        `rect.mark[data-ordinal="${l.ordinal}"]`,
        (e) => Number(e.getAttribute('x')) + Number(e.getAttribute('width')) / 2,
      );
      expect(Math.abs(mark - l.x), l.collection!).toBeLessThan(0.2);
      const windows = await page.$$eval(`g.lane[data-collection="${l.collection}"] rect.window`, (els) =>
        els.map((e) => Number(e.getAttribute('x')) + Number(e.getAttribute('width'))),
      );
      expect(windows.length).toBeGreaterThan(0);
      for (const end of windows) expect(Math.abs(end - l.x)).toBeLessThan(0.2);
    }
  });

  it('shows each type with its entities as a table, rows in state order', async () => {
    for (const t of state.types) {
      const ids = await page.$$eval(`table.entities[data-collection="${t.collection}"] tbody tr`, (els) =>
        els.map((e) => e.getAttribute('data-id')),
      );
      expect(ids, t.collection).toEqual(state.entities.filter((e) => e.collection === t.collection).map((e) => e.id));
    }
    // A field's value is in its column.
    const folder = state.entities.find((e) => e.collection === 'folders')!.value as Record<string, unknown>;
    const headers = await page.$$eval('table.entities[data-collection="folders"] thead th', (els) => els.map((e) => e.textContent));
    const cells = await page.$$eval('table.entities[data-collection="folders"] tbody tr:first-child td', (els) =>
      els.map((e) => e.textContent),
    );
    expect(cells[headers.indexOf('title')]).toBe(folder.title);
  });

  it('lists every read tool with its plan in plain words (no rule IDs), and every document', async () => {
    const rows = await page.$$eval('table.plans tbody tr', (els) =>
      els.map((e) => ({ tool: e.getAttribute('data-tool'), kind: e.getAttribute('data-kind'), text: e.textContent })),
    );
    expect(rows.map((r) => [r.tool, r.kind])).toEqual(state.plans.map((p) => [p.tool, p.kind]));
    for (const r of rows) expect(r.text, r.tool!).not.toMatch(/\b(ES|OQ|DOC|BS)-\d+|§\d/);
    expect(await page.$$eval('section.document', (els) => els.length)).toBe(
      (JSON.parse(ok(['state', '--db', db, '--json']).stdout) as { documents: unknown[] }).documents.length,
    );
  });

  it('renders: a screenshot of the page is taken', async () => {
    const shot = join(dir, 'grafana-report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);
    expect(readFileSync(shot).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    const box = await page.$eval('#timeline-svg', (e) => e.getBoundingClientRect().height);
    expect(box).toBeGreaterThan(100);
  });
});

describeBrowser('report: captured text is shown, never run', () => {
  const attack = '<script>window.__pwned = 1</script><img src="http://127.0.0.1:9/x" onerror="window.__pwned = 2">';
  const db = join(dir, 'hostile.sqlite');
  const html = join(dir, 'hostile.html');

  beforeAll(async () => {
    const har = writeHar(dir, 'hostile.har', [
      { url: 'http://app.test/api/notes', body: [{ id: 1, title: attack, tag: '"><b>x</b>' }] },
      { url: 'http://app.test/api/notes/1', body: { id: 1, title: attack, tag: '"><b>x</b>' } },
      { url: 'http://app.test/api/about', body: { motto: attack } },
    ]);
    ok(['load', har, '--db', db, '--quiet']);
    ok(['report', db, '--out', html]);
    browser ??= await withSandboxFallback((args) => chromium.launch({ executablePath: CHROMIUM, args }));
    if (!browser.isConnected()) browser = await withSandboxFallback((args) => chromium.launch({ executablePath: CHROMIUM, args }));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an entity value and a document holding HTML show it as text: no script runs, no element is made, nothing is fetched', async () => {
    const { page, requests } = await open(html);
    expect(requests).toEqual([pathToFileURL(html).href]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$eval('script, img, b', (els) => els.length)).toBe(0);
    const cells = await page.$$eval('table.entities td', (els) => els.map((e) => e.textContent));
    expect(cells).toContain(attack);
    expect(cells).toContain('"><b>x</b>');
    expect(JSON.parse((await page.$eval('#documents pre', (e) => e.textContent))!).motto).toBe(attack);
  });
});

describe('report: where it reads from and writes to', () => {
  it('takes a capture file as the positional (loaded into a temporary store) and prints the page with --out -', () => {
    const db = join(dir, 'mini.sqlite');
    ok(['load', fixture('grafana-mini', 'capture.har'), '--db', db, '--quiet']);
    const fromStore = ok(['report', '--db', db, '--out', '-']).stdout;
    const fromCapture = ok(['report', fixture('grafana-mini', 'capture.har'), '--out', '-']).stdout;
    expect(fromStore.startsWith('<!doctype html>')).toBe(true);
    expect(fromCapture).toBe(fromStore);
    expect((fromStore.match(/<rect class="mark /g) ?? []).length).toBe(column(db, 'select count(*) from records_timeline')[0]);
  });

  it('a store whose state could not be used is reported as capstate state reports it, and no page is written', () => {
    const r = cli(['report', '--db', join(dir, 'missing.sqlite'), '--out', join(dir, 'none.html')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no store at .*missing\.sqlite; load a capture first/);
    expect(existsSync(join(dir, 'none.html'))).toBe(false);
  });
});
